"""Server time and query count of a big club's season ladder and public pages.

Run: python tests/benchmarks/bench_clubs.py [--members 200] [--years 10] [--json] [--keep DIR]
     python tests/benchmarks/bench_clubs.py --short  # 40 members, 2 years: seconds

Budget (Clubs issue): a club with 200 members and 10 years of weekly nights (about 520
nights of 3-4 games, about 50,000 games) with a season a year: a season's ladder recomputed
from its games in <= 1 s, the public club page (/clubs/SLUG/) and a season page
(/clubs/SLUG/seasons/N/) in <= 150 ms of server time each, cold (the page cache emptied
before each request, so the ladder and records are computed) as well as warm.

The club is a benchmark fixture, not a user write path: it is founded through the services
(so it has its rating list), then its members, nights (a published one-division tournament
each, closed), entries, rounds and games are bulk-created straight into the tables of a
temporary SQLite database (GIBSON_DATA_DIR), with random scores. Pages are requested
in-process with Django's test client (the view, the queries and the template, without the
network); each row is the median of several requests, and each page's query count is
compared with the same page of a 20-member club of one year (it must not grow). Baselines
measured in the same run: the bare query of a season's games (what the ladder reads) and an
existing tournament page (one night's public standings, cold); the ratio column compares
each row with its baseline.
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

LADDER_BUDGET_MS = 1000.0
PAGE_BUDGET_MS = 150.0
REPEAT = 7
BATCH = 5000
PRESET_CYCLE = ["two-one", "margin-bonus", "best-ten", "attendance", "wins"]


def setup_django(data_dir: str) -> None:
    os.environ["GIBSON_DATA_DIR"] = data_dir
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tournament.settings")
    os.environ.pop("DATABASE_URL", None)
    import django

    django.setup()
    migrate()


def build(members: int, years: int, seed: int = 7, slug: str = "bench") -> dict:
    """The club: members, weekly nights up to today (closed, 3 or 4 games, 45-65 players or
    every member of a smaller club, random draw: the engine is not what is measured), a season
    per calendar year."""
    from django.db import transaction
    from django.utils import timezone

    from ratings.models import PlayerRating
    from tournament.clubs import services as cs
    from tournament.clubs.ladder import PRESETS
    from tournament.clubs.models import Night, Season
    from tournament.models import Division, Entry, Game, Membership, Player, Round, Tournament
    from tournament.namesearch import stored_key

    rng = random.Random(seed)
    today = timezone.localdate()
    weeks = 52 * years
    first = today - datetime.timedelta(weeks=weeks - 1)
    with transaction.atomic():
        club = cs.create_club(
            name=f"Bench Club {slug}", slug=slug, actor="bench", meets="Tuesdays 7pm, the library"
        )
        made = Player.objects.bulk_create(
            (
                Player(
                    name=f"Member{i:03d}, Given {slug}",
                    search_key=stored_key(f"Member{i:03d}, Given {slug}"),
                )
                for i in range(members)
            ),
            batch_size=BATCH,
        )
        # this club's own members (a second club is built into the same database)
        ids = sorted(
            Player.objects.filter(name__in=[p.name for p in made]).values_list("pk", flat=True)
        )
        Membership.objects.bulk_create(
            Membership(club=club, player_id=p, since=first, guest=i >= members - 10)
            for i, p in enumerate(ids)
        )
        PlayerRating.objects.bulk_create(
            PlayerRating(
                rating_list=club.rating_list,
                player_id=p,
                start_rating=1000,
                rating=rng.randint(600, 1900),
                career_games=rng.randint(10, 900),
                last_event_date=today,
            )
            for p in ids
        )
        dates = [first + datetime.timedelta(weeks=w) for w in range(weeks)]
        tournaments = Tournament.objects.bulk_create(
            Tournament(
                name=f"{club.name} club night {d}",
                slug=f"{slug}-{d}",
                start_date=d,
                end_date=d,
                published=True,
                late_entry="none",
                gibson=False,
            )
            for d in dates
        )
        divisions = Division.objects.bulk_create(
            Division(tournament=t, name="Club", slug="club", rounds=4) for t in tournaments
        )
        closed = timezone.now()
        plan = []  # per night: (players, games)
        for _ in dates:
            plan.append((rng.sample(ids, min(len(ids), rng.randint(45, 65))), rng.choice([3, 4])))
        Night.objects.bulk_create(
            Night(club=club, tournament=t, date=d, games=g, draw="random,koth", closed_at=closed)
            for t, d, (_, g) in zip(tournaments, dates, plan, strict=True)
        )
        Entry.objects.bulk_create(
            (
                Entry(division=dv, player_id=p, number=i + 1, seed_rating=1000)
                for dv, (field, _) in zip(divisions, plan, strict=True)
                for i, p in enumerate(field)
            ),
            batch_size=BATCH,
        )
        entry_of = {
            (dv, p): pk for pk, dv, p in Entry.objects.values_list("pk", "division_id", "player_id")
        }
        Round.objects.bulk_create(
            (
                Round(division=dv, number=r)
                for dv, (_, g) in zip(divisions, plan, strict=True)
                for r in range(1, g + 1)
            ),
            batch_size=BATCH,
        )
        round_of = {
            (dv, n): pk for pk, dv, n in Round.objects.values_list("pk", "division_id", "number")
        }
        games = []
        for dv, (field, g) in zip(divisions, plan, strict=True):
            for r in range(1, g + 1):
                order = rng.sample(field, len(field))
                rid = round_of[(dv.pk, r)]
                for i in range(0, len(order) - 1, 2):
                    a, b = entry_of[(dv.pk, order[i])], entry_of[(dv.pk, order[i + 1])]
                    games.append(
                        Game(
                            round_id=rid,
                            board=i // 2 + 1,
                            player1_id=a,
                            player2_id=b,
                            score1=rng.randint(250, 560),
                            score2=rng.randint(250, 560),
                        )
                    )
                if len(order) % 2:
                    games.append(
                        Game(round_id=rid, player1_id=entry_of[(dv.pk, order[-1])], score1=50)
                    )
        Game.objects.bulk_create(games, batch_size=BATCH)
        # what close_night keeps with each night: its part of the club records
        from tournament.clubs.services import night_record_summary

        nights = list(Night.objects.filter(club=club).select_related("tournament"))
        by_tournament = {dv.tournament_id: dv for dv in divisions}
        for night in nights:
            night.summary = night_record_summary(by_tournament[night.tournament_id])
        Night.objects.bulk_update(nights, ["summary"], batch_size=BATCH)
        seasons = []
        for k, year in enumerate(range(first.year, today.year + 1)):
            preset = PRESET_CYCLE[k % len(PRESET_CYCLE)]
            seasons.append(
                Season(
                    club=club,
                    name=str(year),
                    preset=preset,
                    start_date=datetime.date(year, 1, 1),
                    end_date=datetime.date(year, 12, 31),
                    rule=PRESETS[preset][1].as_dict(),
                )
            )
        Season.objects.bulk_create(seasons)
    last_full = Season.objects.get(club=club, name=str(today.year - 1))
    current = Season.objects.get(club=club, name=str(today.year))
    return {
        "club": slug,
        "members": members,
        "nights": len(dates),
        "games": len(games),
        "last_full_season": last_full.pk,
        "current_season": current.pk,
        "night": tournaments[-1].slug,
    }


def _clear_cache() -> None:
    from django.core.cache import cache

    from tournament import cache as caching

    cache.clear()
    caching.reset_failures()


def timed(call, *, cold: bool = False) -> tuple[float, int, object]:
    """Median milliseconds and query count of ``call()`` (its last result too)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    times = []
    queries = 0
    result = None
    for _ in range(REPEAT):
        if cold:
            _clear_cache()
        with CaptureQueriesContext(connection) as ctx:
            began = time.perf_counter()
            result = call()
            times.append((time.perf_counter() - began) * 1000)
        queries = len(ctx.captured_queries)
    return statistics.median(times), queries, result


