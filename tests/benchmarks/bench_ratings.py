"""Ratings benchmark: replay a large seeded history with nsa2008, and time the in-event estimates.

Run on demand (not collected by pytest):

    python tests/benchmarks/bench_ratings.py [--games 1000000] [--json] [--section engine]
    python tests/benchmarks/bench_ratings.py --section estimates [--players 500] [--rounds 23]
    python tests/benchmarks/bench_ratings.py --short  # 3,000 games, 50 x 5 estimates: seconds

Sections are functions in SECTIONS returning rows: "engine" (pure Python), "db" (the same
history loaded into a fresh SQLite database in a temporary directory and re-rated there with
every history row and player rating written) and "estimates" (the live feed's rating estimates
of a synthetic 500-player, 23-round division, issue 18's acceptance figure).
Speeds are reported as absolute numbers and as ratios to baselines measured in the same run
(a naive per-game Elo loop over the same games; for the estimates, the generic algorithm that
re-rates every prefix of rounds and one final rating), so the machine's noise mostly cancels.
"""

from __future__ import annotations

import argparse
import datetime
import gc
import json
import math
import os
import random
import resource
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from ratings.engine import (  # noqa: E402
    RatedEvent,
    RatedGame,
    RatedPlayer,
    estimates_by_round,
    rate_event,
    replay,
)

DATA = REPO / "fixtures" / "tsh" / "naspa-2023-a.t"
ENGINE_LIMIT_SECONDS = 15.0  # the target for 1,000,000 games on the 2-core reference machine


