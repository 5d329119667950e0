"""The pairing shell against a real database: load, pair, store, refuse, commands."""

from __future__ import annotations

import importlib.util
import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from pairings.engine import PairingOptions, check_round
from pairings.engine import pair_round as engine_pair_round
from pairings.models import ForbiddenPair, ScheduleRange
from pairings.selectors import build_field
from pairings.services.rounds import pair_round
from tournament import services
from tournament.demo import load_demo
from tournament.errors import ServiceError
from tournament.formats.tsh import read_t, write_t
from tournament.interchange.imports import import_tsh
from tournament.models import AuditEvent, First, Game

pytestmark = pytest.mark.django_db

REPLAY = Path(__file__).resolve().parents[1] / "benchmarks" / "replay_2006.py"


def run(*args: str) -> str:
    out = StringIO()
    call_command(*args, stdout=out, stderr=StringIO())
    return out.getvalue()


@pytest.fixture
def club():
    """Eight players, schedule: rounds 1-3 Initial Fontes, 4-6 Swiss."""
    t = services.create_tournament(name="Club Night", actor="test")
    d = services.create_division(t, name="A", rounds=6, actor="test")
    for k in range(1, 9):
        services.register_player(d, name=f"Player, P{k}", rating=2000 - 50 * k, actor="test")
    ScheduleRange.objects.create(
        division=d, first_round=1, last_round=3, system="fontes", options={"fontes_rounds": 3}
    )
    ScheduleRange.objects.create(division=d, first_round=4, last_round=6, system="swiss")
    return d


def play_round(division, rnd):
    """Record a result for every unscored game: the higher number wins by 40."""
    for g in Game.objects.filter(
        round__division=division, round__number=rnd, player2__isnull=False
    ):
        hi = max(g.player1.number, g.player2.number)
        lo = min(g.player1.number, g.player2.number)
        services.record_result(division, rnd, hi, 420, 380, actor="test")
        assert lo


def test_pair_a_whole_event_from_the_schedule(club):
    for rnd in range(1, 7):
        result = pair_round(club, rnd, actor="test")
        assert result.system == ("fontes" if rnd <= 3 else "swiss")
        games = list(Game.objects.filter(round__division=club, round__number=rnd))
        assert len(games) == 4
        stored = {(g.player1.number, g.player2.number, g.first) for g in games}
        assert stored == {(g.first, g.second, First.PLAYER1) for g in result.games}
        assert all(g.explanation for g in games)
        play_round(club, rnd)
    # Fontes rounds 1-3 and Swiss 4-6 never repeat in an 8-player field with 6 rounds here.
    seen = set()
    for g in Game.objects.filter(round__division=club):
        pair = frozenset((g.player1.number, g.player2.number))
        assert pair not in seen
        seen.add(pair)


def test_field_history_and_firsts_come_from_the_games(club):
    pair_round(club, 1)
    play_round(club, 1)
    f = build_field(club, 2)
    by = {p.number: p for p in f.players}
    for g in Game.objects.filter(round__division=club, round__number=1):
        a, b = by[g.player1.number], by[g.player2.number]
        assert a.opponents == [b.number] and a.firsts == [1] and b.firsts == [2]
        assert a.wins + b.wins == 1
    assert sorted(p.rank for p in f.players) == list(range(1, 9))


def test_dry_run_writes_nothing(club):
    before = (Game.objects.count(), AuditEvent.objects.count())
    result = pair_round(club, 1, dry_run=True)
    assert len(result.games) == 4
    assert (Game.objects.count(), AuditEvent.objects.count()) == before
    again = pair_round(club, 1, dry_run=True)
    assert again == result  # same seed per division: the dry run shows what will be stored
    pair_round(club, 1)
    stored = {(g.player1.number, g.player2.number) for g in Game.objects.all()}
    assert stored == {(g.first, g.second) for g in result.games}


def test_refusals_name_the_round_and_the_rule(club):
    with pytest.raises(ServiceError, match="round 1 has not been paired yet"):
        pair_round(club, 2)
    pair_round(club, 1)
    with pytest.raises(ServiceError, match=r"division A round 1 is already paired\Z") as refused:
        pair_round(club, 1)
    assert refused.value.code == "round_already_paired"
    pair_round(club, 1, force=True)
    with pytest.raises(ServiceError, match="round 1 is incomplete .4 games without a result"):
        pair_round(club, 2)
    play_round(club, 1)
    with pytest.raises(ServiceError, match="round 1 already has results"):
        pair_round(club, 1, force=True)
    with pytest.raises(ServiceError, match="unknown pairing system 'dutch'"):
        pair_round(club, 2, system="dutch")
    with pytest.raises(ServiceError, match="no pairing system scheduled for this round"):
        ScheduleRange.objects.all().delete()
        pair_round(club, 2)


