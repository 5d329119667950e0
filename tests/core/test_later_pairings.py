"""A correction of an earlier round names the rounds paired from the old result (issue 17, 5).

The console warns with links (tests/console/test_results.py); the command line and the API
say the same: which later rounds were paired and how many of their games are still unscored,
so a director can re-pair those. The warning writes nothing: the correction is one audit event.
"""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command

from pairings.services.store import PlannedGame, save_round_pairings
from tests.api.conftest import token_client
from tests.core.conftest import make_director
from tournament import services
from tournament.models import AuditEvent, Game
from tournament.selectors import pairings_after

pytestmark = pytest.mark.django_db


@pytest.fixture
def event():
    """Four players, rounds 1 and 2 scored, round 3 paired with one game of two scored."""
    t = services.create_tournament(name="Later Open")
    d = services.create_division(t, name="A", rounds=5)
    for k, name in enumerate(("Able, Ann", "Baker, Bo", "Cole, Cy", "Dunn, Di")):
        services.register_player(d, name=name, rating=1800 - 50 * k)
    plans = {1: [(1, 2), (3, 4)], 2: [(1, 3), (2, 4)], 3: [(1, 4), (2, 3)]}
    for number, pairs in plans.items():
        save_round_pairings(
            d, number, [PlannedGame(a, b, board=k + 1) for k, (a, b) in enumerate(pairs)]
        )
    for number, player in ((1, 1), (1, 3), (2, 1), (2, 2), (3, 1)):
        services.record_result(d, number, player, 400, 350, actor="td")
    return t, d


def game(d, number: int, player1: int) -> Game:
    return Game.objects.get(round__division=d, round__number=number, player1__number=player1)


def test_pairings_after_lists_later_rounds_with_their_unscored_games(event):
    t, d = event
    assert [(x.round, x.unscored) for x in pairings_after(game(d, 1, 1))] == [(2, 0), (3, 1)]
    assert [(x.round, x.unscored) for x in pairings_after(game(d, 2, 1))] == [(3, 1)]
    assert pairings_after(game(d, 3, 1)) == []


def test_record_result_correct_warns_and_reports_later_pairings(event):
    t, d = event
    out, err = StringIO(), StringIO()
    call_command(
        "record_result",
        t.slug,
        "--round",
        "1",
        "1",
        "350",
        "400",
        "--correct",
        "reversed",
        stdout=out,
        stderr=err,
    )
    assert out.getvalue().startswith("Corrected round 1: #1 350 - #2 400")
    assert (
        "warning: round 2 was paired from the old result; every game of it is scored"
        in err.getvalue()
    )
    assert (
        f"warning: round 3 was paired from the old result; 1 unscored game(s) may be re-paired "
        f"(pair {t.slug} --round 3 --keep-scored)"
    ) in err.getvalue()
    out = StringIO()
    call_command(
        "record_result",
        t.slug,
        "--round",
        "2",
        "1",
        "360",
        "400",
        "--correct",
        "recount",
        "--json",
        stdout=out,
        stderr=StringIO(),
    )
    assert json.loads(out.getvalue())["later_pairings"] == [{"round": 3, "unscored": 1}]
    assert AuditEvent.objects.filter(action="correct_result").count() == 2


def test_api_correction_names_the_later_pairings(event):
    t, d = event
    client = token_client(make_director(t, "later-td"))
    base = f"/api/v1/tournaments/{t.slug}/divisions/{d.slug}/corrections/"
    before = AuditEvent.objects.count()
    r = client.post(
        base,
        {"round": 1, "player": 3, "score": 300, "opp_score": 400, "reason": "misread"},
        format="json",
    )
    assert r.status_code == 200, r.content
    body = r.json()
    assert (body["score1"], body["score2"]) == (300, 400)
    assert body["later_pairings"] == [{"round": 2, "unscored": 0}, {"round": 3, "unscored": 1}]
    assert AuditEvent.objects.count() == before + 1
    last = client.post(
        base,
        {"round": 3, "player": 1, "score": 410, "opp_score": 350, "reason": "recount"},
        format="json",
    )
    assert last.status_code == 200 and last.json()["later_pairings"] == []
