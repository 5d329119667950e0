"""Server time of the players' home (issue 36): a national list, a long rivalry, a search.

Run: python tests/benchmarks/bench_home.py [--players 30000] [--h2h-games 2000] [--json]
     python tests/benchmarks/bench_home.py --short  # 600 players, 200 games: seconds

Budget (issue 36): on a registry of 30,000 players, all on one national list (a third of them
in the country asked for), a page of the national list (first, deep, and "active in 12 months")
and the head-to-head of two players who met 2,000 times answer in <= 50 ms of server time each.
The forgiving player search ("John Smiht" finds "Smith, John") over the same 30,000 names is
measured beside them against 100 ms: the SQLite path scores its candidates in Python.

Fixture, not a user write path: players (names from 120 family and 100 given names, so one
name is shared by a few players as in a real registry), ratings, 300 rated events of 40
players over two years (the activity filter's data) and the rivals' 20 tournaments of 100
one-game rounds are bulk-created straight into a temporary SQLite database (GIBSON_DATA_DIR).
Pages are requested in-process with Django's test client (view, queries and template, no
network), each the median of several cold requests (page cache emptied before each).
Exit status 1 when a budget is missed or a page does not answer 200 (``--short``: budgets
reported, not enforced; see benchkit.py).
"""

from __future__ import annotations

import argparse
import datetime
import json
import random
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from tests.benchmarks import bench_profiles  # noqa: E402
from tests.benchmarks.benchkit import add_short, exit_status, verdict  # noqa: E402

BUDGET_MS = 50.0
SEARCH_BUDGET_MS = 100.0
BATCH = 5000
RIVAL_ROUNDS = 100  # one-game rounds per tournament of the two rivals

FAMILY = (
    "Smith Johnson Williams Brown Jones Garcia Miller Davis Rodriguez Martinez Hernandez Lopez "
    "Gonzalez Wilson Anderson Thomas Taylor Moore Jackson Martin Lee Perez Thompson White Harris "
    "Sanchez Clark Ramirez Lewis Robinson Walker Young Allen King Wright Scott Torres Nguyen Hill "
    "Flores Green Adams Nelson Baker Hall Rivera Campbell Mitchell Carter Roberts Gomez Phillips "
    "Evans Turner Diaz Parker Cruz Edwards Collins Reyes Stewart Morris Morales Murphy Cook Rogers "
    "Gutierrez Ortiz Morgan Cooper Peterson Bailey Reed Kelly Howard Ramos Kim Cox Ward Richardson "
    "Watson Brooks Chavez Wood James Bennett Gray Mendoza Ruiz Hughes Price Alvarez Castillo "
    "Sanders Patel Myers Long Ross Foster Jimenez Powell Jenkins Perry Russell Sullivan Bell "
    "Coleman Butler Henderson Barnes Gonzales Fisher Vasquez Simmons Romero Jordan Patterson "
    "Alexander Hamilton Graham Reynolds Griffin Wallace Moreno West Cole Hayes Bryant Herrera"
).split()[:120]
GIVEN = (
    "James Mary John Patricia Robert Jennifer Michael Linda William Elizabeth David Barbara "
    "Richard Susan Joseph Jessica Thomas Sarah Charles Karen Christopher Nancy Daniel Lisa "
    "Matthew Betty Anthony Margaret Mark Sandra Donald Ashley Steven Kimberly Paul Emily Andrew "
    "Donna Joshua Michelle Kenneth Dorothy Kevin Carol Brian Amanda George Melissa Edward Deborah "
    "Ronald Stephanie Timothy Rebecca Jason Sharon Jeffrey Laura Ryan Cynthia Jacob Kathleen Gary "
    "Amy Nicholas Shirley Eric Angela Jonathan Helen Stephen Anna Larry Brenda Justin Pamela Scott "
    "Nicole Brandon Emma Benjamin Samantha Samuel Katherine Gregory Christine Frank Debra "
    "Alexander Rachel Raymond Catherine Patrick Carolyn Jack Janet Dennis Ruth"
).split()[:100]


