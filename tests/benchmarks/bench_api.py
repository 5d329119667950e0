"""The API under load: standings of a 500-player division and tourney.js of a 23-round event.

Run: python tests/benchmarks/bench_api.py [--players 500] [--rounds 23] [--seconds 10] [--json]
     python tests/benchmarks/bench_api.py --short  # 20 players, 0.4 s each: runs, not judged

What the Machine interfaces issue asks, with the Production issue's targets for its pages:
``/api/v1/.../standings/`` of a 500-player division >= 300 req/s, and ``tourney.js`` of a
500-player, 23-round event answered 304 >= 1,000 req/s, under the production server
(``manage.py serve``, gunicorn, 4 workers). Measured beside them in the same run, as the
baseline for the ratios: the public standings page of the same division, the page the API's
standings must keep up with. Also the API standings answered 304 (a scoreboard polling with
the ETag it got) and tourney.js in full.

The division, the servers, the load and the writer recording one result a second come from
bench_web.py (imported, not copied): 32 closed-loop clients from ``wrk`` (or the asyncio
client), one division built through the services in a temporary GIBSON_DATA_DIR. Every client
comes from 127.0.0.1, so the API's per-address throttle would stop the run after its first
600 requests; the servers here get ``GIBSON_API_ANON_RATE=1000000/hour`` (the throttle still
runs on every request, as it does in production). Query counts and server time per endpoint
come from Django's test client: cold cache, warm cache, conditional GET. Exit status 1 when a
target is missed (not with ``--short``: see benchkit.py) or an answer is neither 200 nor 304.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_web as web  # noqa: E402  (the builder, servers and load of the public pages)

from tests.benchmarks.benchkit import add_short, exit_status, spawn, stop, verdict  # noqa: E402

BASELINE = "standings page"
# endpoint -> minimum req/s under gunicorn
TARGETS = {"API standings": 300.0, "tourney.js 304": 1000.0}


def endpoints(slug: str, div: str) -> dict[str, tuple[str, bool]]:
    """name -> (path, conditional?)."""
    api = f"/api/v1/tournaments/{slug}/divisions/{div}/standings/"
    return {
        BASELINE: (f"/t/{slug}/{div}/standings/", False),
        "API standings": (api, False),
        "API standings 304": (api, True),
        "tourney.js": (f"/t/{slug}/tourney.js", False),
        "tourney.js 304": (f"/t/{slug}/tourney.js", True),
    }


def query_counts(paths: dict[str, tuple[str, bool]]) -> dict[str, dict[str, float]]:
    """Queries and server ms per endpoint, test client: empty cache, warm cache, conditional."""
    return web.queries_per_url(
        {name: path for name, (path, conditional) in paths.items() if not conditional}
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=23)
    parser.add_argument("--seconds", type=float, default=10.0, help="load per endpoint")
    parser.add_argument(
        "--no-writer",
        action="store_true",
        help="no result recorded meanwhile: serving alone, one version",
    )
    parser.add_argument("--workers", type=int, default=web.WORKERS, help="gunicorn's workers")
    parser.add_argument("--json", action="store_true")
    add_short(parser)
    args = parser.parse_args()
    if args.short:  # 20 players, 2 rounds, 0.4 s an endpoint, 2 workers
        args.players, args.rounds = min(args.players, 20), min(args.rounds, 2)
        args.seconds, args.workers = min(args.seconds, 0.4), min(args.workers, 2)

    data_dir = tempfile.mkdtemp(prefix="gibson-bench-api-")
    procs: list[subprocess.Popen] = []
    results: list[dict] = []
    try:
        web.setup_django(data_dir)
        t0 = time.perf_counter()
        slug, div = web.build_division(args.players, args.rounds)
        built = time.perf_counter() - t0
        paths = endpoints(slug, div)
        queries = query_counts(paths)
        from django.conf import settings

        backend = settings.CACHES["default"]["BACKEND"].rsplit(".", 1)[-1]
        env = dict(
            os.environ,
            GIBSON_DATA_DIR=data_dir,
            GIBSON_DEBUG="0",
            GIBSON_LOG_LEVEL="ERROR",
            GIBSON_API_ANON_RATE="1000000/hour",
        )
        env.pop("DATABASE_URL", None)
        load = web.Load(args.short)
        lua = Path(data_dir) / "bench.lua"
        lua.write_text(web.WRK_LUA, encoding="utf-8")
        budget = 0 if args.no_writer else (args.seconds + 2) * len(paths) + 60
        writer = spawn(
            [
                sys.executable,
                "-c",
                web.WRITER,
                str(web.REPO),
                slug,
                div,
                str(args.rounds),
                str(budget),
            ],
            env=env,
            cwd=web.REPO,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        procs.append(writer)
        port = web.free_port()
        server = web.start_server("gunicorn", port, env, args.workers)
        procs.append(server)
        for name, (path, conditional) in paths.items():
            url = f"http://127.0.0.1:{port}{path}"
            if load.use_wrk():
                r = web.run_wrk(url, args.seconds, 0, conditional, lua)
            else:
                r = web.run_python_client(url, args.seconds, 0, conditional)
            r.update(page=name, rps=r["requests"] / r["seconds"])
            results.append(r)
        stop(server)
        stop(writer)
        lines = writer.stdout.read().split() if writer.stdout is not None else []
        writes = int(lines[-1]) if lines else 0
    finally:
        for p in procs:
            stop(p)
        shutil.rmtree(data_dir, ignore_errors=True)

    base = next(r["rps"] for r in results if r["page"] == BASELINE)
    failures: list[str] = []
    broken: list[str] = []
    for r in results:
        r["ratio"] = r["rps"] / base if base else None
        target = TARGETS.get(r["page"])
        if target is not None and r["rps"] < target:
            failures.append(f"{r['page']}: {r['rps']:.0f} req/s < {target:.0f}")
        if r["other"]:
            broken.append(f"{r['page']}: {r['other']} answers neither 200 nor 304")
        if r["errors"]:
            failures.append(f"{r['page']}: {r['errors']} socket errors or timeouts")

    if args.json:
        print(
            json.dumps(
                {
                    "results": results,
                    "queries": queries,
                    "targets": TARGETS,
                    "failures": failures,
                    "broken": broken,
                    "short": args.short,
                    "writes": writes,
                    "cache": backend,
                },
                indent=2,
            )
        )
        return exit_status(failures, broken, short=args.short)
    print(
        f"{args.players} players, {args.rounds} rounds (built in {built:.0f} s); gunicorn, "
        f"{args.workers} workers; {web.CLIENTS} clients, {args.seconds:g} s each; cache "
        f"{backend}; load from {load}; {writes} "
        f"results recorded meanwhile (one a second)"
    )
    print(
        f"{'endpoint':<20}{'req/s':>8}{'p50 ms':>9}{'p95 ms':>9}{'x page':>8}{'target':>8}"
        f"{'200s':>8}{'304s':>8}"
    )
    for r in results:
        ratio = f"{r['ratio']:.2f}" if r["ratio"] else "-"
        target = f"{TARGETS[r['page']]:.0f}" if r["page"] in TARGETS else "-"
        print(
            f"{r['page']:<20}{r['rps']:>8.0f}{r['p50_ms']:>9.1f}{r['p95_ms']:>9.1f}"
            f"{ratio:>8}{target:>8}{r['s200']:>8}{r['s304']:>8}"
        )
    print(f"\n'x page': req/s over the public standings page's ({BASELINE!r}) in this run")
    web.print_query_table(queries)
    print(
        f"\ntargets (gunicorn): {', '.join(f'{k} >= {v:,.0f} req/s' for k, v in TARGETS.items())}"
    )
    return verdict(failures, broken, short=args.short)


if __name__ == "__main__":
    raise SystemExit(main())
