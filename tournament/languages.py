"""The language of what a room or a stream sees (shared by every face, so it lives outside
them): the venue screen, a club night's big screen and the broadcast overlays are shown to
everyone at once, not to one visitor, so they follow the tournament's language rather than a
browser's.

The language middleware (tournament/web/language.py) decides it, once, before the view runs:
the room's own address (``?lang=xx``) when it asks for one of the site's languages, else the
tournament's. The views render in whatever language is active; what they take from here is
how the address asks (:func:`lang_query`), so that a screen's refreshes keep asking the same.
"""

from __future__ import annotations

from django.http import HttpRequest
from django.utils import translation
from django.utils.translation.trans_real import language_code_re

# What an answer in the request's language varies on (the browser's languages, the switcher's
# cookie): the language middleware marks every HTML answer with it, and a 304 to such a page
# must name it too (tournament/cache.py's not_modified)
LANGUAGE_VARY = ("Accept-Language", "Cookie")


def supported(code: str | None) -> str | None:
    """``code`` as one of settings.LANGUAGES (``fr-CA`` is ``fr``), or None."""
    if not code or not language_code_re.search(code):
        return None
    try:  # lower case: "FR" and "fr" are one language, and one cache key
        return translation.get_supported_language_variant(code.lower())
    except LookupError:
        return None


def asked_language(request: HttpRequest | None) -> str | None:
    """The language a room's page is asked for in its own address (``?lang=xx``). Not the
    language cookie nor the browser's: the laptop driving a projector is not the room, and a
    director who reads the console in French should not turn the hall's screen French."""
    if request is None:
        return None
    return supported(request.GET.get("lang"))


def lang_query(request: HttpRequest | None) -> str:
    """``?lang=xx`` when a room's page was asked for in a language: its refreshes keep it."""
    chosen = asked_language(request)
    return f"?lang={chosen}" if chosen else ""
