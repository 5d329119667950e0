"""Properties over many random events: the fast paths agree with the plain definitions."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

from ratings.engine import SYSTEMS, RatedGame, RatedPlayer, RatingSystem, rate_event
from ratings.engine.model import prepare_event


def random_event(seed: int, rounds: int):
    rng = random.Random(seed)
    n = rng.randint(3, 12)
    players = []
    for i in range(n):
        rated = rng.random() > 0.25
        players.append(
            RatedPlayer(
                i,
                rng.randint(600, 2200) if rated else None,
                rng.choice([None, 0, 10, 49, 50, 300]) if rated else 0,
            )
        )
    games = []
    for r in range(1, rounds + 1):
        order = list(range(n))
        rng.shuffle(order)
        for a, b in zip(order[::2], order[1::2], strict=False):
            if rng.random() < 0.1:
                continue  # an unplayed pairing (forfeit) is simply not a rated game
            games.append(RatedGame(r, a, b, rng.randint(250, 550), rng.randint(250, 550)))
    return players, games


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("name", sorted(SYSTEMS))
def test_estimates_equal_rating_each_prefix(name, seed):
    """The cached in-event estimates equal re-rating rounds 1..r from scratch, every r."""
    rounds = [5, 17, 23, 36][seed % 4]
    players, games = random_event(seed, rounds)
    ev = prepare_event(players, games, rounds)
    system = SYSTEMS[name]
    fast = system.estimates(ev, rounds)
    plain = RatingSystem.estimates(system, ev, rounds)  # the generic prefix re-rating
    assert fast == plain
    final = rate_event(name, players, games, rounds)
    assert [fast[i][-1] for i in range(len(players))] == [final[p.id].new for p in players]


@pytest.mark.parametrize("seed", range(20))
def test_explained_and_lean_ratings_agree(seed):
    players, games = random_event(100 + seed, 23)
    for name in SYSTEMS:
        full = rate_event(name, players, games, 23)
        lean = rate_event(name, players, games, 23, explain=False)
        for p in players:
            a, b = full[p.id], lean[p.id]
            assert (a.new, a.new_games, a.actual) == (b.new, b.new_games, b.actual), name
            assert a.expected == pytest.approx(b.expected), name
            if a.segments:
                assert sum(s.games for s in a.segments) == a.new_games - a.old_games


@pytest.mark.parametrize("seed", range(20))
def test_newcomers_end_in_range(seed):
    players, games = random_event(200 + seed, 8)
    res = rate_event("nsa2008", players, games, 8)
    for p in players:
        r = res[p.id]
        if p.rating is None and r.new_games > r.old_games:
            assert 500 <= r.new <= 3000


def test_benchmark_script_runs_small(capsys):
    bench_dir = Path(__file__).resolve().parents[1] / "benchmarks"
    sys.path.insert(0, str(bench_dir))
    try:
        import bench_ratings
    finally:
        sys.path.remove(str(bench_dir))
    assert bench_ratings.main(["--games", "3000", "--repeat", "1", "--section", "engine"]) == 0
    out = capsys.readouterr().out
    assert "replay nsa2008 (engine)" in out and "OK" in out


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("name", sorted(n for n in SYSTEMS if hasattr(SYSTEMS[n], "rate_segment")))
def test_a_new_result_re_rates_only_its_round_and_the_estimates_stay_exact(name, seed, monkeypatch):
    """The estimates by round remember each segment's ratings by their whole input: after a
    result in the last round changes, rounds before it are looked up, not re-rated, and every
    figure equals re-rating each prefix from scratch (the generic ``RatingSystem.estimates``)."""
    from ratings.engine import elo

    rounds = [6, 12, 17, 30][seed % 4]
    players, games = random_event(100 + seed, rounds)
    system = SYSTEMS[name]
    elo.clear_segment_memo()
    system.estimates(prepare_event(players, games, rounds), rounds)
    last = len(games) - 1  # the last round with a game (a random one may be all forfeits)
    games[last] = games[last]._replace(score_a=games[last].score_b + 1 + seed)
    calls = []
    rate = type(system).rate_segment
    monkeypatch.setattr(
        type(system), "rate_segment", lambda s, *a, **k: calls.append(1) or rate(s, *a, **k)
    )
    ev = prepare_event(players, games, rounds)
    again = system.estimates(ev, rounds)
    monkeypatch.undo()
    # only the round whose result changed and later ones (a later segment's entering ratings
    # changed too; an empty round's input is its predecessor's, looked up)
    assert 1 <= len(calls) <= rounds - games[last].round + 1
    assert again == RatingSystem.estimates(system, ev, rounds)
    elo.clear_segment_memo()
    assert system.estimates(ev, rounds) == again
