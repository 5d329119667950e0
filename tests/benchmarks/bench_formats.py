"""Speed of the TSH readers/writers and of standings, on the real 109-player division.

Run: python tests/benchmarks/bench_formats.py [--json] [--short]

Baselines measured in the same run: ``str.split`` of every line (the least any .t reader can do)
for the .t reader and writer, ``json.loads``/``json.dumps`` of the same data for tourney.js, and
one pass that sums each player's spread for standings. Each row gives the median of several
repetitions and its ratio to its baseline.

tourney.js is JavaScript, not JSON: the feed writes TSH's unquoted ``undefined`` for every
missing value, so ``parse_tourney_js`` reads our own feed with its JavaScript-data parser, and
a strict-JSON feed (what most of TSH's files are) with the C JSON reader; both are timed, the
JSON baseline being ``json.loads`` of the same data written as strict JSON (``None`` as null).

Targets: none set by an issue (the file says so when it runs); the ratio to the baseline is
the figure to compare between runs and machines. Exit status 0 unless it crashes; ``--short``
takes 3 repetitions a row instead of 15.
"""

from __future__ import annotations

import argparse
import datetime
import json
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from tournament.formats import (  # noqa: E402
    build_tourney_js,
    parse_t,
    parse_tourney_js,
    standings_input,
    write_t,
    write_tou,
    write_tourney_js,
)
from tournament.standings import compute_standings  # noqa: E402

DATA = REPO / "fixtures" / "tsh" / "naspa-2006-b.t"


REPEAT = 15


def median_seconds(fn, repeat: int | None = None) -> float:
    repeat = REPEAT if repeat is None else repeat
    fn()  # warm up
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> int:
    global REPEAT
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--short", action="store_true", help="3 repetitions a row")
    args = parser.parse_args()
    if args.short:
        REPEAT = 3
    text = DATA.read_text(encoding="utf-8")
    players = parse_t(text)
    js_data = build_tourney_js({"event_name": "bench"}, [("B", players)])
    js_text = write_tourney_js(js_data)  # TSH's form: every None an unquoted undefined
    # the same data as strict JSON (None as null): json.loads' baseline, and the feed a
    # reader takes through the C parser
    json_text = json.dumps(js_data, ensure_ascii=False)
    strict_js = "newt=" + json_text + ";\n"
    assert "undefined" in js_text and parse_tourney_js(js_text) == json.loads(json_text)
    entrants, rounds = standings_input(players)

    def split_lines():
        return [line.split() for line in text.splitlines()]

    def naive_spread():
        totals = {}
        for r in rounds:
            if r.score is not None and r.opponent_score is not None:
                totals[r.player] = totals.get(r.player, 0) + r.score - r.opponent_score
        return totals

    rows = [
        ("parse_t (109 players, 14 rounds)", lambda: parse_t(text), "split", split_lines),
        ("write_t", lambda: write_t(players), "split", split_lines),
        (
            "parse_tourney_js, our feed (undefined)",
            lambda: parse_tourney_js(js_text),
            "json.loads",
            lambda: json.loads(json_text),
        ),
        (
            "parse_tourney_js, strict JSON feed",
            lambda: parse_tourney_js(strict_js),
            "json.loads",
            lambda: json.loads(json_text),
        ),
        (
            "write_tourney_js",
            lambda: write_tourney_js(js_data),
            "json.dumps",
            lambda: json.dumps(js_data),
        ),
        (
            "write_tou",
            lambda: write_tou("bench", datetime.date(2006, 3, 1), [("B", players)]),
            "split",
            split_lines,
        ),
        (
            "compute_standings (after round 14)",
            lambda: compute_standings(entrants, rounds),
            "sum spreads",
            naive_spread,
        ),
        (
            "compute_standings x14 (every round)",
            lambda: [compute_standings(entrants, rounds, after_round=r) for r in range(1, 15)],
            "sum spreads",
            naive_spread,
        ),
    ]
    baselines: dict[str, float] = {}
    results = []
    for name, fn, base_name, base_fn in rows:
        if base_name not in baselines:
            baselines[base_name] = median_seconds(base_fn)
        seconds = median_seconds(fn)
        results.append(
            {
                "case": name,
                "median_ms": round(seconds * 1000, 3),
                "baseline": base_name,
                "baseline_ms": round(baselines[base_name] * 1000, 3),
                "ratio": round(seconds / baselines[base_name], 1),
            }
        )
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    print(f"{'case':<40} {'median ms':>10} {'baseline':>12} {'base ms':>8} {'ratio':>7}")
    for r in results:
        print(
            f"{r['case']:<40} {r['median_ms']:>10.3f} {r['baseline']:>12} "
            f"{r['baseline_ms']:>8.3f} {r['ratio']:>6.1f}x"
        )
    print(
        f"medians of {REPEAT} runs; targets: none set by an issue (compare the ratio column "
        "between runs: it cancels most of the machine's speed)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
