"""The prize-chances simulation (pairings.engine.simulate / chances), without a database."""

from __future__ import annotations

import numpy as np
import pytest

from pairings.engine.chances import chances, prize_classes
from pairings.engine.simulate import (
    GameModel,
    SimGame,
    SimPlayer,
    SimRound,
    SimSetup,
    _gibson_perm,
    approximate_pairs,
    load_game_model,
    simulate,
    simulate_chunks,
)

MODEL = GameModel(sigma=100.0, tie_rate=0.01)


def _setup(n: int = 8, rounds: int = 3, system: str = "koth", **kw) -> SimSetup:
    players = [
        SimPlayer(
            number=i + 1, rating=2000 - 50 * i, wins=(n - i) // 2, losses=i // 2, name=f"P{i}"
        )
        for i in range(n)
    ]
    wp = np.array(
        [[1 / (1 + np.exp(-0.0032 * (a.rating - b.rating))) for b in players] for a in players]
    )
    return SimSetup(
        players=players,
        rounds=[SimRound(number=10 + r, system=system) for r in range(rounds)],
        win_prob=wp,
        **kw,
    )


def test_first_place_sums_to_one_and_places_are_a_distribution() -> None:
    setup = _setup()
    result = simulate(setup, MODEL, 5000, seed=3)
    share = result.place_share / result.sims
    assert share[:, 0].sum() == pytest.approx(1.0)
    assert np.allclose(share.sum(axis=0), 1.0)
    assert np.allclose(share.sum(axis=1), 1.0)


def test_same_seed_same_figures_other_seed_other_figures() -> None:
    setup = _setup(system="swiss")
    a = chances(setup, MODEL, 3000, seed=7)
    b = chances(setup, MODEL, 3000, seed=7)
    c = chances(setup, MODEL, 3000, seed=8)
    assert a == b
    assert a != c


def test_no_rounds_left_puts_certainty_on_the_places_with_ties_shared() -> None:
    players = [
        SimPlayer(number=1, rating=1500, wins=5, losses=2, spread=100),
        SimPlayer(number=2, rating=1600, wins=5, losses=2, spread=100),  # tied with 1 for 1st
        SimPlayer(number=3, rating=1700, wins=4, losses=3, spread=300),
        SimPlayer(number=4, rating=1800, wins=1, losses=6, spread=-500),
    ]
    setup = SimSetup(players=players, rounds=[], win_prob=np.full((4, 4), 0.5))
    rows = {r.number: r for r in chances(setup, MODEL, 10, seed=1, prize_places=3)}
    assert rows[1].p_first == rows[2].p_first == 0.5
    assert rows[1].p_places == [0.5, 0.5, 0.0]
    assert rows[3].p_places == [0.0, 0.0, 1.0]
    assert rows[4].p_cash == 0.0
    assert rows[1].best_rank == rows[1].worst_rank == 1  # competition rank: both 1st
    assert rows[1].expected_rank == 1.5
    assert rows[4].expected_rank == 4


def test_known_results_count_as_recorded() -> None:
    players = [SimPlayer(number=i, rating=1500) for i in (1, 2, 3)]
    rnd = SimRound(number=1, pairs=[SimGame(1, 2, 30), SimGame(3, 0, 50)])
    setup = SimSetup(players=players, rounds=[rnd], win_prob=np.full((3, 3), 0.5))
    rows = {r.number: r for r in chances(setup, MODEL, 50, seed=1, prize_places=3)}
    # 1 and 3 both 1-0; 3's bye +50 beats 1's +30
    assert rows[3].p_first == 1.0
    assert rows[1].p_places == [0.0, 1.0, 0.0]


def test_spread_cap_limits_what_a_game_adds() -> None:
    players = [SimPlayer(number=1, rating=2500), SimPlayer(number=2, rating=500)]
    setup = SimSetup(
        players=players,
        rounds=[SimRound(number=1, system="koth", cap=10)],
        win_prob=np.array([[0.5, 0.999], [0.001, 0.5]]),
    )
    for _w, _l, spread, _p in simulate_chunks(setup, MODEL, 500, seed=2):
        assert np.abs(spread).max() <= 10


def test_withdrawn_player_is_neither_paired_nor_ranked() -> None:
    setup = _setup(n=5)
    setup.players[4].plays_until = 0
    setup.players[4].ranked = False
    rows = {r.number: r for r in chances(setup, MODEL, 500, seed=1)}
    assert rows[5].p_first == 0 and rows[5].expected_rank is None


