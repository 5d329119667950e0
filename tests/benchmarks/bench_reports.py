"""Speed of the PDF reports at the size of a big event.

Run: python tests/benchmarks/bench_reports.py [--json] [--short]

Budgets (from the Reports issue): 500 scorecards at 2 per page (250 pages, each card with its
QR code) in 5 s; a 500-player standings PDF in 1 s. The baseline, measured in the same run, is
a one-page reportlab document with a single line of text: the fixed cost of any PDF at all.
Each row gives the median of several repetitions and its ratio to that baseline. Exit status 1
when a budget is exceeded, so CI can run it as a check. ``--short``: 50 players, one timed run
a case, the budgets scaled to a tenth and reported, not enforced.
"""

from __future__ import annotations

import argparse
import datetime
import io
import json
import random
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from reportlab.pdfgen.canvas import Canvas  # noqa: E402

from tournament.reports import (  # noqa: E402
    CardRound,
    PairingLine,
    ReportEvent,
    Scorecard,
    StandingLine,
    WallChartGame,
    WallChartPlayer,
    pairings_pdf,
    scorecards_pdf,
    standings_pdf,
    wallchart_pdf,
)

PLAYERS = 500
ROUNDS = 12
PLAYED = 6

SURNAMES = [
    "Smylie",
    "Sokol",
    "Sinke",
    "Fagen",
    "Panitch",
    "Cornelis",
    "Goldstein",
    "Li",
    "Sykes",
    "Fatsis",
    "Hergott",
    "Kalus",
    "Ozorio",
    "Miransky",
    "Keras",
    "Wolfeschlegelsteinhausenbergerdorff",
    "Popadynec",
    "Kadanka",
    "Kramer",
    "Łukasz",
]
GIVEN = [
    "Jackson",
    "Joshua",
    "Arie",
    "Michael",
    "Max",
    "Lou",
    "Eric",
    "Jason",
    "Christopher",
    "Chloe",
    "Deen",
    "Noah",
    "Steve",
    "Anna",
    "Lydia",
    "Hubert Blaine",
    "Andre",
    "Marcela",
]


def make_field(seed: int = 7):
    """A 500-player division with random (but valid) pairings and scores for PLAYED rounds."""
    rng = random.Random(seed)
    names = [f"{rng.choice(SURNAMES)}, {rng.choice(GIVEN)}" for _ in range(PLAYERS)]
    ratings = [rng.randint(600, 2100) for _ in range(PLAYERS)]
    games = {n: {} for n in range(1, PLAYERS + 1)}  # player -> round -> (opp, own, theirs)
    for r in range(1, ROUNDS + 1):
        order = list(range(1, PLAYERS + 1))
        rng.shuffle(order)
        for board, i in enumerate(range(0, PLAYERS, 2), start=1):
            a, b = order[i], order[i + 1]
            sa, sb = rng.randint(250, 600), rng.randint(250, 600)
            played = r <= PLAYED
            games[a][r] = (b, sa if played else None, sb if played else None, board, True)
            games[b][r] = (a, sb if played else None, sa if played else None, board, False)
    return names, ratings, games


def make_cards(names, ratings, games):
    cards = []
    for n in range(1, PLAYERS + 1):
        rounds = [
            CardRound(r, first, board, opp, names[opp - 1], ratings[opp - 1], own, theirs)
            for r, (opp, own, theirs, board, first) in games[n].items()
            if r <= PLAYED + 1
        ]
        cards.append(
            Scorecard(
                n,
                names[n - 1],
                ratings[n - 1],
                ROUNDS,
                rounds,
                career_games=1000 + n,
                url=f"https://gibson.example.org/e/bench-open/A/p/{n}",
            )
        )
    return cards


def make_standings(names, ratings, games):
    rows = []
    for n in range(1, PLAYERS + 1):
        wins = losses = 0.0
        spread = 0
        for r in range(1, PLAYED + 1):
            _, own, theirs, _, _ = games[n][r]
            spread += own - theirs
            wins += (own > theirs) + 0.5 * (own == theirs)
            losses += (own < theirs) + 0.5 * (own == theirs)
        rows.append((wins, losses, spread, n))
    rows.sort(key=lambda t: (-t[0], t[1], -t[2], t[3]))
    return [
        StandingLine(
            i + 1,
            n,
            names[n - 1],
            w,
            lo,
            s,
            ratings[n - 1],
            ratings[n - 1] + s // 40,
            "A" if ratings[n - 1] >= 1600 else "B",
        )
        for i, (w, lo, s, n) in enumerate(rows)
    ]