def peak_rss_mb() -> float:
    """Peak resident memory of this process so far (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def generate_history(
    n_games: int, seed: int = 2024
) -> tuple[list[RatedEvent], dict[int, RatedPlayer]]:
    """A rating list's history: ~n/50 players and events of 8-30 rounds, newcomers arriving.

    A quarter of the players start rated; the rest enter as newcomers over time (about one per
    event). Results follow hidden strengths, so the ratings have something to find.
    """
    rng = random.Random(seed)
    n_events = max(1, n_games // 50)
    n_players = max(8, n_games // 50)
    strength = [rng.gauss(1500, 250) for _ in range(n_players)]
    n_start = n_players // 4
    start = {
        i: RatedPlayer(i, max(300, round(strength[i] + rng.gauss(0, 80))), rng.randint(0, 600))
        for i in range(n_start)
    }
    played = list(range(n_start))
    next_new = n_start
    per_event = n_games / n_events
    events: list[RatedEvent] = []
    total = 0
    day = datetime.date(2000, 1, 1)
    for e in range(n_events):
        rounds = rng.randint(8, 30)
        remaining_events = n_events - e
        target = (n_games - total) / remaining_events if remaining_events else per_event
        size = max(2, round(2 * target / rounds))
        size = min(size, len(played) + (n_players - next_new))
        newcomers = min(n_players - next_new, rng.choice((0, 1, 1, 2)))
        if len(played) < size - newcomers:
            newcomers = size - len(played)
        field = rng.sample(played, size - newcomers) + list(range(next_new, next_new + newcomers))
        played.extend(range(next_new, next_new + newcomers))
        next_new += newcomers
        games: list[RatedGame] = []
        for rnd in range(1, rounds + 1):
            rng.shuffle(field)
            for a, b in zip(field[::2], field[1::2], strict=False):
                p = 1 / (1 + math.exp(-0.0031879 * (strength[a] - strength[b])))
                lo, hi = rng.randint(280, 420), rng.randint(421, 560)
                games.append(
                    RatedGame(rnd, a, b, hi, lo)
                    if rng.random() < p
                    else RatedGame(rnd, a, b, lo, hi)
                )
                total += 1
        day += datetime.timedelta(days=1 if e % 3 else 0)
        events.append(RatedEvent(e, day, rounds, games, "nsa2008"))
    return events, start


def naive_elo_loop(events: list[RatedEvent], start: dict[int, RatedPlayer]) -> int:
    """Baseline: one plain Elo update per game (no segments, no newcomers' iteration)."""
    ratings = {k: float(v.rating) for k, v in start.items()}
    exp = math.exp
    n = 0
    for ev in events:
        for g in ev.games:
            ra = ratings.get(g.a, 1500.0)
            rb = ratings.get(g.b, 1500.0)
            e = 1.0 / (1.0 + exp(-0.0031879 * (ra - rb)))
            s = 1.0 if g.score_a > g.score_b else 0.5 if g.score_a == g.score_b else 0.0
            ratings[g.a] = ra + 20 * (s - e)
            ratings[g.b] = rb - 20 * (s - e)
            n += 1
    return n


def timed(fn: Callable[[], object], repeat: int = 1) -> tuple[float, object]:
    """Median wall time of ``repeat`` runs (garbage collector off while timing) and a result."""
    times = []
    result = None
    gc.collect()
    gc.disable()
    try:
        for _ in range(repeat):
            t = time.perf_counter()
            result = fn()
            times.append(time.perf_counter() - t)
    finally:
        gc.enable()
    return statistics.median(times), result


def traced_peak_mb(fn: Callable[[], object]) -> float:
    """Peak Python allocations while ``fn`` runs, above what was allocated before it."""
    gc.collect()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return (peak - base) / 2**20


def real_event_input():
    from tournament.formats.tsh import read_t

    tsh = read_t(DATA)
    by = {p.number: p for p in tsh}
    players = [RatedPlayer(p.number, p.rating, p.lifeg) for p in tsh]
    games = [
        RatedGame(i + 1, p.number, o, p.scores[i], by[o].scores[i])
        for p in tsh
        for i, o in enumerate(p.opponents)
        if o and o > p.number
    ]
    return players, games


def engine_section(args) -> list[dict]:
    rows: list[dict] = []
    rss0 = peak_rss_mb()
    t_gen, (events, start) = timed(lambda: generate_history(args.games, args.seed))
    n_games = sum(len(e.games) for e in events)
    n_players = len({p for e in events for g in e.games for p in (g.a, g.b)} | set(start))
    rss_gen = peak_rss_mb()
    rows.append(
        row(
            "history generated",
            n_games,
            "games",
            f"{len(events)} events, {n_players} players, {len(start)} start rated, {t_gen:.1f} s",
        )
    )

    t_naive, _ = timed(lambda: naive_elo_loop(events, start))
    t_replay, final = timed(lambda: replay(events, start, system="nsa2008", explain=False))
    rss_replay = peak_rss_mb()
    replay_peak = traced_peak_mb(lambda: replay(events, start, system="nsa2008", explain=False))
    ok = t_replay <= ENGINE_LIMIT_SECONDS * args.games / 1_000_000
    rows.append(row("baseline: naive Elo loop", t_naive, "s", f"{n_games / t_naive:,.0f} games/s"))
    rows.append(
        row(
            "replay nsa2008 (engine)",
            t_replay,
            "s",
            f"{n_games / t_replay:,.0f} games/s; limit "
            f"{ENGINE_LIMIT_SECONDS * args.games / 1_000_000:.1f} s: "
            f"{'OK' if ok else 'TOO SLOW'}",
        )
    )
    rows.append(row("replay / naive loop", t_replay / t_naive, "x", "same games, same run"))
    rows.append(row("peak RSS after generation", rss_gen, "MB", f"{rss0:.0f} MB at start"))
    rows.append(row("peak RSS after replay", rss_replay, "MB", "whole process"))
    rows.append(
        row(
            "replay peak allocations",
            replay_peak,
            "MB",
            "tracemalloc, separate untimed run; final state included",
        )
    )
    rated = sum(1 for p in final.values() if p.rating)
    checksum = sum((pid + 1) * (p.rating or 0) for pid, p in final.items()) % 1_000_003
    rows.append(
        row(
            "players rated after replay",
            rated,
            "players",
            f"result checksum {checksum} (changes if an optimisation changes a rating)",
        )
    )

    if DATA.exists():
        players, games = real_event_input()
        t_one, _ = timed(lambda: rate_event("nsa2008", players, games, 23), repeat=args.repeat)
        t_lean, _ = timed(
            lambda: rate_event("nsa2008", players, games, 23, explain=False), repeat=args.repeat
        )
        t_est, _ = timed(
            lambda: estimates_by_round("nsa2008", players, games, 23), repeat=args.repeat
        )
        rows.append(
            row(
                "rate naspa-2023-a, explained (median)",
                t_one * 1000,
                "ms",
                f"{len(games)} games, 26 players",
            )
        )
        rows.append(row("rate naspa-2023-a, lean (median)", t_lean * 1000, "ms", ""))
        rows.append(
            row(
                "estimates_by_round naspa-2023-a (median)",
                t_est * 1000,
                "ms",
                f"23 re-ratings; {t_est / t_lean:.1f}x one lean rating",
            )
        )
        rows.append(
            row(
                "replay / one lean event",
                t_replay / t_lean,
                "x",
                "machine-independent size of the replay",
            )
        )
    return rows


def synthetic_division(
    n_players: int, n_rounds: int, seed: int
) -> tuple[list[RatedPlayer], list[RatedGame]]:
    """A big open division as the live feed rates it: ratings 300-2300 around 1500, one player
    in ten a newcomer, career games 0-1,000, every round paired Swiss-like (by wins, then at
    random) and won by hidden strength, 200-600 point scores, no byes (an even field)."""
    rng = random.Random(seed)
    n_players -= n_players % 2
    strength = [rng.gauss(1500, 300) for _ in range(n_players)]
    players = [
        RatedPlayer(
            i + 1,
            None if rng.random() < 0.1 else min(2300, max(300, round(strength[i]))),
            rng.randint(0, 1000),
        )
        for i in range(n_players)
    ]
    wins = [0.0] * n_players
    games: list[RatedGame] = []
    for rnd in range(1, n_rounds + 1):
        order = sorted(range(n_players), key=lambda i: (-wins[i], rng.random()))
        for a, b in zip(order[::2], order[1::2], strict=True):
            p = 1 / (1 + math.exp(-0.0031879 * (strength[a] - strength[b])))
            lo, hi = rng.randint(200, 420), rng.randint(421, 600)
            a_wins = rng.random() < p
            games.append(RatedGame(rnd, a + 1, b + 1, *((hi, lo) if a_wins else (lo, hi))))
            wins[a if a_wins else b] += 1
    return players, games


def estimates_section(args) -> list[dict]:
    """The in-event estimates of every player after every round (TSH's ``newr``: what the live
    feed, tourney.js and an exported .t carry, via ratings.division.division_estimates ->
    estimates_by_round), on a synthetic division of --players and --rounds.

    Baselines in the same run: the generic algorithm every rating system inherits
    (RatingSystem.estimates: re-rate rounds 1..r for each r, the definition), and one lean
    rating of the whole event (what a page's single estimate costs). The two estimates must
    agree to the point; the row says so.
    """
    from ratings.engine import get_system
    from ratings.engine.base import RatingSystem
    from ratings.engine.model import prepare_event

    players, games = synthetic_division(args.players, args.rounds, args.seed)
    rows = [
        row(
            "synthetic division",
            len(players),
            "players",
            f"{args.rounds} rounds, {len(games):,} games, "
            f"{sum(1 for p in players if not p.rating)} newcomers",
        )
    ]
    repeat = max(1, args.repeat // 4)
    for name in args.estimate_systems:
        system = get_system(name)
        ev = prepare_event(players, games, args.rounds)
        t_est, est = timed(lambda: system.estimates(ev, args.rounds), repeat=repeat)  # noqa: B023
        t_generic, generic = timed(
            lambda: RatingSystem.estimates(system, ev, args.rounds),  # noqa: B023
            repeat=repeat,
        )
        t_final, _ = timed(
            lambda: rate_event(name, players, games, args.rounds, explain=False),  # noqa: B023
            repeat=repeat,
        )
        t_feed, _ = timed(
            lambda: estimates_by_round(name, players, games, args.rounds),  # noqa: B023
            repeat=repeat,
        )
        same = est == generic
        rows.append(
            row(
                f"{name}: estimates_by_round, all rounds (median)",
                t_feed * 1000,
                "ms",
                f"the feed's path; {t_feed / t_final:.1f}x one final rating",
            )
        )
        rows.append(
            row(
                f"{name}: system.estimates (median)",
                t_est * 1000,
                "ms",
                "without preparing the event",
            )
        )
        rows.append(
            row(
                f"{name}: baseline, re-rate every prefix (median)",
                t_generic * 1000,
                "ms",
                f"{t_generic / t_est:.1f}x the estimates; "
                f"results {'identical' if same else 'DIFFERENT'}",
            )
        )
        rows.append(
            row(f"{name}: baseline, one final rating (median)", t_final * 1000, "ms", "lean")
        )
    return rows


DB_LIMIT_SECONDS = 90.0  # end-to-end re-rate with database writes, 1,000,000 games, SQLite
PG_LIMIT_SECONDS = 10.0  # issue 24: 2,000,000 games on PostgreSQL <= 20 s
PEAK_LIMIT_MB = 500.0  # issue 24: peak memory of a federation-sized re-rate


def _rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize() / 2**20


def _server_cpu(backend_pid: int | None) -> float | None:
    """CPU seconds the database server process serving this connection has used so far, when
    it runs on this machine (PostgreSQL's backend pid visible in /proc), else None."""
    if not backend_pid:
        return None
    try:
        with open(f"/proc/{backend_pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _in_child(fn: Callable[[], object]) -> tuple[float, object, float, float, dict]:
    """Run ``fn`` in a forked process: (seconds, result, its peak RSS, its RSS at the start,
    CPU seconds spent by the process and by its database server process).

    The parent holds the generated history; a fork lets each re-rate report its own peak.
    The CPU seconds tell a loaded machine's wall time apart from the work done: on a machine
    shared with other jobs the wall time can be twice the work.
    """
    import pickle

    from django.db import connection, connections

    connections.close_all()
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # child
        os.close(r)
        try:
            backend = None
            if connection.vendor == "postgresql":
                with connection.cursor() as cur:
                    cur.execute("SELECT pg_backend_pid()")
                    backend = cur.fetchone()[0]
            base = _rss_mb()
            srv0, cpu0 = _server_cpu(backend), time.process_time()
            t, out = timed(fn)
            cpu = {"python": time.process_time() - cpu0, "server": None}
            srv1 = _server_cpu(backend)
            if srv0 is not None and srv1 is not None:
                cpu["server"] = srv1 - srv0
            connections.close_all()
            payload = (t, out, peak_rss_mb(), base, cpu)
        except BaseException as exc:  # noqa: BLE001 - reported by the parent
            payload = ("error", repr(exc), 0.0, 0.0, {})
        with os.fdopen(w, "wb") as f:
            pickle.dump(payload, f)
        os._exit(0)
    os.close(w)
    with os.fdopen(r, "rb") as f:
        data = f.read()
    os.waitpid(pid, 0)
    t, out, peak, base, cpu = pickle.loads(data)
    if t == "error":
        raise RuntimeError(f"re-rate in the child failed: {out}")
    return t, out, peak, base, cpu


def db_section(args) -> list[dict]:
    """The same history re-rated on SQLite and, with --database-url, on PostgreSQL."""
    import subprocess

    if getattr(args, "backend", None):
        return _db_backend(args)
    rows: list[dict] = []
    backends = ["sqlite"] + (["postgresql"] if args.database_url else [])
    for b in backends:
        cmd = [
            sys.executable,
            __file__,
            "--section",
            "db",
            "--backend",
            b,
            "--games",
            str(args.games),
            "--seed",
            str(args.seed),
            "--json",
        ]
        if args.database_url:
            cmd += ["--database-url", args.database_url]
        if args.skip_old:
            cmd.append("--skip-old")
        if args.skip_explained:
            cmd.append("--skip-explained")
        out = subprocess.run(cmd, check=True, capture_output=True, text=True, cwd=REPO).stdout
        rows.extend(json.loads(out)["sections"]["db"])
    return rows


def _db_backend(args) -> list[dict]:
    """Load the generated history into a fresh database and re-rate it there, old path and new.

    SQLite: a file in a temporary directory. PostgreSQL: a database created on the server of
    --database-url for this run and dropped after.
    """
    import os
    import shutil
    import tempfile

    tmp = tempfile.mkdtemp(prefix="gibson-bench-ratings-")
    os.environ["GIBSON_DATA_DIR"] = tmp
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tournament.settings")
    os.environ.pop("DATABASE_URL", None)  # a fresh database: never the site's own
    pg_admin = dbname = None
    if args.backend == "postgresql":
        import psycopg

        dbname = f"gibson_bench_{os.getpid()}"
        base, _, _ = args.database_url.rpartition("/")
        pg_admin = psycopg.connect(f"{base}/postgres", autocommit=True)
        pg_admin.execute(f"CREATE DATABASE {dbname}")
        os.environ["DATABASE_URL"] = f"{base}/{dbname}"
        os.environ.setdefault("GIBSON_SECRET_KEY", "bench-only-key")
    label = "PostgreSQL" if args.backend == "postgresql" else "SQLite"
    try:
        import django

        django.setup()
        from django.core.management import call_command
        from django.db import connection, connections

        from ratings import services
        from ratings.models import RatingHistory
        from tests.ratings_shell.legacy_rerate import list_checksum, load_history, rerate_list_orm

        call_command("migrate", verbosity=0)
        rows: list[dict] = []
        events, start = generate_history(args.games, args.seed)
        n_games = sum(len(e.games) for e in events)
        n_players = len({p for e in events for g in e.games for p in (g.a, g.b)} | set(start))
        t_load, lst = timed(lambda: load_history(events, start))
        rows.append(
            row(
                f"{label}: load history",
                t_load,
                "s",
                f"{n_games:,} games, {len(events):,} events, {n_players:,} players",
            )
        )
        t_engine, final = timed(lambda: replay(events, start, system="nsa2008", explain=False))
        rows.append(row(f"{label}: engine replay, same history", t_engine, "s", "the anchor"))
        first = datetime.date(1900, 1, 1)
        events.clear()  # the children re-rate from the database, as the site does
        gc.collect()
        limit = (PG_LIMIT_SECONDS if args.backend == "postgresql" else DB_LIMIT_SECONDS) * (
            args.games / 1_000_000
        )
        sums = {}
        for path, fn in (
            ("old (ORM objects)", lambda: rerate_list_orm(lst, first)),
            (
                "explained (bulk, explanations stored)",
                lambda: services.rerate_list(lst, first, explain=True),
            ),
            ("new (bulk, explanations on read)", lambda: services.rerate_list(lst, first)),
        ):
            if path.startswith("old") and args.skip_old:
                continue
            if path.startswith("explained") and args.skip_explained:
                continue
            t, summary, peak, base, cpu = _in_child(fn)
            sums[path] = list_checksum(lst)
            note = f"{t / t_engine:.1f}x the engine; {n_games / t:,.0f} games/s"
            if path.startswith("new"):
                note += f"; target <= {limit:.1f} s: {'OK' if t <= limit else 'TOO SLOW'}"
            rows.append(row(f"{label}: re-rate whole list, {path}", t, "s", note))
            server = (
                f", database server {cpu['server']:.1f} s" if cpu.get("server") is not None else ""
            )
            rows.append(
                row(
                    f"{label}: CPU of that re-rate, {path}",
                    cpu["python"],
                    "s",
                    f"the re-rating process{server}; load average "
                    f"{os.getloadavg()[0]:.1f} (2 cores: above 2 the wall time includes waiting)",
                )
            )
            rows.append(
                row(
                    f"{label}: peak RSS of that re-rate, {path}",
                    peak,
                    "MB",
                    f"the whole re-rating process ({base:,.0f} MB before it started, "
                    f"{peak - base:,.0f} MB more); target <= {PEAK_LIMIT_MB:g} MB",
                )
            )
        checks = set(sums.values())
        rows.append(
            row(
                f"{label}: history rows stored",
                RatingHistory.objects.filter(event__rating_list=lst).count(),
                "rows",
                f"checksum {next(iter(checks))[:16]}"
                + (f" equal on all {len(sums)} paths" if len(sums) > 1 and len(checks) == 1 else "")
                + (" OLD != NEW" if len(checks) > 1 else ""),
            )
        )
        from ratings.models import PlayerRating
        from ratings.selectors import _EXPLAINED, history_explanation

        # one explanation read after the re-rate that left them out: built, then remembered
        h = RatingHistory.objects.filter(event__rating_list=lst, games__gt=0).order_by("pk")
        h = h[h.count() // 2]
        _EXPLAINED.clear()
        t_cold, _ = timed(lambda: history_explanation(h))
        t_warm, _ = timed(lambda: history_explanation(h), repeat=5)
        rows.append(
            row(
                f"{label}: read one explanation, first time",
                t_cold * 1000,
                "ms",
                f"the event rated again from the stored state; then {t_warm * 1000:.2f} ms "
                "(remembered)",
            )
        )
        got = {
            int(n.rsplit(" ", 1)[1]): (r, c)
            for n, r, c in PlayerRating.objects.filter(rating_list=lst).values_list(
                "player__name", "rating", "career_games"
            )
        }
        same = got == {i: (p.rating or 0, p.career_games) for i, p in final.items()}
        rows.append(row(f"{label}: ratings equal the engine's", int(same), "bool", ""))
        mid = sorted(lst.events.values_list("date", flat=True))[lst.events.count() // 2]
        t_half, half, _, _, _ = _in_child(lambda: services.rerate_list(lst, mid))
        rows.append(
            row(
                f"{label}: re-rate second half (late submission), new",
                t_half,
                "s",
                f"{half['events_rerated']:,} events re-rated, {half['events_final']:,} kept",
            )
        )
        if connection.vendor == "sqlite":
            size = os.path.getsize(connection.settings_dict["NAME"]) / 2**20
            rows.append(row(f"{label}: database file", size, "MB", ""))
        connections.close_all()
        return rows
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        if pg_admin is not None:
            pg_admin.execute(f"DROP DATABASE IF EXISTS {dbname} WITH (FORCE)")
            pg_admin.close()


def row(name: str, value: float, unit: str, note: str) -> dict:
    return {"name": name, "value": value, "unit": unit, "note": note}


#: Named sections, run in order: the pure engine, then the database end to end.
SECTIONS: list[tuple[str, Callable[[argparse.Namespace], list[dict]]]] = [
    ("engine", engine_section),
    ("db", db_section),
    ("estimates", estimates_section),
]


def print_table(results: dict[str, list[dict]]) -> None:
    for section, rows in results.items():
        print(f"\n== {section} ==")
        width = max(len(r["name"]) for r in rows)
        for r in rows:
            v = r["value"]
            shown = f"{v:,.0f}" if isinstance(v, int) or v >= 1000 else f"{v:,.3f}"
            print(f"{r['name']:<{width}}  {shown:>12} {r['unit']:<8} {r['note']}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=1_000_000)
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument("--repeat", type=int, default=21, help="runs for the small medians")
    ap.add_argument("--players", type=int, default=500, help="estimates: division size")
    ap.add_argument("--rounds", type=int, default=23, help="estimates: rounds played")
    ap.add_argument(
        "--estimate-systems",
        type=lambda text: text.split(","),
        default=["nsa2008", "naspa2024", "glicko2", "absp"],
        help="estimates: comma-separated rating systems",
    )
    ap.add_argument("--json", action="store_true")
    ap.add_argument(
        "--database-url",
        default=os.environ.get("DATABASE_URL"),
        help="db: also re-rate on this PostgreSQL server (a scratch database is made there)",
    )
    ap.add_argument("--backend", choices=["sqlite", "postgresql"], help=argparse.SUPPRESS)
    ap.add_argument("--skip-old", action="store_true", help="db: skip the ORM path")
    ap.add_argument(
        "--skip-explained",
        action="store_true",
        help="db: skip the bulk path that stores every explanation as it goes",
    )
    ap.add_argument("--section", action="append", choices=[n for n, _ in SECTIONS])
    ap.add_argument(
        "--short",
        action="store_true",
        help="3,000 games, 3 repetitions, estimates of 50 players x 5 rounds: seconds",
    )
    args = ap.parse_args(argv)
    if args.short:
        args.games, args.repeat = min(args.games, 3000), min(args.repeat, 3)
        args.players, args.rounds = min(args.players, 50), min(args.rounds, 5)
    chosen = args.section or [n for n, _ in SECTIONS]
    results = {name: fn(args) for name, fn in SECTIONS if name in chosen}
    if args.json:
        print(json.dumps({"games": args.games, "seed": args.seed, "sections": results}, indent=2))
    else:
        print_table(results)
        scale = args.games / 1_000_000
        print(
            f"\ntargets (1,000,000 games, scaled to {args.games:,}): engine replay <= "
            f"{ENGINE_LIMIT_SECONDS:g} s ({ENGINE_LIMIT_SECONDS * scale:.2f} s here), re-rate with "
            f"database writes <= {DB_LIMIT_SECONDS:g} s ({DB_LIMIT_SECONDS * scale:.2f} s here) on "
            f"SQLite, <= {PG_LIMIT_SECONDS:g} s ({PG_LIMIT_SECONDS * scale:.2f} s here) on "
            "PostgreSQL "
            f"(issue 24: 2,000,000 games in 20 s), peak <= {PEAK_LIMIT_MB:g} MB; "
            "estimates: the ratios to the every-prefix baseline (no fixed target)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
