"""Replaying a rating list's history, and the prediction report built on it."""

from __future__ import annotations

import datetime
import math
import random

import pytest

from ratings.engine import (
    SYSTEMS,
    RatedEvent,
    RatedGame,
    RatedPlayer,
    prediction_scores,
    rate_event,
    replay,
)

D = datetime.date


def round_robin(players: list[str], rounds: int, rng: random.Random, strength=None):
    games = []
    for rnd in range(1, rounds + 1):
        order = players[:]
        rng.shuffle(order)
        for a, b in zip(order[::2], order[1::2], strict=False):
            sa, sb = rng.randint(300, 500), rng.randint(300, 500)
            if strength is not None:  # the stronger player wins
                hi, lo = max(sa, sb) + 1, min(sa, sb)
                sa, sb = (hi, lo) if strength[a] > strength[b] else (lo, hi)
            games.append(RatedGame(rnd, a, b, sa, sb))
    return games


def test_replay_equals_rating_events_one_by_one():
    rng = random.Random(3)
    start = {
        "a": RatedPlayer("a", 1500, 45),
        "b": RatedPlayer("b", 1700, 200),
        "c": RatedPlayer("c", 1900, 20),
    }
    e1 = RatedEvent("e1", D(2024, 1, 10), 6, round_robin(["a", "b", "c", "n"], 6, rng))
    e2 = RatedEvent("e2", D(2024, 2, 10), 8, round_robin(["a", "b", "n", "m"], 8, rng))
    seen = []
    final = replay([e2, e1], start, on_event=lambda ev, res: seen.append((ev.id, res)))
    assert [s[0] for s in seen] == ["e1", "e2"]  # date order, whatever the input order

    # By hand: e1 from start (n is new), then e2 from e1's results (m is new).
    ids1 = ["a", "b", "c", "n"]
    p1 = [start.get(i, RatedPlayer(i, None, 0)) for i in ids1]
    r1 = rate_event("nsa2008", p1, e1.games, 6)
    assert {i: r.new for i, r in seen[0][1].items()} == {i: r.new for i, r in r1.items()}
    p2 = [RatedPlayer(i, r1[i].new, r1[i].new_games) for i in ("a", "b", "n")]
    p2.append(RatedPlayer("m", None, 0))
    r2 = rate_event("nsa2008", p2, e2.games, 8)
    for i in ("a", "b", "n", "m"):
        assert final[i].rating == r2[i].new
        assert final[i].career_games == r2[i].new_games
    assert final["c"].rating == r1["c"].new and final["c"].last_played == D(2024, 1, 10)
    # "a" had 45 games, played every round of both: the >= 50 games K applies in e2.
    assert final["a"].career_games == 45 + 6 + 8
    assert seen[1][1]["a"].segments[0].multipliers[0][0] == 20
    assert seen[0][1]["a"].segments[0].multipliers[0][0] == 30
    assert start["a"].rating == 1500  # the start is not modified
    assert seen[1][1]["a"].segments  # explanations are on when someone listens


def test_replay_with_a_system_override():
    rng = random.Random(5)
    ev = RatedEvent("e", D(2024, 1, 1), 4, round_robin(["a", "b", "c", "d"], 4, rng))
    ratings = (1400, 1500, 1600, 1700)
    start = {k: RatedPlayer(k, r, 100) for k, r in zip("abcd", ratings, strict=True)}
    for name in SYSTEMS:
        final = replay([ev], start, system=name)
        res = rate_event(name, list(start.values()), ev.games, 4, date=ev.date)
        assert {k: final[k].rating for k in "abcd"} == {k: res[k].new for k in "abcd"}, name


def test_replay_carries_glicko_and_absp_state():
    rng = random.Random(9)
    e1 = RatedEvent("e1", D(2024, 1, 1), 4, round_robin(list("abcd"), 4, rng), "glicko2")
    e2 = RatedEvent("e2", D(2024, 3, 1), 4, round_robin(list("abcd"), 4, rng), "glicko2")
    mid = replay([e1], {})
    assert all(mid[k].deviation < 350 and mid[k].volatility for k in "abcd")
    final = replay([e1, e2], {})
    assert all(final[k].deviation < mid[k].deviation for k in "abcd")
    absp = replay([e1, e2], {}, system="absp")
    assert all(len(absp[k].history) == 8 for k in "abcd")


def test_prediction_scores_by_hand():
    rng = random.Random(11)
    strength = {p: i for i, p in enumerate("abcdef")}
    events = [
        RatedEvent(f"e{i}", D(2024, i + 1, 1), 5, round_robin(list("abcdef"), 5, rng, strength))
        for i in range(4)
    ]
    start = {"a": RatedPlayer("a", 1500, 100)}
    scores = prediction_scores(events, start, ["nsa2008", "aus", "glicko2"])

    # By hand for nsa2008: replay event by event, predicting with the state before each.
    state = dict(start)
    loss = brier = 0.0
    n = skipped = 0
    for ev in events:
        for g in ev.games:
            pa, pb = state.get(g.a), state.get(g.b)
            if not (pa and pb and pa.rating and pb.rating):
                skipped += 1
                continue
            p = 1 / (1 + math.exp(-0.0031879 * (pa.rating - pb.rating)))
            y = g.result_a
            loss -= y * math.log(p) + (1 - y) * math.log(1 - p)
            brier += (p - y) ** 2
            n += 1
        state = replay([ev], state)
    nsa = scores["nsa2008"]
    assert nsa["games"] == n and nsa["skipped"] == skipped
    assert nsa["log_loss"] == pytest.approx(loss / n)
    assert nsa["brier"] == pytest.approx(brier / n)
    # Every system predicts the same games; here the stronger player always wins, so every
    # system beats a coin flip.
    for s in scores.values():
        assert s["games"] == n
        assert s["brier"] < 0.25 and s["log_loss"] < math.log(2)


def test_prediction_scores_with_no_predictable_games():
    ev = RatedEvent("e", D(2024, 1, 1), 1, [RatedGame(1, "a", "b", 400, 300)])
    out = prediction_scores([ev], {}, ["nsa2008"])
    assert out["nsa2008"]["games"] == 0 and out["nsa2008"]["log_loss"] is None
