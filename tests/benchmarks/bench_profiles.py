"""Server time and query count of the public rating list, profile and head-to-head pages.

Run: python tests/benchmarks/bench_profiles.py [--players 30000] [--games 1000000] [--json]
     python tests/benchmarks/bench_profiles.py --short  # 300 players, 30-event history: seconds

Budget (Players online issue): on a rating list of 30,000 players with 1,000,000 rated games,
a list page, a profile (first page of events) and a head-to-head answer in <= 100 ms of
server time each, with a query count independent of the length of a player's history (a
player with 10 events and one with 500 are measured in the same run and must use as many
queries); the SVG chart of a 2,000-event history is drawn in <= 50 ms.

The list is a benchmark fixture, not a user write path: players, ratings, events (40 players,
10 rounds, 200 games each) and rating history are bulk-created straight into the tables of a
temporary SQLite database (GIBSON_DATA_DIR), with ratings from a random walk rather than the
engine. The events of the measured players also get their tournament, division, entries,
rounds and games, so the profile's records and per-event W-L and the head-to-head read real
game rows. Pages are requested in-process with Django's test client (the view, the queries
and the template, without the network); each row is the median of several requests, cold (the
page cache and this process's copies emptied before each request, so the page is computed) and
warm (served from the cache), each against the budget. The baseline, measured in the same run,
is the public home page (the cheapest page the site builds); "x base" is cold ms over it.
Exit status 1 when a budget is missed or a page does not answer 200 (``--short``: budgets
reported, not enforced; see benchkit.py).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from tests.benchmarks.benchkit import add_short, exit_status, migrate, verdict  # noqa: E402

PAGE_BUDGET_MS = 100.0
CHART_BUDGET_MS = 50.0
REPEAT = 7
EVENT_PLAYERS = 40
EVENT_ROUNDS = 10
BATCH = 5000


def setup_django(data_dir: str) -> None:
    os.environ["GIBSON_DATA_DIR"] = data_dir
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tournament.settings")
    os.environ.pop("DATABASE_URL", None)
    import django

    django.setup()
    migrate()


def build(players: int, games: int, seed: int = 11, big_events: int = 500) -> dict:
    """The list, and the ids of the measured players: big (``big_events`` events, 500) with a
    rival met in a fifth of them, small (10 events) with a rival met in 5."""
    from django.db import transaction

    from ratings.models import PlayerRating, RatedEvent, RatingHistory, RatingList
    from tournament.models import Division, Entry, Game, Player, Round, Tournament
    from tournament.namesearch import stored_key

    rng = random.Random(seed)
    per_event = EVENT_PLAYERS * EVENT_ROUNDS // 2
    n_events = max(games // per_event, big_events + 20)
    with transaction.atomic():
        lst = RatingList.objects.create(name="Bench List", slug="bench", system="nsa2008")
        Player.objects.bulk_create(
            (
                Player(
                    name=f"Surname{i:05d}, Given",
                    # bulk_create skips save(), which keeps the key the searches read
                    search_key=stored_key(f"Surname{i:05d}, Given"),
                    country=("CAN", "USA", "GBR")[i % 3],
                    email=f"p{i}@example.org",
                )
                for i in range(players)
            ),
            batch_size=BATCH,
        )
        ids = list(Player.objects.order_by("pk").values_list("pk", flat=True))
        big, rival, small, small_rival = ids[:4]
        others = ids[4:]
        # who plays in which event
        fields: list[list[int]] = [rng.sample(others, EVENT_PLAYERS) for _ in range(n_events)]
        big_picked = rng.sample(range(n_events), big_events)
        for k, e in enumerate(big_picked):
            fields[e][0] = big
            if k < big_events // 5:
                fields[e][1] = rival
        rest = [e for e in range(n_events) if e not in set(big_picked)]
        small_events = rng.sample(rest, 10)
        for k, e in enumerate(small_events):
            fields[e][0] = small
            if k < 5:
                fields[e][1] = small_rival
        start = datetime.date(2005, 1, 1)
        dates = sorted(
            start + datetime.timedelta(days=rng.randrange(20 * 365)) for _ in range(n_events)
        )
        rating = {p: rng.randint(600, 2100) for p in ids}
        career = dict.fromkeys(ids, 0)
        last_date: dict[int, datetime.date] = {}
        events = []
        history: list[tuple[int, int, int, int]] = []  # event index, player, before, after
        for e, field in enumerate(fields):
            gl = []
            for r in range(1, EVENT_ROUNDS + 1):
                order = field[:] if r == 1 else rng.sample(field, len(field))
                for i in range(0, len(order), 2):
                    a, b = order[i], order[i + 1]
                    gl.append([r, a, b, rng.randint(250, 550), rng.randint(250, 550)])
            events.append(
                RatedEvent(
                    rating_list=lst,
                    date=dates[e],
                    name=f"Event {e:05d}",
                    configured_rounds=EVENT_ROUNDS,
                    games=gl,
                )
            )
            for p in field:
                before = rating[p]
                rating[p] = max(300, min(2300, before + rng.randint(-40, 40)))
                career[p] += EVENT_ROUNDS
                last_date[p] = dates[e]
                history.append((e, p, before, rating[p]))
        RatedEvent.objects.bulk_create(events, batch_size=500)
        event_ids = list(RatedEvent.objects.order_by("pk").values_list("pk", flat=True))
        RatingHistory.objects.bulk_create(
            (
                RatingHistory(
                    event_id=event_ids[e], player_id=p, before=b, after=a, games=EVENT_ROUNDS
                )
                for e, p, b, a in history
            ),
            batch_size=BATCH,
        )
        PlayerRating.objects.bulk_create(
            (
                PlayerRating(
                    rating_list=lst,
                    player_id=p,
                    start_rating=1500,
                    rating=rating[p],
                    career_games=career[p],
                    last_event_date=last_date.get(p),
                )
                for p in ids
            ),
            batch_size=BATCH,
        )
        # tournaments behind the measured players' events
        for e in big_picked + small_events:
            ev = events[e]
            t = Tournament.objects.create(
                name=ev.name, slug=f"t-{e}", start_date=ev.date, published=True
            )
            d = Division.objects.create(tournament=t, name="A", slug="a", rounds=EVENT_ROUNDS)
            entries = Entry.objects.bulk_create(
                Entry(division=d, player_id=p, number=i + 1, seed_rating=h_before)
                for i, (p, h_before) in enumerate(
                    (p, b)
                    for ee, p, b, _a in history[e * EVENT_PLAYERS : (e + 1) * EVENT_PLAYERS]
                    if ee == e
                )
            )
            entry_of = {en.player_id: en.pk for en in entries}
            rounds = Round.objects.bulk_create(
                Round(division=d, number=r) for r in range(1, EVENT_ROUNDS + 1)
            )
            round_of = {r.number: r.pk for r in rounds}
            Game.objects.bulk_create(
                Game(
                    round_id=round_of[r],
                    player1_id=entry_of[a],
                    player2_id=entry_of[b],
                    score1=sa,
                    score2=sb,
                )
                for r, a, b, sa, sb in ev.games
            )
            RatedEvent.objects.filter(pk=event_ids[e]).update(division=d)
    return {
        "list": "bench",
        "big": big,
        "rival": rival,
        "small": small,
        "small_rival": small_rival,
        "events": n_events,
        "games": n_events * per_event,
        "big_events": big_events,
    }


def _empty_cache() -> None:
    from django.core.cache import cache

    from tournament import cache as caching

    cache.clear()
    caching.reset_failures()  # this process's copies of cached pages too


def measure(client, url: str, *, cold: bool) -> tuple[float, int, int]:
    """Median milliseconds, query count and status of GET url: ``cold`` empties the page
    cache before each request, warm fills it once first."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    def get():
        response = client.get(url)
        if getattr(response, "streaming", False):
            b"".join(response.streaming_content)
        return response

    if not cold:
        get()
    times = []
    queries = status = 0
    for _ in range(REPEAT):
        if cold:
            _empty_cache()
        with CaptureQueriesContext(connection) as ctx:
            began = time.perf_counter()
            response = get()
            times.append((time.perf_counter() - began) * 1000)
        queries = len(ctx.captured_queries)
        status = response.status_code
    return statistics.median(times), queries, status


