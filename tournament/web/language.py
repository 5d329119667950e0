"""Which language a request is answered in.

A visitor's own choice comes first: the language switcher on every page posts to Django's
``set_language`` view, which remembers it in the language cookie. Without one, the browser's
``Accept-Language`` (its first language Gibson speaks), then the tournament's own language
(``Tournament.language``, for pages under ``/t/SLUG/``), then ``settings.LANGUAGE_CODE``.

Two kinds of request decide otherwise:

- the venue screen, the broadcast overlays and a club night's big screen (``/t/SLUG/screen/``,
  ``/t/SLUG/broadcast/``, ``/clubs/SLUG/nights/N/screen/``) are shown to a room, not to the
  laptop's owner: they speak the tournament's language (the night's tournament's), and only
  their own address can ask for another (``?lang=xx``, which their refreshes keep: a director
  checking the Spanish screen); never the cookie nor the browser, since the laptop driving a
  projector is not the room. This is the one place that rule is read: the views render in
  whatever language is active, and the page caches key by it (tournament/cache.py);
- the API (``/api/``) speaks what its caller's ``Accept-Language`` asks (a script has no
  cookie jar worth trusting), English otherwise; its codes and field names never change.

Django's LocaleMiddleware is not used: it marks every answer ``Vary: Accept-Language``,
tourney.js and the API's reads included, which are the same in every language. Here only
HTML answers say so. The public pages' caches hold the language in their keys
(tournament/cache.py), and the front tier in its own (tournament/management/front.py).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponseBase
from django.utils import translation
from django.utils.cache import patch_vary_headers
from django.utils.translation.trans_real import parse_accept_lang_header

from tournament.languages import LANGUAGE_VARY, asked_language, supported

# /t/SLUG/... : a tournament's pages, whose default language is the tournament's
TOURNAMENT_PATH = re.compile(r"^/t/(?P<slug>[-a-zA-Z0-9_]+)/")
# ... of which these are shown to a room: the tournament's language, whoever's browser it is
# (the screen itself, not its live strip, which the visitors' pages fetch)
ROOM_PATH = re.compile(r"^/t/[-a-zA-Z0-9_]+/(screen/$|broadcast/)")
# a club night's big screen: a room's too, in its night's tournament's language
NIGHT_SCREEN_PATH = re.compile(
    r"^/clubs/(?P<club>[-a-zA-Z0-9_]+)/nights/(?P<night>[0-9]+)/screen/$"
)
API_PREFIX = "/api/"


def chosen_language(request: HttpRequest) -> str | None:
    """The language the visitor chose with the switcher (Django's language cookie)."""
    return supported(request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME))


def browser_language(request: HttpRequest) -> str | None:
    """The first language of the browser's ``Accept-Language`` that Gibson speaks, as Django's
    own LocaleMiddleware picks it (by quality, then order); None when it asks for none."""
    header = request.META.get("HTTP_ACCEPT_LANGUAGE", "")
    for code, _quality in parse_accept_lang_header(header):
        if code == "*":
            break
        found = supported(code)
        if found:
            return found
    return None


def tournament_language(request: HttpRequest, slug: str) -> str | None:
    """The language of the tournament named by ``slug`` (None: no such tournament).

    Read with the tournament's version stamp (one query), which the page's cache needs next
    anyway: the page then takes it from the request instead of asking again."""
    from ..cache import request_version

    version = request_version(request, slug)
    return None if version is None else supported(version.language)


def is_room(request: HttpRequest) -> bool:
    """Whether ``request`` asks for a page shown to a room (a screen, an overlay)."""
    path = request.path_info
    return bool(ROOM_PATH.match(path) or NIGHT_SCREEN_PATH.match(path))


def night_language(club: str, night: str) -> str | None:
    """The language of a club night's tournament (None: no such night)."""
    from tournament.clubs.models import Night

    found = Night.objects.filter(club__slug=club, pk=int(night)).values_list(
        "tournament__language", flat=True
    )
    return supported(next(iter(found), None))


def room_language(request: HttpRequest) -> str:
    """The language a room's page is shown in: its address's ``?lang=``, else its tournament's."""
    found = asked_language(request)
    if found is None:
        match = TOURNAMENT_PATH.match(request.path_info)
        if match is not None:
            found = tournament_language(request, match["slug"])
        elif night := NIGHT_SCREEN_PATH.match(request.path_info):
            found = night_language(night["club"], night["night"])
    return found or settings.LANGUAGE_CODE


def resolve_language(request: HttpRequest) -> str:
    """The language ``request`` is answered in (see the module's docstring for the order)."""
    path = request.path_info
    if path.startswith(API_PREFIX):
        return browser_language(request) or settings.LANGUAGE_CODE
    if is_room(request):
        return room_language(request)
    match = TOURNAMENT_PATH.match(path)
    found = chosen_language(request) or browser_language(request)
    if found is None and match is not None:
        found = tournament_language(request, match["slug"])
    return found or settings.LANGUAGE_CODE


def early_language(request: HttpRequest) -> str:
    """The language of a refusal made before this middleware runs (the abuse gate, the size
    limit): the visitor's choice or browser, never a query (they run before the database is
    worth asking)."""
    if request.path_info.startswith(API_PREFIX):
        return browser_language(request) or settings.LANGUAGE_CODE
    return chosen_language(request) or browser_language(request) or settings.LANGUAGE_CODE


def _is_html(response: HttpResponseBase) -> bool:
    return response.get("Content-Type", "").startswith("text/html")


class LanguageMiddleware:
    """Activates the request's language for its view and templates (after the session
    middleware, before CommonMiddleware, where Django puts its own LocaleMiddleware)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        language = resolve_language(request)
        request.LANGUAGE_CODE = language
        # a room's screen takes no visitor's choice: base.html then offers none
        request.room_language = is_room(request)
        # the next thing this thread does (a test, a task) starts from where it was
        with translation.override(language):
            response = self.get_response(request)
        if _is_html(response):
            # the same address answers in several languages: caches and browsers must know
            patch_vary_headers(response, LANGUAGE_VARY)
            response.headers.setdefault("Content-Language", language)
        return response