def build(players: int, h2h_games: int, seed: int = 36) -> dict:
    """The registry, the national list and the two rivals; their ids."""
    from django.db import transaction

    from ratings.models import PlayerRating, RatedEvent, RatingHistory, RatingList
    from tournament.models import Division, Entry, Game, Player, Round, Tournament
    from tournament.namesearch import stored_key

    rng = random.Random(seed)
    today = datetime.date.today()
    with transaction.atomic():
        lst = RatingList.objects.create(name="National", slug="national", system="nsa2008")
        names = [
            f"{FAMILY[i % len(FAMILY)]}, {GIVEN[(i // len(FAMILY)) % len(GIVEN)]}"
            for i in range(players)
        ]
        Player.objects.bulk_create(
            (
                Player(
                    name=n,
                    search_key=stored_key(n),  # bulk_create skips save(), which keeps it
                    country=("CAN", "USA", "GBR")[i % 3],
                )
                for i, n in enumerate(names)
            ),
            batch_size=BATCH,
        )
        ids = list(Player.objects.order_by("pk").values_list("pk", flat=True))
        rating = {p: rng.randint(600, 2100) for p in ids}
        # 300 events over two years, 40 players each: about a third of the list is active
        events = RatedEvent.objects.bulk_create(
            RatedEvent(
                rating_list=lst,
                date=today - datetime.timedelta(days=rng.randint(0, 730)),
                name=f"Event {e}",
                configured_rounds=7,
            )
            for e in range(300)
        )
        last: dict[int, datetime.date] = {}
        history = []
        for ev in events:
            for p in rng.sample(ids, min(40, len(ids))):
                history.append(
                    RatingHistory(event=ev, player_id=p, before=rating[p], after=rating[p])
                )
                last[p] = max(last.get(p, ev.date), ev.date)
        RatingHistory.objects.bulk_create(history, batch_size=BATCH)
        PlayerRating.objects.bulk_create(
            (
                PlayerRating(
                    rating_list=lst,
                    player_id=p,
                    start_rating=1500,
                    rating=rating[p],
                    career_games=100,
                    last_event_date=last.get(p),
                )
                for p in ids
            ),
            batch_size=BATCH,
        )
        a, b = ids[0], ids[1]
        for t_no in range(-(-h2h_games // RIVAL_ROUNDS)):
            rounds_here = min(RIVAL_ROUNDS, h2h_games - t_no * RIVAL_ROUNDS)
            t = Tournament.objects.create(
                name=f"Rivalry {t_no + 1}",
                slug=f"rivalry-{t_no + 1}",
                start_date=today - datetime.timedelta(days=30 * (t_no + 1)),
                published=True,
            )
            d = Division.objects.create(tournament=t, name="A", slug="a", rounds=rounds_here)
            ea = Entry.objects.create(division=d, player_id=a, number=1)
            eb = Entry.objects.create(division=d, player_id=b, number=2)
            made = Round.objects.bulk_create(
                Round(division=d, number=r) for r in range(1, rounds_here + 1)
            )
            Game.objects.bulk_create(
                (
                    Game(
                        round=r,
                        player1=ea,
                        player2=eb,
                        score1=rng.randint(300, 500),
                        score2=rng.randint(300, 500),
                    )
                    for r in made
                ),
                batch_size=BATCH,
            )
    return {"a": a, "b": b, "players": players, "h2h_games": h2h_games}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--players", type=int, default=30_000)
    parser.add_argument("--h2h-games", type=int, default=2_000)
    parser.add_argument("--json", action="store_true")
    add_short(parser)
    args = parser.parse_args()
    if args.short:
        bench_profiles.REPEAT = 3
        args.players, args.h2h_games = min(args.players, 600), min(args.h2h_games, 200)
    else:
        bench_profiles.REPEAT = 7
    with tempfile.TemporaryDirectory() as tmp:
        bench_profiles.setup_django(tmp)
        from django.test import Client

        from tournament.web.ratings import LIST_PAGE

        began = time.perf_counter()
        w = build(args.players, args.h2h_games)
        built = time.perf_counter() - began
        deep = max(2, args.players // 3 // LIST_PAGE // 2)
        pages = [
            ("national list, page 1", "/ratings/national/?country=CAN", BUDGET_MS),
            (
                f"national list, page {deep}",
                f"/ratings/national/?country=CAN&page={deep}",
                BUDGET_MS,
            ),
            ("national list, active 12 mo", "/ratings/national/?country=CAN&active=1", BUDGET_MS),
            (
                f"head-to-head, {args.h2h_games:,} games",
                f"/players/{w['a']}/vs/{w['b']}/",
                BUDGET_MS,
            ),
            ("player search 'John Smiht'", "/players/?q=John+Smiht", SEARCH_BUDGET_MS),
            ("player search 'Bob Wilson'", "/players/?q=Bob+Wilson", SEARCH_BUDGET_MS),
        ]
        client = Client()
        # the cheapest page the site builds, measured in the same run: a loaded machine slows
        # every page alike, so "x base" tells a slow page from a slow machine
        base_ms, _, base_status = bench_profiles.measure(client, "/", cold=True)
        rows = []
        for label, url, budget in pages:
            ms, queries, status = bench_profiles.measure(client, url, cold=True)
            rows.append(
                {
                    "page": label,
                    "status": status,
                    "ms": round(ms, 1),
                    "queries": queries,
                    "budget_ms": budget,
                    "ratio": round(ms / base_ms, 1) if base_ms else None,
                }
            )
    broken = [f"{r['page']}: status {r['status']}" for r in rows if r["status"] != 200]
    if base_status != 200:
        broken.append(f"baseline (home page): status {base_status}")
    missed = [
        f"{r['page']}: {r['ms']:.0f} ms > {r['budget_ms']:.0f} ms"
        for r in rows
        if r["ms"] > r["budget_ms"]
    ]
    if args.json:
        print(
            json.dumps(
                {
                    "built_s": round(built, 1),
                    **w,
                    "rows": rows,
                    "missed": missed,
                    "broken": broken,
                    "short": args.short,
                },
                indent=2,
            )
        )
        return exit_status(missed, broken, short=args.short)
    print(
        f"players' home: {args.players:,} players on the national list, a rivalry of "
        f"{args.h2h_games:,} games (built in {built:.1f} s); cold, median of "
        f"{bench_profiles.REPEAT}"
    )
    print(f"baseline: the public home page, {base_ms:.1f} ms")
    print(f"{'page':<34}{'status':>7}{'ms':>9}{'queries':>9}{'x base':>8}{'target':>8}")
    for r in rows:
        ratio = f"{r['ratio']:.1f}" if r["ratio"] is not None else "-"
        print(
            f"{r['page']:<34}{r['status']:>7}{r['ms']:>9.1f}{r['queries']:>9}{ratio:>8}"
            f"{r['budget_ms']:>8.0f}"
        )
    return verdict(missed, broken, short=args.short)


if __name__ == "__main__":
    sys.exit(main())
