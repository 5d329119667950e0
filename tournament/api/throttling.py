"""Request rates: anonymous callers by address (DRF's AnonRateThrottle), signed-in users and
tokens by user (below)."""

from __future__ import annotations

from typing import Any

from django.core.cache import cache as default_cache
from django.core.cache.backends.locmem import LocMemCache
from rest_framework import throttling
from rest_framework.mixins import ListModelMixin
from rest_framework.request import Request

from ..throttle import client_address, shut


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


# Rows of a list page one request of the anonymous budget pays for (the default page size).
ROWS_PER_REQUEST = 100


def request_cost(request: Request, view: Any) -> int:
    """How many requests of the budget a read costs: one per started hundred rows a list
    serves (pages hold at most 200 rows, so ``?limit=1000`` is two). A thousand games
    serialized cost a fifth of a second, so 600 of them a minute from one address took both
    cores of a venue laptop; the page cap and this cost together bound the rows per minute."""
    if not isinstance(view, ListModelMixin):
        return 1  # one row, or a body of its own (standings)
    paginator = getattr(view, "paginator", None)
    if paginator is None or not hasattr(paginator, "get_limit"):
        return 1
    limit = paginator.get_limit(request) or ROWS_PER_REQUEST
    return max(1, -(-limit // ROWS_PER_REQUEST))


class AnonRateThrottle(throttling.AnonRateThrottle):
    """Anonymous callers by their real address (tournament.throttle): DRF's own class
    reads X-Forwarded-For from any client when NUM_PROXIES is unset, so a script sending a new
    made-up address with each request was never limited (650 of 650 answered). A big page
    counts as the requests its rows are worth (request_cost)."""

    cache = FALLBACK_CACHE

    def get_ident(self, request: Request) -> str:
        return client_address(request) or "unknown"

    def allow_request(self, request: Request, view: Any) -> bool:
        self.cost = request_cost(request, view)
        if super().allow_request(request, view):
            return True
        # Refused: until the budget has room again, the address's anonymous reads are
        # refused at the gate (tournament.web.gate) from one cache get, before sessions,
        # authentication and negotiation (a flood of refusals held the workers before).
        wait = self.wait()
        if wait:
            shut("api", self.get_ident(request), wait)
        return False

    def wait(self) -> float | None:
        """Seconds until the history holds fewer than the rate's requests again: when the
        entry that fills the budget leaves the window (DRF's own guess divides the time left
        by the room left, which is none once a big page overdrew the budget)."""
        history = getattr(self, "history", None)
        if not history or len(history) < self.num_requests:
            return super().wait()
        filling = history[self.num_requests - 1]  # newest first
        return max(1.0, self.duration - (self.now - filling))

    def throttle_success(self) -> bool:
        self.history[:0] = [self.now] * getattr(self, "cost", 1)
        self.cache.set(self.key, self.history, self.duration)
        return True


class UserRateThrottle(throttling.UserRateThrottle):
    """Per signed-in user or token only. DRF's own class counts an anonymous request again
    under its address, beside AnonRateThrottle: a second cache write on every public read (a
    scoreboard's poll), which the file cache pays for with a file written and renamed."""

    cache = FALLBACK_CACHE

    def get_cache_key(self, request: Request, view: Any) -> str | None:
        if not (request.user and request.user.is_authenticated):
            return None
        return super().get_cache_key(request, view)
