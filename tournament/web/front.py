"""How long the front tier (nginx, ``manage.py serve --front``) may keep an answer.

nginx keeps an answer for whole seconds counted from the second it arrived in, so "1 s" means
up to 2 s and a result could wait that long. Here each answer the app made for everyone is
told to the tier as ``X-Accel-Expires: @<the current second>``: kept until that second ends,
at most one second. nginx reads the header and never passes it to the client.

Only an answer the app itself marked ``public`` (pages, feeds, the API's anonymous reads: all
keyed by the data's versions) with no cookie being set, to a GET or HEAD without an
Authorization header, is marked; anything else is left as it is, and the tier never stores an
answer without the mark or one marked private (tournament/management/front.py). On only when
``GIBSON_FRONT_CACHE`` is set (``serve --front`` sets it for gunicorn): without the tier the
header would only be noise.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from django.conf import settings
from django.core.exceptions import MiddlewareNotUsed
from django.http import HttpRequest, HttpResponseBase

HEADER = "X-Accel-Expires"
_NOT_SHARED = ("private", "no-store", "no-cache")


def shareable(request: HttpRequest, response: HttpResponseBase) -> bool:
    """Whether ``response`` is the same for every anonymous visitor: the app said so
    (``public``, nothing private), it sets no cookie, and the request carried no credentials."""
    if request.method not in ("GET", "HEAD") or response.status_code not in (200, 304):
        return False
    if "HTTP_AUTHORIZATION" in request.META or response.cookies:
        return False
    control = response.get("Cache-Control", "").lower()
    return "public" in control and not any(word in control for word in _NOT_SHARED)


class FrontCacheMark:
    """Middleware, first in the list (it must see the cookies every other one set)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        if not getattr(settings, "FRONT_CACHE", False):
            raise MiddlewareNotUsed
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        response = self.get_response(request)
        if shareable(request, response):
            response[HEADER] = f"@{int(time.time())}"
        return response
