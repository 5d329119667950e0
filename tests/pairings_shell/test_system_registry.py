"""Adding a pairing system is one module plus one registration line.

The toy system in toy_system.py is registered with one ``register_system`` call; from then on
the ``pair`` command pairs with it, the console offers it in its choice list and proposes and
publishes with it, a schedule range may name it (service validation and model choices), and
the engine refuses a name nobody registered.
"""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command

from pairings.engine import PAIRING_SYSTEMS, PairingSystem, register_system, system_names
from pairings.models import ScheduleRange
from pairings.services import add_schedule_range
from tests.core.conftest import make_director
from tests.pairings_shell import toy_system
from tournament import services
from tournament.errors import ServiceError
from tournament.models import Game

pytestmark = pytest.mark.django_db


@pytest.fixture
def ladder():
    register_system(PairingSystem("ladder", toy_system.pair, "next in number order"))
    yield
    PAIRING_SYSTEMS.pop("ladder", None)


@pytest.fixture
def division():
    t = services.create_tournament(name="Toy Open", gibson=False)
    d = services.create_division(t, name="A", rounds=3)
    for k, name in enumerate(["Ann", "Bob", "Cat", "Dan", "Eve"]):
        services.register_player(d, name=name, rating=1900 - 100 * k)
    return d


def test_the_registered_system_is_known_everywhere(ladder):
    assert "ladder" in system_names()
    field = ScheduleRange._meta.get_field("system")
    assert ("ladder", "ladder") in field.choices


def test_the_command_pairs_with_it(ladder, division):
    out = StringIO()
    call_command(
        "pair",
        division.tournament.slug,
        "--round",
        "1",
        "--system",
        "ladder",
        "--json",
        stdout=out,
    )
    games = json.loads(out.getvalue())
    assert [sorted((g["first"], g["second"])) for g in games if g["second"]] == [[1, 2], [3, 4]]
    assert [g["first"] for g in games if not g["second"]] == [5]
    stored = Game.objects.filter(round__division=division, round__number=1)
    assert stored.count() == 3
    assert set(stored.values_list("round__system", flat=True)) == {"ladder"}


def test_the_console_offers_it_and_pairs_with_it(ladder, division, client):
    t = division.tournament
    client.force_login(make_director(t, "toy-td"))
    page = client.get(f"/t/{t.slug}/console/{division.slug}/round/1/pair/?system=ladder")
    body = page.content.decode()
    assert page.status_code == 200, body[:500]
    assert 'value="ladder"' in body  # in the choice list
    assert "ladder: next in number order" in body  # the proposal's explanation


def test_a_schedule_range_may_name_it(ladder, division):
    add_schedule_range(division, first_round=1, last_round=3, system="ladder", actor="td")
    call_command("pair", division.tournament.slug, "--round", "1", stdout=StringIO())
    assert Game.objects.filter(round__division=division, round__system="ladder").count() == 3


def test_an_unregistered_name_is_refused(division):
    assert "ladder" not in system_names()
    with pytest.raises(ServiceError) as refused:
        add_schedule_range(division, first_round=1, last_round=3, system="ladder", actor="td")
    assert refused.value.code == "setup_choice"
    from pairings.services import pair_round

    with pytest.raises(ServiceError) as refused:
        pair_round(division, 1, system="ladder")
    assert refused.value.code == "unknown_system"
