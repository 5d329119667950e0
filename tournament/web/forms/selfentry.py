"""Forms of a player's own page (/e/TOKEN/): report a game, confirm or dispute the opponent's.

Scores are checked here for shape and range (the message stands at the field); the service
checks them again with the game in hand, and its refusals go to the field they name.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.text import format_lazy
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from ...models import MAX_ABS_SCORE


class ScoreField(forms.IntegerField):
    """A score typed with the digits 0-9 only: Python's int() also reads "٤١٢" as 412, which
    nobody at a board meant to type (the services refuse it the same way)."""

    def to_python(self, value):
        text = "" if value is None else str(value).strip()
        if text and not text.isascii():
            raise forms.ValidationError(_("type the score with the digits 0-9"), code="invalid")
        return super().to_python(value)


def _score_field(label: Any) -> forms.IntegerField:
    score_range = format_lazy(gettext_lazy("a score is from 0 to {max}"), max=MAX_ABS_SCORE)
    return ScoreField(
        label=label,
        min_value=0,
        max_value=MAX_ABS_SCORE,
        error_messages={
            "required": gettext_lazy("give the score"),
            "invalid": gettext_lazy("give a whole number, e.g. 412"),
            "min_value": score_range,
            "max_value": score_range,
        },
        widget=forms.NumberInput(
            attrs={"inputmode": "numeric", "min": 0, "max": MAX_ABS_SCORE, "class": "score"}
        ),
    )


class ReportForm(forms.Form):
    """Both scores of the player's current game, their own first; ``round`` is the round the
    page showed, so a report sent after the round moved on is refused, not misfiled."""

    round = forms.CharField(widget=forms.HiddenInput, max_length=12)
    score = _score_field(gettext_lazy("Your score"))
    opp_score = _score_field(gettext_lazy("Opponent's score"))

    def label_for(self, opponent_name: str) -> None:
        self.fields["opp_score"].label = _("{name}'s score").format(name=opponent_name)


class ConfirmForm(forms.Form):
    """Agree with the opponent's report: the game is recorded."""

    pending = forms.CharField(widget=forms.HiddenInput, max_length=12)


class DisputeForm(forms.Form):
    """The scores as this player read them (their own first), against the opponent's report."""

    pending = forms.CharField(widget=forms.HiddenInput, max_length=12)
    score = _score_field(gettext_lazy("Your score"))
    opp_score = _score_field(gettext_lazy("Opponent's score"))

    def label_for(self, opponent_name: str) -> None:
        self.fields["opp_score"].label = _("{name}'s score").format(name=opponent_name)
