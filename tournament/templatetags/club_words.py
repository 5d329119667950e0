"""A club season's awards in the reader's language.

An archived season keeps its awards as data (``{"award": "high game", ...}``, read by the API
and stored once when the season closes), so the stored words stay English; this filter says
the same award to a reader of the pages in their own language.
"""

from __future__ import annotations

from django import template
from django.utils.translation import pgettext_lazy

register = template.Library()

AWARDS = {
    "champion": pgettext_lazy("a season's award", "champion"),
    "second": pgettext_lazy("a season's award", "second"),
    "third": pgettext_lazy("a season's award", "third"),
    "most wins": pgettext_lazy("a season's award", "most wins"),
    "most nights": pgettext_lazy("a season's award", "most nights"),
    "high game": pgettext_lazy("a season's award", "high game"),
    "best average": pgettext_lazy("a season's award", "best average"),
}


@register.filter
def award(key: str) -> str:
    """A stored award's name as the reader says it (an award this list does not know, as
    stored)."""
    return str(AWARDS.get(key, key))
