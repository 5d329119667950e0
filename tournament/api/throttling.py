"""Request rates: anonymous callers by address (DRF's AnonRateThrottle), signed-in users and
tokens by user (below)."""

from __future__ import annotations

from typing import Any

from rest_framework import throttling
from rest_framework.request import Request

from ..web.addresses import client_address


class AnonRateThrottle(throttling.AnonRateThrottle):
    """Anonymous callers by their real address (tournament.web.addresses): DRF's own class
    reads X-Forwarded-For from any client when NUM_PROXIES is unset, so a script sending a new
    made-up address with each request was never limited (650 of 650 answered)."""

    def get_ident(self, request: Request) -> str:
        return client_address(request) or "unknown"


class UserRateThrottle(throttling.UserRateThrottle):
    """Per signed-in user or token only. DRF's own class counts an anonymous request again
    under its address, beside AnonRateThrottle: a second cache write on every public read (a
    scoreboard's poll), which the file cache pays for with a file written and renamed."""

    def get_cache_key(self, request: Request, view: Any) -> str | None:
        if not (request.user and request.user.is_authenticated):
            return None
        return super().get_cache_key(request, view)
