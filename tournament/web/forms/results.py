"""Forms of the console's result entry: the one-line box, a correction, a disputed game."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy

from ...scoreline import FORMS, MAX_SCORE


class ResultLineForm(forms.Form):
    """The one box a scorekeeper types every result into; the service reads the line.

    No client-side checks beyond the length: the line's meaning depends on the round's
    pairings, so the refusal comes from the server with its reason (and the box keeps focus).
    """

    line = forms.CharField(
        label=gettext_lazy("Result"),
        max_length=60,
        strip=True,
        error_messages={
            "required": format_lazy(gettext_lazy("type a result, e.g. {forms}"), forms=FORMS)
        },
        widget=forms.TextInput(
            attrs={
                "autofocus": True,
                "autocomplete": "off",
                "autocapitalize": "off",
                "autocorrect": "off",
                "spellcheck": "false",
                "enterkeyhint": "enter",
                "aria-describedby": "result-help id_line_error",
                "size": 18,
            }
        ),
    )
    # Set by the page's script when the box was refilled with the last line (ArrowUp): the
    # scorekeeper means to change that game, so a refusal opens its correction ready to type.
    reopened = forms.BooleanField(required=False, widget=forms.HiddenInput)
    # The round as the page showed it ("3=412 389|17=389 412|..."), refreshed with the table
    # after every line: a correction line is refused if its game changed since (another desk).
    seen = forms.CharField(required=False, max_length=20000, widget=forms.HiddenInput)

    def seen_map(self) -> dict[int, str] | None:
        """The ``seen`` field as {player number: what their game showed}; None when absent
        (a client without the page, e.g. a script posting lines), so nothing is compared."""
        raw = self.cleaned_data.get("seen") or ""
        if not raw:
            return None
        seen: dict[int, str] = {}
        for item in raw.split("|"):
            number, _, shown = item.partition("=")
            if number.isascii() and number.isdigit() and shown:
                seen[int(number)] = shown
        return seen


def encode_seen(seen: dict[int, str]) -> str:
    """The round's ``round_seen`` as the result box's hidden ``seen`` value."""
    return "|".join(f"{number}={shown}" for number, shown in sorted(seen.items()))


def _score_field(label: Any) -> forms.IntegerField:
    score_range = format_lazy(gettext_lazy("a score is from 0 to {max}"), max=MAX_SCORE)
    return forms.IntegerField(
        label=label,
        min_value=0,
        max_value=MAX_SCORE,
        error_messages={
            "required": gettext_lazy("give the score"),
            "invalid": gettext_lazy("give a whole number"),
            "min_value": score_range,
            "max_value": score_range,
        },
        widget=forms.NumberInput(attrs={"inputmode": "numeric", "style": "width:6em"}),
    )


class CorrectionForm(forms.Form):
    """New scores for a recorded game, in the game's order, and the reason (required)."""

    game = forms.IntegerField(widget=forms.HiddenInput)
    # The stored scores the form was shown with (game order): a stale one is refused.
    seen = forms.CharField(required=False, max_length=40, widget=forms.HiddenInput)
    score1 = _score_field(gettext_lazy("First player's score"))
    score2 = _score_field(gettext_lazy("Second player's score"))
    reason = forms.CharField(
        label=gettext_lazy("Reason"),
        max_length=300,
        strip=True,
        error_messages={
            "required": gettext_lazy("a correction needs a reason (it goes to the audit trail)")
        },
        widget=forms.TextInput(attrs={"autocomplete": "off", "size": 24}),
    )

    def label_for(self, game) -> None:
        """Name the two score fields after the game's players."""
        self.fields["score1"].label = f"#{game.player1.number} {game.player1.name}"
        if game.player2_id:
            self.fields["score2"].label = f"#{game.player2.number} {game.player2.name}"


class DisputeForm(forms.Form):
    """A director's scores for a game whose double-entry cards disagree (game order)."""

    game = forms.IntegerField(widget=forms.HiddenInput)
    score1 = _score_field(gettext_lazy("First player's score"))
    score2 = _score_field(gettext_lazy("Second player's score"))


class DoubleEntryForm(forms.Form):
    on = forms.BooleanField(required=False)