def test_gibson_pairs_a_clinched_leader_with_the_first_out_of_the_money() -> None:
    assert _gibson_perm(8, 3).tolist() == [0, 3, 1, 2, 4, 5, 6, 7]
    order = np.arange(8)[None, :]
    a, b, bye = approximate_pairs(order[:, _gibson_perm(8, 3)], "koth")
    assert (a[0, 0], b[0, 0]) == (0, 3) and bye is None
    # a leader 4 wins clear with one round left has clinched: never plays 2nd place (index 1)
    players = [SimPlayer(number=1, rating=1500, wins=9)] + [
        SimPlayer(number=i, rating=1500, wins=5) for i in range(2, 9)
    ]
    setup = SimSetup(
        players=players,
        rounds=[SimRound(number=10, gibson=True)],
        win_prob=np.full((8, 8), 0.5),
        prize_places=3,
    )
    result = simulate(setup, MODEL, 200, seed=1)
    assert result.place_share[0, 0] == 200


def test_factor_and_odd_fields() -> None:
    order = np.arange(9)[None, :]
    a, b, bye = approximate_pairs(order, "factor", factor=2)
    assert bye.tolist() == [8]
    assert list(zip(a[0].tolist(), b[0].tolist(), strict=True)) == [(0, 2), (1, 3), (4, 6), (5, 7)]


def test_class_prize_goes_to_the_best_of_the_class_out_of_the_money() -> None:
    players = [
        SimPlayer(number=1, rating=1900, wins=6, player_class="A"),
        SimPlayer(number=2, rating=1400, wins=5, player_class="B"),
        SimPlayer(number=3, rating=1300, wins=4, player_class="B"),
        SimPlayer(number=4, rating=1200, wins=3, player_class="B"),
    ]
    setup = SimSetup(players=players, rounds=[], win_prob=np.full((4, 4), 0.5))
    assert list(prize_classes(setup)) == ["B"]  # the top-rated player's class plays for places
    rows = {r.number: r for r in chances(setup, MODEL, 10, seed=1, prize_places=1)}
    assert rows[2].p_class == 1.0 and rows[3].p_class == 0.0 and rows[1].p_class is None


def test_refuses_no_simulations_and_a_wrong_matrix() -> None:
    setup = _setup()
    with pytest.raises(ValueError, match="sims"):
        simulate(setup, MODEL, 0, seed=1)
    setup.win_prob = np.zeros((2, 2))
    with pytest.raises(ValueError, match="win_prob"):
        simulate(setup, MODEL, 10, seed=1)


def test_the_committed_model_is_fitted_on_real_games() -> None:
    model = load_game_model()
    assert model.games > 1000 and 60 < model.sigma < 200 and 0 < model.tie_rate < 0.05


def test_points_before_spread_rank_on_points() -> None:
    players = [
        SimPlayer(number=1, rating=1500, wins=3, losses=1, spread=200, points=1500),
        SimPlayer(number=2, rating=1500, wins=3, losses=1, spread=50, points=1700),
    ]
    done = SimSetup(
        players=players, rounds=[], win_prob=np.full((2, 2), 0.5), sum_before_spread=True
    )
    rows = {r.number: r for r in chances(done, MODEL, 10, seed=1, prize_places=1)}
    assert rows[2].p_first == 1.0
    setup = _setup(system="swiss", sum_before_spread=True)
    for p in setup.players:
        p.points = 400 * int(p.wins + p.losses)
    result = simulate(setup, MODEL, 2000, seed=4)
    assert result.place_share[:, 0].sum() == 2000
    wins2, losses2, _spread, points = next(simulate_chunks(setup, MODEL, 50, seed=4))
    before = np.array([2 * (p.wins + p.losses) for p in setup.players])
    assert (wins2 + losses2 == before + 6).all()  # three games each
    assert (points > 0).all()


