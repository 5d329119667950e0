"""What each pass of .ci/run ran, skipped and left out, and the checks that nothing is lost.

    python .ci/passes.py SQLITE.json POSTGRES.json DESELECTED.txt

Reads each test's outcome in the SQLite and the PostgreSQL pass (the suite writes them where
GIBSON_OUTCOMES says, tests/conftest.py) and the list of tests the
PostgreSQL pass deselected (GIBSON_DESELECTED_LIST: they never open a database). Prints, per
pass, the tests executed, passed, failed and skipped, and every skip reason with its tests;
then checks, exiting 1 with the names when one fails:

- the SQLite pass executed at least FLOOR tests (the suite before it ran in parallel: 4,361
  collected, 4,358 executed), so no restructuring drops tests unnoticed;
- every test the PostgreSQL pass deselected was executed (not skipped) in the SQLite pass;
- every test the PostgreSQL pass skipped, it skipped for a reason of the known kinds below,
  or skipped on SQLite too for the same reason (what this machine lacks, on both).
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

# Executed (passed or failed, not skipped) in the SQLite pass of the last serial run, on
# 2026-11-29, before the suite ran in parallel (CI's setting, REDIS_URL set): a lower count
# means tests were lost.
FLOOR = 4358
# Why a test may skip in the PostgreSQL pass: browser tests ran in the SQLite pass
# (GIBSON_BROWSER_TESTS=0), benchmarks build their own SQLite databases, and tests of
# SQLite's own behaviour (WAL, the file on disk) have nothing to test on PostgreSQL.
POSTGRES_SKIP_WORDS = ("GIBSON_BROWSER_TESTS=0", "SQLite", "sqlite", "benchmarks")


def read(path: Path) -> dict[str, tuple[str, str]]:
    """test id -> (outcome, skip reason), as the suite wrote them (GIBSON_OUTCOMES)."""
    return {node: tuple(value) for node, value in json.loads(path.read_text("utf-8")).items()}


def summary(label: str, results: dict[str, tuple[str, str]]) -> None:
    outcomes = Counter(outcome for outcome, _ in results.values())
    executed = outcomes["passed"] + outcomes["failed"]
    print(
        f"ci: {label}: {executed} executed ({outcomes['passed']} passed, "
        f"{outcomes['failed']} failed), {outcomes['skipped']} skipped"
    )
    reasons = Counter(reason for outcome, reason in results.values() if outcome == "skipped")
    for reason, count in reasons.most_common():
        print(f"ci:   skipped {count:4d} x {reason[:150]}")
        for node in sorted(n for n, (o, r) in results.items() if o == "skipped" and r == reason):
            print(f"ci:       {node}")


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    sqlite, postgres = read(Path(argv[0])), read(Path(argv[1]))
    deselected = [n for n in Path(argv[2]).read_text(encoding="utf-8").split("\n") if n]
    summary("SQLite pass", sqlite)
    summary("PostgreSQL pass", postgres)
    print(
        f"ci: PostgreSQL pass: {len(deselected)} tests deselected (no database; executed in the "
        f"SQLite pass), listed in {argv[2]}"
    )
    problems: list[str] = []
    executed = sum(1 for outcome, _ in sqlite.values() if outcome != "skipped")
    if executed < FLOOR:
        problems.append(f"the SQLite pass executed {executed} tests, fewer than {FLOOR}")
    for node in deselected:
        outcome = sqlite.get(node, ("missing", ""))[0]
        if outcome not in ("passed", "failed"):
            problems.append(f"deselected on PostgreSQL but {outcome} on SQLite: {node}")
    for node, (outcome, reason) in postgres.items():
        if outcome != "skipped" or sqlite.get(node) == (outcome, reason):
            continue
        if not any(w in reason for w in POSTGRES_SKIP_WORDS):
            problems.append(f"skipped on PostgreSQL for an unknown reason: {node}: {reason}")
    for problem in problems[:50]:
        print(f"ci: FAIL {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
