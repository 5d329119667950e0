"""The gate: a client already over a budget is refused before the site does any work for it.

``bench_web.py --abuse`` found refusals that cost as much as answers: a refused
self-report ran sessions, CSRF, the entry's queries and SQLite's write lock (~26 ms), a
refused API read ran authentication and content negotiation before DRF's throttle, a refused
sign-in read the session and the form. With four sync workers, a script sending them as fast
as they were answered held the workers public standings needed.

Each limit still decides where it always did (the API's throttle, the self-report budget,
the sign-in budget); when it refuses, it also *shuts the gate* for that client: one cache key
saying until when. This middleware, first after SecurityMiddleware, reads that key (one cache
get, no database, no session) on the few requests a gate covers and answers a tiny 429
itself: JSON in the API's error shape under /api/, a short HTML page elsewhere, with
Retry-After. Other requests (public pages, static files) pay nothing but a path test.

- ``api``: anonymous API reads (no Authorization header, no session cookie: a signed-in
  user's or a token's budget is their own), per client address; shut by the anonymous
  throttle (tournament.api.throttling) for as long as it would refuse.
- ``self``: POSTs to a self-entry link, per token and minute; shut when the service refuses a
  report over the link's or the game's budget (malformed reports spend it too).
- ``self-link``: every request to a self-entry link, its page and its refresh as well as its
  POSTs (one token reading its page over 8 connections took public standings from
  728 to 28 req/s), per token and minute; shut here when the link sends more than
  ``SELF_REQUESTS_PER_MINUTE`` in a minute, whatever they are (counted before any query).
- sign-in POSTs (/accounts/login/, /admin/login/), per client address: refused while the
  address is over its sign-in failure budget (tournament.web.accounts.sign_in_wait), so a
  flood of made-up names checks no more passwords than the budget allows; a browser that
  signed in to the account before (tournament.web.accounts.known_device) goes on, and gets
  its cookie here on the way out.

Addresses come from tournament.throttle, the rule every per-address limit uses, and so does
the gate's store (``shut``, ``wait_at_gate``: the API shuts the gate too). If the cache fails
the gate stays open: the limits behind it still decide.
"""

from __future__ import annotations

import html
import json
import math
from collections.abc import Callable

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.utils import translation
from django.utils.translation import gettext as _

from tournament.errors import CODES
from tournament.throttle import client_address, gate_key, shut, wait_at_gate

from .language import early_language

# Requests one self-entry link may send in a minute, pages and POSTs together, whatever they
# change: a player opens their card, reports, confirms or disputes a handful of times a round
# and their open page asks 4 times a minute whether the opponent has answered; a script sends
# hundreds. Each page within it costs ~15 ms at 500 players (bench_web.py --abuse: 60 took
# half the crowd's rate in the minute they came).
SELF_REQUESTS_PER_MINUTE = 30
SIGN_IN_PATHS = ("/accounts/login/", "/admin/login/")


