"""Forms of the console's rating lists page: open a list, load its starting ratings.

They only read what was typed; the rules (a known system, a name not taken, who may) are the
ratings services', so the command line and the page refuse alike.
"""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from .setup import DateInput, rating_system_choices


class OpenListForm(forms.Form):
    name = forms.CharField(max_length=100, label=_("Name of the new list"))
    system = forms.ChoiceField(
        choices=rating_system_choices(), initial="nsa2008", label=_("System")
    )
    start_date = forms.DateField(required=False, widget=DateInput, label=_("Start date (optional)"))
    description = forms.CharField(max_length=300, required=False, label=_("Description"))


class LoadRatingsForm(forms.Form):
    ratings_file = forms.FileField(
        label=_("Ratings file"),
        help_text=_("TSH's tab-separated ratings list, or CSV lines of name,rating[,games]"),
    )
