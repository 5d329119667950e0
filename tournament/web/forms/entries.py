"""Forms of entries online: the public entry form and the console's entry settings.

Fields take text as typed; the services (tournament.services.online_entries) check it and
name the field they refuse, which the page shows beside that field.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from ...models import Division


class EntryForm(forms.Form):
    """A player's entry: a division, themself (picked from the registry or a name), their
    e-mail address (for the confirmation link, unless signed in) and the notices opt-in."""

    division = forms.ChoiceField(label=_("Division"))
    player = forms.CharField(required=False, widget=forms.HiddenInput)
    name = forms.CharField(
        label=_("Your name"),
        required=False,
        max_length=400,
        help_text=_('"Surname, Given", as rating lists show it; or search for yourself above'),
    )
    email = forms.CharField(
        label=_("E-mail address"),
        required=False,
        max_length=400,
        widget=forms.EmailInput(attrs={"autocomplete": "email"}),
        help_text=_("never shown on any list; your confirmation link goes there"),
    )
    notices = forms.BooleanField(label=_("E-mail me notices about this tournament"), required=False)

    def __init__(self, *args: Any, divisions: list[Division], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["division"].choices = [(d.slug, d.name) for d in divisions]


class WindowForm(forms.Form):
    """When entries open and close (the site's time zone)."""

    opens = forms.CharField(label=_("Entries open"), help_text=_("YYYY-MM-DD HH:MM"), max_length=40)
    closes = forms.CharField(
        label=_("Entries close"), help_text=_("YYYY-MM-DD HH:MM"), max_length=40
    )


class RuleForm(forms.Form):
    """One division's rule: cap, rating band (blank: the player picks), fee as text."""

    cap = forms.CharField(
        label=_("Cap"), required=False, max_length=12, help_text=_("blank: no cap")
    )
    rating_min = forms.CharField(label=_("Lowest rating"), required=False, max_length=12)
    rating_max = forms.CharField(
        label=_("Highest rating"),
        required=False,
        max_length=12,
        help_text=_("both blank: the player picks"),
    )
    fee_amount = forms.CharField(label=_("Fee"), required=False, max_length=40)
    fee_currency = forms.CharField(label=_("Currency"), required=False, max_length=20)


class WeekendEntryForm(forms.Form):
    """One form for several events of a weekend: a division per event (blank: not entering
    that one), then the entrant as on a tournament's entry form."""

    name = forms.CharField(
        label=_("Your name"),
        required=False,
        max_length=400,
        help_text=_('"Surname, Given", as rating lists show it'),
    )
    email = forms.CharField(
        label=_("E-mail address"),
        required=False,
        max_length=400,
        widget=forms.EmailInput(attrs={"autocomplete": "email"}),
        help_text=_("never shown on any list; your one confirmation link goes there"),
    )
    notices = forms.BooleanField(label=_("E-mail me notices about these events"), required=False)

    def __init__(self, *args: Any, events: list[tuple[Any, list[Division]]], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        fields = {}
        for tournament, divisions in events:
            fields["event-" + tournament.slug] = forms.ChoiceField(
                label=tournament.name,
                required=False,
                choices=[("", _("not entering"))] + [(d.slug, d.name) for d in divisions],
            )
        self.fields = {**fields, **self.fields}
