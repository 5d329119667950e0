"""Public pages under load: a 500-player, 20-round division served by gunicorn, results coming in.

Run: python tests/benchmarks/bench_web.py [--players 500] [--rounds 20] [--seconds 12] [--json]
     python tests/benchmarks/bench_web.py --short [--abuse]  # 20 players, 0.4 s a page, 2 workers

What the Production issue asks of the public pages ("Fast public pages"), measured here:
standings >= 300 req/s with p95 <= 100 ms, a 304 of tourney.js >= 1,000 req/s, a player page
>= 200 req/s, with 32 clients each sending its next request when the last is answered (closed
loop) while one result is recorded every second, so the cache keeps changing (every write
bumps the version, and each page is computed again once per change).

The division is built through the services in one transaction in a temporary GIBSON_DATA_DIR;
the site is started with ``manage.py serve --workers 4`` (gunicorn) and, in the same run,
``manage.py runserver`` for the ratio, each on a free loopback port. The load comes from
``wrk`` when it is installed (Debian: apt-get install wrk), else from a small asyncio client in
this file (slower: on a small machine it competes with the server for the CPU). Player pages
are requested for random players (every player looks at their own card); tourney.js is polled
as overlays poll it, sending back the last ETag it got. Query counts per page come from
Django's test client: cold (empty cache), warm, and a conditional GET, each with its median
server time. Only 127.0.0.1 is ever contacted, and every run is bounded in time. Exit status 1
when a target is missed (not with ``--short``: see benchkit.py) or a page answers an error.

``--abuse`` (issue 19, "Authority in one place"): standings on gunicorn measured quiet, then
beside one abusing client at a time, each in a process of its own with four connections:
self-report spam on one player's link, anonymous API reads claiming a new X-Forwarded-For
each, a sign-in flood with made-up names, and ``games/?limit=1000`` at 95% of the anonymous
rate; and (issue 31, "Trust when the doors are open") one player's self-entry page read as fast
as it is answered and malformed reports from another link (each request once rebuilt the whole
division's standings). ``--only TEXT`` keeps the abuses whose name holds TEXT (and the
control). Each abuse is paired with a quiet run just before it; the target is >= 80%. A control
row sends the cheapest request there is (a static file) as fast as it is answered: the cost
of any client that fast (its own process's CPU on a small machine, gunicorn's accept), which
no refusal can go below.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from tests.benchmarks.benchkit import (  # noqa: E402
    add_short,
    exit_status,
    free_port,
    migrate,
    spawn,
    stop,
    verdict,
    wait_ready,
)

CLIENTS = 32
WORKERS = 4
# page -> (minimum req/s, maximum p95 ms or None), for gunicorn
TARGETS = {
    "standings": (300.0, 100.0),
    "player page": (200.0, None),
    "tourney.js 304": (1000.0, None),
}


def setup_django(data_dir: str) -> None:
    os.environ["GIBSON_DATA_DIR"] = data_dir
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tournament.settings")
    os.environ.pop("DATABASE_URL", None)
    import django

    django.setup()
    migrate()


def build_division(players: int, rounds: int, seed: int = 7) -> tuple[str, str]:
    """A published division of ``players`` with ``rounds`` paired rounds, every round scored
    but the last, which is half scored (the writer records the rest, one a second)."""
    from django.db import transaction

    from pairings.services.store import PlannedGame, save_round_pairings
    from tournament import services

    rng = random.Random(seed)
    with transaction.atomic():  # one commit: minutes of fsyncs become seconds
        t = services.create_tournament(name=f"Web Bench {players}", slug="web-bench")
        d = services.create_division(t, name="A", rounds=rounds)
        services.register_players(
            d,
            [
                services.NewEntry(name=f"Player {n:04d}, Bench", rating=rng.randint(600, 2100))
                for n in range(1, players + 1)
            ],
            actor="bench",
        )
        numbers = list(range(1, players + 1))
        for r in range(1, rounds + 1):
            rng.shuffle(numbers)
            games = [
                PlannedGame(numbers[i], numbers[i + 1], board=i // 2 + 1)
                for i in range(0, len(numbers) - 1, 2)
            ]
            if len(numbers) % 2:
                games.append(PlannedGame(numbers[-1], 0))
            save_round_pairings(d, r, games, system="random")
            played = [g for g in games if g.second]
            for g in played if r < rounds else played[: len(played) // 2]:
                services.record_result(d, r, g.first, rng.randint(250, 550), rng.randint(250, 550))
    return t.slug, d.slug


def query_counts(slug: str, div: str) -> dict[str, dict[str, float]]:
    """Queries and server time per page through the test client: empty cache, warm, 304."""
    return queries_per_url(
        {
            "standings": f"/t/{slug}/{div}/standings/",
            "player page": f"/t/{slug}/{div}/player/17/",
            "tourney.js": f"/t/{slug}/tourney.js",
        }
    )


COLD_REPEAT = 5  # requests per page and state for the test client's medians


def queries_per_url(urls: dict[str, str]) -> dict[str, dict[str, float]]:
    """``{name: {"cold", "warm", "304": queries, "cold_ms", "warm_ms", "304_ms": median ms}}``
    for each URL through the test client (the view, the queries and the template, without the
    network): cold is the page built with the shared cache and this process's copies emptied
    before each request, warm the same page served from the cache, 304 a conditional GET."""
    import statistics

    from django.core.cache import cache
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from tournament import cache as caching

    def empty() -> None:
        cache.clear()
        caching.reset_failures()  # also this process's copies of cached pages

    client = Client()
    out: dict[str, dict[str, float]] = {}
    for name, url in urls.items():
        row: dict[str, float] = {}
        times: dict[str, list[float]] = {"cold": [], "warm": [], "304": []}
        for _ in range(COLD_REPEAT):
            empty()
            for label in ("cold", "warm"):
                with CaptureQueriesContext(connection) as ctx:
                    began = time.perf_counter()
                    response = client.get(url)
                    times[label].append((time.perf_counter() - began) * 1000)
                assert response.status_code == 200, (url, response.status_code)
                row[label] = len(ctx.captured_queries)
            with CaptureQueriesContext(connection) as ctx:
                began = time.perf_counter()
                again = client.get(url, HTTP_IF_NONE_MATCH=response["ETag"])
                times["304"].append((time.perf_counter() - began) * 1000)
            assert again.status_code == 304, (url, again.status_code)
            row["304"] = len(ctx.captured_queries)
        for label, values in times.items():
            row[f"{label}_ms"] = statistics.median(values)
        out[name] = row
    empty()
    connection.close()
    return out


def print_query_table(queries: dict[str, dict[str, float]]) -> None:
    print(
        "\nper page through the test client (no network): queries and median server ms; "
        "cold = cache emptied before each request"
    )
    print(
        f"  {'page':<18}{'cold q':>7}{'warm q':>7}{'304 q':>6}{'cold ms':>9}{'warm ms':>9}"
        f"{'304 ms':>8}{'cold/warm':>10}"
    )
    for name, row in queries.items():
        ratio = row["cold_ms"] / row["warm_ms"] if row["warm_ms"] else 0.0
        print(
            f"  {name:<18}{row['cold']:>7.0f}{row['warm']:>7.0f}{row['304']:>6.0f}"
            f"{row['cold_ms']:>9.1f}{row['warm_ms']:>9.1f}{row['304_ms']:>8.1f}{ratio:>9.1f}x"
        )


def start_writer(
    env: dict[str, str], slug: str, div: str, rounds: int, budget: float, *, abuse: bool
) -> subprocess.Popen:
    """The director's process entering results beside the crowd (WRITER), for ``budget``
    seconds. In the plain run its timings are read from stdout; beside the abuses it leaves
    the last game unscored for the self-report spam and its output is dropped."""
    return spawn(
        [sys.executable, "-c", WRITER, str(REPO), slug, div, str(rounds), str(budget)]
        + ["1" if abuse else "0"],  # WRITER's "spare": games left to self-reports
        env=env,
        cwd=REPO,
        stdout=subprocess.DEVNULL if abuse else subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )


def start_server(
    kind: str, port: int, env: dict[str, str], workers: int = WORKERS
) -> subprocess.Popen:
    """gunicorn (``manage.py serve``) or runserver on ``port``, answering when this returns;
    stopped by benchkit at the latest when the benchmark ends, however it ends."""
    manage = [sys.executable, str(REPO / "manage.py")]
    if kind == "gunicorn":
        argv = [*manage, "serve", "--addr", f"127.0.0.1:{port}", "--workers", str(workers)]
    else:
        argv = [*manage, "runserver", f"127.0.0.1:{port}", "--noreload"]
    proc = spawn(argv, env=env, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_ready(port, proc)
    return proc


WRITER = textwrap.dedent(
    """
    import os, sys, time, random
    sys.path.insert(0, sys.argv[1])
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tournament.settings")
    import django
    django.setup()
    from tournament import services
    from tournament.models import Division
    from tournament.selectors import missing_games
    d = Division.objects.get(tournament__slug=sys.argv[2], slug=sys.argv[3])
    rounds, limit, spare = int(sys.argv[4]), float(sys.argv[5]), int(sys.argv[6])
    rng, done, start = random.Random(3), 0, time.monotonic()
    games = list(missing_games(d, rounds))
    for g in games[: len(games) - spare]:  # the spare last games are left to self-reports
        if time.monotonic() - start > limit:
            break
        t0 = time.monotonic()
        services.record_result(d, rounds, g.player1.number, rng.randint(250, 550),
                               rng.randint(250, 550), actor="bench writer")
        done += 1
        print(done, flush=True)
        time.sleep(max(0.0, 1.0 - (time.monotonic() - t0)))
    """
)


# --- load: wrk, or a small asyncio client -------------------------------------------------------

WRK_LUA = textwrap.dedent(
    """
    local threads = {}
    local players = tonumber(os.getenv("BENCH_PLAYERS") or "0")
    local prefix = os.getenv("BENCH_PREFIX") or ""
    local conditional = os.getenv("BENCH_CONDITIONAL") == "1"
    setup = function(thread) table.insert(threads, thread) end
    init = function(args) s200 = 0; s304 = 0; other = 0; etag = nil end
    request = function()
      local headers = {}
      headers["Accept-Encoding"] = "gzip"
      if conditional and etag then headers["If-None-Match"] = etag end
      local path = wrk.path
      if players > 0 then path = prefix .. math.random(1, players) .. "/" end
      return wrk.format("GET", path, headers)
    end
    response = function(status, headers, body)
      if status == 200 then
        s200 = s200 + 1
        etag = headers["ETag"] or headers["Etag"] or etag
      elseif status == 304 then s304 = s304 + 1 else other = other + 1 end
    end
    done = function(summary, latency, requests)
      local a, b, c = 0, 0, 0
      for _, t in ipairs(threads) do
        a = a + t:get("s200"); b = b + t:get("s304"); c = c + t:get("other")
      end
      local e = summary.errors
      io.write(string.format(
        'BENCH {"requests": %d, "seconds": %f, "p50_ms": %f, "p95_ms": %f, "s200": %d, ' ..
        '"s304": %d, "other": %d, "errors": %d}\\n',
        summary.requests, summary.duration / 1e6, latency:percentile(50) / 1000,
        latency:percentile(95) / 1000, a, b, c, e.connect + e.read + e.write + e.timeout))
    end
    """
)


def run_wrk(url: str, seconds: float, players: int, conditional: bool, lua: Path) -> dict:
    env = dict(
        os.environ,
        BENCH_PLAYERS=str(players),
        BENCH_CONDITIONAL="1" if conditional else "0",
        BENCH_PREFIX=url.split("127.0.0.1", 1)[1].split("/", 1)[-1],
    )
    env["BENCH_PREFIX"] = "/" + env["BENCH_PREFIX"]
    out = subprocess.run(
        [
            "wrk",
            "-t",
            "2",
            "-c",
            str(CLIENTS),
            "-d",
            # whole seconds, at least one: wrk refuses "0s" (the --short windows are 0.4 s)
            f"{max(1, round(seconds))}s",
            "--timeout",
            "10s",
            "-s",
            str(lua),
            url,
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=seconds + 60,
    )
    for line in out.stdout.splitlines():
        if line.startswith("BENCH "):
            return json.loads(line[6:])
    raise SystemExit(f"wrk gave no result for {url}: {out.stdout[-500:]} {out.stderr[-500:]}")


async def _client_loop(
    host: str, port: int, paths, conditional: bool, deadline: float, stats: dict
) -> None:
    etag = None
    while time.monotonic() < deadline:
        path = paths()
        head = f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept-Encoding: gzip\r\n"
        if conditional and etag:
            head += f"If-None-Match: {etag}\r\n"
        t0 = time.monotonic()
        try:
            reader, writer = await asyncio.open_connection(host, port)
            writer.write((head + "Connection: close\r\n\r\n").encode())
            data = await asyncio.wait_for(reader.read(-1), 10)
            writer.close()
        except (TimeoutError, OSError):
            stats["errors"] += 1
            continue
        stats["lat"].append(time.monotonic() - t0)
        status = data[9:12]
        if status == b"200":
            stats["s200"] += 1
            for line in data.split(b"\r\n\r\n", 1)[0].split(b"\r\n"):
                if line.lower().startswith(b"etag:"):
                    etag = line.split(b":", 1)[1].strip().decode()
        elif status == b"304":
            stats["s304"] += 1
        else:
            stats["other"] += 1


def run_python_client(url: str, seconds: float, players: int, conditional: bool) -> dict:
    rest = url.split("127.0.0.1:", 1)[1]
    port, path = int(rest.split("/", 1)[0]), "/" + rest.split("/", 1)[1]
    rng = random.Random(1)

    def paths() -> str:
        return f"{path}{rng.randint(1, players)}/" if players else path

    stats = {"lat": [], "s200": 0, "s304": 0, "other": 0, "errors": 0}
    start = time.monotonic()

    async def main() -> None:
        deadline = start + seconds
        await asyncio.gather(
            *(
                _client_loop("127.0.0.1", port, paths, conditional, deadline, stats)
                for _ in range(CLIENTS)
            )
        )

    asyncio.run(main())
    lat = sorted(stats.pop("lat")) or [0.0]
    return {
        "requests": len(lat),
        "seconds": time.monotonic() - start,
        "p50_ms": lat[len(lat) // 2] * 1000,
        "p95_ms": lat[int(len(lat) * 0.95)] * 1000,
        **stats,
    }


# --- abuse beside the crowd (--abuse) -----------------------------------------------------------

# Issue 19 ("Authority in one place"): public standings keep >= 80% of their quiet rate while
# one client abuses the site beside the crowd.
ABUSE_RATIO = 0.80
ABUSE_THREADS = 4
# An abuse whose ratio is within this of the control row's passes (the control is the floor).
CONTROL_MARGIN = 0.10

ABUSER = textwrap.dedent(
    r"""
    import http.cookiejar, json, random, re, sys, threading, time, urllib.error
    import urllib.parse, urllib.request
    kind, base, path, seconds = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
    threads, per_minute = int(sys.argv[5]), float(sys.argv[6])
    deadline = time.monotonic() + seconds
    counts, lock = {}, threading.Lock()
    CSRF = re.compile(rb'name="csrfmiddlewaretoken" value="([^"]+)"')


    class Keep302(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args, **kwargs):
            return None  # a report's 302 is counted as the answer, not followed


    def browser():
        jar = urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar())
        return urllib.request.build_opener(jar, Keep302)


    def send(opener, url, data=None, headers=None):
        request = urllib.request.Request(url, data=data, headers=headers or {})
        try:
            with opener.open(request, timeout=30) as answer:
                return answer.status, answer.read()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read()
        except OSError:
            return 0, b""


    def note(status):
        with lock:
            counts[status] = counts.get(status, 0) + 1


    def form(opener, url):
        status, body = send(opener, url)
        return CSRF.search(body).group(1).decode(), body


    def spam(k):
        # one player's link: a new score each time, as fast as the site answers
        opener = browser()
        token, page = form(opener, base + path)
        rnd = re.search(rb'name="round" value="(\d+)"', page).group(1).decode()
        n = 0
        while time.monotonic() < deadline:
            n += 1
            data = {"csrfmiddlewaretoken": token, "score": 300 + (n * 7 + k) % 200,
                    "opp_score": 350, "round": rnd}
            note(send(opener, base + path + "report/", urllib.parse.urlencode(data).encode())[0])


    def malformed(k):
        # one player's link: reports no form accepts, as fast as the site answers
        opener = browser()
        token, _ = form(opener, base + path)
        while time.monotonic() < deadline:
            data = {"csrfmiddlewaretoken": token, "score": "lots", "opp_score": "", "round": "x"}
            note(send(opener, base + path + "report/", urllib.parse.urlencode(data).encode())[0])


    def flood(k):
        # sign-ins with made-up names from one address
        opener = browser()
        token, _ = form(opener, base + path)
        n = 0
        while time.monotonic() < deadline:
            n += 1
            data = {"csrfmiddlewaretoken": token, "username": f"made-up-{k}-{n}",
                    "password": "guess"}
            note(send(opener, base + path, urllib.parse.urlencode(data).encode())[0])


    def forwarded(k):
        # anonymous API reads, each claiming another client in X-Forwarded-For
        opener, rng = browser(), random.Random(k)
        while time.monotonic() < deadline:
            claimed = f"198.51.{rng.randint(0, 255)}.{rng.randint(1, 254)}"
            note(send(opener, base + path, headers={"X-Forwarded-For": claimed})[0])


    def plain(k):
        # one address as fast as it is answered: the control (a static file, the cheapest
        # answer the site has) and a player's self-entry page
        opener = browser()
        while time.monotonic() < deadline:
            note(send(opener, base + path)[0])


    slots, slot_lock = [time.monotonic()], threading.Lock()


    def paced(k):
        # the biggest page the API gives, just under the anonymous rate
        opener = browser()
        while True:
            with slot_lock:
                at = slots[0]
                slots[0] = at + 60.0 / per_minute
            if at >= deadline:
                return
            time.sleep(max(0.0, at - time.monotonic()))
            note(send(opener, base + path)[0])


    work = {"spam": spam, "flood": flood, "forwarded": forwarded, "paced": paced,
            "plain": plain, "malformed": malformed}[kind]
    started = time.monotonic()
    pool = [threading.Thread(target=work, args=(k,)) for k in range(threads)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    print(json.dumps({"seconds": time.monotonic() - started,
                      "counts": {str(k): v for k, v in sorted(counts.items())}}))
    """
)


def abuse_links(slug: str, div: str) -> tuple[str, str, str]:
    """Three self-entry links, one for each self-entry abuse (a link's budget is its own, so
    one abuse's spent minute does not cut the next one short): the two players of the game in
    the last round the writer leaves unscored (the writer's spare game), so the spammer's
    reports stay reports and the malformed reports' page has a form; and a player whose
    card is read."""
    from tournament.models import Division, Entry
    from tournament.selectors import missing_games
    from tournament.services.selfentry import ensure_tokens

    d = Division.objects.get(tournament__slug=slug, slug=div)
    ensure_tokens(d, "bench")
    game = list(missing_games(d, d.rounds))[-1]
    reader = Entry.objects.filter(division=d).exclude(pk__in=[game.player1_id, game.player2_id])
    tokens = [
        Entry.objects.get(pk=game.player1_id).entry_token,
        Entry.objects.get(pk=game.player2_id).entry_token,
        reader.order_by("number").first().entry_token,
    ]
    return tuple(f"/e/{t}/" for t in tokens)  # type: ignore[return-value]


class Load:
    """Which client makes the crowd: wrk where installed (a C client on 2 threads: the
    figures), else the asyncio client. A ``--short`` run proves both work and waits for
    neither: wrk counts whole seconds, so a 0.4 s window would take 1 s; it makes the first
    window only (its Lua script and report are read), the asyncio client the rest."""

    def __init__(self, short: bool) -> None:
        self.wrk = shutil.which("wrk") is not None
        self.short = short
        self.wrk_windows = 0

    def use_wrk(self) -> bool:
        """Whether the next window is wrk's."""
        if not self.wrk or (self.short and self.wrk_windows):
            return False
        self.wrk_windows += 1
        return True

    def __str__(self) -> str:
        if not self.wrk:
            return "the asyncio client"
        return "wrk (the first window; the asyncio client after)" if self.short else "wrk"


def measure(url: str, seconds: float, load: Load, lua: Path) -> dict:
    r = (
        run_wrk(url, seconds, 0, False, lua)
        if load.use_wrk()
        else run_python_client(url, seconds, 0, False)
    )
    r["rps"] = r["requests"] / r["seconds"]
    return r


def abuse_main(args: argparse.Namespace) -> int:
    """Standings quiet, then beside each abuse, on gunicorn: each abuse is measured right
    after a quiet run of its own, so the ratio is not skewed by whatever else the machine
    does meanwhile."""
    from django.conf import settings

    data_dir = tempfile.mkdtemp(prefix="gibson-bench-abuse-")
    procs: list[subprocess.Popen] = []
    rows: list[dict] = []
    try:
        setup_django(data_dir)
        slug, div = build_division(args.players, args.rounds)
        link, malformed_link, read_link = abuse_links(slug, div)
        from django.db import connection

        connection.close()
        rate = settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]["anon"]
        count, per = rate.split("/")
        per_minute = int(count) * {"s": 60, "m": 1, "h": 1 / 60, "d": 1 / 1440}[per[0]]
        max_limit = __import__("tournament.api.pagination", fromlist=["x"]).Pagination.max_limit
        env = dict(os.environ, GIBSON_DATA_DIR=data_dir, GIBSON_DEBUG="0", GIBSON_LOG_LEVEL="ERROR")
        env.pop("DATABASE_URL", None)
        env.pop("GIBSON_BEHIND_PROXY", None)
        load = Load(args.short)
        lua = Path(data_dir) / "bench.lua"
        lua.write_text(WRK_LUA, encoding="utf-8")
        abuses = {
            # name -> (kind, path, threads, per minute); the forwarded-address reads spend
            # 127.0.0.1's anonymous API budget for a minute, so they come after the games
            "self-report spam, one link": ("spam", link, ABUSE_THREADS, 0),
            # issue 31: one player's page read flat out, and reports no form accepts
            "self-entry page, one link": ("plain", read_link, ABUSE_THREADS, 0),
            "malformed self-reports, one link": ("malformed", malformed_link, ABUSE_THREADS, 0),
            "sign-in flood, made-up names": ("flood", "/accounts/login/", ABUSE_THREADS, 0),
            f"games/?limit={max_limit}, {0.95 * per_minute:.0f}/min": (
                "paced",
                f"/api/v1/tournaments/{slug}/divisions/{div}/games/?limit={max_limit}",
                ABUSE_THREADS,
                0.95 * per_minute,
            ),
            "API reads, new X-Forwarded-For": (
                "forwarded",
                f"/api/v1/tournaments/{slug}/divisions/{div}/standings/",
                ABUSE_THREADS,
                0,
            ),
            # the control row: what any client sending requests as fast as it is answered
            # costs (its own process's CPU, gunicorn's accept and parse): the floor no refusal
            # can go below
            "control: a static file, flat out": (
                "plain",
                "/static/tournament/find-name.js",
                ABUSE_THREADS,
                0,
            ),
        }
        if args.only:
            abuses = {
                name: spec
                for name, spec in abuses.items()
                if name.startswith("control") or any(o.lower() in name.lower() for o in args.only)
            }
        budget = (args.seconds + 5) * 2 * len(abuses) + 120
        writer = start_writer(env, slug, div, args.rounds, budget, abuse=True)
        procs.append(writer)
        port = free_port()
        procs.append(start_server("gunicorn", port, env, args.workers))
        base = f"http://127.0.0.1:{port}"
        standings = f"{base}/t/{slug}/{div}/standings/"
        measure(standings, min(2, args.seconds), load, lua)  # warm the cache and the workers
        for name, (kind, path, threads, per_minute_) in abuses.items():
            quiet = measure(standings, args.seconds, load, lua)
            abuser = spawn(
                [
                    sys.executable,
                    "-c",
                    ABUSER,
                    kind,
                    base,
                    path,
                    # outlasts the lead-in and the measured window
                    str(args.seconds + (0.6 if args.short else 2)),
                    str(threads),
                    str(per_minute_),
                ],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            procs.append(abuser)
            # the abuse is under way before the crowd is measured
            time.sleep(0.3 if args.short else 1)
            loud = measure(standings, args.seconds, load, lua)
            out, err = abuser.communicate(timeout=args.seconds + 120)
            if abuser.returncode != 0:
                raise SystemExit(f"the {kind} abuser failed: {err[-800:]}")
            done = json.loads(out.strip().splitlines()[-1])
            ratio = loud["rps"] / quiet["rps"] if quiet["rps"] else 0.0
            rows.append(
                {
                    "abuse": name,
                    "quiet_rps": quiet["rps"],
                    "abuse_rps": loud["rps"],
                    "ratio": ratio,
                    "clean": not (loud["other"] or loud["errors"]),
                    "quiet_p95_ms": quiet["p95_ms"],
                    "abuse_p95_ms": loud["p95_ms"],
                    "abuser_answers": done["counts"],
                    "abuser_rps": sum(done["counts"].values()) / done["seconds"],
                }
            )
    finally:
        for p in procs:
            stop(p)
        shutil.rmtree(data_dir, ignore_errors=True)

    # A machine whose cores the abuser's own process shares (2 cores) cannot keep more of the
    # crowd's rate than beside the control: within CONTROL_MARGIN of it passes too.
    control = next((r["ratio"] for r in rows if r["abuse"].startswith("control")), None)
    for r in rows:
        near_control = control is not None and r["ratio"] >= control - CONTROL_MARGIN
        r["pass"] = r.pop("clean") and (r["ratio"] >= ABUSE_RATIO or near_control)
    failed = [
        f"{r['abuse']}: {r['ratio']:.0%} of the quiet rate"
        for r in rows
        if not r["pass"] and not r["abuse"].startswith("control")
    ]
    if args.json:
        print(
            json.dumps(
                {
                    "abuse": rows,
                    "ratio": ABUSE_RATIO,
                    "margin": CONTROL_MARGIN,
                    "short": args.short,
                },
                indent=2,
            )
        )
        return exit_status(failed, short=args.short)
    print(
        f"standings of {args.players} players, {args.rounds} rounds on gunicorn ({args.workers} "
        f"workers), {CLIENTS} clients, {args.seconds:g} s each; load from "
        f"{load}; one result a second meanwhile"
    )
    print(
        f"{'abuse':<34}{'quiet r/s':>10}{'abuse r/s':>10}{'ratio':>7}{'pass':>6}"
        f"{'p95 ms':>8}   abuser's answers (status: count, req/s)"
    )
    for r in rows:
        answers = ", ".join(f"{k}: {v}" for k, v in r["abuser_answers"].items())
        print(
            f"{r['abuse']:<34}{r['quiet_rps']:>10.0f}{r['abuse_rps']:>10.0f}{r['ratio']:>7.2f}"
            f"{'yes' if r['pass'] else 'NO':>6}{r['abuse_p95_ms']:>8.0f}   {answers} "
            f"({r['abuser_rps']:.0f}/s)"
        )
    print(
        f"\ntarget: standings beside each abuse >= {ABUSE_RATIO:.0%} of the quiet figure, or "
        f"within {CONTROL_MARGIN:.2f} of the control row's ratio"
    )
    return verdict(failed, short=args.short)


# --- the run ------------------------------------------------------------------------------------


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=12.0, help="load per page and server")
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--abuse",
        action="store_true",
        help="standings quiet and beside each abuse of issue 19 (self-report spam, forwarded "
        "addresses, a sign-in flood, the biggest API page at the rate limit) and issue 31 (a "
        "self-entry page read flat out, malformed self-reports)",
    )
    parser.add_argument("--workers", type=int, default=WORKERS, help="gunicorn's workers")
    parser.add_argument(
        "--only",
        action="append",
        default=[],
        metavar="TEXT",
        help="with --abuse: only the abuses whose name holds TEXT (repeatable; the control "
        "row always runs)",
    )
    add_short(parser)
    args = parser.parse_args()
    if args.short:  # 20 players, 2 rounds, 0.4 s a page (it runs, judged by nothing), 2 workers
        args.players, args.rounds = min(args.players, 20), min(args.rounds, 2)
        args.seconds, args.workers = min(args.seconds, 0.4), min(args.workers, 2)
    if args.abuse:
        return abuse_main(args)

    data_dir = tempfile.mkdtemp(prefix="gibson-bench-web-")
    procs: list[subprocess.Popen] = []
    try:
        setup_django(data_dir)
        t0 = time.perf_counter()
        slug, div = build_division(args.players, args.rounds)
        built = time.perf_counter() - t0
        queries = query_counts(slug, div)
        from django.conf import settings

        backend = settings.CACHES["default"]["BACKEND"].rsplit(".", 1)[-1]
        env = dict(os.environ, GIBSON_DATA_DIR=data_dir, GIBSON_DEBUG="0", GIBSON_LOG_LEVEL="ERROR")
        env.pop("DATABASE_URL", None)
        load = Load(args.short)
        lua = Path(data_dir) / "bench.lua"
        lua.write_text(WRK_LUA, encoding="utf-8")
        budget = (args.seconds + 2) * 4 * 2 + 60
        writer = start_writer(env, slug, div, args.rounds, budget, abuse=False)
        procs.append(writer)
        pages = {
            # name -> (path, random player numbers?, conditional?)
            "standings": (f"/t/{slug}/{div}/standings/", 0, False),
            "player page": (f"/t/{slug}/{div}/player/", args.players, False),
            "tourney.js": (f"/t/{slug}/tourney.js", 0, False),
            "tourney.js 304": (f"/t/{slug}/tourney.js", 0, True),
        }
        results: list[dict] = []
        for kind in ("gunicorn", "runserver"):
            port = free_port()
            server = start_server(kind, port, env, args.workers)
            procs.append(server)
            for name, (path, players, conditional) in pages.items():
                url = f"http://127.0.0.1:{port}{path}"
                if load.use_wrk():
                    r = run_wrk(url, args.seconds, players, conditional, lua)
                else:
                    r = run_python_client(url, args.seconds, players, conditional)
                r.update(page=name, server=kind, rps=r["requests"] / r["seconds"])
                results.append(r)
            stop(server)
        writer_done = 0
        stop(writer)
        if writer.stdout is not None:
            lines = writer.stdout.read().split()
            writer_done = int(lines[-1]) if lines else 0
    finally:
        for p in procs:
            stop(p)
        shutil.rmtree(data_dir, ignore_errors=True)

    base = {r["page"]: r for r in results if r["server"] == "runserver"}
    failures: list[str] = []
    broken: list[str] = []
    for r in results:
        other = base.get(r["page"])
        r["ratio"] = r["rps"] / other["rps"] if other and other["rps"] else None
        target = TARGETS.get(r["page"]) if r["server"] == "gunicorn" else None
        if target:
            min_rps, max_p95 = target
            if r["rps"] < min_rps:
                failures.append(f"{r['page']}: {r['rps']:.0f} req/s < {min_rps:.0f}")
            if max_p95 is not None and r["p95_ms"] > max_p95:
                failures.append(f"{r['page']}: p95 {r['p95_ms']:.0f} ms > {max_p95:.0f} ms")
        # runserver is the baseline for the ratio: its socket errors under 32 clients are what
        # it is measured for, not a failure of the site
        if r["other"] and r["server"] == "gunicorn":
            broken.append(f"{r['page']} on gunicorn: {r['other']} answers neither 200 nor 304")
        if r["errors"] and r["server"] == "gunicorn":
            failures.append(f"{r['page']} on gunicorn: {r['errors']} socket errors or timeouts")

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
                    "writes": writer_done,
                    "cache": backend,
                },
                indent=2,
            )
        )
        return exit_status(failures, broken, short=args.short)
    print(
        f"{args.players} players, {args.rounds} rounds (built in {built:.0f} s); "
        f"{CLIENTS} clients, {args.seconds:g} s a page; gunicorn with {args.workers} workers; "
        f"cache {backend}; load from {load}; "
        f"{writer_done} results recorded meanwhile (one a second)"
    )
    print(
        f"{'page':<16}{'server':<11}{'req/s':>8}{'p50 ms':>9}{'p95 ms':>9}{'x runserver':>13}"
        f"{'200s':>8}{'304s':>8}  target (gunicorn)"
    )
    for r in results:
        ratio = f"{r['ratio']:.1f}" if r["ratio"] else "-"
        target = TARGETS.get(r["page"]) if r["server"] == "gunicorn" else None
        goal = ""
        if target:
            goal = f">= {target[0]:.0f} req/s" + (
                f", p95 <= {target[1]:.0f} ms" if target[1] is not None else ""
            )
        print(
            f"{r['page']:<16}{r['server']:<11}{r['rps']:>8.0f}{r['p50_ms']:>9.1f}"
            f"{r['p95_ms']:>9.1f}{ratio:>13}{r['s200']:>8}{r['s304']:>8}  {goal}"
        )
    print("'x runserver': req/s over the same page on runserver (one process) in this run")
    print_query_table(queries)
    print(
        "\ntargets (gunicorn): standings >= 300 req/s and p95 <= 100 ms, tourney.js 304 "
        ">= 1,000 req/s, player page >= 200 req/s"
    )
    return verdict(failures, broken, short=args.short)


if __name__ == "__main__":
    raise SystemExit(main())
