"""Minimum-cost perfect matching with priority-banded integer costs.

Each candidate edge carries a tuple of costs, highest-priority rule first. The tuple is packed
into one integer so that a unit of a higher band outweighs *any* sum of lower bands over a whole
matching: band k is multiplied by the product of (bound_j + 1) over all lower bands j, where
bound_j is an upper bound on band j's total over any matching. The bound used is half the sum,
over nodes, of the node's largest cost in that band (each matched edge costs at most the mean of
its two endpoints' maxima), which is much tighter than "largest edge x edges in a matching" and
keeps 5,000-player fields well inside rustworkx's 128-bit weights.

Max weight with ``max_cardinality=True`` on ``offset - cost`` is a minimum-cost *perfect*
matching whenever one exists, because every perfect matching adds the same number of offsets.

Two ways in, one set of numbers: ``packed_weights`` takes edges as (u, v, cost tuple), which is
what small callers (the Australian draw, tests) build by hand; ``packed_weight_arrays`` takes the
same edges as numpy columns, which is how the weighted systems build thousands of edges without
a Python object per cost. Both give the identical weights, in the same edge order, so rustworkx
returns the identical matching (tests/pairings_engine/test_fast_edges.py checks this).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import rustworkx as rx

Edge = tuple[int, int, tuple[int, ...]]

# rustworkx stores weights as i128 and doubles them internally; stay well below.
MAX_PACKED_BITS = 120


def band_multipliers(n_nodes: int, edges: Sequence[Edge]) -> list[int]:
    if not edges:
        return []
    n_bands = len(edges[0][2])
    node_max = [[0] * n_bands for _ in range(n_nodes)]
    for u, v, costs in edges:
        mu, mv = node_max[u], node_max[v]
        for k, c in enumerate(costs):
            if c < 0:
                raise ValueError(f"negative cost {c} in band {k} on edge {u}-{v}")
            if c > mu[k]:
                mu[k] = c
            if c > mv[k]:
                mv[k] = c
    bounds = [(sum(m[k] for m in node_max) + 1) // 2 for k in range(n_bands)]
    mult = [1] * n_bands
    for k in range(n_bands - 2, -1, -1):
        mult[k] = mult[k + 1] * (bounds[k + 1] + 1)
    return mult


def packed_weights(n_nodes: int, edges: Sequence[Edge]) -> list[tuple[int, int, int]]:
    """The edges as (u, v, weight) for a *maximum*-weight matching; same numbers for any solver."""
    mult = band_multipliers(n_nodes, edges)
    costs = [sum(c * m for c, m in zip(cs, mult, strict=True)) for _, _, cs in edges]
    offset = (max(costs) + 1) if costs else 1
    if offset.bit_length() > MAX_PACKED_BITS:
        raise OverflowError(
            f"pairing costs need {offset.bit_length()} bits; reduce the candidate edges"
        )
    return [(u, v, offset - c) for (u, v, _), c in zip(edges, costs, strict=True)]


def packed_weight_arrays(
    n_nodes: int, u: np.ndarray, v: np.ndarray, costs: np.ndarray
) -> list[tuple[int, int, int]]:
    """``packed_weights`` for edges given as columns: ``u``, ``v`` (E,) and ``costs`` (E, bands).

    Same bounds, multipliers and offset as the tuple version (so the same weights), but the
    per-edge work runs in numpy: at 1,000 players this is ~1 ms instead of ~11 ms. Products are
    taken in int64 only when the largest possible packed cost provably fits; otherwise in Python
    integers (object arrays), which is slower but exact.
    """
    if len(u) == 0:
        return []
    if (costs < 0).any():
        e, k = (int(x) for x in np.argwhere(costs < 0)[0])
        raise ValueError(f"negative cost {costs[e, k]} in band {k} on edge {u[e]}-{v[e]}")
    n_bands = costs.shape[1]
    bounds = []
    for k in range(n_bands):  # band by band: 1-D ufunc.at is several times faster than 2-D
        band = costs[:, k]
        node_max = np.zeros(n_nodes, dtype=np.int64)
        if band.any():
            np.maximum.at(node_max, u, band)
            np.maximum.at(node_max, v, band)
        bounds.append((int(node_max.sum()) + 1) // 2)
    mult = [1] * n_bands
    for k in range(n_bands - 2, -1, -1):
        mult[k] = mult[k + 1] * (bounds[k + 1] + 1)
    largest = sum(int(c) * m for c, m in zip(costs.max(axis=0), mult, strict=True))
    if largest < 2**62:
        packed = costs @ np.array(mult, dtype=np.int64)
    else:
        packed = costs.astype(object) @ np.array(mult, dtype=object)
    offset = int(packed.max()) + 1
    if offset.bit_length() > MAX_PACKED_BITS:
        raise OverflowError(
            f"pairing costs need {offset.bit_length()} bits; reduce the candidate edges"
        )
    return list(zip(u.tolist(), v.tolist(), (offset - packed).tolist(), strict=True))


def solve(n_nodes: int, edges: Sequence[Edge]) -> list[tuple[int, int]] | None:
    """A minimum-cost perfect matching as (u, v) pairs with u < v, or None if none exists."""
    if n_nodes == 0:
        return []
    if n_nodes % 2:
        return None
    return solve_packed(n_nodes, packed_weights(n_nodes, edges))


def solve_packed(
    n_nodes: int, weighted: Sequence[tuple[int, int, int]]
) -> list[tuple[int, int]] | None:
    """``solve`` for edges already packed (u, v, weight): the rustworkx call itself."""
    if n_nodes == 0:
        return []
    if n_nodes % 2:
        return None
    graph = rx.PyGraph(multigraph=False)
    graph.add_nodes_from(range(n_nodes))
    graph.add_edges_from(weighted)
    # int (a builtin) reads each edge's packed weight: a lambda cost 65 ms at 124,750 edges
    matched = rx.max_weight_matching(graph, max_cardinality=True, weight_fn=int)
    if 2 * len(matched) != n_nodes:
        return None
    return sorted((min(u, v), max(u, v)) for u, v in matched)


def max_cardinality_unmatched(n_nodes: int, pairs: Sequence[tuple[int, int]]) -> list[int]:
    """Nodes left single by a maximum-cardinality matching (used to name who cannot be paired)."""
    graph = rx.PyGraph(multigraph=False)
    graph.add_nodes_from(range(n_nodes))
    graph.add_edges_from_no_data(list(pairs))
    matched = rx.max_weight_matching(graph, max_cardinality=True, default_weight=1)
    used = {x for e in matched for x in e}
    return [x for x in range(n_nodes) if x not in used]


def matching_cost(n_nodes: int, edges: Sequence[Edge], pairs) -> tuple[int, ...]:
    """Band-wise total of a matching; lets tests compare solvers band by band."""
    table = {(min(u, v), max(u, v)): cs for u, v, cs in edges}
    n_bands = len(edges[0][2]) if edges else 0
    total = [0] * n_bands
    for u, v in pairs:
        for k, c in enumerate(table[(min(u, v), max(u, v))]):
            total[k] += c
    return tuple(total)
