"""Fixtures for the admin tests: the demo event, its director, another event and its director."""

from __future__ import annotations

import datetime
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission

from pairings.services.store import set_pairing
from ratings.services import create_rating_list
from tournament import services
from tournament.demo import load_demo
from tournament.models import AuditEvent, Entry, Game, Player, Tournament

from ..core.conftest import make_director, name_admin_officer


@pytest.fixture
def demo(db) -> Tournament:
    tournament, _ = load_demo()
    if tournament.start_date is None:
        tournament.start_date = datetime.date(2024, 5, 4)
        tournament.save(update_fields=["start_date"])
    return tournament


@pytest.fixture
def other(db) -> Tournament:
    """Someone else's event, with one player of its own and a played game."""
    t = services.create_tournament(name="Someone Else's Open")
    d = services.create_division(t, name="A")
    for name in ("Zed, Zoe", "Young, Yan"):
        services.register_player(d, name=name, rating=1500)
    set_pairing(d, 1, 1, 2)
    services.record_result(d, 1, 1, 400, 350, actor="test")
    zoe = Player.objects.get(name="Zed, Zoe")
    zoe.email, zoe.phone = "zoe@example.org", "+1 555 0100"
    zoe.save()
    return t


@pytest.fixture
def td(demo):
    """The demo's director, named an officer (so the admin lets them in) with the model
    permissions the admin pages use."""
    user = name_admin_officer(make_director(demo, "td"))
    user.user_permissions.add(*Permission.objects.filter(codename__startswith="view_"))
    return user


@pytest.fixture
def td_client(client, td):
    client.force_login(td)
    return client


@pytest.fixture
def stranger(other):
    """The other event's director, named an officer too."""
    return name_admin_officer(make_director(other, "stranger"))


@pytest.fixture
def keeper(db):
    """A registry keeper: staff with tournament.manage_registry, directing nothing."""
    user = get_user_model().objects.create_user(
        "keeper", "keeper@example.org", "pw-long-enough-1", is_staff=True
    )
    user.user_permissions.add(Permission.objects.get(codename="manage_registry"))
    return get_user_model().objects.get(pk=user.pk)  # fresh: permission cache


@pytest.fixture
def rating_list(db):
    return create_rating_list("Club List", slug="club")


def snapshot() -> dict[str, Any]:
    """Every row the reproductions could touch, to assert a refusal changed nothing."""
    return {
        "games": sorted(
            Game.objects.values_list(
                "pk", "round_id", "player1_id", "player2_id", "score1", "score2", "first"
            )
        ),
        "entries": sorted(
            Entry.objects.values_list(
                "pk", "division_id", "player_id", "number", "withdrawn_round", "seed_rating"
            )
        ),
        "players": sorted(Player.objects.values_list("pk", "name", "email", "phone", "naspa_id")),
        "audit": AuditEvent.objects.count(),
    }


def admin_form(response) -> dict[str, Any]:
    """The POST data a browser would send back unchanged from an admin change page."""
    data: dict[str, Any] = {}
    forms = [response.context["adminform"].form]
    for inline in response.context["inline_admin_formsets"]:
        formset = inline.formset
        management = formset.management_form
        for name in management.fields:
            data[management.add_prefix(name)] = management[name].value()
        forms.extend(formset.forms)
    for form in forms:
        for name in form.fields:
            value = form[name].value()  # already prepared as the widget shows it
            if isinstance(value, bool):
                if value:
                    data[form.add_prefix(name)] = "on"
                continue
            if value is None:
                value = ""
            if isinstance(value, (list, tuple)):
                data[form.add_prefix(name)] = [str(v) for v in value]
            else:
                data[form.add_prefix(name)] = str(value)
    return data