def test_lagged_schedule_pairs_before_the_last_round_is_in(club):
    pair_round(club, 1)
    play_round(club, 1)
    pair_round(club, 2)
    ScheduleRange.objects.filter(first_round=1).update(last_round=2)
    ScheduleRange.objects.create(division=club, first_round=3, last_round=3, system="swiss", lag=1)
    result = pair_round(club, 3)  # round 2 has no results yet
    round2 = {
        frozenset((g.player1.number, g.player2.number))
        for g in Game.objects.filter(round__number=2)
    }
    assert not {frozenset((g.first, g.second)) for g in result.games} & round2


def test_infeasible_constraints_are_refused_with_the_engines_reason():
    t = services.create_tournament(name="Tiny", actor="test")
    d = services.create_division(t, name="A", rounds=3, actor="test")
    for k in range(1, 3):
        services.register_player(d, name=f"Tiny, T{k}", rating=1500, actor="test")
    ScheduleRange.objects.create(
        division=d, first_round=1, last_round=3, system="swiss", options={"hard_repeat_limit": True}
    )
    pair_round(d, 1)
    services.record_result(d, 1, 1, 400, 300)
    with pytest.raises(ServiceError, match="repeats forbidden: players 1, 2 have all met"):
        pair_round(d, 2)
    ScheduleRange.objects.update(options={"colour": 1})
    with pytest.raises(ServiceError, match="unknown pairing options colour"):
        pair_round(d, 2)


def test_forbidden_pairs_are_respected(club):
    entries = {e.number: e for e in club.entries.all()}
    ForbiddenPair.objects.create(division=club, entry_a=entries[1], entry_b=entries[5])
    ForbiddenPair.objects.create(division=club, entry_a=entries[2], entry_b=entries[6])
    result = pair_round(club, 1, system="swiss")
    pairs = {frozenset((g.first, g.second)) for g in result.games}
    assert frozenset((1, 5)) not in pairs and frozenset((2, 6)) not in pairs


def test_withdrawn_players_get_their_forfeit_not_a_pairing(club):
    pair_round(club, 1)
    play_round(club, 1)
    services.withdraw_player(club.entries.get(number=8), from_round=2, actor="test")
    result = pair_round(club, 2)
    assert 8 not in {x for g in result.games for x in (g.first, g.second)}
    assert sum(1 for g in result.games if not g.second) == 1  # 7 active: one bye
    forfeit = Game.objects.get(round__number=2, player1__number=8)
    assert forfeit.player2 is None and forfeit.score1 < 0


def test_autopair_import_creates_the_schedule():
    tournament, _ = load_demo()
    a = tournament.divisions.get(name="A")
    ranges = [
        (r.first_round, r.last_round, r.system, r.lag, r.options)
        for r in ScheduleRange.objects.filter(division=a)
    ]
    assert ranges == [(1, 3, "fontes", 0, {"fontes_rounds": 3}), (4, 4, "swiss", 0, {})]


def test_demo_round_6_waits_for_round_5_then_pairs():
    tournament, _ = load_demo()
    a = tournament.divisions.get(name="A")
    with pytest.raises(ServiceError, match="round 5 is incomplete"):
        pair_round(a, 6, system="swiss")
    dry = pair_round(a, 5, system="swiss", dry_run=True)
    f = build_field(a, 5)
    assert check_round(f, dry, PairingOptions(gibson_spread=250)).ok


def test_pair_command_json_and_text(club):
    data = json.loads(run("pair", club.tournament.slug, "--round", "1", "--dry-run", "--json"))
    assert len(data) == 4
    assert set(data[0]) == {"board", "first", "second", "explanation"}
    assert [d["board"] for d in data] == [1, 2, 3, 4]
    assert Game.objects.count() == 0
    text = run("pair", club.tournament.slug, "--round", "1")
    assert "Player, P1" in text and "stored" in text
    assert Game.objects.count() == 4
    with pytest.raises(CommandError, match="already paired"):
        run("pair", club.tournament.slug, "--round", "1")


def test_simulate_command(club):
    rows = json.loads(
        run(
            "simulate",
            "--players",
            "15",
            "--rounds",
            "8",
            "--schedule",
            "1-3:fontes,4-7:swiss,8:koth",
            "--seed",
            "4",
            "--json",
        )
    )
    assert [r["round"] for r in rows] == list(range(1, 9))
    assert [r["system"] for r in rows] == ["fontes"] * 3 + ["swiss"] * 4 + ["koth"]
    assert all(r["checker_errors"] == [] for r in rows)
    assert all(r["byes"] == 1 for r in rows)
    rows = json.loads(run("simulate", club.tournament.slug, "--rounds", "5", "--json"))
    assert all(r["games"] == 4 for r in rows)
    assert Game.objects.count() == 0  # nothing written to the tournament
    with pytest.raises(CommandError, match="either a tournament SLUG or --players"):
        run("simulate", "--rounds", "3")
    with pytest.raises(CommandError, match="no pairing system scheduled for round 4"):
        run("simulate", "--players", "6", "--rounds", "4", "--schedule", "1-3:swiss")


