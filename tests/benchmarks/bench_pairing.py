"""Benchmark: one Swiss round for 100-5,000 players after 10 simulated rounds.

Run: python tests/benchmarks/bench_pairing.py [--json] [--sizes 100,1000] [--short]

For each field size, medians of several runs:

* ``ours s``: ``pair_round(field, "swiss")`` end to end, from the field to the boards
  (validation, standings, candidate edges and costs, packing, rustworkx, firsts, explanations);
* ``build s``: standings prep plus candidate edges and their costs (``_Round(...)`` and
  ``edge_arrays``), the Python side of the model;
* ``rx s`` / ``nx s``: the solver call alone on the *same* packed graph (same candidate edges,
  same integer weights), each including building its own graph object: rustworkx
  (``matching.solve_packed``) and networkx.max_weight_matching; the optimum cost is asserted
  equal band by band;
* ``nx e2e s``: the same ``pair_round`` with ``matching.solve_packed`` swapped for networkx
  (and one whole-graph matching, as before the score-group windows), i.e. the same model end
  to end on networkx (its matching's cost is asserted equal to ours);
* ``e2e nx/ours``: ``nx e2e s`` / ``ours s``, the issue's end-to-end ratio, measured directly.

networkx is skipped above 1,000 players (minutes per solve). Peak memory: Python allocations
(tracemalloc) during one pairing, and the process's peak resident size (includes the Rust side).

Targets (the pairing engine issue): 1,000 players <= 0.3 s end to end and >= 30x faster
than the same model on networkx; 5,000 players <= 5 s; peak memory <= 1 GB. Each is printed
beside its figure, or as not measured when the sizes run leave it out.

Then the scaling table (issue 24, "pairing that scales"), on the same kind of field at
2,000 / 5,000 / 10,000 / 20,000 players (``--scale-sizes``), all in one run:

* ``ours s``: ``pair_round`` end to end, Swiss solved in score-group windows
  (``_Round.solve_windows``, proven equal to the whole graph's optimum), the big score groups
  in column blocks (``pairings.engine.columns``, certified equal to the group's own matching);
* ``before s``: the same ``pair_round`` with the column blocks off (every window one
  matching: the engine before the blocks), and ``before/ours`` the speed-up, in the same run;
* ``full s``: the same ``pair_round`` with the windows off: one matching of the whole graph
  of the day, the engine before the windows (the anchor);
* ``solve s`` / ``before solve s`` / ``full solve s``: the matching alone (windows with
  blocks, windows without, whole graph) on the same packed graph; their optimum costs are
  asserted equal band by band;
* ``greedy s``: ``generator.fast_history_pairing``, a greedy Swiss with no matching (worse
  quality: its repeats and win difference are printed beside ours);
* ``growth``: ours(n) / ours(n/2) as a factor per doubling, from this run's own figures.

The scaling table's times are CPU seconds of this process (wall clock beside them): the
pairing runs on one thread, and on a shared machine the wall clock mostly measures the load.

Targets: growth 5,000 -> 10,000 players <= x2.5; 10,000 players <= 1 s; 20,000 <= 3 s; the
same optimum cost as the whole graph. ``--only-scale`` skips the first table; ``--scale-runs N``
takes medians of N runs at every size (default 3 up to 5,000 players, 1 above). ``--short``: 100
players in the first table and 400 / 800 in the scaling table, in seconds, with the column
blocks taken from groups of 60 players (blocks of 10 columns) so that the suite's run goes
through them and their equality assertions (at the default 600 these sizes have none). Exit
status 0
unless it crashes (an optimum that differs from networkx's or the whole graph's is an
assertion error).
"""

from __future__ import annotations

import dataclasses
import json
import math
import resource
import statistics
import sys
import time
import tracemalloc
from pathlib import Path
from unittest import mock

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

import networkx as nx  # noqa: E402

from pairings.engine import (  # noqa: E402
    PairingOptions,
    check_round,
    matching,  # noqa: E402
    pair_round,
    round_quality,
)
from pairings.engine import columns as columns_module  # noqa: E402
from pairings.engine import weighted as weighted_module  # noqa: E402
from pairings.engine import windows as windows_module  # noqa: E402
from pairings.engine.generator import fast_history_pairing, simulate  # noqa: E402
from pairings.engine.weighted import _Round  # noqa: E402

