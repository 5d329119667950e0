"""Request rates: anonymous callers by address (DRF's AnonRateThrottle), signed-in users and
tokens by user (below)."""

from __future__ import annotations

from typing import Any

from django.core.cache import cache as default_cache
from django.core.cache.backends.locmem import LocMemCache
from rest_framework import throttling
from rest_framework.request import Request

from ..web.addresses import client_address


class FallbackCache:
    """The site's cache for the throttles' counts, or this process's memory when it fails.

    With Redis down every API request used to be a 500 (the throttle's cache read raised),
    although results and pages work without Redis. Counting per process while the shared
    cache is gone keeps a limit (each worker's own) and never fails a request for it.
    """

    def __init__(self) -> None:
        self.local = LocMemCache("gibson-throttle", {"TIMEOUT": 3600, "OPTIONS": {}})

    def get(self, key: str, default: Any = None) -> Any:
        try:
            return default_cache.get(key, default)
        except Exception:  # noqa: BLE001 - any cache backend's failure
            return self.local.get(key, default)

    def set(self, key: str, value: Any, timeout: Any = None) -> None:
        try:
            default_cache.set(key, value, timeout)
        except Exception:  # noqa: BLE001
            self.local.set(key, value, timeout)


FALLBACK_CACHE = FallbackCache()


class AnonRateThrottle(throttling.AnonRateThrottle):
    """Anonymous callers by their real address (tournament.web.addresses): DRF's own class
    reads X-Forwarded-For from any client when NUM_PROXIES is unset, so a script sending a new
    made-up address with each request was never limited (650 of 650 answered)."""

    cache = FALLBACK_CACHE

    def get_ident(self, request: Request) -> str:
        return client_address(request) or "unknown"


class UserRateThrottle(throttling.UserRateThrottle):
    """Per signed-in user or token only. DRF's own class counts an anonymous request again
    under its address, beside AnonRateThrottle: a second cache write on every public read (a
    scoreboard's poll), which the file cache pays for with a file written and renamed."""

    cache = FALLBACK_CACHE

    def get_cache_key(self, request: Request, view: Any) -> str | None:
        if not (request.user and request.user.is_authenticated):
            return None
        return super().get_cache_key(request, view)
