"""Prize-chances benchmark: simulation speed, and the approximation's distance from the engine.

Run on demand (not collected by pytest):

    python tests/benchmarks/bench_chances.py [--section speed|approx|all] [--json]
        [--sims 100000] [--full-sims 1000] [--short]

``speed``: 100,000 simulations of a synthetic 200-player division with 5 rounds left (target
<= 1 s) and of a 30-player division with 3 rounds left (target <= 0.2 s), Swiss with Gibson,
each beside a plain-Python loop of the same game model run in the same process (its time for
a sample of simulations, scaled to the same count: the ratio is what the machine's noise
leaves alone). The loop pairs 1 v 2, 3 v 4 only, without the score-group halves, Gibson and
repeat swaps the numpy run does, so the ratio understates the gain. Also printed: the peak
memory the numpy run allocated (tracemalloc, in a run of its own: tracing slows the run it
watches) and the process's peak resident size, the CPU seconds of all its threads, the
threads it used (one per idle core by the load average), the same run on one thread (clock
and CPU; asserted to give the same counts) and the machine's load average (other sessions
on a shared machine take cores from the run).

``approx``: the vectorised pairing approximation (pairings.engine.simulate) against the full
pairing engine in every simulated round (pairings.engine.fullsim), on the real NASPA divisions
in fixtures/tsh replayed from several rounds before the end (Swiss, Gibson on): the largest
difference in P(1st) and in P(cash) over their players, beside the full engine's own sampling
noise (two standard errors of a probability near 1/2 at ``--full-sims``).

``cop``: the simulation-driven contention pairing (pairings.engine.cop) of one round of a
field of 50 / 200 / 500 players after 10 rounds (a greedy Swiss history), with 10 rounds left
and with the last round to pair (where cash contenders play King of the Hill): ``pair_round``
end to end (its own 10,000 simulations of the field, then the matching), of which the
simulation (``field_chances``), beside the Swiss pairing of the same field in the same run (the
anchor), wall and CPU seconds (medians of 3; one in ``--short``, 50 and 200 players), and the
checker's verdict on the boards. Target: COP's own allowance, 6 s a round at 500 players.

Exit status 1 when a speed target is missed (a target is for 100,000 simulations: other
``--sims`` scale it); ``--short`` (both sections, 2,000 simulations, 100 through the full
engine) reports the targets without enforcing them (see benchkit.py).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import resource
import sys
import time
import tracemalloc
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

import numpy as np  # noqa: E402

from pairings.engine.chances import DEFAULT_PRIZE_PLACES  # noqa: E402
from pairings.engine.fullsim import simulate_with_engine  # noqa: E402
from pairings.engine.simulate import (  # noqa: E402
    MAX_THREADS,
    GameModel,
    SimPlayer,
    SimRound,
    SimSetup,
    idle_cores,
    load_game_model,
    simulate,
)
from ratings.engine.systems import expectancy_matrix  # noqa: E402
from tests.benchmarks.benchkit import add_short, exit_status, verdict  # noqa: E402
from tournament.formats.tsh import read_t, standings_input  # noqa: E402
from tournament.standings import compute_standings, is_withdrawn_after, name_tiebreak  # noqa: E402

TSH = REPO / "fixtures" / "tsh"
TARGETS = {(200, 5): 1.0, (30, 3): 0.2}
TARGET_SIMS = 100_000  # the simulations TARGETS are for


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


# --- speed ------------------------------------------------------------------------------------


def synthetic(n: int, left: int, played: int = 8, seed: int = 1) -> SimSetup:
    """A division of ``n`` players after ``played`` rounds (records drawn at random), with
    ``left`` Swiss rounds to go, Gibson on, 8 paid places."""
    rng = random.Random(seed)
    players = []
    for i in range(n):
        wins = rng.randint(0, played)
        players.append(
            SimPlayer(
                number=i + 1,
                rating=2100 - (1100 * i) // max(1, n - 1),
                wins=wins,
                losses=played - wins,
                spread=rng.randint(-80, 80) * (2 * wins - played),
                name=f"Player {i + 1}",
            )
        )
    rounds = [
        SimRound(number=played + 1 + k, system="swiss", gibson=True, gibson_spread=250)
        for k in range(left)
    ]
    ratings = [p.rating for p in players]
    return SimSetup(
        players=players,
        rounds=rounds,
        win_prob=expectancy_matrix("nsa2008", ratings),
        prize_places=8,
    )


def python_loop(setup: SimSetup, model: GameModel, sims: int, seed: int) -> list[list[float]]:
    """The same model and pairing approximation, one simulation and one game at a time."""
    rng = random.Random(seed)
    n = len(setup.players)
    inv = [[model.sigma * _ndtri(setup.win_prob[i][j]) for j in range(n)] for i in range(n)]
    band = model.tie_band
    share = [[0.0] * n for _ in range(n)]
    for _ in range(sims):
        wins = [round(2 * p.wins) for p in setup.players]
        spread = [p.spread for p in setup.players]
        for r in setup.rounds:
            order = sorted(range(n), key=lambda i: (-wins[i], -spread[i], i))
            for k in range(0, n - 1, 2):
                a, b = order[k], order[k + 1]
                margin = inv[a][b] + model.sigma * rng.gauss(0.0, 1.0)
                m = 0 if abs(margin) < band else (round(margin) or (1 if margin > 0 else -1))
                wa = 2 if m > 0 else 1 if m == 0 else 0
                wins[a] += wa
                wins[b] += 2 - wa
                if r.cap is not None:
                    m = max(-r.cap, min(r.cap, m))
                spread[a] += m
                spread[b] -= m
            if n % 2:
                wins[order[-1]] += 2
        final = sorted(range(n), key=lambda i: (-wins[i], -spread[i]))
        for place, i in enumerate(final):
            share[i][place] += 1
    return share


def _ndtri(p: float) -> float:
    from statistics import NormalDist

    return NormalDist().inv_cdf(min(max(p, 1e-9), 1 - 1e-9))


def speed(sims: int) -> list[dict]:
    model = load_game_model()
    rows = []
    for (n, left), target in TARGETS.items():
        setup = synthetic(n, left)
        simulate(setup, model, 1000, seed=2)  # warm: quantile table, imports
        threads = min(idle_cores(), MAX_THREADS)  # what simulate's default picks now
        start, cpu = time.perf_counter(), time.process_time()
        result = simulate(setup, model, sims, seed=1)
        seconds = time.perf_counter() - start
        cpu = time.process_time() - cpu
        # the peak memory from a run of its own: tracing every allocation slowed the timed
        # run by a fifth (1.6 s of CPU where 1.3 s without)
        tracemalloc.start()
        simulate(setup, model, sims, seed=1)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        start1, cpu1 = time.perf_counter(), time.process_time()
        one = simulate(setup, model, sims, seed=1, threads=1)
        one_thread_s = time.perf_counter() - start1
        one_thread_cpu = time.process_time() - cpu1
        assert np.array_equal(one.place_share, result.place_share)  # threads change nothing
        sample = max(200, min(sims, 200_000 // (n * left)))
        start = time.perf_counter()
        python_loop(setup, model, sample, seed=1)
        py_seconds = (time.perf_counter() - start) * sims / sample
        p_first = result.place_share[:, 0] / sims
        rows.append(
            {
                "case": f"{n} players, {left} rounds left",
                "sims": sims,
                "numpy_s": round(seconds, 3),
                "target_s": target,
                "numpy_cpu_s": round(cpu, 3),
                "threads": threads,
                "one_thread_s": round(one_thread_s, 3),
                "one_thread_cpu_s": round(one_thread_cpu, 3),
                "load_1min": round(os.getloadavg()[0], 1),
                "python_loop_s": round(py_seconds, 2),
                "python_sample_sims": sample,
                "speedup": round(py_seconds / seconds, 1),
                "peak_traced_mb": round(peak / 2**20, 1),
                "peak_rss_mb": round(peak_rss_mb(), 1),
                "p_first_sum": round(float(p_first.sum()), 6),
                "games_per_s_m": round(sims * left * n / 2 / seconds / 1e6, 1),
            }
        )
    return rows


# --- approximation against the full engine ----------------------------------------------------


def from_t(path: Path, after: int) -> tuple[SimSetup, dict[int, list[int]], int]:
    """A real division replayed from after round ``after``: records, meetings, Swiss rounds."""
    players_t = read_t(path)
    total = max(len(p.scores) for p in players_t)
    splayers, rounds = standings_input(players_t)
    rows = {r.number: r for r in compute_standings(splayers, rounds, after_round=after)}
    sim_players = [
        SimPlayer.from_standing(sp, rows[sp.number], ranked=not is_withdrawn_after(sp, total))
        for sp in splayers
    ]
    history = {p.number: [o or 0 for o in p.opponents[:after]] for p in players_t}
    order = sorted(
        range(len(splayers)),
        key=lambda i: (-splayers[i].rating, name_tiebreak(splayers[i].name), splayers[i].number),
    )
    setup = SimSetup(
        players=sim_players,
        rounds=[
            SimRound(number=r, system="swiss", gibson=True, gibson_spread=500)
            for r in range(after + 1, total + 1)
        ],
        win_prob=expectancy_matrix("nsa2008", [p.rating for p in splayers]),
        prize_places=DEFAULT_PRIZE_PLACES,
        tiebreak=order,
        met=[(a, b) for a, opps in history.items() for b in opps if b and a < b],
    )
    return setup, history, total


def approx(sims: int, full_sims: int) -> list[dict]:
    model = load_game_model()
    cases = [("naspa-2023-a.t", a) for a in (17, 19, 21)] + [("naspa-2006-b.t", 11)]
    rows = []
    places = DEFAULT_PRIZE_PLACES
    for name, after in cases:
        setup, history, total = from_t(TSH / name, after)
        start = time.perf_counter()
        fast = simulate(setup, model, sims, seed=11)
        fast_s = time.perf_counter() - start
        start = time.perf_counter()
        full = simulate_with_engine(
            setup, model, full_sims, seed=12, history=history, rounds_total=total
        )
        full_s = time.perf_counter() - start
        pf = fast.place_share / fast.sims
        pe = full.place_share / full.sims
        d_first = np.abs(pf[:, 0] - pe[:, 0])
        d_cash = np.abs(pf[:, :places].sum(axis=1) - pe[:, :places].sum(axis=1))
        worst = int(np.argmax(d_first))
        rows.append(
            {
                "event": f"{name} after {after} ({total - after} left)",
                "players": len(setup.players),
                "max_diff_p_first": round(float(d_first.max()), 4),
                "max_diff_p_cash": round(float(d_cash.max()), 4),
                "at_player": setup.players[worst].number,
                "p_first_approx_engine": [
                    round(float(pf[worst, 0]), 3),
                    round(float(pe[worst, 0]), 3),
                ],
                "noise_2se": round(2 * math.sqrt(0.25 / full_sims), 4),
                "approx_s": round(fast_s, 2),
                "engine_s": round(full_s, 1),
            }
        )
    return rows


# --- cop pairing --------------------------------------------------------------------------------

COP_SIZES = (50, 200, 500)
COP_TARGET_S = 6.0  # Woogles' COP allows itself this much per pairing phase
COP_HISTORY = 10


def _wall_cpu(fn, runs: int) -> tuple[float, float, object]:
    walls, cpus, out = [], [], None
    for _ in range(runs):
        w0, c0 = time.perf_counter(), time.process_time()
        out = fn()
        cpus.append(time.process_time() - c0)
        walls.append(time.perf_counter() - w0)
    return sorted(walls)[len(walls) // 2], sorted(cpus)[len(cpus) // 2], out


def cop(sizes: tuple[int, ...], runs: int) -> list[dict]:
    from pairings.engine import PairingOptions, check_round, pair_round
    from pairings.engine.cop import field_chances
    from pairings.engine.generator import fast_history_pairing
    from pairings.engine.generator import simulate as play_event

    rows = []
    for n in sizes:
        for left in (10, 1):
            event = play_event(
                n,
                COP_HISTORY,
                lambda f: fast_history_pairing(f, 7),
                seed=7,
                rounds_total=COP_HISTORY + left,
            )
            field = event.field()
            places = max(3, n // 10)
            opts = PairingOptions(prize_bands=[1, 3, places], gibson=True)
            cop_wall, cop_cpu, pairing = _wall_cpu(
                lambda f=field, o=opts: pair_round(f, "cop", o), runs
            )
            sim_wall, _, _ = _wall_cpu(lambda f=field, o=opts: field_chances(f, o), runs)
            swiss_wall, _, _ = _wall_cpu(lambda f=field, o=opts: pair_round(f, "swiss", o), runs)
            report = check_round(field, pairing, opts)
            rows.append(
                {
                    "case": f"cop, {n} players, round {COP_HISTORY + 1} of {COP_HISTORY + left}",
                    "cop_s": round(cop_wall, 3),
                    "cop_cpu_s": round(cop_cpu, 3),
                    "of_which_sims_s": round(sim_wall, 3),
                    "swiss_s": round(swiss_wall, 3),
                    "cop_over_swiss": round(cop_wall / max(swiss_wall, 1e-9), 1),
                    "target_s": COP_TARGET_S,
                    "boards": len(pairing.games),
                    "checker": "ok" if not report.errors else "; ".join(report.errors[:2]),
                }
            )
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--section", choices=["speed", "approx", "cop", "all"], default="all")
    parser.add_argument("--sims", type=int, default=100_000)
    parser.add_argument("--full-sims", type=int, default=1000)
    parser.add_argument("--json", action="store_true")
    add_short(parser)
    args = parser.parse_args()
    if args.short:
        args.sims, args.full_sims = min(args.sims, 2000), min(args.full_sims, 100)
    out: dict[str, list[dict]] = {}
    if args.section in ("speed", "all"):
        out["speed"] = speed(args.sims)
    if args.section in ("approx", "all"):
        out["approx"] = approx(args.sims, args.full_sims)
    if args.section in ("cop", "all"):
        out["cop"] = cop(COP_SIZES[:2] if args.short else COP_SIZES, 1 if args.short else 3)
    scale = args.sims / TARGET_SIMS
    missed = [
        f"{row['case']}: {row['numpy_s']:.3f} s > {row['target_s'] * scale:.3f} s"
        for row in out.get("speed", [])
        if row["numpy_s"] > row["target_s"] * scale
    ] + [
        f"{row['case']}: {row['cop_s']:.3f} s > {row['target_s']:.1f} s"
        for row in out.get("cop", [])
        if row["cop_s"] > row["target_s"]
    ]
    broken = [
        f"{row['case']}: {row['checker']}" for row in out.get("cop", []) if row["checker"] != "ok"
    ]
    if broken:
        print("\n".join(["cop boards the checker refused:", *broken]))
        return 1
    if args.json:
        print(json.dumps(out, indent=2))
        return exit_status(missed, short=args.short)
    for section, rows in out.items():
        print(f"\n== {section}")
        for row in rows:
            print("  " + ", ".join(f"{k}={v}" for k, v in row.items()))
    if "speed" in out:
        print(
            "\ntargets (speed): "
            + ", ".join(f"{n} players, {left} left <= {t} s" for (n, left), t in TARGETS.items())
            + f" for {TARGET_SIMS:,} simulations (x {scale:g} here: {args.sims:,})"
        )
    if "approx" in out:
        print("approx: no target; read each difference beside the engine's noise_2se")
    if "cop" in out:
        print(f"targets (cop): one round <= {COP_TARGET_S:g} s at 500 players (COP's allowance)")
    return verdict(missed, short=args.short)


if __name__ == "__main__":
    sys.exit(main())
