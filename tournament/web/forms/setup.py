"""Forms of the console's setup pages: a tournament's settings, its divisions, their schedule
ranges and forbidden pairs, and a TSH upload.

The forms only read the typed values into Python ones; the rules (a bye spread is not
negative, ranges do not overlap, rounds not below those paired) are the services', so the same
refusal reaches every interface. Ranges of numbers are therefore not limited here.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy
from django.utils.translation import gettext_lazy as _

from pairings.engine import system_names
from ratings.models import RatingList

from ...models import Realm, Tournament


def rating_system_choices(blank: str | None = None) -> list[tuple[str, str]]:
    """The rating systems the ratings engine knows, by name, and TSH's ``none``."""
    from ratings.engine import system_names

    choices = [(name, name) for name in system_names()]
    return ([("", blank)] if blank else []) + choices


class DateInput(forms.DateInput):
    input_type = "date"


class TournamentForm(forms.Form):
    """Every tournament-level setting. On the new-tournament page the spreads may be left
    blank for the realm's preset."""

    name = forms.CharField(max_length=200, label=_("Name"))
    start_date = forms.DateField(required=False, widget=DateInput, label=_("Start date"))
    end_date = forms.DateField(required=False, widget=DateInput, label=_("End date"))
    venue = forms.CharField(max_length=200, required=False, label=_("Venue"))
    country = forms.CharField(
        max_length=100, required=False, label=_("Country"), help_text=_("for the events calendar")
    )
    region = forms.CharField(
        max_length=100,
        required=False,
        label=_("Region"),
        help_text=_("state, province or region"),
    )
    lexicon = forms.CharField(
        max_length=20,
        required=False,
        label=_("Lexicon"),
        help_text=_("the word list played, e.g. CSW24 or NWL2023"),
    )
    realm = forms.ChoiceField(
        choices=Realm.choices, label=_("Realm"), help_text=_("fills the defaults below")
    )
    bye_spread = forms.IntegerField(
        label=_("Bye spread"), help_text=_("spread a bye scores (a win, 0 or more)")
    )
    forfeit_spread = forms.IntegerField(
        label=_("Forfeit spread"), help_text=_("spread a forfeit scores (a loss, 0 or less)")
    )
    # A text field: TSH caps by round too ("100,100,150"; the last cap holds on), and the
    # service reads and refuses the numbers so every interface says the same.
    spread_cap = forms.CharField(
        required=False,
        max_length=2000,
        label=_("Spread cap"),
        help_text=_(
            "each game's spread is clipped to +-cap: one number, or one a round "
            "like 100,100,150 (the last holds on); blank for none"
        ),
    )
    standings_spread_cap = forms.BooleanField(
        required=False, label=_("Cap only for ranking"), help_text=_("show the real spread")
    )
    sum_before_spread = forms.BooleanField(
        required=False, label=_("Rank by total points before spread")
    )
    max_rounds = forms.IntegerField(required=False, label=_("Maximum rounds"))
    gibson = forms.BooleanField(
        required=False,
        label=_("Gibsonize"),
        help_text=_("pair leaders who cannot be caught apart"),
    )
    gibson_spread = forms.IntegerField(
        label=_("Gibson spread"), help_text=_("spread a round can swing, for Gibson checks")
    )
    late_entry = forms.ChoiceField(
        choices=Tournament._meta.get_field("late_entry").choices,
        label=_("Late entry"),
        help_text=_("what a late entry gets for rounds already paired"),
    )
    paper = forms.ChoiceField(choices=Tournament._meta.get_field("paper").choices, label=_("Paper"))
    # Not required: a form posted without it (a script, an older page) keeps the language.
    language = forms.ChoiceField(
        choices=Tournament._meta.get_field("language").choices,
        required=False,
        label=gettext_lazy("Language"),
        help_text=gettext_lazy(
            "its public pages' language for visitors who choose none; the venue screen and "
            "the overlays always use it"
        ),
    )

    def __init__(self, *args: Any, new: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if new:
            for key in ("bye_spread", "forfeit_spread"):
                self.fields[key].required = False
                self.fields[key].help_text = format_lazy(
                    _("{help}; blank for the realm's preset"), help=self.fields[key].help_text
                )

    def settings(self) -> dict[str, Any]:
        """The cleaned values for the services; a blank spread takes the realm's preset."""
        data = dict(self.cleaned_data)
        for key in ("bye_spread", "forfeit_spread"):
            if data.get(key) is None:
                data.pop(key, None)
        if not data.get("language"):
            data.pop("language", None)
        return data

    @staticmethod
    def initial_for(tournament: Tournament) -> dict[str, Any]:
        initial = {name: getattr(tournament, name) for name in TournamentForm.base_fields}
        initial["spread_cap"] = ",".join(str(c) for c in tournament.spread_cap_list)
        return initial


class DivisionForm(forms.Form):
    """A division's settings; the slug (its URL) comes from the name when left blank."""

    name = forms.CharField(max_length=50, label=_("Name"))
    slug = forms.CharField(
        max_length=50,
        required=False,
        label=_("Slug"),
        help_text=_("its web address; blank: made from the name"),
    )
    rounds = forms.IntegerField(
        initial=7, label=_("Rounds"), help_text=_("configured number of rounds")
    )
    rating_system = forms.ChoiceField(choices=rating_system_choices, label=_("Rating system"))
    rating_list = forms.ModelChoiceField(
        queryset=RatingList.objects.all(),
        required=False,
        empty_label=_("(none)"),
        label=_("Rating list"),
    )
    prize_places = forms.IntegerField(
        initial=0, label=_("Prize places"), help_text=_("places that win a prize")
    )
    # the prize chances' visibility (services.set_chances_visibility), on the edit form only
    chances_hidden = forms.BooleanField(
        required=False,
        label=_("Hide prize chances"),
        help_text=_("the public pages and API show no chances for this division"),
    )
    chances_hide_last = forms.IntegerField(
        required=False,
        min_value=0,
        initial=0,
        label=_("Hide chances for the last rounds"),
        help_text=_("hide them once one of the last N rounds is paired; 0: never"),
    )

    CHANCES_FIELDS = ("chances_hidden", "chances_hide_last")

    def __init__(self, *args: Any, new: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if new:
            self.fields["rating_system"].choices = rating_system_choices(_("the realm's preset"))
            self.fields["rating_system"].required = False
            for name in self.CHANCES_FIELDS:
                del self.fields[name]

    @staticmethod
    def initial_for(division: Any) -> dict[str, Any]:
        initial = {
            name: getattr(division, name)
            for name in DivisionForm.base_fields
            if name not in DivisionForm.CHANCES_FIELDS
        }
        setting = (division.config or {}).get("chances") or {}
        initial["chances_hidden"] = bool(setting.get("hide"))
        initial["chances_hide_last"] = int(setting.get("hide_last") or 0)
        return initial


class NewDivisionForm(DivisionForm):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("new", True)
        super().__init__(*args, **kwargs)


DivisionFormSet = forms.formset_factory(NewDivisionForm, extra=3, max_num=30)


class ScheduleRangeForm(forms.Form):
    """Rounds first..last paired by one system; lag 1 pairs from the round before last."""

    first_round = forms.IntegerField(label=_("First round"))
    last_round = forms.IntegerField(label=_("Last round"))
    system = forms.ChoiceField(choices=lambda: [(s, s) for s in system_names()], label=_("System"))
    lag = forms.IntegerField(
        initial=0, label=_("Lag"), help_text=_("0: from the last round's results")
    )


class ForbiddenPairForm(forms.Form):
    """Two player numbers of the division who must never be paired."""

    number_a = forms.IntegerField(label=_("Player number"))
    number_b = forms.IntegerField(label=_("Never against number"))
    reason = forms.CharField(max_length=200, required=False, label=_("Reason"))


class MultipleFileInput(forms.ClearableFileInput):
    allow_multiple_selected = True


class MultipleFileField(forms.FileField):
    def clean(self, data: Any, initial: Any = None) -> list[Any]:
        single = super().clean
        if isinstance(data, (list, tuple)):
            return [single(d, initial) for d in data if d]
        return [single(data, initial)] if data else []


class UploadForm(forms.Form):
    """A TSH file that becomes a new draft tournament."""

    file = forms.FileField(
        label=_("TSH file"),
        help_text=_("a .t division file, config.tsh, all.tsh, tourney.js or .TOU"),
    )
    division_files = MultipleFileField(
        required=False,
        widget=MultipleFileInput,
        label=_("Division files"),
        help_text=_("with a config.tsh: the .t files it names"),
    )
    name = forms.CharField(
        max_length=200,
        required=False,
        label=_("Name"),
        help_text=_("blank: from the file's event name"),
    )
    rounds = forms.IntegerField(
        required=False,
        min_value=1,
        label=_("Rounds"),
        help_text=_("configured rounds, when no config says"),
    )
