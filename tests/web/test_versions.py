"""Every kind of write moves the version its pages are cached under, in its own transaction."""

from __future__ import annotations

import datetime

import pytest
from django.db import transaction

from pairings.services.store import PlannedGame, delete_round_pairings, save_round_pairings
from ratings.division import rerate, submit_divisions
from ratings.models import RatingList
from ratings.services import create_rating_list
from tournament import services
from tournament.errors import ServiceError
from tournament.interchange.imports import import_tsh
from tournament.models import Game, Tournament

pytestmark = pytest.mark.django_db


def version(t: Tournament) -> int:
    return Tournament.objects.values_list("content_version", flat=True).get(pk=t.pk)


def list_version(lst: RatingList) -> int:
    return RatingList.objects.values_list("content_version", flat=True).get(pk=lst.pk)


def bumps(t: Tournament, write) -> int:
    before = version(t)
    write()
    return version(t) - before


def test_each_kind_of_write_bumps_the_tournament(event):
    t, d = event
    game = Game.objects.get(round__division=d, round__number=1, player1__number=1)
    entry = d.entries.get(number=4)
    player = d.entries.get(number=2).player
    assert bumps(t, lambda: services.record_result(d, 2, 1, 400, 300)) == 1
    assert bumps(t, lambda: services.correct_result(game, 430, 380, reason="typo")) == 1
    assert bumps(t, lambda: save_round_pairings(d, 3, [PlannedGame(1, 3), PlannedGame(2, 4)])) == 1
    assert bumps(t, lambda: delete_round_pairings(d, 3)) == 1
    assert bumps(t, lambda: services.register_player(d, name="Eve, Ed", rating=1400)) >= 1
    assert bumps(t, lambda: services.update_player(player, actor="cmd", name="Baker, Bob")) == 1
    assert bumps(t, lambda: services.update_division(d, actor="cmd", slug="open")) == 1
    assert bumps(t, lambda: services.update_tournament(t, actor="cmd", venue="Hall")) == 1
    assert bumps(t, lambda: services.publish_tournament(t, False, "cmd")) == 1
    assert bumps(t, lambda: services.withdraw_player(entry, from_round=3, actor="cmd")) == 1


def test_a_rename_bumps_every_tournament_the_player_entered(event):
    t, d = event
    other = services.create_tournament(name="Second Open")
    d2 = services.create_division(other, name="A", rounds=3)
    player = d.entries.get(number=1).player
    services.register_player(d2, player=player, rating=1800)
    unrelated = services.create_tournament(name="Unrelated")
    before = {x.pk: version(x) for x in (t, other, unrelated)}
    services.update_player(player, actor="cmd", name="Able, Annie")
    assert version(t) == before[t.pk] + 1
    assert version(other) == before[other.pk] + 1
    assert version(unrelated) == before[unrelated.pk]


def test_an_import_starts_past_zero(real_data):
    t = import_tsh(real_data / "naspa-2023-a.t", rounds=23)
    assert version(t) >= 1


def test_rolled_back_and_refused_writes_do_not_bump(event):
    t, d = event
    before = version(t)

    class Boom(Exception):
        pass

    with pytest.raises(Boom), transaction.atomic():
        services.record_result(d, 2, 1, 400, 300)
        assert version(t) == before + 1  # in the write's own transaction...
        raise Boom
    assert version(t) == before  # ...so it rolls back with it
    with pytest.raises(ServiceError):
        services.record_result(d, 2, 1, 99999, 300)
    assert version(t) == before


def test_a_full_save_of_a_stale_copy_keeps_the_version(event):
    t, d = event
    stale = Tournament.objects.get(pk=t.pk)
    services.record_result(d, 2, 1, 400, 300)
    now = version(t)
    stale.venue = "Elsewhere"
    stale.save()
    assert version(t) == now
    assert Tournament.objects.get(pk=t.pk).venue == "Elsewhere"


def test_rating_list_writes_bump_the_list(event):
    t, d = event
    services.record_result(d, 2, 1, 400, 300)
    services.record_result(d, 2, 2, 380, 390)
    lst = create_rating_list("Club List", slug="club")
    assert list_version(lst) == 0
    before_t = version(t)
    submit_divisions([d], lst, date=datetime.date(2024, 5, 1), actor="cmd")
    submitted = list_version(lst)
    assert submitted >= 1
    assert version(t) > before_t  # the division now names the list (audited)
    rerate(lst, actor="cmd")
    assert list_version(lst) > submitted
    switched = list_version(lst)
    rerate(lst, system="glicko2", actor="cmd")
    assert list_version(lst) > switched


def test_a_refused_rerate_does_not_bump(event):
    lst = create_rating_list("Empty List", slug="empty")
    with pytest.raises(Exception):  # noqa: B017  # any refusal: an unknown system
        rerate(lst, system="no-such-system", actor="cmd")
    assert list_version(lst) == 0