def test_swiss_pairs_top_half_against_bottom_half_of_each_score_group() -> None:
    from pairings.engine.simpairs import _score_group_halves
    from pairings.engine.simrecords import _PLAIN

    # wins (doubled) of eight players, best first: groups {8,8,8,8}, {6,6,6}, {4}
    wins2 = np.array([8, 8, 8, 8, 6, 6, 6, 4])
    code = wins2.astype(np.int64) << _PLAIN.w
    v = (((_PLAIN.base - code) << _PLAIN.shift) | np.arange(8))[None, :]
    a, b = _score_group_halves(v, 8, _PLAIN)
    assert list(zip(a[0].tolist(), b[0].tolist(), strict=True)) == [(0, 2), (1, 3), (4, 5), (6, 7)]
    first = v
    # an odd top group: its last player drops into the next group
    wins2 = np.array([8, 8, 8, 6, 6, 6, 4, 4])
    code = wins2.astype(np.int64) << _PLAIN.w
    v = (((_PLAIN.base - code) << _PLAIN.shift) | np.arange(8))[None, :]
    a, b = _score_group_halves(v, 8, _PLAIN)
    assert list(zip(a[0].tolist(), b[0].tolist(), strict=True)) == [(0, 1), (2, 4), (3, 5), (6, 7)]
    # every simulation of a chunk at once: indices are flat, the second row's from 9 on (a
    # ninth column, beyond the paired ones, is left alone)
    both = np.concatenate([first, v])
    both = np.concatenate([both, both[:, -1:] + 1], axis=1)
    a, b = _score_group_halves(both, 8, _PLAIN)
    assert a[1].tolist() == [9, 11, 12, 15] and b[1].tolist() == [10, 13, 14, 16]
    assert a[0].tolist() == [0, 1, 4, 6] and b[0].tolist() == [2, 3, 5, 7]


def test_a_proposed_repeat_is_swapped_with_the_next_game() -> None:
    def both_won(met: list[tuple[int, int]]) -> int:
        players = [SimPlayer(number=i, rating=1500, wins=5 - i) for i in (1, 2, 3, 4)]
        setup = SimSetup(
            players=players,
            rounds=[SimRound(number=5, system="koth")],
            win_prob=np.full((4, 4), 0.5),
            met=met,
        )
        wins2, *_ = next(simulate_chunks(setup, MODEL, 400, seed=1))
        return int(((wins2[:, 0] == 10) & (wins2[:, 1] == 8)).sum())

    assert both_won([]) == 0  # 1 v 2: one of them loses
    assert both_won([(1, 2)]) > 50  # 1 v 3 and 2 v 4 instead


def test_a_gibsonized_swiss_leader_meets_the_first_out_of_the_money() -> None:
    players = [SimPlayer(number=1, rating=1500, wins=9)] + [
        SimPlayer(number=i, rating=1500, wins=8 - i / 2, spread=-i) for i in range(2, 9)
    ]
    setup = SimSetup(
        players=players,
        rounds=[SimRound(number=10, system="swiss", gibson=True)],
        win_prob=np.full((8, 8), 0.5),
        prize_places=3,
    )
    wins2, *_ = next(simulate_chunks(setup, MODEL, 300, seed=3))
    # player 4 (the first out of the money) and the leader: exactly one of them won
    assert set(((wins2[:, 0] - 18) + (wins2[:, 3] - 2 * 6)).tolist()) == {2}


def test_confidence_is_fitted_on_wins_and_shrinks_the_rating_edge() -> None:
    # games won exactly as often as nsa2008 expects: the fit trusts the expectancy (k = 1)
    from ratings.engine.model import RatedPlayer
    from ratings.engine.systems import get_system
    from tournament.management.commands.fit_game_model import fit_confidence

    games = []
    for gap in (50, 150, 300):
        p = get_system("nsa2008").expected_score(RatedPlayer(0, 1500 + gap), RatedPlayer(1, 1500))
        wins = round(200 * p)
        games += [(1500 + gap, 1500, 400, 300)] * wins + [(1500 + gap, 1500, 300, 400)] * (
            200 - wins
        )
    assert abs(fit_confidence(games) - 1.0) <= 0.03
    # confidence 0: every game a coin flip, whatever the ratings
    players = [SimPlayer(number=1, rating=2400), SimPlayer(number=2, rating=1000)]
    setup = SimSetup(
        players=players,
        rounds=[SimRound(number=1, system="koth")],
        win_prob=np.array([[0.5, 0.99], [0.01, 0.5]]),
    )
    flat = simulate(setup, GameModel(sigma=100.0, confidence=0.0), 4000, seed=1)
    sure = simulate(setup, GameModel(sigma=100.0, confidence=1.0), 4000, seed=1)
    assert abs(flat.place_share[0, 0] / 4000 - 0.5) < 0.04
    assert sure.place_share[0, 0] / 4000 > 0.97


