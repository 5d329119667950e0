"""Venue mode carries each model's fields by a declared table (tournament/services/venue/
fields.py): every field of a carried model crosses or is declared to stay, so a field added
tomorrow cannot be left behind on one side without a test saying so."""

from __future__ import annotations

from django.apps import apps

from tournament.services.venue.fields import CARRIED, STAYS, undeclared_fields


def _fields(name: str) -> list[str]:
    return [f.name for f in apps.get_model("tournament", name)._meta.concrete_fields]


def test_every_field_of_a_carried_model_is_declared():
    assert undeclared_fields() == []


def test_a_new_model_field_fails_loudly():
    """A field the table does not name (here one added to Tournament and Game) is reported by
    model and name, as is a declared field the model lost (a rename)."""
    fields = {name: _fields(name) for name in CARRIED}
    fields["Tournament"].append("wheelchair_tables")
    fields["Game"].append("duration")
    fields["Player"].remove("search_key")
    assert undeclared_fields(fields) == [
        "Game.duration: not declared",
        "Player.search_key: no such field",
        "Tournament.wheelchair_tables: not declared",
    ]


def test_a_field_is_carried_or_stays_never_both():
    for name in CARRIED:
        assert not set(CARRIED[name]) & set(STAYS[name]), name