SIZES = [100, 500, 1000, 2000, 5000]
SCALE_SIZES = [2000, 5000, 10000, 20000]
NETWORKX_MAX = 1000
HISTORY_ROUNDS = 10


def mid_event_field(n: int, seed: int = 7):
    t = simulate(
        n,
        HISTORY_ROUNDS,
        lambda f: fast_history_pairing(f, seed),
        seed=seed,
        rounds_total=HISTORY_ROUNDS + 10,
    )
    return t.field()


def median_time(fn, runs: int) -> tuple[float, object]:
    times, out = [], None
    for _ in range(runs):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def median_wall_cpu(fn, runs: int) -> tuple[float, float, object]:
    """Median wall and CPU seconds of ``fn`` (the pairing is single-threaded, so on a shared,
    loaded machine its CPU time is the steadier measure of the work)."""
    walls, cpus, out = [], [], None
    for _ in range(runs):
        w0, c0 = time.perf_counter(), time.process_time()
        out = fn()
        cpus.append(time.process_time() - c0)
        walls.append(time.perf_counter() - w0)
    return statistics.median(walls), statistics.median(cpus), out


def networkx_solve_packed(
    n_nodes: int, weighted: list[tuple[int, int, int]]
) -> list[tuple[int, int]] | None:
    """``matching.solve_packed`` with networkx in place of rustworkx: same graph, same weights."""
    if n_nodes == 0:
        return []
    if n_nodes % 2:
        return None
    g = nx.Graph()
    g.add_nodes_from(range(n_nodes))
    g.add_weighted_edges_from(weighted)
    matched = nx.max_weight_matching(g, maxcardinality=True)
    if 2 * len(matched) != n_nodes:
        return None
    return sorted((min(u, v), max(u, v)) for u, v in matched)


def bench(n: int, opts: PairingOptions) -> dict:
    field = mid_event_field(n)
    runs = 7 if n <= 1000 else 3
    total, pairing = median_time(lambda: pair_round(field, "swiss", opts), runs)
    report = check_round(field, pairing, opts) if n <= 1000 else None

    rnd = _Round(field, "swiss", opts)
    sparse = rnd.n > opts.sparse_above
    build, arrays = median_time(lambda: _Round(field, "swiss", opts).edge_arrays(sparse), runs)
    edges = rnd.edges(sparse)
    nodes = rnd.n + rnd.n % 2
    weighted = matching.packed_weight_arrays(nodes, *arrays)
    assert weighted == matching.packed_weights(nodes, edges)
    solve_rx, ours = median_time(lambda: matching.solve_packed(nodes, weighted), runs)

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
        "end_to_end_networkx_s": None,
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
        nx_runs = 3 if n <= 1000 else 1
        solve_nx, ref = median_time(lambda: networkx_solve_packed(nodes, weighted), nx_runs)
        assert ref is not None, "networkx found no perfect matching"
        ours_cost = matching.matching_cost(nodes, edges, ours)
        assert ours_cost == matching.matching_cost(nodes, edges, ref), n

        nx_matchings = []

        def networkx_recorded(n_nodes, weighted_edges):
            nx_matchings.append(networkx_solve_packed(n_nodes, weighted_edges))
            return nx_matchings[-1]

        with mock.patch.object(matching, "solve_packed", networkx_recorded):
            total_nx, _ = median_time(lambda: whole_graph_pair_round(field, opts), nx_runs)
        assert all(matching.matching_cost(nodes, edges, m) == ours_cost for m in nx_matchings)

        row["solve_networkx_s"] = solve_nx
        row["end_to_end_networkx_s"] = total_nx
        if sparse:  # what limiting the candidate edges costs in quality (nothing, so far)
            full_opts = dataclasses.replace(opts, sparse_above=10**9)
            full = check_round(field, pair_round(field, "swiss", full_opts), full_opts)
            row["full_graph_win_diff"] = full.quality["win_diff"]
        row["speedup_solve"] = solve_nx / solve_rx
        row["speedup_end_to_end"] = total_nx / total
    return row


def _cell(x: float | None, width: int, fmt: str, unit: str = "") -> str:
    return f"{'-' if x is None else format(x, fmt) + unit:>{width}}"


