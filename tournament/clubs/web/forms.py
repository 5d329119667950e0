"""Forms of the organisers' pages: founding a club, its settings, organisers, members, seasons.

As the console's forms, these only read typed values into Python ones; the rules (a season's
dates do not overlap another's, the last organiser stays, a player is a member once, points are
numbers in range) are the club services', so the same refusal reaches the web, the commands and
the API. Points are therefore read as text here and checked there.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from ...models import Club, Realm
from ...web.forms.setup import DateInput, rating_system_choices
from .. import selectors
from ..ladder import PRESETS, Rule
from ..models import Season

RULE_FIELDS: tuple[tuple[str, Any, Any], ...] = (
    ("win", gettext_lazy("Points for a win"), gettext_lazy("e.g. 2")),
    ("tie", gettext_lazy("Points for a tie"), gettext_lazy("e.g. 1")),
    ("loss", gettext_lazy("Points for a loss"), gettext_lazy("usually 0")),
    (
        "margin_bonus",
        gettext_lazy("Bonus for a big win"),
        gettext_lazy("added to a win by the margin or more"),
    ),
    ("margin", gettext_lazy("Winning margin for the bonus"), gettext_lazy("spread, e.g. 50")),
    ("attendance", gettext_lazy("Points for each night played"), gettext_lazy("0 for none")),
    ("best_nights", gettext_lazy("Best nights that count"), gettext_lazy("0: every night counts")),
    ("min_nights", gettext_lazy("Nights needed to be ranked"), gettext_lazy("0: no minimum")),
)


def _text(max_length: int, **kwargs: Any) -> forms.CharField:
    return forms.CharField(max_length=max_length, strip=True, **kwargs)


class ClubForm(forms.Form):
    """A club's settings; founding a club also chooses its rating system."""

    name = _text(Club._meta.get_field("name").max_length, label=gettext_lazy("Club name"))
    city = _text(
        Club._meta.get_field("city").max_length, required=False, label=gettext_lazy("City")
    )
    country = _text(
        Club._meta.get_field("country").max_length, required=False, label=gettext_lazy("Country")
    )
    meets = _text(
        Club._meta.get_field("meets").max_length,
        required=False,
        label=gettext_lazy("Meets"),
        help_text=gettext_lazy('where and when ("Tuesdays 7pm, Library")'),
    )
    realm = forms.ChoiceField(
        choices=Realm.choices,
        initial=Realm.NASPA,
        label=gettext_lazy("Realm"),
        help_text=gettext_lazy("the federation whose rules its nights follow"),
    )
    newcomer_rating = forms.IntegerField(
        initial=1000,
        label=gettext_lazy("Newcomer rating"),
        help_text=gettext_lazy("the club rating of a player no rating list rates yet"),
    )
    rating_system = forms.ChoiceField(
        choices=(),
        initial="club-third",
        label=gettext_lazy("Rating system"),
        help_text=gettext_lazy(
            "how the club's games are rated (club-third: as NASPA rates club games)"
        ),
    )

    def __init__(self, *args: Any, new: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if new:
            self.fields["rating_system"].choices = rating_system_choices()
        else:
            del self.fields["rating_system"]

    def settings(self) -> dict[str, Any]:
        """The cleaned values as the services take them (everything but the name)."""
        data = dict(self.cleaned_data)
        data.pop("name", None)
        data.pop("rating_system", None)
        return data


class OrganiserRemoveForm(forms.Form):
    user = forms.IntegerField(widget=forms.HiddenInput)


class MemberForm(forms.Form):
    """A member by name: a picked registry suggestion (``player_id``) or a name typed whole
    (found in the registry, or added to it)."""

    name = _text(
        200,
        label=gettext_lazy("Name"),
        help_text=gettext_lazy('"Last, First" as in the registry'),
        required=False,
    )
    player_id = forms.IntegerField(required=False, widget=forms.HiddenInput)
    since = forms.DateField(
        required=False,
        widget=DateInput,
        label=gettext_lazy("Joined"),
        help_text=gettext_lazy("blank for today"),
    )
    guest = forms.BooleanField(required=False, label=gettext_lazy("A guest, not a member"))
    # "add as a new player anyway", after the near-duplicate warning
    confirm = forms.BooleanField(required=False, widget=forms.HiddenInput)

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if data.get("player_id") is None and not data.get("name") and "name" not in self.errors:
            self.add_error("name", _("type the member's name"))
        return data


MEMBER_ACTIONS = {
    "lapse": gettext_lazy("mark lapsed"),
    "activate": gettext_lazy("mark active"),
    "join": gettext_lazy("make a member"),
}


class MemberChangeForm(forms.Form):
    membership = forms.IntegerField(widget=forms.HiddenInput)
    action = forms.ChoiceField(choices=list(MEMBER_ACTIONS.items()))


def preset_choices() -> list[tuple[str, str]]:
    return [(key, f"{key}: {text}") for key, text in selectors.preset_list()]


class SeasonForm(forms.Form):
    """A season: its dates and a preset scoring rule, or a configured one (any point field
    filled in changes the preset's rule; the season then names no preset unless the result
    equals one)."""

    name = _text(Season._meta.get_field("name").max_length, label=gettext_lazy("Season name"))
    start_date = forms.DateField(widget=DateInput, label=gettext_lazy("First day"))
    end_date = forms.DateField(widget=DateInput, label=gettext_lazy("Last day"))
    preset = forms.ChoiceField(
        choices=(),
        label=gettext_lazy("Scoring"),
        help_text=gettext_lazy("a preset; fill in the points below to configure your own from it"),
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["preset"].choices = preset_choices()
        for key, label, help_text in RULE_FIELDS:
            self.fields[key] = forms.CharField(
                max_length=40, required=False, label=label, help_text=help_text
            )

    @classmethod
    def for_season(cls, season: Season, **kwargs: Any) -> SeasonForm:
        """The form filled with a season's values: a preset season shows only its preset (so
        choosing another preset is enough to change it), a configured one its points."""
        initial: dict[str, Any] = {
            "name": season.name,
            "start_date": season.start_date,
            "end_date": season.end_date,
            "preset": season.preset or next(iter(PRESETS)),
        }
        if not season.preset:
            rule = Rule.from_dict(season.rule).as_dict()
            initial.update({k: _number(v) for k, v in rule.items()})
        return cls(initial=initial, **kwargs)

    def rule(self) -> dict[str, Any] | None:
        """The configured points (only the fields filled in), or None for the preset's."""
        filled = {
            key: self.cleaned_data[key]
            for key, _, _ in RULE_FIELDS
            if self.cleaned_data.get(key) not in (None, "")
        }
        return filled or None

    def rule_fields(self) -> list[forms.BoundField]:
        return [self[key] for key, _, _ in RULE_FIELDS]

    def main_fields(self) -> list[forms.BoundField]:
        return [self[key] for key in ("name", "start_date", "end_date", "preset")]


def _number(value: Any) -> str:
    """2.0 -> "2", 0.5 -> "0.5": points as an organiser writes them."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)
