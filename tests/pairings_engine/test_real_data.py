"""The engine against real NASPA events (files in fixtures/tsh)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from pairings.engine import FieldPlayer, first_by_rule
from tournament.formats.tsh import read_t

REPLAY = Path(__file__).resolve().parents[1] / "benchmarks" / "replay_2006.py"


def _history(p, before: int) -> FieldPlayer:
    opps = [o or 0 for o in p.opponents[:before]]
    return FieldPlayer(
        number=p.number, rating=p.rating, opponents=opps, firsts=list(p.p12[:before])
    )


def test_start_reply_rule_matches_every_decided_game_of_naspa_2023(real_data):
    players = read_t(real_data / "naspa-2023-a.t")
    rounds = max(len(p.opponents) for p in players)
    decided = agreed = drawn = 0
    for rnd in range(1, rounds + 1):
        for p in players:
            opp = p.opponents[rnd - 1]
            if not opp or opp < p.number:
                continue
            a = _history(p, rnd - 1)
            b = _history(players[opp - 1], rnd - 1)
            chosen, reason = first_by_rule(a, b)
            if chosen is None:
                drawn += 1
                continue
            decided += 1
            recorded_first = p.number if p.p12[rnd - 1] == 1 else opp
            assert chosen.number == recorded_first, (rnd, p.number, opp, reason)
            agreed += 1
    assert decided == agreed
    # 23 rounds of 13 games, minus byes and forfeits: most games are decided by the rule.
    assert decided >= 120
    assert drawn > 0


def _load_replay():
    spec = importlib.util.spec_from_file_location("replay_2006", REPLAY)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_replay_2006_never_more_repeats_and_mostly_less_win_difference(real_data):
    replay = _load_replay()
    rows = replay.replay(real_data / "naspa-2006-b.t")
    assert [r["round"] for r in rows] == list(range(2, 15))
    for r in rows:
        assert r["checker_errors"] == [], r
        assert r["ours"]["repeats"] <= r["real"]["repeats"], r
    no_worse = sum(r["ours"]["win_diff"] <= r["real"]["win_diff"] for r in rows)
    assert no_worse >= 0.75 * len(rows)
    assert max(r["seconds"] for r in rows) < 1.0