def whole_graph_pair_round(field, opts: PairingOptions):
    """``pair_round`` as it was before the windows: one matching of the whole graph."""
    with mock.patch.object(weighted_module, "WINDOWS_ABOVE", 10**12):
        return pair_round(field, "swiss", opts)


def without_blocks():
    """The engine before the column blocks: every score-group window one matching."""
    return mock.patch.object(columns_module, "COLUMN_BLOCKS_ABOVE", 10**12)


def scale_row(n: int, opts: PairingOptions, runs: int | None = None) -> dict:
    field = mid_event_field(n)
    runs = runs or (3 if n <= 5000 else 1)
    total, cpu, ours = median_wall_cpu(lambda: pair_round(field, "swiss", opts), runs)
    with without_blocks():
        before_total, before_cpu, _ = median_wall_cpu(
            lambda: pair_round(field, "swiss", opts), runs
        )
    full_total, full_cpu, full = median_wall_cpu(lambda: whole_graph_pair_round(field, opts), runs)
    greedy_total, greedy_cpu, greedy = median_wall_cpu(lambda: fast_history_pairing(field, 1), runs)

    rnd = _Round(field, "swiss", opts)
    sparse = rnd.n > opts.sparse_above
    u, v, costs, weighted = rnd._packed(sparse)
    nodes = rnd.n + rnd.n % 2
    blocks = []
    counted = columns_module.column_blocks

    def counting(*args, **kwargs):
        found = counted(*args, **kwargs)
        blocks.append(found is not None)
        return found

    with mock.patch.object(windows_module, "column_blocks", counting):
        rnd.solve_windows(sparse)
    _, solve, window_pairs = median_wall_cpu(lambda: rnd.solve_windows(sparse), runs)
    windows = getattr(rnd, "window_sizes", [])
    with without_blocks():
        before_rnd = _Round(field, "swiss", opts)
        before_rnd._packed_cache = rnd._packed_cache  # the same graph of the day
        _, before_solve, before_pairs = median_wall_cpu(
            lambda: before_rnd.solve_windows(sparse), runs
        )
    _, full_solve, full_pairs = median_wall_cpu(
        lambda: matching.solve_packed(nodes, weighted), runs
    )
    assert window_pairs is not None, f"{n} players: the windows were not proven"
    edges = list(zip(u.tolist(), v.tolist(), map(tuple, costs.tolist()), strict=True))
    ours_cost = matching.matching_cost(nodes, edges, window_pairs)
    assert ours_cost == matching.matching_cost(nodes, edges, full_pairs), n
    assert ours_cost == matching.matching_cost(nodes, edges, before_pairs), n
    quality = {k: round_quality(field, p, opts) for k, p in (("ours", ours), ("greedy", greedy))}
    return {
        "players": n,
        "edges": len(edges),
        "end_to_end_s": total,
        "end_to_end_cpu_s": cpu,
        "before_end_to_end_s": before_total,
        "before_end_to_end_cpu_s": before_cpu,
        "full_graph_end_to_end_s": full_total,
        "full_graph_end_to_end_cpu_s": full_cpu,
        "solve_windows_cpu_s": solve,
        "solve_before_cpu_s": before_solve,
        "solve_full_graph_cpu_s": full_solve,
        "column_blocks": blocks.count(True),
        "windows": len(windows),
        "largest_window": max(windows, default=0),
        "greedy_s": greedy_total,
        "greedy_cpu_s": greedy_cpu,
        "same_optimum": True,
        "repeats": quality["ours"]["repeats"],
        "win_diff": quality["ours"]["win_diff"],
        "greedy_repeats": quality["greedy"]["repeats"],
        "greedy_win_diff": quality["greedy"]["win_diff"],
    }


def per_doubling(rows: list[dict], key: str) -> dict[int, float]:
    """Growth of ``key`` from the previous size to each size, as a factor per doubling."""
    out = {}
    for a, b in zip(rows, rows[1:], strict=False):
        steps = math.log2(b["players"] / a["players"])
        if steps > 0 and a[key] > 0:
            out[b["players"]] = (b[key] / a[key]) ** (1 / steps)
    return out