def test_real_2006_round_14_paired_from_the_database_matches_the_pure_replay(real_data, tmp_path):
    players = read_t(real_data / "naspa-2006-b.t")
    for p in players:
        p.opponents, p.scores = p.opponents[:13], p.scores[:13]
        for key in ("p12", "board"):
            if key in p.fields:
                p.fields[key] = p.fields[key][:13]
    path = tmp_path / "b13.t"
    path.write_text(write_t(players), encoding="utf-8")
    tournament = import_tsh(path, rounds=14)
    division = tournament.divisions.get()
    result = pair_round(division, 14, system="swiss", dry_run=True, seed=0)
    field = build_field(division, 14)
    assert check_round(field, result, PairingOptions()).ok
    spec = importlib.util.spec_from_file_location("replay_2006", REPLAY)
    replay = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(replay)
    pure_field = replay.field_before(read_t(real_data / "naspa-2006-b.t"), 14, 14)
    pure = engine_pair_round(pure_field, "swiss", PairingOptions(gibson_spread=500))
    key = lambda rp: {frozenset((g.first, g.second)) for g in rp.games}  # noqa: E731
    assert key(result) == key(pure)


def test_autopair_rows_tsh_commands_we_do_not_offer_are_skipped_with_a_warning(club):
    from pairings.services.schedule import schedule_from_autopair

    ScheduleRange.objects.all().delete()
    warnings = schedule_from_autopair(
        club,
        [
            ["A", 0, 1, "if", ["3", "A"]],
            ["A", 3, 4, "zz", ["A"]],
            ["A", 3, 5, "ns", ["1", "3", "A"]],
            ["A", 2, 3, "koth", ["0", "2", "A"]],  # overlaps the Fontes rounds 1-3
            ["B", 4, 5, "koth", ["0", "4", "B"]],  # another division
        ],
    )
    assert len(warnings) == 2
    assert "unknown TSH command 'zz'" in warnings[0]
    assert "overlapping autopair skipped" in warnings[1]
    ranges = [
        (r.first_round, r.last_round, r.system, r.lag, r.options)
        for r in ScheduleRange.objects.filter(division=club)
    ]
    assert ranges == [
        (1, 3, "fontes", 0, {"fontes_rounds": 3}),
        (5, 5, "swiss", 1, {"max_meetings": 2}),
    ]


def test_schedule_range_validation(club):
    from django.core.exceptions import ValidationError

    bad = ScheduleRange(division=club, first_round=3, last_round=5, system="koth")
    with pytest.raises(ValidationError, match="overlaps rounds 1-3"):
        bad.clean()
    bad = ScheduleRange(
        division=club, first_round=7, last_round=8, system="koth", options={"colour": 1}
    )
    with pytest.raises(ValidationError, match="unknown pairing options: colour"):
        bad.clean()
    entries = {e.number: e for e in club.entries.all()}
    other = services.create_division(club.tournament, name="B", rounds=3, actor="test")
    pair = ForbiddenPair(division=other, entry_a=entries[1], entry_b=entries[2])
    with pytest.raises(ValidationError, match="#1 is not in this division"):
        pair.clean()


def test_no_round_beyond_the_division_s_rounds_unless_raised(club):
    from pairings.services.rounds import propose_round, publish_pairs
    from tournament.services.tournaments import update_division

    for rnd in range(1, 7):
        pair_round(club, rnd, actor="test")
        play_round(club, rnd)
    before = Game.objects.filter(round__division=club).count()
    events = AuditEvent.objects.count()
    with pytest.raises(ServiceError, match="division A round 7: the division has 6 rounds") as no:
        pair_round(club, 7, system="swiss")
    assert no.value.code == "round_beyond_division" and no.value.field == "round"
    with pytest.raises(ServiceError) as no:
        propose_round(club, 7, "swiss")
    assert no.value.code == "round_beyond_division"
    with pytest.raises(ServiceError) as no:
        publish_pairs(club, 7, [(1, 2, 1), (3, 4, 2), (5, 6, 3), (7, 8, 4)], actor="test")
    assert no.value.code == "round_beyond_division"
    assert Game.objects.filter(round__division=club).count() == before
    assert AuditEvent.objects.count() == events
    # raised, round 7 pairs
    club = update_division(club, actor="test", rounds=7)
    pair_round(club, 7, system="swiss", actor="test")
    assert Game.objects.filter(round__division=club, round__number=7).count() == 4