@pytest.mark.parametrize("system", ["swiss", "koth", "factor"])
def test_the_compact_layout_plays_as_the_wide_one(monkeypatch, system) -> None:
    """Records that fit 7-bit wins and losses and a 17-bit spread are held in the compact
    layout (16-bit slot and previous-opponent fields read as uint16 views); anything larger
    falls back to the wide one. Both must play the same games: the same figures, bit for bit,
    with repeats to avoid and a known round with a bye before the simulated ones."""
    from pairings.engine import simrecords
    from pairings.engine import simulate as sim

    setup = _setup(11, 4, system)
    setup.rounds[0] = SimRound(
        number=10, system=system, pairs=[SimGame(1, 2, 40), SimGame(3, 4), SimGame(5, 0)]
    )
    setup.met = [(1, 2), (1, 3), (2, 3), (6, 7)]
    assert sim.Prepared(setup, MODEL).lay is simrecords._ALIGNED
    compact = simulate(setup, MODEL, 3000, seed=9, keep_ranks=True)
    monkeypatch.setattr(sim, "_plain_layout", lambda setup, model: simrecords._PLAIN)
    assert sim.Prepared(setup, MODEL).lay is simrecords._PLAIN
    wide = simulate(setup, MODEL, 3000, seed=9, keep_ranks=True)
    assert np.array_equal(compact.place_share, wide.place_share)
    assert np.array_equal(compact.ranks, wide.ranks)


def test_a_record_too_large_for_the_compact_layout_uses_the_wide_one() -> None:
    from pairings.engine import simrecords
    from pairings.engine import simulate as sim

    setup = _setup(6, 2)
    setup.players[0].spread = 70_000
    assert sim.Prepared(setup, MODEL).lay is simrecords._PLAIN
    result = simulate(setup, MODEL, 500, seed=1)
    assert result.place_share[:, 0].sum() == pytest.approx(500)


@pytest.mark.parametrize("seed", range(8))
def test_recorded_results_summed_by_slot_play_as_per_game_columns(monkeypatch, seed) -> None:
    """``Prepared._play_known`` takes the recorded results off V in one pass (summed by slot)
    where the code before took them a column per game (kept as the reference:
    ``simreference.play_known_by_column``): on random divisions with recorded wins, ties,
    losses, byes (entered, not yet entered, zero), games still open and spread caps, in both
    layouts (points before spread or not), the figures and final records are the same bits."""
    from pairings.engine import simulate as sim
    from pairings.engine.simreference import play_known_by_column

    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 40))
    players = [
        SimPlayer(
            number=i + 1,
            rating=int(rng.integers(400, 2200)),
            wins=int(rng.integers(0, 5)),
            losses=int(rng.integers(0, 5)),
            spread=int(rng.integers(-300, 300)),
            name=f"P{i}",
        )
        for i in range(n)
    ]
    wp = np.array(
        [[1 / (1 + np.exp(-0.0032 * (a.rating - b.rating))) for b in players] for a in players]
    )
    order = [int(x) + 1 for x in rng.permutation(n)]
    pairs = []
    for k in range(0, n - 1, 2):
        margin = [None, 0, int(rng.integers(-400, 400))][int(rng.integers(0, 3))]
        pairs.append(SimGame(order[k], order[k + 1], margin))
    if n % 2:
        pairs.append(SimGame(order[-1], 0, [None, 0, 50, -50][int(rng.integers(0, 4))]))
    cap = [None, 250][seed % 2]
    rounds = [SimRound(number=5, system="swiss", pairs=pairs, cap=cap)]
    rounds += [SimRound(number=6 + r, system="koth") for r in range(int(rng.integers(0, 3)))]
    setup = SimSetup(
        players=players, rounds=rounds, win_prob=wp, sum_before_spread=bool(seed % 3 == 0)
    )
    new = simulate(setup, MODEL, 700, seed=seed, keep_ranks=True, chunk=300)
    new_records = [
        r.copy() for chunk in simulate_chunks(setup, MODEL, 700, seed, 300) for r in chunk
    ]
    monkeypatch.setattr(sim.Prepared, "_play_known", play_known_by_column)
    old = simulate(setup, MODEL, 700, seed=seed, keep_ranks=True, chunk=300)
    old_records = [
        r.copy() for chunk in simulate_chunks(setup, MODEL, 700, seed, 300) for r in chunk
    ]
    assert np.array_equal(new.place_share, old.place_share)
    assert np.array_equal(new.ranks, old.ranks)
    assert all(np.array_equal(a, b) for a, b in zip(new_records, old_records, strict=True))
