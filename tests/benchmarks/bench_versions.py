"""What a new page version costs: CPU ms of the pages every result recomputes, beside the code
before issue 40 ("A new page version costs milliseconds"), in the same run.

Run: python tests/benchmarks/bench_versions.py [--players 500] [--rounds 12] [--before REV]
        [--json] [--short]

Every result recorded is a new version of the event's pages, so each page is built again,
cold, once per result: the standings (with the prize chances: their win matrix was over half
of a cold standings page), a player's page and the live feed, tourney.js. Each is requested
through Django's test client (the view, the queries and the template, no network) with the
cache emptied before each request, and timed in CPU ms of the process (``time.process_time``:
what the machine's other work leaves alone; SQLite runs in the process, so its queries
count; a full garbage collection before each request, so that none falls inside one by
chance), median of 5 (2 in ``--short``); the prize-chances win matrix of a 2,000-player field is
timed alone too (its cache emptied). The "new result" rows are the same pages after one score
of the last round changed (a new version as a result makes it): the pages' caches emptied,
what depends only on the ratings or on the unchanged rounds (the win matrix, the estimates of
earlier rounds) kept from the version before, as a running server keeps them.

The baseline is the same measurement on the code as it was (``--before``, by default the
commit before issue 40's changes), exported with ``git archive`` into a temporary folder and
run in a child process of its own beside a child on this checkout, each on a fresh SQLite
database in a temporary GIBSON_DATA_DIR with the same division (bench_web.build_division: a
published division, every round scored but the last, which is half scored, so the chances
show). Without git, or when the commit is not in this clone, only this checkout is measured
and the table says so. The ratio is after / before. Targets: tourney.js at <= 0.5x of before
(it reads each division once), the win matrix at <= 0.1x, the standings and player pages,
which show the prize chances, at <= 0.9x (the simulation itself is the rest of them). Exit
status 1 when a target is missed (not with ``--short``: 40 players, 3 rounds, 2 repeats, the
matrix at 300 players; see benchkit.py) or a child could not measure.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

# the commit before issue 40's changes: the code every "before" column is measured on
BEFORE = "103be22"
# row -> the largest after/before ratio met
TARGETS = {
    "standings, cold": 0.9,
    "player page, cold": 0.9,
    "tourney.js, cold": 0.5,
    "all three, one version": 0.6,
    "win matrix": 0.1,
    "standings, new result": 0.9,
    "player page, new result": 0.9,
    "tourney.js, new result": 0.5,
    "all three, new result": 0.6,
}


# --------------------------------------------------------------------------- child: one tree


def measure(tree: Path, players: int, rounds: int, repeat: int, matrix_players: int) -> dict:
    """The CPU ms (median of ``repeat``) and queries of each cold page, on the code in ``tree``
    (which must come first on sys.path before anything of Gibson's is imported)."""
    sys.path.insert(0, str(tree))
    data_dir = tempfile.mkdtemp(prefix="gibson-bench-versions-")
    try:
        from tests.benchmarks.bench_web import build_division, setup_django

        setup_django(data_dir)
        import tournament

        loaded_from = Path(tournament.__file__).resolve().parents[1]
        if loaded_from != tree.resolve():
            raise SystemExit(f"measured {loaded_from}, not {tree}: the editable install won")
        slug, div = build_division(players, rounds)
        urls = {
            "standings, cold": f"/t/{slug}/{div}/standings/",
            "player page, cold": f"/t/{slug}/{div}/player/17/",
            "tourney.js, cold": f"/t/{slug}/tourney.js",
        }
        rows = {name: _cold_page(url, repeat) for name, url in urls.items()}
        rows["all three, one version"] = _cold_version(list(urls.values()), repeat)
        rows["win matrix"] = _matrix(matrix_players, repeat)
        # a new version as a result makes it: one score of the last round changed before each
        # request, the pages' caches emptied, what depends on the ratings alone (or on the
        # earlier rounds' games) kept from the version before
        result = _result_changer(slug, div, rounds)
        for name, url in urls.items():
            rows[name.replace("cold", "new result")] = _cold_page(url, repeat, result)
        rows["all three, new result"] = _cold_version(list(urls.values()), repeat, result)
        return {"tree": str(tree), "rows": rows}
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)