def page(client, url: str, *, cold: bool) -> tuple[float, int, int]:
    def get():
        response = client.get(url)
        if getattr(response, "streaming", False):
            b"".join(response.streaming_content)
        return response.status_code

    if not cold:
        get()  # fill the cache once
    ms, q, status = timed(get, cold=cold)
    return ms, q, status


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--members", type=int, default=200)
    parser.add_argument("--years", type=int, default=10)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--keep", metavar="DIR", help="build once into DIR and reuse it")
    add_short(parser)
    args = parser.parse_args()
    if args.short:
        global REPEAT
        REPEAT = 3
        args.members, args.years = min(args.members, 40), min(args.years, 2)
    with tempfile.TemporaryDirectory() as tmp:
        data_dir = args.keep or tmp
        setup_django(data_dir)
        from django.test import Client
        from django.urls import NoReverseMatch, reverse

        from tournament.clubs import selectors
        from tournament.clubs.models import Season

        began = time.perf_counter()
        marker = Path(data_dir) / "bench_clubs.json"
        if args.keep and marker.exists():
            w = json.loads(marker.read_text())
        else:
            w = build(args.members, args.years)
            w["small"] = build(20, 1, slug="small")
            marker.write_text(json.dumps(w))
        built = time.perf_counter() - began
        client = Client()
        rows: list[dict] = []

        def add(label, ms, q, budget, base=None, status=200, note=""):
            rows.append(
                {
                    "what": label,
                    "status": status,
                    "ms": round(ms, 1),
                    "queries": q,
                    "budget_ms": budget,
                    "ratio": round(ms / base, 1) if base else None,
                    "ok": status == 200 and (budget is None or ms <= budget),
                    "note": note,
                }
            )

        full = Season.objects.get(pk=w["last_full_season"])
        current = Season.objects.get(pk=w["current_season"])
        everything = Season(
            club_id=full.club_id,
            name="all years",
            rule=full.rule,
            start_date=datetime.date(1900, 1, 1),
            end_date=datetime.date(2999, 12, 31),
        )
        # baseline: the games a season's ladder reads, fetched bare
        raw_ms, raw_q, nights = timed(lambda: selectors.season_nights(full))
        games = sum(len(n.games) for n in nights)
        add(f"baseline: a year's games fetched ({games})", raw_ms, raw_q, None)
        for label, season in (
            (f"ladder, season {full.name} ({full.preset})", full),
            (f"ladder, season {current.name} ({current.preset})", current),
        ):
            ms, q, ladder = timed(lambda s=season: selectors.season_ladder(s))
            add(label, ms, q, LADDER_BUDGET_MS, raw_ms, note=f"{len(ladder)} rows")
        ms, q, ladder = timed(lambda: selectors.season_ladder(everything))
        add(
            f"ladder, all {w['nights']} nights (no budget)",
            ms,
            q,
            None,
            raw_ms,
            note=f"{len(ladder)} rows",
        )
        ms, q, awards = timed(lambda: selectors.season_awards(full))
        add("season awards (archiving)", ms, q, LADDER_BUDGET_MS, raw_ms)

        base_ms, base_q, base_status = page(client, f"/t/{w['night']}/club/standings/", cold=True)
        add("baseline: a night's standings, cold", base_ms, base_q, None, status=base_status)
        try:
            urls = {
                "club page": reverse("clubs:club", args=[w["club"]]),
                "season page (current)": reverse("clubs:season", args=[w["club"], current.pk]),
                "season page (last year)": reverse("clubs:season", args=[w["club"], full.pk]),
                "seasons list": reverse("clubs:season_list", args=[w["club"]]),
            }
        except NoReverseMatch:
            urls = {}
        small = w["small"]
        small_urls = {
            "club page": f"/clubs/{small['club']}/",
            "season page (current)": f"/clubs/{small['club']}/seasons/{small['current_season']}/",
            "season page (last year)": f"/clubs/{small['club']}/seasons/"
            f"{small['last_full_season']}/",
            "seasons list": f"/clubs/{small['club']}/seasons/",
        }
        for label, url in urls.items():
            for cold in (True, False):
                ms, q, status = page(client, url, cold=cold)
                add(
                    f"{label}, {'cold' if cold else 'warm'}",
                    ms,
                    q,
                    PAGE_BUDGET_MS,
                    base_ms,
                    status=status,
                )
                # the same page of a 20-member club of one year must cost as many queries
                _, q_small, _ = page(client, small_urls[label], cold=cold)
                rows[-1]["queries_small"] = q_small
                rows[-1]["ok"] = rows[-1]["ok"] and q_small == q
    broken = [f"{r['what']}: status {r['status']}" for r in rows if r["status"] != 200]
    if not urls:
        broken.append("the public club pages are missing (no clubs:club / clubs:season URL)")
    missed = [
        f"{r['what']}: {r['ms']:.0f} ms > {r['budget_ms']:.0f} ms"
        for r in rows
        if r["budget_ms"] is not None and r["ms"] > r["budget_ms"]
    ] + [
        f"{r['what']}: {r['queries']} queries, {r['queries_small']} for the small club"
        for r in rows
        if "queries_small" in r and r["queries_small"] != r["queries"]
    ]
    if args.json:
        print(
            json.dumps(
                {
                    "built_s": round(built, 1),
                    **w,
                    "pages_found": bool(urls),
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
        f"club: {w['members']} members, {w['nights']} weekly nights, {w['games']} games "
        f"(built in {built:.1f} s); ratio = ms / its baseline; medians of {REPEAT}; cold = page "
        "cache emptied before each request"
    )
    print(
        f"{'what':<44}{'status':>7}{'ms':>9}{'budget':>8}{'queries':>9}{'q@small':>8}{'ratio':>7}"
        "  ok  note"
    )
    for r in rows:
        ratio = f"{r['ratio']:.1f}" if r["ratio"] is not None else ""
        budget = f"{r['budget_ms']:.0f}" if r["budget_ms"] is not None else "-"
        print(
            f"{r['what']:<44}{r['status']:>7}{r['ms']:>9.1f}{budget:>8}{r['queries']:>9}"
            f"{r.get('queries_small', ''):>8}{ratio:>7}  {'yes' if r['ok'] else 'NO ':<3}"
            f" {r['note']}"
        )
    print(
        f"targets (Clubs issue, 200 members, 10 years): a season's ladder <= "
        f"{LADDER_BUDGET_MS:.0f} ms, the club and season pages <= {PAGE_BUDGET_MS:.0f} ms cold "
        "and warm, with as many queries as a 20-member club's of one year"
    )
    return verdict(missed, broken, short=args.short)


if __name__ == "__main__":
    sys.exit(main())
