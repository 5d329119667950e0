"""The bulk edge builder and packer give exactly what the plain, one-edge-at-a-time code gives.

The weighted systems build their matching edges with numpy (``_Round.edges``/``edge_arrays``,
``matching.packed_weight_arrays``) for speed. rustworkx breaks ties between equal-cost matchings
by the graph it is given, so "the same optimum" is not enough: these tests demand the same
edges in the same order with the same costs and weights, and the same pairing, as the plain
specification (``_Round.reference_edges``, ``matching.packed_weights``) on random fields.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from pairings.engine import FieldPlayer, PairingOptions, matching, pair_round
from pairings.engine.generator import fast_history_pairing, simulate
from pairings.engine.standing import meeting_counts
from pairings.engine.weighted import WEIGHTED_SYSTEMS, _Round


def random_field(seed: int):
    """A mid-event field with withdrawals, forbidden pairs, byes, sometimes a lagged round."""
    rng = random.Random(seed)
    n = rng.choice([5, 9, 16, 31, 48, 75])
    played = rng.randrange(0, 9)
    t = simulate(
        n,
        played,
        lambda f: fast_history_pairing(f, seed),
        seed=seed,
        withdraw_rate=rng.choice([0.0, 0.05]),
        rounds_total=played + rng.choice([1, 2, 4]),
    )
    f = t.field()
    numbers = [p.number for p in f.players]
    for _ in range(rng.randrange(0, 4)):
        f.forbidden.add(frozenset(rng.sample(numbers, 2)))
    if played >= 2 and rng.random() < 0.3:
        f.complete_rounds = played - 1
    return f, rng


def random_options(rng: random.Random) -> PairingOptions:
    return PairingOptions(
        seed=rng.randrange(1000),
        max_meetings=rng.choice([1, 1, 2]),
        repeats_since_round=rng.choice([None, None, 3]),
        hard_repeat_limit=rng.random() < 0.2,
        avoid_last_opponent=rng.random() < 0.8,
        bye_method=rng.choice(["bottom_up", "top_down", "always_bottom"]),
        gibson=rng.random() < 0.9,
        gibson_spread=rng.choice([0, 150, 500]),
        gibson_places=rng.choice([1, 1, 3]),
        prize_bands=rng.choice([[1], [1, 3, 8], [2, 6]]),
        factor_distance=rng.choice([1, 2, 4]),
        sparse_above=rng.choice([4, 12, 300]),
    )


CASES = [(seed, system) for seed in range(60) for system in WEIGHTED_SYSTEMS]


@pytest.mark.parametrize(("seed", "system"), CASES)
def test_bulk_edges_and_weights_equal_the_plain_ones(seed, system):
    f, rng = random_field(seed)
    opts = random_options(rng)
    for sparse in (True, False):
        # A fresh round each time: the random system draws its costs from a per-round rng.
        fast = _Round(f, system, opts).edges(sparse)
        rnd = _Round(f, system, opts)
        plain = rnd.reference_edges(sparse)
        assert fast == plain, (seed, system, sparse)
        n_nodes = rnd.n + rnd.n % 2
        u, v, costs = _Round(f, system, opts).edge_arrays(sparse)
        assert matching.packed_weight_arrays(n_nodes, u, v, costs) == matching.packed_weights(
            n_nodes, plain
        )


@pytest.mark.parametrize(("seed", "system"), CASES[::3])
def test_engine_pairs_exactly_as_the_plain_model(seed, system):
    f, rng = random_field(seed)
    opts = random_options(rng)
    rnd = _Round(f, system, opts)
    nodes = rnd.n + rnd.n % 2
    sparse = rnd.n > opts.sparse_above
    plain = matching.solve(nodes, _Round(f, system, opts).reference_edges(sparse))
    if plain is None and sparse:
        plain = matching.solve(nodes, _Round(f, system, opts).reference_edges(False))
    if plain is None:
        return  # infeasible under a hard rule: the refusal itself is tested elsewhere
    assert rnd.solve() == plain
    games = {frozenset((g.first, g.second)) for g in pair_round(f, system, opts).games}
    number = [p.number for p in rnd.ordered] + [0]
    assert games == {frozenset((number[u], number[v])) for u, v in plain}


def test_the_random_fields_reach_every_special_case():
    """Guard against the two tests above passing on fields that never exercise a branch."""
    seen = set()
    for seed in range(60):
        f, rng = random_field(seed)
        opts = random_options(rng)
        for system in ("swiss", "contention"):
            rnd = _Round(f, system, opts)
            sparse = rnd.n > opts.sparse_above
            seen |= {"gibson"} if rnd.gib else set()
            seen |= {"contention"} if rnd.contention_group else set()
            seen |= {"bye"} if rnd.n % 2 else set()
            seen |= {"sparse"} if sparse else set()
            seen |= {"forbidden"} if f.forbidden else set()
            seen |= {"hard limit"} if opts.hard_repeat_limit else set()
            costs = _Round(f, system, opts).edge_arrays(sparse)[2]
            seen |= {"repeat"} if costs[:, 5].any() else set()
            seen |= {"over limit"} if costs[:, 0].any() else set()
    assert seen == {
        "gibson",
        "contention",
        "bye",
        "sparse",
        "forbidden",
        "hard limit",
        "repeat",
        "over limit",
    }


@pytest.mark.parametrize("seed", range(10))
def test_packed_arrays_equal_packed_tuples_on_random_banded_edges(seed):
    rng = random.Random(seed)
    n = rng.choice([4, 9, 20])
    bands = rng.randrange(1, 6)
    top = rng.choice([3, 1000, 10**9])  # 10**9 needs Python integers, not int64
    edges = [
        (u, v, tuple(rng.randrange(top) if rng.random() < 0.5 else 0 for _ in range(bands)))
        for u in range(n)
        for v in range(u + 1, n)
        if rng.random() < 0.6
    ]
    u = np.array([e[0] for e in edges], dtype=np.int64)
    v = np.array([e[1] for e in edges], dtype=np.int64)
    costs = np.array([e[2] for e in edges], dtype=np.int64).reshape(len(edges), bands)
    try:
        expected = matching.packed_weights(n, edges)
    except OverflowError:
        with pytest.raises(OverflowError):
            matching.packed_weight_arrays(n, u, v, costs)
        return
    assert matching.packed_weight_arrays(n, u, v, costs) == expected


def test_packed_arrays_refuse_negative_costs_naming_the_edge():
    u, v = np.array([0, 1]), np.array([1, 2])
    costs = np.array([[0, 1], [0, -3]], dtype=np.int64)
    with pytest.raises(ValueError, match="negative cost -3 in band 1 on edge 1-2"):
        matching.packed_weight_arrays(3, u, v, costs)


@pytest.mark.parametrize("seed", range(20))
def test_starts_replies_and_meetings_equal_a_plain_count(seed):
    rng = random.Random(seed)
    rounds = rng.randrange(0, 12)
    opponents = [rng.choice([0, 2, 3, 4, 5]) for _ in range(rounds)]
    firsts = [rng.choice([0, 1, 2]) for _ in range(rounds + rng.choice([-2, 0, 0, 1]))]
    p = FieldPlayer(number=1, rating=1500, opponents=opponents, firsts=firsts)
    pairs = list(zip(opponents, firsts, strict=False))
    assert p.starts == sum(1 for o, f in pairs if o and f == 1)
    assert p.replies == sum(1 for o, f in pairs if o and f == 2)
    since = rng.choice([None, 1, 3])
    start = 0 if since is None else since - 1
    plain: dict[int, int] = {}
    for o in opponents[start:]:
        if o:
            plain[o] = plain.get(o, 0) + 1
    assert meeting_counts(p, since) == plain