def _forget(new_result: Callable[[], None] | None = None) -> None:
    """Every cache a new version starts without: the pages', and the win matrices and segment
    ratings kept; and a full garbage collection, so that none falls inside the timed request
    by chance (one costs about 100 ms of CPU at this heap, more than most of what is
    measured). ``new_result``: a new version made by a result instead (see
    ``_result_changer``): what depends only on the ratings or on unchanged rounds is kept."""
    import gc

    from django.core.cache import cache

    from ratings.engine import elo, systems

    try:  # the page caches (in the web face before the concept grid moved them)
        from tournament import cache as caching
    except ImportError:
        from tournament.web import caching

    if new_result is not None:
        new_result()
    cache.clear()
    caching.reset_failures()  # also this process's copies of cached pages
    if new_result is None:
        kept = getattr(systems, "_expectancy_matrix", None)  # absent before issue 40
        if kept is not None:
            kept.cache_clear()
        forget_segments = getattr(elo, "clear_segment_memo", None)  # absent before issue 58
        if forget_segments is not None:
            forget_segments()
    gc.collect()


def _result_changer(slug: str, div: str, rounds: int) -> Callable[[], None]:
    """A function that changes one recorded score of the last round (by one point, up then
    down, so the standings barely move), as entering a result does to the pages' input."""
    from django.db.models import F

    from tournament.models import Game

    game = (
        Game.objects.filter(
            round__division__tournament__slug=slug,
            round__division__slug=div,
            round__number=rounds,
            score1__isnull=False,
            player2__isnull=False,
        )
        .order_by("pk")
        .first()
    )
    if game is None:
        raise SystemExit("no scored game in the last round to change")
    step = [1]

    def change() -> None:
        Game.objects.filter(pk=game.pk).update(score1=F("score1") + step[0])
        step[0] = -step[0]

    return change


def _cold_page(url: str, repeat: int, new_result: Callable[[], None] | None = None) -> dict:
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    client = Client()
    cpu: list[float] = []
    queries = 0
    for _ in range(repeat):
        _forget(new_result)
        with CaptureQueriesContext(connection) as ctx:
            began = time.process_time()
            response = client.get(url)
            cpu.append((time.process_time() - began) * 1000)
        if response.status_code != 200:
            raise SystemExit(f"{url} answered {response.status_code}")
        queries = len(ctx.captured_queries)
    return {"ms": statistics.median(cpu), "queries": queries}


def _cold_version(
    urls: list[str], repeat: int, new_result: Callable[[], None] | None = None
) -> dict:
    """The pages one after another with the cache emptied once before the first: what a new
    version costs when each page of it is asked for once (they share what the first computed:
    the division's rows, its standings and chances), rather than each page alone."""
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    client = Client()
    cpu: list[float] = []
    queries = 0
    for _ in range(repeat):
        _forget(new_result)
        with CaptureQueriesContext(connection) as ctx:
            began = time.process_time()
            for url in urls:
                if client.get(url).status_code != 200:
                    raise SystemExit(f"{url} did not answer 200")
            cpu.append((time.process_time() - began) * 1000)
        queries = len(ctx.captured_queries)
    return {"ms": statistics.median(cpu), "queries": queries}


def _matrix(players: int, repeat: int) -> dict:
    import random

    from ratings.engine.systems import expectancy_matrix

    rng = random.Random(players)
    ratings = [0 if rng.random() < 0.1 else rng.randint(400, 2300) for _ in range(players)]
    cpu = []
    for _ in range(repeat):
        _forget()
        began = time.process_time()
        expectancy_matrix("nsa2008", ratings)
        cpu.append((time.process_time() - began) * 1000)
    return {"ms": statistics.median(cpu), "queries": 0, "players": players}


# --------------------------------------------------------------------------- parent


def old_tree(rev: str, into: Path) -> tuple[Path | None, str]:
    """``rev`` exported into ``into`` (git archive), or None and why not."""
    if shutil.which("git") is None:
        return None, "git is not installed"
    archive = subprocess.run(
        ["git", "-C", str(REPO), "archive", "--format=tar", rev],
        capture_output=True,
        timeout=120,
    )
    if archive.returncode != 0:
        return None, f"git archive {rev}: {archive.stderr.decode(errors='replace').strip()}"
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True, timeout=120)
    return into, ""