def make_pairings(names, games, r):
    lines = []
    for n in range(1, PLAYERS + 1):
        opp, _, _, board, first = games[n][r]
        if first:
            lines.append(PairingLine(board, n, names[n - 1], opp, names[opp - 1]))
    return lines


def make_wallchart(names, ratings, games):
    return [
        WallChartPlayer(
            n,
            names[n - 1],
            ratings[n - 1],
            [
                WallChartGame(r, opp, own, theirs)
                for r, (opp, own, theirs, _, _) in games[n].items()
                if r <= PLAYED
            ],
        )
        for n in range(1, PLAYERS + 1)
    ]


def median_seconds(fn, repeat: int) -> float:
    fn()  # warm up (font registration happens once per process)
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def blank_pdf() -> bytes:
    buf = io.BytesIO()
    c = Canvas(buf)
    c.drawString(72, 720, "baseline")
    c.showPage()
    c.save()
    return buf.getvalue()


def main() -> int:
    global PLAYERS
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--short", action="store_true", help="50 players, one run a case, budgets not enforced"
    )
    args = parser.parse_args()
    as_json = args.json
    runs = 1 if args.short else None  # None: each case's own repetitions
    if args.short:
        PLAYERS = 50
    scale = PLAYERS / 500  # the budgets are for 500 players; pages grow with the field
    event = ReportEvent("Bench Open", venue="Somewhere", dates="1-3 May 2026", paper="letter")
    names, ratings, games = make_field()
    cards = make_cards(names, ratings, games)
    standings = make_standings(names, ratings, games)
    pairings = make_pairings(names, games, PLAYED + 1)
    wall = make_wallchart(names, ratings, games)

    baseline = median_seconds(blank_pdf, 21)
    n = PLAYERS
    cases = [
        (
            f"{n} scorecards, 2 per page ({n // 2} pages)",
            lambda: scorecards_pdf(event, "A", cards),
            5,
            5.0 * scale,
        ),
        (
            f"{n} scorecards, 4 per page ({n // 4} pages)",
            lambda: scorecards_pdf(event, "A", cards, per_page=4),
            5,
            None,
        ),
        (f"{n}-player standings", lambda: standings_pdf(event, "A", PLAYED, standings), 9, scale),
        (
            f"{n}-player pairings (board + alphabetical)",
            lambda: pairings_pdf(event, "A", PLAYED + 1, pairings),
            7,
            None,
        ),
        (
            f"{n}-player wall chart, {ROUNDS} rounds",
            lambda: wallchart_pdf(event, "A", wall, ROUNDS),
            5,
            None,
        ),
    ]
    results = []
    for name, fn, repeat, budget in cases:
        median = median_seconds(fn, runs or repeat)
        size = len(fn())
        results.append(
            {
                "case": name,
                "median_s": round(median, 4),
                "budget_s": budget,
                "within_budget": budget is None or median <= budget,
                "ratio_to_baseline": round(median / baseline, 1),
                "pdf_bytes": size,
            }
        )
    failed = [r["case"] for r in results if not r["within_budget"]]
    if as_json:
        print(
            json.dumps(
                {
                    "benchmark": "reports",
                    "when": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
                    "python": sys.version.split()[0],
                    "baseline": {"case": "1-page reportlab PDF", "median_s": baseline},
                    "results": results,
                    "short": args.short,
                },
                indent=2,
            )
        )
        return 1 if failed and not args.short else 0
    else:
        print(f"baseline (1-page reportlab PDF): median {baseline * 1000:.2f} ms")
        print(f"{'case':<44} {'median':>9} {'budget':>7} {'x baseline':>11} {'size':>9}  ok")
        for r in results:
            budget = f"{r['budget_s']:.1f} s" if r["budget_s"] is not None else "-"
            print(
                f"{r['case']:<44} {r['median_s']:>7.3f} s {budget:>7} "
                f"{r['ratio_to_baseline']:>11.0f} {r['pdf_bytes'] // 1024:>6} KB  "
                f"{'yes' if r['within_budget'] else 'OVER'}"
            )
        print(
            "targets (Reports issue, 500 players): 500 scorecards at 2 a page <= 5 s, standings "
            "<= 1 s" + (f"; scaled x{scale:g} for {PLAYERS} players" if scale != 1 else "")
        )
        if failed and args.short:
            print("(--short: sizes too small to judge; budgets reported, not enforced)")
    return 1 if failed and not args.short else 0


if __name__ == "__main__":
    sys.exit(main())
