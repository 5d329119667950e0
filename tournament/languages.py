"""The language of what a room or a stream sees (shared by every face, so it lives outside
them): the venue screen, a club night's big screen and the broadcast overlays are shown to
everyone at once, not to one visitor, so they follow the tournament's language rather than a
browser's.

One place decides it (:func:`room_language`), so the languages wave's locale mechanism can take
it over whole: an explicit choice carried by the request (``?lang=xx`` or the language cookie)
wins; otherwise the tournament's ``language`` when it has one; otherwise the language already
active (the site's default unless the locale mechanism chose another).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http import HttpRequest
from django.utils import translation


def _known(code: str | None) -> str | None:
    """``code`` if it is one of the site's languages, else None."""
    if not code:
        return None
    code = code.strip().lower()
    return code if code in dict(settings.LANGUAGES) else None


def explicit_language(request: HttpRequest | None) -> str | None:
    """The language the screen's own address asks for (``?lang=xx``, which its refreshes
    keep). Not the language cookie nor the browser's: the laptop driving a projector is not
    the room, and a director who reads the console in French should not turn the hall's
    screen French."""
    if request is None:
        return None
    return _known(request.GET.get("lang"))


def room_language_code(request: HttpRequest | None, tournament: Any) -> str:
    """The language a room's screen or a stream's overlay of ``tournament`` is shown in."""
    return (
        explicit_language(request)
        or _known(getattr(tournament, "language", None))
        or translation.get_language()
        or settings.LANGUAGE_CODE
    )


def room_language(request: HttpRequest | None, tournament: Any) -> translation.override:
    """``with room_language(request, tournament):`` renders in the room's language."""
    return translation.override(room_language_code(request, tournament))
