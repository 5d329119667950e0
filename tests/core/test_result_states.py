"""Every result state of a game between two players reachable from every other (issue 17).

A game is unplayed, played (two scores), a forfeit by one side, or a double forfeit; a
correction (with a reason) moves it to any other state, or clears it back to unplayed, and
never changes who the game is between. Each transition is checked on both players' records
in the standings, on the stored rows and on the audit trail.
"""

from __future__ import annotations

import pytest
from django.core.management import call_command

from pairings.services.store import PlannedGame, save_round_pairings
from tournament import services
from tournament.errors import ServiceError
from tournament.management.base import CommandFailure
from tournament.models import AuditEvent, Game
from tournament.selectors import division_standings

pytestmark = pytest.mark.django_db

# How each state is reached from unplayed, as player 1 sees it (player 1 plays player 3).
STATES = {
    "unplayed": None,
    "scores": ("scores", 400, 380),
    "forfeit": ("forfeit", None, None),
    "double_forfeit": ("double_forfeit", None, None),
}
# Each state's record for players 1 and 3: (wins, losses, spread); the forfeit spread is 50.
RECORDS = {
    "unplayed": ((0, 0, 0), (0, 0, 0)),
    "scores": ((1, 0, 20), (0, 1, -20)),
    "forfeit": ((0, 1, -50), (1, 0, 50)),
    "double_forfeit": ((0, 1, -50), (0, 1, -50)),
}


@pytest.fixture
def division():
    t = services.create_tournament(name="Venue", actor="test")
    d = services.create_division(t, name="A", rounds=3, actor="test")
    for name in ("Able, Ann", "Baker, Bo", "Cole, Cy", "Dunn, Di"):
        services.register_player(d, name=name, rating=1500, actor="test")
    save_round_pairings(
        d, 1, [PlannedGame(1, 3, board=1), PlannedGame(2, 4, board=2)], actor="test"
    )
    return d


def _records(division) -> tuple[tuple[float, float, int], ...]:
    rows = {r.number: r for r in division_standings(division)}
    return tuple((rows[n].wins, rows[n].losses, rows[n].spread) for n in (1, 3))


def _put(division, state: str, reason: str = "") -> None:
    how = STATES[state]
    if how is not None:
        services.change_result(division, 1, 1, how[0], how[1], how[2], reason=reason, actor="t")


def _rows(division) -> list[Game]:
    return list(
        Game.objects.filter(round__division=division, round__number=1, board=1).order_by("pk")
    )


TRANSITIONS = [
    (a, b)
    for a in STATES
    for b in [*STATES, "clear"]
    if a != "unplayed" and b != "unplayed" or (a == "unplayed" and b not in ("unplayed", "clear"))
]


@pytest.mark.parametrize(("start", "target"), TRANSITIONS)
def test_every_state_reaches_every_other(division, start, target):
    _put(division, start)
    events = AuditEvent.objects.count()
    reason = "" if start == "unplayed" else "wrong game"
    cleared = target == "clear"
    if cleared:
        services.change_result(division, 1, 1, "clear", reason=reason, actor="t")
        target = "unplayed"
    else:
        _put(division, target, reason)
    assert _records(division) == tuple(
        tuple(float(x) if i < 2 else x for i, x in enumerate(r)) for r in RECORDS[target]
    )
    rows = _rows(division)
    players = {r.player1.number for r in rows} | {r.player2.number for r in rows if r.player2_id}
    assert players == {1, 3}  # still the game between #1 and #3
    assert len(rows) == (2 if "forfeit" in target else 1)
    assert AuditEvent.objects.count() == events + 1
    last = AuditEvent.objects.order_by("-pk").first()
    if start == "unplayed":
        assert last.action in ("record_result", "record_forfeit", "record_double_forfeit")
    else:
        assert last.reason == "wrong game"
        assert last.action == ("clear_result" if cleared else "correct_result")
    # the other game of the round is untouched
    other = Game.objects.get(round__division=division, round__number=1, board=2)
    assert (other.player1.number, other.player2.number, other.score1) == (2, 4, None)


def test_correction_needs_a_reason_and_clear_needs_a_result(division):
    with pytest.raises(ServiceError) as exc:
        services.change_result(division, 1, 1, "clear", reason="x", actor="t")
    assert exc.value.code == "no_result_to_correct"
    _put(division, "forfeit")
    with pytest.raises(ServiceError) as exc:
        services.change_result(division, 1, 3, "scores", 400, 380, actor="t")
    assert exc.value.code == "reason_needed"
    with pytest.raises(ServiceError) as exc:
        services.change_result(division, 1, 3, "tie", reason="x", actor="t")
    assert exc.value.code == "unknown_result_state"
    assert _records(division) == ((0.0, 1.0, -50), (1.0, 0.0, 50))


def test_a_bye_is_a_pairing_not_a_result(division):
    services.register_player(division, name="Eve, Em", rating=1500, actor="test")
    save_round_pairings(
        division,
        2,
        [PlannedGame(1, 2, board=1), PlannedGame(3, 4, board=2), PlannedGame(5, 0)],
        actor="test",
    )
    with pytest.raises(ServiceError) as exc:
        services.change_result(division, 2, 5, "forfeit", actor="t")
    assert exc.value.code == "not_a_game"


def test_cli_forfeit_corrected_to_scores_is_one_played_game(division):
    """The bug of issue 17: `3 f` then `3 400 380 --correct` made a 400-point bye."""
    call_command("record_result", division.tournament.slug, "--round", "1", "3", "f")
    assert _records(division) == ((1.0, 0.0, 50), (0.0, 1.0, -50))
    call_command(
        "record_result", division.tournament.slug, "--round", "1", "3", "400", "380",
        "--correct", "forfeit typed by mistake",
    )  # fmt: skip
    assert _records(division) == ((0.0, 1.0, -20), (1.0, 0.0, 20))
    (game,) = _rows(division)
    assert {game.player1.number, game.player2.number} == {1, 3}


def test_cli_double_forfeit_and_clear(division):
    slug = division.tournament.slug
    call_command("record_result", slug, "--round", "1", "1", "ff")
    assert _records(division) == ((0.0, 1.0, -50), (0.0, 1.0, -50))
    with pytest.raises(CommandFailure, match="needs a reason"):
        call_command("record_result", slug, "--round", "1", "1", "--clear", "")
    call_command("record_result", slug, "--round", "1", "3", "--clear", "result on wrong game")
    assert _records(division) == ((0.0, 0.0, 0), (0.0, 0.0, 0))
    assert AuditEvent.objects.filter(action="clear_result").count() == 1
    call_command("record_result", slug, "--round", "1", "1", "f", "--correct", "wrong player")
    call_command("record_result", slug, "--round", "1", "3", "f", "--correct", "other way")
    assert _records(division) == ((1.0, 0.0, 50), (0.0, 1.0, -50))
