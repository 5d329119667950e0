"""The banded cost model and the rustworkx solver, checked against networkx."""

from __future__ import annotations

import itertools
import random

import networkx as nx
import pytest

from pairings.engine import PairingOptions, check_round, matching, pair_round
from pairings.engine.generator import fast_history_pairing, simulate
from pairings.engine.weighted import _Round


def test_one_unit_of_a_higher_band_outweighs_any_sum_of_lower_bands():
    # 4 nodes: matching A = {0-1, 2-3} costs (1, 0) per band total; B = {0-2, 1-3} costs (0, big).
    edges = [(0, 1, (1, 0)), (2, 3, (0, 0)), (0, 2, (0, 1000)), (1, 3, (0, 1000))]
    assert matching.solve(4, edges) == [(0, 2), (1, 3)]
    edges = [(0, 1, (0, 0)), (2, 3, (0, 0)), (0, 2, (0, 1)), (1, 3, (0, 0))]
    assert matching.solve(4, edges) == [(0, 1), (2, 3)]


def test_no_perfect_matching_returns_none_and_names_single_nodes():
    edges = [(0, 1, (0,)), (0, 2, (0,)), (0, 3, (0,))]
    assert matching.solve(4, edges) is None
    assert len(matching.max_cardinality_unmatched(4, [(u, v) for u, v, _ in edges])) == 2


def test_negative_costs_are_refused():
    with pytest.raises(ValueError, match="negative cost"):
        matching.solve(2, [(0, 1, (-1,))])


@pytest.mark.parametrize("seed", range(8))
def test_same_optimum_as_networkx_on_random_banded_graphs(seed):
    rng = random.Random(seed)
    n = rng.choice([6, 8, 10, 12])
    edges = [
        (u, v, (rng.choice([0, 0, 0, 1]), rng.randrange(5), rng.randrange(50)))
        for u, v in itertools.combinations(range(n), 2)
        if rng.random() < 0.7
    ]
    ours = matching.solve(n, edges)
    g = nx.Graph()
    g.add_nodes_from(range(n))
    g.add_weighted_edges_from(matching.packed_weights(n, edges))
    ref = nx.max_weight_matching(g, maxcardinality=True)
    if ours is None:
        assert 2 * len(ref) < n
        return
    assert 2 * len(ref) == n
    ref_pairs = [(min(u, v), max(u, v)) for u, v in ref]
    assert matching.matching_cost(n, edges, ours) == matching.matching_cost(n, edges, ref_pairs)


def test_swiss_cost_model_optimum_equals_networkx_on_a_real_sized_field():
    t = simulate(60, 6, lambda f: fast_history_pairing(f, 1), seed=2, rounds_total=10)
    f = t.field()
    rnd = _Round(f, "swiss", PairingOptions())
    edges = rnd.edges(sparse=False)
    nodes = rnd.n + rnd.n % 2
    ours = matching.solve(nodes, edges)
    g = nx.Graph()
    g.add_weighted_edges_from(matching.packed_weights(nodes, edges))
    ref = [(min(u, v), max(u, v)) for u, v in nx.max_weight_matching(g, maxcardinality=True)]
    assert matching.matching_cost(nodes, edges, ours) == matching.matching_cost(nodes, edges, ref)


def test_sparse_candidates_stay_feasible_and_close_to_the_full_optimum():
    t = simulate(400, 8, lambda f: fast_history_pairing(f, 3), seed=3, rounds_total=12)
    f = t.field()
    opts = PairingOptions(sparse_above=100)
    sparse = pair_round(f, "swiss", opts)
    full = pair_round(f, "swiss", PairingOptions(sparse_above=10_000))
    assert any("limited" in n for n in sparse.notes)
    rs, rf = check_round(f, sparse, opts), check_round(f, full, opts)
    assert rs.ok and rf.ok
    assert rs.quality["repeats"] == rf.quality["repeats"] == 0
    assert rs.quality["win_diff"] <= rf.quality["win_diff"] + 2


def test_sparse_graph_falls_back_to_the_full_graph_when_infeasible():
    # 8 players where each one's nearby candidates are all used up: players 1-4 have all met,
    # players 5-8 have all met, so every pairing must cross the halves.
    from .helpers import field, met, player

    ps = [player(k) for k in range(1, 9)]
    for block in (ps[:4], ps[4:]):
        for i, a in enumerate(block):
            for b in block[i + 1 :]:
                met(a, b)
    f = field(ps, 4)
    p = pair_round(f, "swiss", PairingOptions(sparse_above=2, hard_repeat_limit=True))
    assert all((g.first <= 4) != (g.second <= 4) for g in p.games)
