"""``{{ result|result_letter }}``: a game's result letter (W, L, T) in the reader's language.

The cross table keeps the English letter as its CSS class (code compares it); only the letter
a reader sees is translated.
"""

from __future__ import annotations

from django import template
from django.utils.translation import pgettext

register = template.Library()


@register.filter
def result_letter(result: str) -> str:
    """The letter a reader sees: "W", "L" or "T" (tie) translated; anything else as is."""
    if result == "W":
        # Translators: one-letter result of a game won (cross table)
        return pgettext("game result letter", "W")
    if result == "L":
        # Translators: one-letter result of a game lost (cross table)
        return pgettext("game result letter", "L")
    if result == "T":
        # Translators: one-letter result of a tied game (cross table)
        return pgettext("game result letter", "T")
    return result