def run_child(tree: Path, args: argparse.Namespace, sizes: dict) -> dict:
    """One tree measured in a process of its own (modules of two trees never mix)."""
    from tests.benchmarks.benchkit import spawn, stop

    argv = [
        sys.executable,
        str(Path(__file__).resolve()),
        "--measure",
        str(tree),
        "--players",
        str(sizes["players"]),
        "--rounds",
        str(sizes["rounds"]),
        "--repeat",
        str(sizes["repeat"]),
        "--matrix-players",
        str(sizes["matrix_players"]),
    ]
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "GIBSON_TESTING")}
    env["PYTHONPATH"] = str(tree)  # before the editable install's path
    proc = spawn(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        out, err = proc.communicate(timeout=1800)
    finally:
        stop(proc)
    if proc.returncode != 0:
        raise RuntimeError(f"{tree}: exited {proc.returncode}\n{err[-2000:]}")
    return json.loads(out.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=12)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--matrix-players", type=int, default=2000)
    parser.add_argument("--before", default=BEFORE, help=f"the baseline commit ({BEFORE})")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--measure", help=argparse.SUPPRESS)  # the child's side
    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))
    from tests.benchmarks.benchkit import add_short, exit_status, verdict

    add_short(parser)
    args = parser.parse_args()
    if args.measure:
        tree = Path(args.measure)
        result = measure(tree, args.players, args.rounds, args.repeat, args.matrix_players)
        print(json.dumps(result))
        return 0
    sizes = {
        "players": 40 if args.short else args.players,
        "rounds": 3 if args.short else args.rounds,
        "repeat": 2 if args.short else args.repeat,
        "matrix_players": 300 if args.short else args.matrix_players,
    }
    broken: list[str] = []
    missed: list[str] = []
    folder = Path(tempfile.mkdtemp(prefix="gibson-bench-before-"))
    try:
        after = run_child(REPO, args, sizes)["rows"]
        tree, why_not = old_tree(args.before, folder)
        before = run_child(tree, args, sizes)["rows"] if tree else None
    except (RuntimeError, subprocess.SubprocessError, json.JSONDecodeError) as exc:
        print(f"BROKEN: {exc}")
        return exit_status([], [str(exc)], short=args.short)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    table = []
    for name, row in after.items():
        old = before[name] if before else None
        ratio = row["ms"] / old["ms"] if old and old["ms"] else None
        target = TARGETS[name]
        if ratio is not None and ratio > target:
            missed.append(f"{name}: {ratio:.2f}x of before (target <= {target}x)")
        table.append(
            {
                "what": name,
                "before_ms": old["ms"] if old else None,
                "after_ms": row["ms"],
                "ratio": ratio,
                "target": target,
                "before_queries": old["queries"] if old else None,
                "after_queries": row["queries"],
            }
        )
    if args.json:
        print(json.dumps({"sizes": sizes, "before": args.before, "rows": table}, indent=2))
        return exit_status(missed, broken, short=args.short)
    print(
        f"a new page version, cold: {sizes['players']} players, {sizes['rounds']} rounds "
        f"(the last half scored), CPU ms median of {sizes['repeat']}; the win matrix of "
        f"{sizes['matrix_players']} players alone"
    )
    if before is None:
        print(f"before ({args.before}): not measured, {why_not}")
    print(
        f"  {'what':<24}{'before ms':>11}{'after ms':>10}{'ratio':>8}{'target':>8}"
        f"{'queries before/after':>22}"
    )
    for row in table:
        b = f"{row['before_ms']:.1f}" if row["before_ms"] is not None else "-"
        r = f"{row['ratio']:.2f}x" if row["ratio"] is not None else "-"
        q = f"{row['before_queries'] if row['before_queries'] is not None else '-'}"
        print(
            f"  {row['what']:<24}{b:>11}{row['after_ms']:>10.1f}{r:>8}{row['target']:>7}x"
            f"{q + ' / ' + str(row['after_queries']):>22}"
        )
    return verdict(missed, broken, short=args.short)


if __name__ == "__main__":
    sys.exit(main())
