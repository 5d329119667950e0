"""The crowd near the limit: public pages through the front tier (``serve --front``) beside
nginx serving the same bytes as static files, in the same run, a result recorded every second.

Run: python tests/benchmarks/bench_front.py [--players 500] [--rounds 20] [--seconds 10] [--json]
     python tests/benchmarks/bench_front.py --short   # 20 players, 0.4 s a run

Issue 40's acceptance, one row per page kind and connections (32 and 256), while a writer
records one result a second (each a new version of every page): the division's standings,
random player pages (wrk's Lua script picks one of the players' numbers each request) and
tourney.js (the live feed), each through the tier beside nginx serving static copies of the
same bytes (the standings and tourney.js as gunicorn sends them, gzipped, and all the
players' pages: ``static/bench/...``, served by gzip_static). Targets: >= 0.5x the static
copy's req/s and p99 <= 50 ms. The ``X-Cache`` answers say how many requests reached
gunicorn (MISS, EXPIRED, REVALIDATED; STALE: one background update each). Plain ``serve``
(gunicorn alone, 4 workers, its own page cache, no tier: the README's way) answers the
standings as a row of its own (target: >= 2,000 req/s on a quiet machine). Each row prints
its verdict beside the figures.

The division is built through the services (bench_web.build_division) in a temporary
GIBSON_DATA_DIR; ``manage.py serve --front`` runs nginx and gunicorn (4 workers) on free
loopback ports, and a plain ``serve`` beside it (idle while the tier is measured). Every
player's page is asked once through the tier before the rows (a crowd that has been reading
them). Rows through the tier and plain serve's come first, while the writer runs; the static
copies (which no result changes) last. Load from ``wrk`` (Debian: apt-get install wrk), else
a small asyncio client (slower: it competes with the servers for the CPU).
Then the console's result box (issue 40, "the console's result entry p99 unchanged under the
crowd"): a director signed in posts correction lines through the tier, which routes them to
the desk's own gunicorn pool (``serve --desk-workers``), first alone, then while wrk asks for
random player pages at 256 connections (each line a new version, so the crowd's pages reach
the public pool), alternating twice; p50/p99 of each and the ratio of the p99s are printed in
the same table (target <= 2x). Everything started is stopped at the end however the run ends
(benchkit), and the folder removed. Exit status 1 when a target is missed (not with
``--short``) or a request failed.
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from tests.benchmarks.bench_web import _client_loop, build_division, setup_django, start_writer  # noqa: E402
from tests.benchmarks.benchkit import (  # noqa: E402
    add_short,
    exit_status,
    free_port,
    spawn,
    stop,
    verdict,
    wait_ready,
)

CONNECTIONS = (32, 256)
WORKERS = 4
MIN_RATIO = 0.5  # of the static file's req/s
MAX_P99_MS = 50.0
PLAIN_MIN_RPS = 2000  # plain serve's standings, on a quiet machine (issue 40)

WRK_LUA = textwrap.dedent(
    """
    local threads = {}
    setup = function(thread) table.insert(threads, thread) end
    init = function(args) hit = 0; stale = 0; miss = 0; other = 0 end
    request = function()
      return wrk.format("GET", wrk.path, {["Accept-Encoding"] = "gzip"})
    end
    response = function(status, headers, body)
      if status ~= 200 then other = other + 1 end
      local c = headers["X-Cache"] or ""
      if c == "HIT" or c == "UPDATING" then hit = hit + 1
      elseif c == "STALE" then stale = stale + 1
      elseif c ~= "" then miss = miss + 1 end
    end
    done = function(summary, latency, requests)
      local h, s, m, o = 0, 0, 0, 0
      for _, t in ipairs(threads) do
        h = h + t:get("hit"); s = s + t:get("stale"); m = m + t:get("miss")
        o = o + t:get("other")
      end
      local e = summary.errors
      io.write(string.format(
        'BENCH {"requests": %d, "seconds": %f, "p50_ms": %f, "p99_ms": %f, "hit": %d, ' ..
        '"stale": %d, "miss": %d, "other": %d, "errors": %d}\\n',
        summary.requests, summary.duration / 1e6, latency:percentile(50) / 1000,
        latency:percentile(99) / 1000, h, s, m, o,
        e.connect + e.read + e.write + e.timeout + e.status))
    end
    """
)


def run_wrk(
    url: str, connections: int, seconds: float, lua: Path, env: dict[str, str] | None = None
) -> dict:
    out = subprocess.run(
        ["wrk", "-t", "2", "-c", str(connections), "-d", f"{max(1, round(seconds))}s"]
        + ["--timeout", "10s", "-s", str(lua), url],
        capture_output=True,
        text=True,
        env=env,
        timeout=seconds + 60,
    )
    for line in out.stdout.splitlines():
        if line.startswith("BENCH "):
            return json.loads(line[6:])
    raise SystemExit(f"wrk gave no result for {url}: {out.stdout[-500:]} {out.stderr[-500:]}")


def run_python_client(
    url: str, connections: int, seconds: float, paths: Callable[[], str] | None = None
) -> dict:
    """Without wrk: ``connections`` asyncio clients, one request per connection; ``paths``
    (else the URL's own path) names each request's path."""
    rest = url.split("127.0.0.1:", 1)[1]
    port, path = int(rest.split("/", 1)[0]), "/" + rest.split("/", 1)[1]
    paths = paths or (lambda: path)
    stats: dict = {"lat": [], "s200": 0, "s304": 0, "other": 0, "errors": 0}
    start = time.monotonic()

    async def main() -> None:
        loops = (
            _client_loop("127.0.0.1", port, paths, False, start + seconds, stats)
            for _ in range(connections)
        )
        await asyncio.gather(*loops)

    asyncio.run(main())
    lat = sorted(stats["lat"]) or [0.0]
    return {
        "requests": len(lat),
        "seconds": time.monotonic() - start,
        "p50_ms": lat[len(lat) // 2] * 1000,
        "p99_ms": lat[min(len(lat) - 1, int(len(lat) * 0.99))] * 1000,
        "hit": 0,
        "stale": 0,
        "miss": 0,
        "other": stats["other"],
        "errors": stats["errors"],
    }


# ------------------------------------------------------------------ the desk under the crowd
# Issue 40: "the console's result entry p99 unchanged under the crowd". The director's result
# box posts a line through the tier (to the desk's own gunicorn pool, serve --desk-workers)
# while nothing else runs, then while wrk asks for random player pages through the tier (each
# line is a new version, so the crowd's pages miss and reach the crowd's pool); quiet and
# crowded alternate, twice (once in --short), and the ratio of the p99s is printed beside them.
DESK_LINES = 40
DESK_MAX_RATIO = 2.0  # crowded p99 over quiet p99, same run
CROWD_CONNECTIONS = 256
# random player pages: BENCH_PREFIX .. a number in 1..BENCH_PLAYERS .. BENCH_SUFFIX, through
# the tier (".../player/" .. n .. "/") or as the static copies ("player/" .. n .. ".html")
CROWD_LUA = WRK_LUA.replace(
    'return wrk.format("GET", wrk.path, {["Accept-Encoding"] = "gzip"})',
    'return wrk.format("GET", os.getenv("BENCH_PREFIX") .. '
    'math.random(1, tonumber(os.getenv("BENCH_PLAYERS"))) .. (os.getenv("BENCH_SUFFIX") or "/"), '
    '{["Accept-Encoding"] = "gzip"})',
)


class Desk:
    """A director signed in (a session made through Django's test client in this process, on
    the same database) posting correction lines to the console's result box through the tier,
    as the page's htmx does: each line ``N S1 S2: reason`` on a complete round's game."""

    def __init__(self, port: int, slug: str, div: str, number: int) -> None:
        from django.contrib.auth import get_user_model
        from django.middleware.csrf import _get_new_csrf_string
        from django.test import Client
        from django.urls import reverse

        from tournament.models import Division, Game

        self.division = Division.objects.select_related("tournament").get(
            tournament__slug=slug, slug=div
        )
        user = get_user_model().objects.create_user("bench-desk", "desk@example.org", "x" * 16)
        self.division.tournament.directors.add(user)
        client = Client()
        client.force_login(user)
        self.csrf = _get_new_csrf_string()
        self.cookie = f"sessionid={client.cookies['sessionid'].value}; csrftoken={self.csrf}"
        self.path = reverse("console:results", args=(slug, div, number))
        self.number = number
        self.players = list(
            Game.objects.filter(
                round__division=self.division, round__number=number, player2__isnull=False
            ).values_list("player1__number", flat=True)
        )
        self.port = port
        self.sent = 0

    def post(self) -> float:
        """One line posted and answered (ms); the page's ``seen`` and ``since`` are read
        before the clock starts, as the page holds them."""
        import http.client
        import urllib.parse

        from django.db.models import Max

        from tests.benchmarks.bench_console import _seen
        from tournament.models import AuditEvent

        player = self.players[self.sent % len(self.players)]
        self.sent += 1
        body = urllib.parse.urlencode(
            {
                "line": f"{player} {300 + self.sent % 200} 299: misread card",
                "seen": _seen(self.division, self.number),
                "since": AuditEvent.objects.aggregate(m=Max("pk"))["m"],
            }
        )
        headers = {
            "Cookie": self.cookie,
            "X-CSRFToken": self.csrf,
            "HX-Request": "true",
            "Content-Type": "application/x-www-form-urlencoded",
        }
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        try:
            began = time.perf_counter()
            conn.request("POST", self.path, body, headers)
            answer = conn.getresponse()
            answer.read()
            took = (time.perf_counter() - began) * 1000
        finally:
            conn.close()
        if answer.status != 200:
            raise SystemExit(f"the desk's line answered {answer.status} at {self.path}")
        return took


def _p(values: list[float], q: int) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, len(ordered) * q // 100)]


def desk_under_crowd(
    desk: Desk, crowd_url: str, players: int, lines: int, passes: int, folder: Path, settle: float
) -> list[dict]:
    """Quiet and crowded desk timings, alternating ``passes`` times: one row for each. Before
    each quiet pass ``settle`` seconds go by: the public pool's queue left by a crowd (each of
    its connections' last page builds) would otherwise still hold the CPU."""
    lua = folder / "crowd.lua"
    lua.write_text(CROWD_LUA, encoding="utf-8")
    base, prefix = crowd_url.split("/t/", 1)
    quiet: list[float] = []
    crowded: list[float] = []
    for _ in range(6):  # warm: each desk worker past its first requests (imports, caches)
        desk.post()
    for n in range(passes):
        # the first quiet pass follows the gunicorn-only rows, whose queue is the longest
        time.sleep(settle * (3 if n == 0 else 1))
        quiet += [desk.post() for _ in range(lines)]
        if shutil.which("wrk") is None:  # the asyncio client in a child: the same crowd
            crowd = spawn(
                [sys.executable, "-c", CROWD_CLIENT, str(REPO), base + "/t/" + prefix, "1000"],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        else:
            env = dict(os.environ, BENCH_PLAYERS=str(players), BENCH_PREFIX="/t/" + prefix)
            crowd = spawn(
                ["wrk", "-t", "2", "-c", str(CROWD_CONNECTIONS), "-d", "1000s"]
                + ["--timeout", "10s", "-s", str(lua), base],
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        try:
            time.sleep(1.0)  # the crowd at full strength before the desk's first line
            crowded += [desk.post() for _ in range(lines)]
        finally:
            stop(crowd)
    rows = []
    for name, times in (("desk, quiet", quiet), ("desk, crowd", crowded)):
        rows.append(
            {
                "row": name,
                "n": len(times),
                "p50_ms": _p(times, 50),
                "p95_ms": _p(times, 95),  # beside p99, which at 80 lines is the slowest one
                "p99_ms": _p(times, 99),
            }
        )
    return rows


# the crowd without wrk: standings through the tier from 64 asyncio connections
CROWD_CLIENT = textwrap.dedent(
    """
    import sys, time
    sys.path.insert(0, sys.argv[1])
    from tests.benchmarks.bench_front import run_python_client
    run_python_client(sys.argv[2].rsplit("/player/", 1)[0] + "/standings/", 64,
                      float(sys.argv[3]))
    """
)


def page_as_file(url: str, folder: Path, name: str) -> int:
    """The page as gunicorn sends it, plain and gzipped, as ``name`` and ``name.gz`` in
    ``folder`` (under the static folder nginx serves, gzip_static answering with the ``.gz``);
    returns the gzipped size."""
    request = urllib.request.Request(url, headers={"Accept-Encoding": "gzip"})
    with urllib.request.urlopen(request, timeout=60) as answer:
        body = answer.read()
        zipped = answer.headers.get("Content-Encoding") == "gzip"
    plain = gzip.decompress(body) if zipped else body
    target = folder / name
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(plain)
    packed = gzip.compress(plain, 6, mtime=0)
    target.with_name(target.name + ".gz").write_bytes(packed)
    return len(packed)


@dataclass(frozen=True)
class Kind:
    """One kind of public page: asked through the tier, and as nginx's static copy of the
    same bytes. ``players`` > 0: a random player's page each request (the Lua script picks
    ``prefix N suffix``)."""

    name: str
    tier: str  # path through the tier (or the prefix of one, with players)
    static: str  # path of the static copy (or its prefix)
    players: int = 0
    tier_suffix: str = "/"
    static_suffix: str = ".html"


def measure(
    base: str, path: str, kind: Kind, suffix: str, connections: int, seconds: float, lua: Path
) -> dict:
    """One wrk run (else the asyncio client) of ``connections`` against ``base + path``, or
    random player pages under ``path`` for a kind with players."""
    use_wrk = shutil.which("wrk") is not None
    if not kind.players:
        if use_wrk:
            return run_wrk(base + path, connections, seconds, lua)
        return run_python_client(base + path, connections, seconds)
    if use_wrk:
        env = dict(
            os.environ,
            BENCH_PLAYERS=str(kind.players),
            BENCH_PREFIX=path,
            BENCH_SUFFIX=suffix,
        )
        return run_wrk(base, connections, seconds, lua.with_name("crowd.lua"), env)
    return run_python_client(
        base + path,
        connections,
        seconds,
        lambda: f"{path}{random.randint(1, kind.players)}{suffix}",
    )


def to_app(r: dict) -> str:
    """Requests the tier passed to gunicorn in a row: its misses (MISS, EXPIRED, REVALIDATED,
    BYPASS) and each STALE answer, which started one background update (the requests that
    found that update running are UPDATING, answered from the old copy: counted as hits)."""
    return "-" if r["row"] == "plain serve" else str(r["miss"] + r["stale"])


def row_verdict(r: dict) -> str:
    """A row's verdict beside its target: 'ok' or what was missed."""
    if r["row"] == "plain serve":
        return "ok" if r["rps"] >= PLAIN_MIN_RPS else f"< {PLAIN_MIN_RPS:,} req/s"
    wrong = []
    if r["x_static"] < MIN_RATIO:
        wrong.append(f"< {MIN_RATIO}x")
    if r["p99_ms"] > MAX_P99_MS:
        wrong.append(f"p99 > {MAX_P99_MS:.0f}")
    return "ok" if not wrong else "MISSED " + ", ".join(wrong)


def main() -> int:  # noqa: PLR0915 - one run, told in order
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=10.0, help="load per row")
    parser.add_argument("--workers", type=int, default=WORKERS, help="gunicorn's workers")
    parser.add_argument(
        "--app-nice",
        type=int,
        default=0,
        help="serve --front --app-nice N: gunicorn's CPU priority lowered by N",
    )
    parser.add_argument("--json", action="store_true")
    add_short(parser)
    args = parser.parse_args()
    if args.short:
        args.players, args.rounds = min(args.players, 20), min(args.rounds, 2)
        args.seconds, args.workers = min(args.seconds, 0.4), min(args.workers, 2)
    targets = (
        f"targets: each page kind through the tier >= {MIN_RATIO}x the static copy's req/s "
        f"and p99 <= {MAX_P99_MS:.0f} ms, at {' and '.join(map(str, CONNECTIONS))} "
        f"connections; plain serve's standings >= {PLAIN_MIN_RPS:,} req/s on a quiet machine"
    )

    from tournament.management.front import find_nginx

    if find_nginx() is None:
        print(f"nginx is not installed (apt-get install nginx): nothing measured\n{targets}")
        return 0

    data_dir = tempfile.mkdtemp(prefix="gibson-bench-front-")
    procs: list[subprocess.Popen] = []
    rows: list[dict] = []
    try:
        setup_django(data_dir)
        began = time.perf_counter()
        slug, div = build_division(args.players, args.rounds)
        built = time.perf_counter() - began
        from django.db import connection

        connection.close()
        env = dict(os.environ, GIBSON_DATA_DIR=data_dir, GIBSON_DEBUG="0", GIBSON_LOG_LEVEL="ERROR")
        env.pop("DATABASE_URL", None)
        # the desk's pool on a port of its own: by default it takes the port after --addr's,
        # which another server (or the front's own port) may hold, and serve then exits
        front, app, desk_port, plain = free_port(), free_port(), free_port(), free_port()
        server = spawn(
            [sys.executable, str(REPO / "manage.py"), "serve", "--front", f"127.0.0.1:{front}"]
            + ["--addr", f"127.0.0.1:{app}", "--workers", str(args.workers)]
            + ["--app-nice", str(args.app_nice)]
            + ["--desk-workers", "1" if args.short else "2"]
            + ["--desk-addr", f"127.0.0.1:{desk_port}"],
            env=env,
            cwd=REPO,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        procs.append(server)
        wait_ready(front, server)
        wait_ready(app, server)
        # plain `serve` (the README's way to run an event): gunicorn alone, its own page
        # cache, no tier; idle (no CPU) while the tier is measured
        plain_server = spawn(
            [sys.executable, str(REPO / "manage.py"), "serve"]
            + ["--addr", f"127.0.0.1:{plain}", "--workers", str(args.workers)],
            env=env,
            cwd=REPO,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        procs.append(plain_server)
        wait_ready(plain, plain_server)
        t = f"/t/{slug}/{div}"
        kinds = [
            Kind("standings", f"{t}/standings/", "/static/bench/standings.html"),
            Kind("player page", f"{t}/player/", "/static/bench/player/", players=args.players),
            Kind("tourney.js", f"/t/{slug}/tourney.js", "/static/bench/tourney.js"),
        ]
        static_dir = Path(data_dir) / "static" / "bench"
        sizes = {
            "standings": page_as_file(
                f"http://127.0.0.1:{app}{t}/standings/", static_dir, "standings.html"
            ),
            "tourney.js": page_as_file(
                f"http://127.0.0.1:{app}/t/{slug}/tourney.js", static_dir, "tourney.js"
            ),
            "player page": sum(
                page_as_file(
                    f"http://127.0.0.1:{app}{t}/player/{n}/", static_dir, f"player/{n}.html"
                )
                for n in range(1, args.players + 1)
            )
            // args.players,
        }
        use_wrk = shutil.which("wrk") is not None
        lua = Path(data_dir) / "front.lua"
        lua.write_text(WRK_LUA, encoding="utf-8")
        lua.with_name("crowd.lua").write_text(CROWD_LUA, encoding="utf-8")
        tier_base, plain_base = f"http://127.0.0.1:{front}", f"http://127.0.0.1:{plain}"
        for n in range(1, args.players + 1):  # every card in the tier, as a crowd that has
            # been reading them (each then expires in its own turn: tournament/web/front.py)
            card = urllib.request.Request(
                f"{tier_base}{t}/player/{n}/", headers={"Accept-Encoding": "gzip"}
            )
            urllib.request.urlopen(card, timeout=60).read()
        # the writer is needed through the tier's rows and plain serve's (the static copies
        # do not change): those first, the static copies last
        # --short proves each row kind runs, at the smaller crowd only (wrk's runs are whole
        # seconds: each row of --short costs a second of both cores)
        crowds = CONNECTIONS[:1] if args.short else CONNECTIONS
        budget = (args.seconds + 3) * (len(kinds) + 1) * len(crowds) + 60
        writer = start_writer(env, slug, div, args.rounds, budget, abuse=False)
        procs.append(writer)
        # warm: every worker loaded, each page built and kept by the tier (plain and gzipped)
        if args.short:  # one request of each: every worker need not be warm to prove it runs
            for url in [tier_base + k.tier for k in kinds if not k.players] + [
                tier_base + kinds[1].tier + "1/",
                plain_base + kinds[0].tier,
            ]:
                card = urllib.request.Request(url, headers={"Accept-Encoding": "gzip"})
                urllib.request.urlopen(card, timeout=60).read()
        else:
            for kind in kinds:
                measure(tier_base, kind.tier, kind, kind.tier_suffix, 4, 3.0, lua)
                measure(tier_base, kind.static, kind, kind.static_suffix, 4, 3.0, lua)
            measure(plain_base, kinds[0].tier, kinds[0], "/", 4, 3.0, lua)
        settle = 0.2 if args.short else 2.0
        plan = [(k, c, "through the tier") for k in kinds for c in crowds]
        plan += [(kinds[0], c, "plain serve") for c in crowds]
        plan += [(k, c, "nginx, static copy") for k in kinds for c in crowds]
        for kind, connections, name in plan:
            if name == "nginx, static copy" and kind is kinds[0] and connections == CONNECTIONS[0]:
                # plain serve's queue (each connection's last page) outlives its run
                time.sleep(settle * 3)
            if name == "through the tier":
                r = measure(
                    tier_base, kind.tier, kind, kind.tier_suffix, connections, args.seconds, lua
                )
            elif name == "plain serve":
                r = measure(
                    plain_base, kind.tier, kind, kind.tier_suffix, connections, args.seconds, lua
                )
            else:
                r = measure(
                    tier_base, kind.static, kind, kind.static_suffix, connections, args.seconds, lua
                )
            r.update(
                kind=kind.name, row=name, connections=connections, rps=r["requests"] / r["seconds"]
            )
            rows.append(r)
            time.sleep(settle)  # closed connections drained
        stop(writer)
        written = 0
        if writer.stdout is not None:
            lines = writer.stdout.read().split()
            written = int(lines[-1]) if lines else 0
        stop(plain_server)
        # the desk's result entry alone and under a crowd of player pages (no writer now:
        # the desk's own lines are the new versions)
        desk = Desk(front, slug, div, args.rounds - 1)
        desk_rows = desk_under_crowd(
            desk,
            f"http://127.0.0.1:{front}/t/{slug}/{div}/player/",
            args.players,
            4 if args.short else DESK_LINES,
            1 if args.short else 2,
            Path(data_dir),
            0.2 if args.short else 5.0,
        )
    finally:
        for p in procs:
            stop(p)
        shutil.rmtree(data_dir, ignore_errors=True)

    missed: list[str] = []
    broken: list[str] = []
    static_of = {(r["kind"], r["connections"]): r for r in rows if r["row"] == "nginx, static copy"}
    for r in rows:
        static = static_of[(r["kind"], r["connections"])]
        r["static_rps"] = static["rps"]
        r["x_static"] = r["rps"] / static["rps"] if static["rps"] else 0.0
        if r["other"] or r["errors"]:
            broken.append(
                f"{r['kind']}, {r['row']} at {r['connections']}: {r['other']} answers not "
                f"200, {r['errors']} socket errors"
            )
        if r["row"] == "nginx, static copy":
            continue
        r["verdict"] = row_verdict(r)
        if r["verdict"] != "ok":
            missed.append(
                f"{r['kind']}, {r['row']} at {r['connections']} connections: "
                f"{r['rps']:.0f} req/s = {r['x_static']:.2f}x the static copy's "
                f"{static['rps']:.0f}, p99 {r['p99_ms']:.1f} ms ({r['verdict']})"
            )
    quiet, crowded = desk_rows
    desk_ratio = crowded["p99_ms"] / quiet["p99_ms"] if quiet["p99_ms"] else 0.0
    if desk_ratio > DESK_MAX_RATIO:
        missed.append(
            f"desk under the crowd: p99 {crowded['p99_ms']:.1f} ms = {desk_ratio:.2f}x its "
            f"{quiet['p99_ms']:.1f} ms alone (target <= {DESK_MAX_RATIO}x)"
        )
    load = os.getloadavg()
    if args.json:
        print(
            json.dumps(
                {
                    "rows": rows,
                    "desk": desk_rows,
                    "desk_ratio": desk_ratio,
                    "missed": missed,
                    "broken": broken,
                    "load": load,
                },
                indent=2,
            )
        )
        return exit_status(missed, broken, short=args.short)
    print(
        f"{args.players} players, {args.rounds} rounds (built in {built:.0f} s); gzipped: "
        f"standings {sizes['standings']:,} bytes, a player page {sizes['player page']:,} "
        f"(mean), tourney.js {sizes['tourney.js']:,}; gunicorn {args.workers} workers behind "
        f"nginx (--app-nice {args.app_nice}); {args.seconds:g} s a row; load from "
        f"{'wrk' if use_wrk else 'the asyncio client'}; {written} results recorded meanwhile "
        f"(one a second); load average at the end {load[0]:.1f} {load[1]:.1f} {load[2]:.1f} "
        f"on {os.cpu_count()} cores"
    )
    print(
        f"{'page':<13}{'row':<18}{'conns':>6}{'req/s':>8}{'static':>8}{'ratio':>7}"
        f"{'p50 ms':>8}{'p99 ms':>8}{'to app':>7}  verdict"
    )
    for r in rows:
        if r["row"] == "nginx, static copy":
            continue
        print(
            f"{r['kind']:<13}{r['row']:<18}{r['connections']:>6}{r['rps']:>8.0f}"
            f"{r['static_rps']:>8.0f}{r['x_static']:>7.2f}{r['p50_ms']:>8.1f}"
            f"{r['p99_ms']:>8.1f}{to_app(r):>7}  "
            f"{r['verdict']}"
        )
    print(
        "static: req/s of nginx serving the same bytes as files (player pages: the 500 copies "
        "asked at random), same connections, this run; to app: requests the tier passed to "
        "gunicorn (X-Cache MISS/EXPIRED/REVALIDATED, and STALE: one background update each); "
        "p99 of the static copies: "
        + ", ".join(
            f"{k} {static_of[(k, c)]['p99_ms']:.1f} ms at {c}"
            for k in sizes
            for c in CONNECTIONS
            if (k, c) in static_of
        )
    )
    print(
        f"\nthe console's result box through the tier (its own pool), {quiet['n']} lines "
        f"alone and {crowded['n']} under {CROWD_CONNECTIONS} connections of random player "
        "pages, alternating; each line a new version"
    )
    print(f"{'row':<22}{'lines':>6}{'p50 ms':>8}{'p95 ms':>8}{'p99 ms':>8}{'p99 ratio':>11}")
    for r in desk_rows:
        ratio = f"{desk_ratio:.2f}x" if r is crowded else "1.00x"
        print(
            f"{r['row']:<22}{r['n']:>6}{r['p50_ms']:>8.1f}{r['p95_ms']:>8.1f}"
            f"{r['p99_ms']:>8.1f}{ratio:>11}"
        )
    print(targets + f"; the desk's p99 under the crowd <= {DESK_MAX_RATIO}x its p99 alone")
    return verdict(missed, broken, short=args.short)


if __name__ == "__main__":
    raise SystemExit(main())
