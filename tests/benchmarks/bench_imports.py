"""A big import beside live result entry (issue 19): the write lock held, and who waits.

Run: python tests/benchmarks/bench_imports.py [--divisions 4 --players 500 --rounds 50] [--json]
    [--short]

An all.tsh of 4 divisions x 500 players x 50 rounds (50,000 games, 100,000 seats) is imported
twice on a fresh SQLite database, while another process records a result in another
tournament every 0.25 s (a scorekeeper at the next event), timing each:

- anchor: the whole import in one transaction, as the console's upload did (the importer's
  batches become savepoints of one outer transaction, so the lock is held throughout);
- now: ``write_import`` as it runs in an import job: batches of 200 rows, each its own
  transaction, with a breather after each quarter second of holding the lock.

For each: the longest single write transaction, the import's total time, and the result
entries' latency (median, worst) and failures ("database is locked" after the 5 s busy
timeout). Target: the longest write transaction under 250 ms, every result entered within
about a second, none failed (judged on "now"; the anchor shows what it replaced). Exit
status 1 when a target is missed or no result could be entered; ``--short`` (1 division x 30
players x 5 rounds) reports the targets without enforcing them (see benchkit.py).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from tests.benchmarks.benchkit import add_short, exit_status, spawn, stop, verdict  # noqa: E402

TARGET_LONGEST_MS = 250.0
TARGET_RESULT_S = 1.0
NIGHT_PLAYERS = 1000  # each run records into its own division of 500 unscored games


def setup_django(data_dir: str) -> None:
    os.environ["GIBSON_DATA_DIR"] = data_dir
    os.environ["GIBSON_MAX_IMPORT_PLAYER_ROUNDS"] = "1000000"
    os.environ["GIBSON_MAX_IMPORT_PLAYERS"] = "100000"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tournament.settings")
    os.environ.pop("DATABASE_URL", None)
    import django

    django.setup()


def archive(divisions: int, players: int, rounds: int) -> str:
    """``divisions`` divisions of ``players``, each round a new shuffle of pairs."""
    import random

    names = "ABCDEFGHIJ"[:divisions]
    out = ["".join(f"division {n} {n.lower()}.t\n" for n in names)]
    for index, name in enumerate(names):
        rnd = random.Random(index)
        opps = {n: [] for n in range(1, players + 1)}
        scores = {n: [] for n in range(1, players + 1)}
        for _ in range(rounds):
            order = list(range(1, players + 1))
            rnd.shuffle(order)
            for i in range(0, players - 1, 2):
                a, b = order[i], order[i + 1]
                opps[a].append(b)
                opps[b].append(a)
                scores[a].append(rnd.randint(250, 550))
                scores[b].append(rnd.randint(250, 550))
        lines = [
            f"Player{n}, {name}div {1500 + n % 500} {' '.join(map(str, opps[n]))}; "
            f"{' '.join(map(str, scores[n]))}"
            for n in range(1, players + 1)
        ]
        out.append(f"#begin_file name={name.lower()}.t\n" + "\n".join(lines) + "\n")
        out.append(f"#end_file name={name.lower()}.t\n")
    return "".join(out)


def entry_loop(data_dir: str, division_id: int, stop_path: str) -> None:
    """The other process: a result every 0.25 s until ``stop_path`` exists; prints latencies."""
    setup_django(data_dir)
    from tournament import services
    from tournament.models import Division

    division = Division.objects.get(pk=division_id)
    waits, failures = [], []
    player = 1
    while not os.path.exists(stop_path) and player < NIGHT_PLAYERS:
        started = time.monotonic()
        try:
            services.record_result(division, 1, player, 400, 350, actor="bench")
            waits.append(time.monotonic() - started)
        except Exception as exc:  # noqa: BLE001 - counted, the loop goes on
            failures.append(f"{type(exc).__name__}: {exc}"[:120])
        Path(stop_path + ".ready").touch()  # the first result is in: the import may start
        player += 2
        time.sleep(0.25)
    print(json.dumps({"waits": waits, "failures": failures}))


def run(data_dir: str, prepared, division_id: int, whole: bool) -> dict:
    from django.db import transaction

    from tournament.interchange.imports import BatchWriter, write_import

    stop_file = Path(data_dir) / f"stop-{division_id}"
    # its own process group, stopped whatever happens (benchkit): never left entering results
    entry = spawn(
        [sys.executable, __file__, "--entry-loop", data_dir, str(division_id), str(stop_file)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        # wait until its Django is up and its first result is in (a fixed sleep was too short
        # on a loaded machine: the short import ended before any result was tried)
        ready = Path(str(stop_file) + ".ready")
        deadline = time.monotonic() + 60
        while not ready.exists() and entry.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        writer = BatchWriter()
        started = time.monotonic()
        if whole:
            with transaction.atomic():  # the anchor: one transaction around the whole import
                write_import(prepared, actor="bench", writer=writer)
            longest = time.monotonic() - started
        else:
            write_import(prepared, actor="bench", writer=writer)
            longest = writer.longest
        total = time.monotonic() - started
        stop_file.touch()
        out, _ = entry.communicate(timeout=60)
    finally:
        stop(entry)
    entries = json.loads(out.strip().splitlines()[-1])
    waits = entries["waits"]
    return {
        "longest_write_ms": round(longest * 1000, 1),
        "transactions": 1 if whole else writer.batches,
        "paused_s": round(writer.paused, 1),
        "total_s": round(total, 2),
        "results_entered": len(waits),
        "results_failed": len(entries["failures"]),
        "result_median_ms": round(statistics.median(waits) * 1000, 1) if waits else None,
        "result_worst_ms": round(max(waits) * 1000, 1) if waits else None,
        "failure": (entries["failures"] or [""])[0],
    }


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "--entry-loop":
        entry_loop(sys.argv[2], int(sys.argv[3]), sys.argv[4])
        return 0
    parser = argparse.ArgumentParser()
    parser.add_argument("--divisions", type=int, default=4)
    parser.add_argument("--players", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=50)
    parser.add_argument("--json", action="store_true")
    add_short(parser)
    args = parser.parse_args()
    if args.short:
        args.divisions, args.players, args.rounds = 1, 30, 5
    with tempfile.TemporaryDirectory(prefix="bench-imports-") as data_dir:
        setup_django(data_dir)
        from django.core.management import call_command

        from tournament.interchange.imports import import_tsh, prepare_import

        call_command("migrate", interactive=False, verbosity=0)
        folder = Path(data_dir)
        night = folder / "night.t"  # paired in round 1, no scores: games to record
        night.write_text(
            "".join(
                f"Night{n}, Player 1500 {n + 1 if n % 2 else n - 1};\n"
                for n in range(1, NIGHT_PLAYERS + 1)
            )
        )
        divisions = [
            import_tsh(night, rounds=1, name=f"Night {i}").divisions.get().pk for i in (1, 2)
        ]
        big = folder / "all.tsh"
        big.write_text(archive(args.divisions, args.players, args.rounds))
        started = time.monotonic()
        prepared = prepare_import(big)
        read = time.monotonic() - started
        rows = {
            "anchor: one transaction": run(data_dir, prepared, divisions[0], whole=True),
            "now: batches": run(data_dir, prepare_import(big), divisions[1], whole=False),
        }
    size = f"{args.divisions} divisions x {args.players} players x {args.rounds} rounds"
    now = rows["now: batches"]
    broken = [
        f"{label}: no result entered beside the import"
        for label, row in rows.items()
        if not row["results_entered"] and not row["results_failed"]
    ]
    missed = []
    if now["longest_write_ms"] > TARGET_LONGEST_MS:
        missed.append(
            f"longest write {now['longest_write_ms']:.0f} ms > {TARGET_LONGEST_MS:.0f} ms"
        )
    if (now["result_worst_ms"] or 0) > TARGET_RESULT_S * 1000:
        missed.append(f"worst result {now['result_worst_ms']:.0f} ms > {TARGET_RESULT_S:.0f} s")
    if now["results_failed"]:
        missed.append(f"{now['results_failed']} results failed: {now['failure']}")
    if args.json:
        body = {"size": size, "read_s": round(read, 2), "rows": rows, "short": args.short}
        print(json.dumps(body, indent=2))
        return exit_status(missed, broken, short=args.short)
    print(f"import of {size} (all.tsh read and checked in {read:.2f} s, outside any transaction)")
    print(
        f"{'':26} {'longest write':>14} {'txns':>6} {'total':>8} {'results':>8} "
        f"{'failed':>7} {'median':>9} {'worst':>9}"
    )
    for label, row in rows.items():
        print(
            f"{label:26} {row['longest_write_ms']:>11.1f} ms {row['transactions']:>6} "
            f"{row['total_s']:>6.1f} s {row['results_entered']:>8} {row['results_failed']:>7} "
            f"{row['result_median_ms'] or 0:>6.1f} ms {row['result_worst_ms'] or 0:>6.1f} ms"
        )
        if row["paused_s"]:
            print(f"{'':26} of which breathers between transactions: {row['paused_s']:.1f} s")
        if row["failure"]:
            print(f"{'':26} first failure: {row['failure']}")
    print(
        f"target: longest write under {TARGET_LONGEST_MS:.0f} ms, every result within "
        f"{TARGET_RESULT_S:.0f} s, none failed (judged on now: batches)"
    )
    return verdict(missed, broken, short=args.short)


if __name__ == "__main__":
    sys.exit(main())
