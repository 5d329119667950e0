"""The pairing page's forms: swap two players, pin a pair, publish the round.

The page is stateless: each form carries the whole proposed pairing in hidden fields (``games``
as "first-second" pairs, 0 for the bye; ``pins``; the ``system``), and the shell
(pairings.services.edit_proposal) validates it again on every request. Here only the shape
is checked; whether the pairs make a round is the shell's question.
"""

from __future__ import annotations

import re
from typing import Any

from django import forms
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy

from tournament.errors import CODES, ServiceError

ACTIONS = ("swap", "pin", "publish")
PAIR = re.compile(r"(\d{1,6})-(\d{1,6})", re.ASCII)
MAX_PAIRS = 5000  # far beyond any division; a form with more is not ours

LABELS = {
    "swap": (gettext_lazy("Swap player"), gettext_lazy("with player")),
    "pin": (gettext_lazy("Pin player"), gettext_lazy("to play player")),
}


def encode_pairs(pairs: list[tuple[int, int]]) -> str:
    """Pairs as the hidden field carries them: "12-5 3-8 7-0"."""
    return " ".join(f"{a}-{b}" for a, b in pairs)


def parse_pairs(text: str) -> list[tuple[int, int]]:
    """The hidden field's pairs; a ValidationError with the neutral message if unreadable."""
    tokens = text.replace(",", " ").split()
    if len(tokens) > MAX_PAIRS:
        raise forms.ValidationError(
            ServiceError("pairing_malformed", detail=f"more than {MAX_PAIRS} games").message
        )
    out = []
    for token in tokens:
        m = PAIR.fullmatch(token)
        if m is None:
            raise forms.ValidationError(
                ServiceError("pairing_malformed", detail=f"{token[:20]!r} is not a pair").message
            )
        out.append((int(m.group(1)), int(m.group(2))))
    return out


class PairingEditForm(forms.Form):
    """One of the page's three forms; ``action`` (swap, pin, publish) is also its prefix."""

    games = forms.CharField(
        widget=forms.HiddenInput,
        max_length=100_000,
        # worded when shown, in the reader's language (the form class is built at import)
        error_messages={"required": format_lazy(CODES["pairing_malformed"], detail="no games")},
    )
    pins = forms.CharField(widget=forms.HiddenInput, required=False, max_length=10_000)
    system = forms.CharField(widget=forms.HiddenInput, required=False, max_length=20)
    a = forms.IntegerField(min_value=1, max_value=999_999)
    b = forms.IntegerField(min_value=1, max_value=999_999)

    def __init__(self, *args: Any, action: str, **kwargs: Any) -> None:
        super().__init__(*args, prefix=action, **kwargs)
        self.action = action
        if action in LABELS:
            for name, label in zip(("a", "b"), LABELS[action], strict=True):
                self.fields[name].label = label
                self.fields[name].widget.attrs.update(
                    {"inputmode": "numeric", "autocomplete": "off", "size": 4}
                )
        else:
            del self.fields["a"], self.fields["b"]

    def clean_games(self) -> list[tuple[int, int]]:
        pairs = parse_pairs(self.cleaned_data["games"])
        if not pairs:
            raise forms.ValidationError(
                ServiceError("pairing_malformed", detail="no games").message
            )
        return pairs

    def clean_pins(self) -> list[tuple[int, int]]:
        return parse_pairs(self.cleaned_data.get("pins") or "")

    def clean_system(self) -> str | None:
        return self.cleaned_data.get("system") or None

    def edit(self) -> dict[str, tuple[int, int] | None]:
        """The swap or pin asked for, as edit_proposal's keyword arguments."""
        if self.action not in LABELS:
            return {}
        return {self.action: (self.cleaned_data["a"], self.cleaned_data["b"])}