def print_scale(rows: list[dict]) -> None:
    growth = per_doubling(rows, "end_to_end_cpu_s")
    full_growth = per_doubling(rows, "full_graph_end_to_end_cpu_s")
    print()
    print(
        "Column blocks: before (every score-group window one matching) and after (the big "
        "groups in certified column blocks), same field and run; CPU seconds "
        "(time.process_time), wall clock in brackets"
    )
    print(
        f"{'players':>7} {'before s':>15} {'after s':>15} {'before/after':>12} "
        f"{'before solve s':>14} {'after solve s':>13} {'blocks':>6} {'same optimum':>12}"
    )
    for r in rows:
        before = f"{r['before_end_to_end_cpu_s']:.3f} ({r['before_end_to_end_s']:.2f})"
        after = f"{r['end_to_end_cpu_s']:.3f} ({r['end_to_end_s']:.2f})"
        print(
            f"{r['players']:>7} {before:>15} {after:>15} "
            f"{r['before_end_to_end_cpu_s'] / r['end_to_end_cpu_s']:11.2f}x "
            f"{r['solve_before_cpu_s']:14.3f} {r['solve_windows_cpu_s']:13.3f} "
            f"{r['column_blocks']:>6} {'yes':>12}"
        )
    print(
        "blocks = score groups solved in certified column blocks; same optimum = the three "
        "solves (after, before, whole graph) cost the same, band by band (asserted)"
    )
    print()
    print(
        f"Swiss round {HISTORY_ROUNDS + 1}, score-group windows vs the whole graph vs greedy "
        "(same field per size; medians; CPU seconds, wall clock in brackets)"
    )
    print(
        f"{'players':>7} {'edges':>7} {'ours s':>15} {'full s':>17} {'full/ours':>9} "
        f"{'solve s':>7} {'full solve s':>12} {'greedy s':>8} {'ours/greedy':>11} "
        f"{'growth':>6} {'full growth':>11} {'repeats':>7} {'win diff':>8} "
        f"{'greedy rep/wd':>13} {'windows':>7} {'largest':>7}"
    )
    for r in rows:
        n = r["players"]
        ours = f"{r['end_to_end_cpu_s']:.3f} ({r['end_to_end_s']:.2f})"
        full = f"{r['full_graph_end_to_end_cpu_s']:.3f} ({r['full_graph_end_to_end_s']:.2f})"
        print(
            f"{n:>7} {r['edges']:>7} {ours:>15} {full:>17} "
            f"{r['full_graph_end_to_end_cpu_s'] / r['end_to_end_cpu_s']:8.1f}x "
            f"{r['solve_windows_cpu_s']:7.3f} {r['solve_full_graph_cpu_s']:12.3f} "
            f"{r['greedy_cpu_s']:8.3f} {r['end_to_end_cpu_s'] / r['greedy_cpu_s']:10.1f}x "
            f"{_cell(growth.get(n), 6, '.2f')} {_cell(full_growth.get(n), 11, '.2f')} "
            f"{r['repeats']:>7} {r['win_diff']:>8g} "
            f"{str(r['greedy_repeats']) + '/' + format(r['greedy_win_diff'], 'g'):>13} "
            f"{r['windows']:>7} {r['largest_window']:>7}"
        )
    print(
        "ours = pair_round (windows); full = pair_round with one whole-graph matching (before "
        "the windows); growth = factor per doubling of players (CPU), from this run; the "
        "windows' optimum cost equals the whole graph's on every row (asserted); windows / "
        "largest = how many windows the round was solved in, and the players in the largest"
    )
    by_n = {r["players"]: r for r in rows}
    checks = []
    if 10000 in growth and 5000 in by_n:
        checks.append(f"growth 5,000 -> 10,000 players x{growth[10000]:.2f} (target <= x2.5)")
    if 20000 in growth and 10000 in by_n:
        checks.append(f"growth 10,000 -> 20,000 players x{growth[20000]:.2f}")
    if 10000 in by_n:
        checks.append(f"10,000 players {by_n[10000]['end_to_end_cpu_s']:.3f} s CPU (target <= 1 s)")
    if 20000 in by_n:
        checks.append(f"20,000 players {by_n[20000]['end_to_end_cpu_s']:.3f} s CPU (target <= 3 s)")
    checks.append("same optimum cost as the whole graph: yes (every size)")
    for c in checks:
        print("target: " + c)


