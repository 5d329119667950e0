"""Forms of entries online: the public entry form and the console's entry settings.

Fields take text as typed; the services (tournament.services.online_entries) check it and
name the field they refuse, which the page shows beside that field.
"""

from __future__ import annotations

from typing import Any

from django import forms

from ...models import Division


class EntryForm(forms.Form):
    """A player's entry: a division, themself (picked from the registry or a name), their
    e-mail address (for the confirmation link, unless signed in) and the notices opt-in."""

    division = forms.ChoiceField(label="Division")
    player = forms.CharField(required=False, widget=forms.HiddenInput)
    name = forms.CharField(
        label="Your name",
        required=False,
        max_length=400,
        help_text='"Surname, Given", as rating lists show it; or search for yourself above',
    )
    email = forms.CharField(
        label="E-mail address",
        required=False,
        max_length=400,
        widget=forms.EmailInput(attrs={"autocomplete": "email"}),
        help_text="never shown on any list; your confirmation link goes there",
    )
    notices = forms.BooleanField(label="E-mail me notices about this tournament", required=False)

    def __init__(self, *args: Any, divisions: list[Division], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["division"].choices = [(d.slug, d.name) for d in divisions]


class WindowForm(forms.Form):
    """When entries open and close (the site's time zone)."""

    opens = forms.CharField(label="Entries open", help_text="YYYY-MM-DD HH:MM", max_length=40)
    closes = forms.CharField(label="Entries close", help_text="YYYY-MM-DD HH:MM", max_length=40)


class RuleForm(forms.Form):
    """One division's rule: cap, rating band (blank: the player picks), fee as text."""

    cap = forms.CharField(label="Cap", required=False, max_length=12, help_text="blank: no cap")
    rating_min = forms.CharField(label="Lowest rating", required=False, max_length=12)
    rating_max = forms.CharField(
        label="Highest rating",
        required=False,
        max_length=12,
        help_text="both blank: the player picks",
    )
    fee_amount = forms.CharField(label="Fee", required=False, max_length=40)
    fee_currency = forms.CharField(label="Currency", required=False, max_length=20)


class WeekendEntryForm(forms.Form):
    """One form for several events of a weekend: a division per event (blank: not entering
    that one), then the entrant as on a tournament's entry form."""

    name = forms.CharField(
        label="Your name",
        required=False,
        max_length=400,
        help_text='"Surname, Given", as rating lists show it',
    )
    email = forms.CharField(
        label="E-mail address",
        required=False,
        max_length=400,
        widget=forms.EmailInput(attrs={"autocomplete": "email"}),
        help_text="never shown on any list; your one confirmation link goes there",
    )
    notices = forms.BooleanField(label="E-mail me notices about these events", required=False)

    def __init__(self, *args: Any, events: list[tuple[Any, list[Division]]], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        fields = {}
        for tournament, divisions in events:
            fields["event-" + tournament.slug] = forms.ChoiceField(
                label=tournament.name,
                required=False,
                choices=[("", "not entering")] + [(d.slug, d.name) for d in divisions],
            )
        self.fields = {**fields, **self.fields}