def _self_window() -> int:
    """The self-report budget's minute (the service's clock, which tests fix)."""
    from tournament.services import selfentry

    return int(selfentry._now() // 60)


def self_subject(token: str) -> str:
    return f"{token}:{_self_window()}"


def self_window_left() -> int:
    """Seconds to the end of the self-report budget's minute."""
    from tournament.services import selfentry

    return max(1, math.ceil(60 - selfentry._now() % 60))


def shut_self(token: str) -> None:
    """The link's budget is spent: its POSTs are refused at the gate for the rest of the
    minute (the key names the minute, so the next one opens it whatever the cache says)."""
    shut("self", self_subject(token), 120)


def _count_self_request(token: str) -> int:
    key = gate_key("self-requests", self_subject(token))
    try:
        cache.add(key, 0, timeout=120)
        return int(cache.incr(key))
    except Exception:  # noqa: BLE001 - expired between add and incr, or the cache failed
        return 0


def _tiny_html(heading: str, message: str, wait: int, link: str = "") -> HttpResponse:
    back = ""
    if link:
        words = _("Back to your scorecard")
        back = f'<p><a href="{html.escape(link)}">{html.escape(words)}</a></p>'
    page = (
        f'<!doctype html><html lang="{html.escape(translation.get_language() or "en")}">'
        '<head><meta charset="utf-8">'
        f"<title>{html.escape(heading)} - Gibson</title></head><body>"
        f'<h1>{html.escape(heading)}</h1><p role="alert">{html.escape(message)}</p>{back}'
        "</body></html>"
    )
    response = HttpResponse(page, status=429, content_type="text/html; charset=utf-8")
    response["Retry-After"] = str(wait)
    response["Cache-Control"] = "private, no-store"
    return _unlogged(response)


def _unlogged(response: HttpResponse) -> HttpResponse:
    """Django logs every 4xx as a warning; a flood's refusals would be a line each (hundreds
    a second, written by the workers the gate is sparing). The refusal that shut the gate was
    logged where it was made; the ones that follow are not."""
    response._has_been_logged = True  # type: ignore[attr-defined]
    return response


def _api_refusal(wait: int) -> HttpResponse:
    """The API's own 429 (tournament.api.errors), without DRF."""
    entry = {
        "code": "throttled",
        "field": "",
        "message": CODES["throttled"].format(wait=wait),
        "params": {"wait": wait},
    }
    response = HttpResponse(
        json.dumps({"errors": [entry]}), status=429, content_type="application/json"
    )
    response["Retry-After"] = str(wait)
    return _unlogged(response)


def _anonymous(request: HttpRequest) -> bool:
    return "HTTP_AUTHORIZATION" not in request.META and (
        settings.SESSION_COOKIE_NAME not in request.COOKIES
    )


class AbuseGate:
    """429 from one cache get for a client whose budget is already spent (module docstring)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        path = request.path_info
        if request.method == "POST" or path.startswith(("/api/", "/e/")):
            # before the language middleware: a refusal speaks the visitor's choice or
            # browser (the API: its Accept-Language); other requests pay nothing for it
            with translation.override(early_language(request)):
                refusal = self.refusal(request)
            if refusal is not None:
                return refusal
        response = self.get_response(request)
        if request.path_info in SIGN_IN_PATHS:
            from .accounts import set_device_cookie

            set_device_cookie(request, response)  # a sign-in: this browser is known now
        return response

    def refusal(self, request: HttpRequest) -> HttpResponse | None:
        path = request.path_info
        if path.startswith("/api/"):
            if request.method in ("GET", "HEAD", "OPTIONS") and _anonymous(request):
                wait = wait_at_gate("api", client_address(request) or "unknown")
                if wait:
                    return _api_refusal(wait)
            return None
        if path.startswith("/e/"):
            return self.self_entry(path, request.method == "POST")
        if request.method != "POST":
            return None
        if path in SIGN_IN_PATHS:
            from .accounts import known_device, paced_try, sign_in_refusal_text, sign_in_wait

            wait = sign_in_wait(request)
            # the flood's lock is for the guessing: the owner's known browser goes on (its
            # own budget), and so does a name's try after a short delay (paced_try); the
            # form is read only while the address is over its budget
            name = request.POST.get("username", "") if wait else ""
            if wait and not known_device(request, name) and not paced_try(request, name):
                return _tiny_html(_("Too many attempts"), sign_in_refusal_text(wait), wait)
        return None

    def self_entry(self, path: str, post: bool) -> HttpResponse | None:
        """A self-entry link's request: refused once the link's requests of the minute are
        spent (every request counts, its page as well as its POSTs), and a POST once its
        reports are."""
        from tournament.services.selfentry import _TOKEN_SHAPE, REPORTS_PER_MINUTE

        token = path[3:].split("/", 1)[0]
        if not _TOKEN_SHAPE.match(token):
            return None  # junk: the view's 404 (and its per-address count of wrong links)
        subject = self_subject(token)
        back = f"/e/{token}/" if post else ""
        if not wait_at_gate("self-link", subject):
            if post and wait_at_gate("self", subject):
                message = CODES["selfentry_too_many"].format(per_minute=REPORTS_PER_MINUTE["entry"])
                return _tiny_html(
                    _("Too many attempts"), _sentence(message), self_window_left(), back
                )
            if _count_self_request(token) <= SELF_REQUESTS_PER_MINUTE:
                return None
            # one cache read refuses the rest of the minute's requests
            shut("self-link", subject, 120)
        wait = self_window_left()
        message = CODES["selfentry_too_many_requests"].format(
            per_minute=SELF_REQUESTS_PER_MINUTE, seconds=wait
        )
        return _tiny_html(_("Too many requests"), _sentence(message), wait, back)


def _sentence(message: str) -> str:
    return message[:1].upper() + message[1:] + "."