def main() -> None:
    sizes = SIZES
    if "--sizes" in sys.argv:
        sizes = [int(x) for x in sys.argv[sys.argv.index("--sizes") + 1].split(",")]
    elif "--short" in sys.argv:
        sizes = [100]
    scale_sizes = [400, 800] if "--short" in sys.argv else SCALE_SIZES
    if "--scale-sizes" in sys.argv:
        at = sys.argv.index("--scale-sizes") + 1
        scale_sizes = [int(x) for x in sys.argv[at].split(",")]
    opts = PairingOptions(seed=1)
    rows = [] if "--only-scale" in sys.argv else [bench(n, opts) for n in sizes]
    scale_runs = None
    if "--scale-runs" in sys.argv:
        scale_runs = int(sys.argv[sys.argv.index("--scale-runs") + 1])
    if "--short" in sys.argv:
        with (
            mock.patch.object(columns_module, "COLUMN_BLOCKS_ABOVE", 60),
            mock.patch.object(columns_module, "BLOCK_COLUMNS", 10),
        ):
            scale = [scale_row(n, opts, scale_runs) for n in scale_sizes]
    else:
        scale = [scale_row(n, opts, scale_runs) for n in scale_sizes]
    if "--json" in sys.argv:
        print(json.dumps({"sizes": rows, "scaling": scale}, indent=2))
        return
    if rows:
        print_table(rows)
    print_scale(scale)


def print_table(rows: list[dict]) -> None:
    print(
        f"Swiss round {HISTORY_ROUNDS + 1} after {HISTORY_ROUNDS} simulated rounds "
        f"(medians; networkx on the same graph up to {NETWORKX_MAX} players)"
    )
    print(
        f"{'players':>7} {'edges':>7} {'ours s':>7} {'build s':>7} {'rx s':>7} {'nx s':>7} "
        f"{'solve nx/rx':>11} {'nx e2e s':>8} {'e2e nx/ours':>11} {'py MB':>6} {'rss MB':>6} "
        f"{'win diff (full graph)':>21}"
    )
    for r in rows:
        wd = "-" if r["win_diff"] is None else f"{r['win_diff']:g}"
        if r["full_graph_win_diff"] is not None:
            wd += f" ({r['full_graph_win_diff']:g})"
        print(
            f"{r['players']:>7} {r['edges']:>7} {r['end_to_end_s']:7.3f} {r['build_s']:7.3f} "
            f"{r['solve_rustworkx_s']:7.3f} {_cell(r['solve_networkx_s'], 7, '.3f')} "
            f"{_cell(r['speedup_solve'], 11, '.1f', 'x')} "
            f"{_cell(r['end_to_end_networkx_s'], 8, '.3f')} "
            f"{_cell(r['speedup_end_to_end'], 11, '.1f', 'x')} "
            f"{r['python_peak_mb']:6.1f} {r['process_peak_rss_mb']:6.1f} {wd:>21}"
        )
    print(
        "ours = pair_round end to end; nx e2e = the same pair_round with networkx as the "
        "solver; rx/nx = the solver call alone (graph build + matching), same packed graph"
    )
    by_size = {r["players"]: r for r in rows}
    r1k, r5k = by_size.get(1000), by_size.get(5000)
    checks = [
        f"1,000 players {r1k['end_to_end_s']:.3f} s (target <= 0.3 s)"
        if r1k
        else "1,000 players not run (target <= 0.3 s)",
        f"{r1k['speedup_end_to_end']:.1f}x networkx end to end (target >= 30x)"
        if r1k and r1k["speedup_end_to_end"]
        else "networkx ratio at 1,000 players not run (target >= 30x)",
        f"5,000 players {r5k['end_to_end_s']:.3f} s (target <= 5 s)"
        if r5k
        else "5,000 players not run (target <= 5 s)",
    ]
    print("target: " + "; ".join(checks))
    peak = max(r["process_peak_rss_mb"] for r in rows)
    print(f"target: peak resident memory {peak:.0f} MB (<= 1,024 MB)")


if __name__ == "__main__":
    main()
