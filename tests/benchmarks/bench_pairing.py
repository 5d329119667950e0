"""Benchmark: one Swiss round for 100-5,000 players after 10 simulated rounds.

Run: python tests/benchmarks/bench_pairing.py [--json] [--sizes 100,1000]

For each field size: our end-to-end ``pair_round(field, "swiss")`` (median of several runs), the
rustworkx solve alone, and networkx.max_weight_matching on the *same* graph (same candidate
edges, same packed integer weights) with the optimum cost asserted equal band by band. networkx
is skipped above 1,000 players (minutes per solve). Peak memory: Python allocations (tracemalloc)
during one pairing, and the process's peak resident size (includes the Rust side).

Targets (spec/issue): 1,000 players <= 0.3 s end to end and >= 30x faster than networkx;
5,000 players <= 5 s; peak memory <= 1 GB.
"""

from __future__ import annotations

import dataclasses
import json
import resource
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

import networkx as nx  # noqa: E402

from pairings.engine import (  # noqa: E402
    PairingOptions,
    check_round,
    matching,  # noqa: E402
    pair_round,
)
from pairings.engine.generator import fast_history_pairing, simulate  # noqa: E402
from pairings.engine.weighted import _Round  # noqa: E402

SIZES = [100, 500, 1000, 2000, 5000]
NETWORKX_MAX = 1000
HISTORY_ROUNDS = 10


def mid_event_field(n: int, seed: int = 7):
    t = simulate(n, HISTORY_ROUNDS, lambda f: fast_history_pairing(f, seed), seed=seed,
                 rounds_total=HISTORY_ROUNDS + 10)
    return t.field()


def median_time(fn, runs: int) -> tuple[float, object]:
    times, out = [], None
    for _ in range(runs):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def bench(n: int, opts: PairingOptions) -> dict:
    field = mid_event_field(n)
    runs = 7 if n <= 1000 else 3
    total, pairing = median_time(lambda: pair_round(field, "swiss", opts), runs)
    report = check_round(field, pairing, opts) if n <= 1000 else None

    rnd = _Round(field, "swiss", opts)
    sparse = rnd.n > opts.sparse_above
    t0 = time.perf_counter()
    edges = rnd.edges(sparse)
    build = time.perf_counter() - t0
    nodes = rnd.n + rnd.n % 2
    solve_rx, ours = median_time(lambda: matching.solve(nodes, edges), runs)

    tracemalloc.start()
    pair_round(field, "swiss", opts)
    _, py_peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()

    row = {
        "players": n,
        "edges": len(edges),
        "sparse": sparse,
        "end_to_end_s": total,
        "build_s": build,
        "solve_rustworkx_s": solve_rx,
        "solve_networkx_s": None,
        "speedup_solve": None,
        "speedup_end_to_end": None,
        "python_peak_mb": py_peak / 2**20,
        "process_peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "repeats": report.quality["repeats"] if report else None,
        "win_diff": report.quality["win_diff"] if report else None,
        "full_graph_win_diff": None,
        "checker_errors": len(report.errors) if report else None,
    }
    if n <= NETWORKX_MAX:
        g = nx.Graph()
        g.add_nodes_from(range(nodes))
        g.add_weighted_edges_from(matching.packed_weights(nodes, edges))
        t0 = time.perf_counter()
        ref = nx.max_weight_matching(g, maxcardinality=True)
        solve_nx = time.perf_counter() - t0
        ref_pairs = [(min(u, v), max(u, v)) for u, v in ref]
        assert 2 * len(ref_pairs) == nodes, "networkx found no perfect matching"
        ours_cost = matching.matching_cost(nodes, edges, ours)
        ref_cost = matching.matching_cost(nodes, edges, ref_pairs)
        assert ours_cost == ref_cost, (n, ours_cost, ref_cost)
        row["solve_networkx_s"] = solve_nx
        if sparse:  # what limiting the candidate edges costs in quality (nothing, so far)
            full_opts = dataclasses.replace(opts, sparse_above=10**9)
            full = check_round(field, pair_round(field, "swiss", full_opts), full_opts)
            row["full_graph_win_diff"] = full.quality["win_diff"]
        row["speedup_solve"] = solve_nx / solve_rx
        row["speedup_end_to_end"] = (total - solve_rx + solve_nx) / total
    return row


def main() -> None:
    sizes = SIZES
    if "--sizes" in sys.argv:
        sizes = [int(x) for x in sys.argv[sys.argv.index("--sizes") + 1].split(",")]
    opts = PairingOptions(seed=1)
    rows = [bench(n, opts) for n in sizes]
    if "--json" in sys.argv:
        print(json.dumps(rows, indent=2))
        return
    print(f"Swiss round {HISTORY_ROUNDS + 1} after {HISTORY_ROUNDS} simulated rounds "
          f"(medians; networkx on the same graph up to {NETWORKX_MAX} players)")
    print(f"{'players':>7} {'edges':>8} {'total s':>8} {'build s':>8} {'rx s':>8} "
          f"{'nx s':>8} {'nx/rx solve':>11} {'nx/ours e2e':>11} {'py MB':>7} {'rss MB':>7} "
          f"{'win diff (full graph)':>21}")
    for r in rows:
        nx_s = f"{r['solve_networkx_s']:8.3f}" if r["solve_networkx_s"] else f"{'-':>8}"
        sp = f"{r['speedup_solve']:10.1f}x" if r["speedup_solve"] else f"{'-':>11}"
        se = f"{r['speedup_end_to_end']:10.1f}x" if r["speedup_end_to_end"] else f"{'-':>11}"
        wd = "-" if r["win_diff"] is None else f"{r['win_diff']:g}"
        if r["full_graph_win_diff"] is not None:
            wd += f" ({r['full_graph_win_diff']:g})"
        print(f"{r['players']:>7} {r['edges']:>8} {r['end_to_end_s']:8.3f} {r['build_s']:8.3f} "
              f"{r['solve_rustworkx_s']:8.3f} {nx_s} {sp} {se} {r['python_peak_mb']:7.1f} "
              f"{r['process_peak_rss_mb']:7.1f} {wd:>21}")


if __name__ == "__main__":
    main()
