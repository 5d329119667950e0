"""The events calendar's words in the reader's language.

The calendar's selector (``tournament.selectors.calendar``) writes an event's status, a
division's rating band and the entries' state in English because the API serves them as data;
these filters say the same things to a reader of the pages in their own language.
"""

from __future__ import annotations

import re
from typing import Any

from django import template
from django.utils.translation import gettext as _
from django.utils.translation import pgettext

register = template.Library()

_ENTRIES = re.compile(r"^open (from|until) (\d{4}-\d{2}-\d{2})$")


@register.filter
def event_status(status: str) -> str:
    """ "upcoming", "in play" or "finished" as the reader says it."""
    if status == "upcoming":
        return pgettext("event status", "upcoming")
    if status == "in play":
        return pgettext("event status", "in play")
    if status == "finished":
        return pgettext("event status", "finished")
    return status


def band_text(division: Any) -> str:
    """The ratings a division admits ("1200-1599", "up to 1199", "any rating") in words."""
    lo, hi = division.rating_min, division.rating_max
    if lo is None and hi is None:
        return _("any rating")
    if lo is None:
        return _("up to {rating}").format(rating=hi)
    if hi is None:
        return _("{rating} and up").format(rating=lo)
    return f"{lo}-{hi}"


@register.filter
def rating_band(division: Any) -> str:
    return band_text(division)


def entries_text(text: str) -> str:
    """The entries' state ("open until 2026-12-01", "open from ...", "closed") in words."""
    if text == "closed":
        return pgettext("entries", "closed")
    found = _ENTRIES.match(text)
    if found is None:
        return text
    if found.group(1) == "from":
        return _("open from {date}").format(date=found.group(2))
    return _("open until {date}").format(date=found.group(2))


@register.filter
def entries_state(text: str) -> str:
    return entries_text(text)