def chart_ms(events: int = 2000) -> float:
    from ratings.chart import rating_chart

    rng = random.Random(3)
    day = datetime.date(2000, 1, 1)
    pts, r = [], 1500
    for i in range(events):
        r += rng.randint(-30, 30)
        pts.append((day + datetime.timedelta(days=4 * i), r))
    times = []
    for _ in range(REPEAT):
        began = time.perf_counter()
        rating_chart([("Bench List", pts)], title="Rating history")
        times.append((time.perf_counter() - began) * 1000)
    return statistics.median(times)


def main() -> int:
    global REPEAT
    parser = argparse.ArgumentParser()
    parser.add_argument("--players", type=int, default=30_000)
    parser.add_argument("--games", type=int, default=1_000_000)
    parser.add_argument("--big-events", type=int, default=500, help="the long history")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--keep", metavar="DIR", help="build once into DIR and reuse it")
    add_short(parser)
    args = parser.parse_args()
    if args.short:
        REPEAT = 3
        args.players, args.games = min(args.players, 300), min(args.games, 2000)
        args.big_events = min(args.big_events, 30)
    with tempfile.TemporaryDirectory() as tmp:
        data_dir = args.keep or tmp
        setup_django(data_dir)
        from django.test import Client

        from tournament.web.ratings import EVENTS_PAGE, LIST_PAGE

        client = Client()
        began = time.perf_counter()
        marker = Path(data_dir) / "bench_profiles.json"
        if args.keep and marker.exists():
            w = json.loads(marker.read_text())
        else:
            w = build(args.players, args.games, big_events=args.big_events)
            marker.write_text(json.dumps(w))
        built = time.perf_counter() - began
        # a page from the middle of the list (150 of 300 at 30,000 players) and a late page of
        # the long history (20 of 25 at 500 events), never page 1 again
        mid = max(2, args.players // LIST_PAGE // 2)
        late = min(20, max(2, -(-w.get("big_events", 500) // EVENTS_PAGE)))
        pages = {
            "list, page 1": ("/ratings/bench/", None),
            f"list, page {mid}": (f"/ratings/bench/?page={mid}", None),
            "list, name search": ("/ratings/bench/?q=surname01", None),
            "list, country+class": ("/ratings/bench/?country=CAN&class=A", None),
            "profile (first page)": (f"/players/{w['big']}/", f"/players/{w['small']}/"),
            f"profile, page {late}": (f"/players/{w['big']}/?page={late}", None),
            "head-to-head": (
                f"/players/{w['big']}/vs/{w['rival']}/",
                f"/players/{w['small']}/vs/{w['small_rival']}/",
            ),
            "player search": ("/players/?q=surname0042", None),
        }
        base_ms, base_q, base_status = measure(client, "/", cold=True)
        rows = []
        for label, (url, small_url) in pages.items():
            cold_ms, cold_q, status = measure(client, url, cold=True)
            warm_ms, warm_q, warm_status = measure(client, url, cold=False)
            row = {
                "page": label,
                "status": status if status != 200 else warm_status,
                "cold_ms": round(cold_ms, 1),
                "cold_queries": cold_q,
                "warm_ms": round(warm_ms, 1),
                "warm_queries": warm_q,
                "budget_ms": PAGE_BUDGET_MS,
                "ratio": round(cold_ms / base_ms, 1) if base_ms else None,
            }
            if small_url:
                _, q_small, _ = measure(client, small_url, cold=True)
                row["queries_10_events"] = q_small
            rows.append(row)
        ms_csv, q_csv, status_csv = measure(
            client, "/ratings/bench/ratings.csv?country=USA", cold=True
        )
        rows.append(
            {
                "page": f"CSV, {args.players // 3:,} rows (no budget)",
                "status": status_csv,
                "cold_ms": round(ms_csv, 1),
                "cold_queries": q_csv,
                "budget_ms": None,
                "ratio": round(ms_csv / base_ms, 1) if base_ms else None,
            }
        )
        c_ms = chart_ms()
        rows.append(
            {
                "page": "SVG chart, 2,000 events",
                "status": 200,
                "cold_ms": round(c_ms, 1),
                "cold_queries": 0,
                "budget_ms": CHART_BUDGET_MS,
                "ratio": round(c_ms / base_ms, 1) if base_ms else None,
            }
        )
    broken = [f"{r['page']}: status {r['status']}" for r in rows if r["status"] != 200]
    if base_status != 200:
        broken.append(f"baseline (home page): status {base_status}")
    missed = []
    for r in rows:
        for state in ("cold", "warm"):
            ms = r.get(f"{state}_ms")
            if r["budget_ms"] is not None and ms is not None and ms > r["budget_ms"]:
                missed.append(f"{r['page']}, {state}: {ms:.0f} ms > {r['budget_ms']:.0f} ms")
        if "queries_10_events" in r and r["queries_10_events"] != r["cold_queries"]:
            missed.append(
                f"{r['page']}: {r['cold_queries']} queries at {w.get('big_events', 500)} events, "
                f"{r['queries_10_events']} at 10"
            )
    if args.json:
        print(
            json.dumps(
                {
                    "built_s": round(built, 1),
                    **w,
                    "baseline_ms": base_ms,
                    "rows": rows,
                    "missed": missed,
                    "broken": broken,
                    "short": args.short,
                },
                indent=2,
            )
        )
        return exit_status(missed, broken, short=args.short)
    big_events = w.get("big_events", 500)
    print(
        f"rating pages: {args.players} players, {w['events']} events, {w['games']} rated "
        f"games (built in {built:.1f} s); baseline public home page {base_ms:.1f} ms, "
        f"{base_q} queries"
    )
    print(
        f"{'page':<30}{'status':>7}{'cold ms':>9}{'cold q':>7}{'warm ms':>9}{'warm q':>7}"
        f"{'x base':>8}{'budget':>8}{'q@10':>6}"
    )
    for r in rows:
        warm_ms = f"{r['warm_ms']:.1f}" if "warm_ms" in r else "-"
        warm_q = r.get("warm_queries", "-")
        ratio = f"{r['ratio']:.1f}" if r["ratio"] is not None else "-"
        budget = f"{r['budget_ms']:.0f}" if r["budget_ms"] is not None else "-"
        print(
            f"{r['page']:<30}{r['status']:>7}{r['cold_ms']:>9.1f}{r['cold_queries']:>7}"
            f"{warm_ms:>9}{warm_q:>7}{ratio:>8}{budget:>8}{r.get('queries_10_events', ''):>6}"
        )
    print(
        f"medians of {REPEAT}; cold = page cache emptied before each request; x base = cold ms "
        "over the home page's"
    )
    print(
        f"targets (Players online issue, 30,000 players and 1,000,000 games): every page <= "
        f"{PAGE_BUDGET_MS:.0f} ms cold and warm, the chart <= {CHART_BUDGET_MS:.0f} ms, profile "
        f"and head-to-head queries of a {big_events}-event history equal to a 10-event one's"
    )
    return verdict(missed, broken, short=args.short)


if __name__ == "__main__":
    sys.exit(main())
