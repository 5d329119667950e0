"""The public rating list, player search, profile and head-to-head pages on a small world."""

from __future__ import annotations

import csv
import io
import math
import re
import xml.etree.ElementTree as ET

import pytest
from django.urls import reverse

from ratings.engine.elo import NSA_SLOPE
from ratings.models import PlayerRating, RatingHistory
from ratings.selectors import performance_rating
from tournament.models import Player

from .conftest import FORMULA, SCRIPT

pytestmark = pytest.mark.django_db


def text(response) -> str:
    return response.content.decode()


def rated(lst, player) -> int:
    return PlayerRating.objects.get(rating_list=lst, player=player).rating


# --- rating lists ------------------------------------------------------------------------------


def test_every_list_is_listed(client, world):
    page = text(client.get("/ratings/"))
    assert "Club List" in page and "Perf List" in page
    assert reverse("ratings:list", args=["club"]) in page


def test_list_shows_rank_rating_games_last_event_and_change(client, world):
    r = client.get("/ratings/club/")
    assert r.status_code == 200
    rows = PlayerRating.objects.filter(rating_list=world.club, rating__gt=0).order_by("-rating")
    page = text(r)
    for pr in rows:
        assert f">{pr.rating}<" in page
    ann = PlayerRating.objects.get(rating_list=world.club, player=world.ann)
    last = RatingHistory.objects.get(player=world.ann, event__name__contains="Summer")
    assert ann.rating == last.after
    row = re.search(rf'<tr><td class="num">(\d+)</td><td><a href="/players/{world.ann.pk}/">', page)
    higher = rows.filter(rating__gt=ann.rating).count()
    assert row and int(row.group(1)) == higher + 1
    assert "Spring Open - A" not in page or "Summer Open - A" in page
    change = last.after - last.before
    assert f"{change:+d}" in page
    # nsa2008 has no deviation column
    assert "±" not in page


def test_ties_share_a_rank(client, world):
    PlayerRating.objects.filter(rating_list=world.club).update(rating=1500)
    page = text(client.get("/ratings/club/"))
    ranks = re.findall(r'<tr><td class="num">(\d+)</td>', page)
    assert ranks and set(ranks) == {"1"}


def test_glicko_list_shows_deviation(client, world):
    world.club.system = "glicko2"
    world.club.save(update_fields=["system"])
    PlayerRating.objects.filter(rating_list=world.club).update(deviation=61.4)
    page = text(client.get("/ratings/club/"))
    assert "±61" in page
    got = client.get("/ratings/club/ratings.csv")
    body = b"".join(got.streaming_content).decode()
    assert "deviation" in body.splitlines()[0] and ",61," in body


def test_search_by_name(client, world):
    page = text(client.get("/ratings/club/", {"q": "ann al"}))
    assert "Ann Alpha" in page and "Bob Beta" not in page


@pytest.mark.parametrize(
    "params, present, absent",
    [
        ({"club": "alpha"}, ["Ann Alpha", "HYPERLINK"], ["Bob Beta", "Cat Gamma"]),
        ({"country": "usa"}, ["Bob Beta", "Cat Gamma"], ["Ann Alpha"]),
        # class of the last entry: Ann's is B (Future Cup), Dan's B (Spring), Bob's C (Summer)
        ({"class": "B"}, ["Ann Alpha", "HYPERLINK"], ["Bob Beta", "Cat Gamma"]),
        ({"class": "c"}, ["Bob Beta"], ["Ann Alpha", "Cat Gamma"]),
        ({"country": "CAN", "class": "B", "q": "ann"}, ["Ann Alpha"], ["HYPERLINK", "Bob"]),
    ],
)
def test_filters(client, world, params, present, absent):
    r = client.get("/ratings/club/", params)
    assert r.status_code == 200
    page = text(r).split("<table>", 1)[1]
    for name in present:
        assert name in page
    for name in absent:
        assert name not in page


def test_filter_matching_nobody_says_so(client, world):
    page = text(client.get("/ratings/club/", {"q": "zzz"}))
    assert "No player on this list matches" in page


@pytest.fixture
def big_list(world):
    """250 extra rated players on list club: three pages."""
    players = Player.objects.bulk_create(Player(name=f"Filler {i:03d}") for i in range(250))
    PlayerRating.objects.bulk_create(
        PlayerRating(rating_list=world.club, player=p, rating=1000 + i, start_rating=1000 + i)
        for i, p in enumerate(players)
    )
    return world


def test_pagination_100_a_page_ranks_carry_on(client, big_list):
    total = PlayerRating.objects.filter(rating_list=big_list.club, rating__gt=0).count()
    pages = math.ceil(total / 100)
    assert pages == 3
    first = text(client.get("/ratings/club/"))
    assert len(re.findall(r'<tr><td class="num">', first)) == 100
    assert f"page 1 of {pages}" in first and "page=2" in first
    last = text(client.get("/ratings/club/", {"page": str(pages)}))
    ranks = [int(x) for x in re.findall(r'<tr><td class="num">(\d+)</td>', last)]
    assert len(ranks) == total - 200 and ranks[-1] == total  # distinct ratings at the bottom
    assert ranks[0] == 201
    # filters survive paging
    page2 = text(client.get("/ratings/club/", {"q": "filler", "page": "2"}))
    assert "q=filler&amp;page=" in page2


@pytest.mark.parametrize(
    "query",
    [
        {"page": "0"},
        {"page": "-1"},
        {"page": "abc"},
        {"page": "99"},
        {"page": "1e3"},
        {"page": "²"},
        {"page": "9" * 40},
        {"q": "x" * 101},
        {"q": "a\x00b"},
        {"country": "\x1b[31m"},
        {"club": "nosuch"},
        {"class": "a\rb"},
    ],
)
def test_bad_query_strings_are_400_with_a_message(client, world, query):
    for url in ("/ratings/club/", "/ratings/club/ratings.csv"):
        if url.endswith(".csv") and "page" in query:
            continue
        r = client.get(url, query)
        assert r.status_code == 400, (url, query)
        assert "That did not work" in text(r)


def test_unknown_list_is_404_with_a_message(client, world):
    for url in ("/ratings/nosuch/", "/ratings/nosuch/ratings.csv"):
        r = client.get(url)
        assert r.status_code == 404
        assert "no rating list &#x27;nosuch&#x27;" in text(r) and "club, perf" in text(r)


def test_post_is_refused_cleanly(client, world):
    assert client.post("/ratings/club/").status_code == 405
    assert client.post(f"/players/{world.ann.pk}/").status_code == 405


# --- CSV ---------------------------------------------------------------------------------------


def csv_rows(client, params=None) -> list[list[str]]:
    r = client.get("/ratings/club/ratings.csv", params or {})
    assert r.status_code == 200 and r["Content-Type"].startswith("text/csv")
    assert "attachment" in r["Content-Disposition"]
    return list(csv.reader(io.StringIO(b"".join(r.streaming_content).decode())))


def test_csv_is_the_whole_filtered_list_with_formulas_neutralised(client, big_list):
    rows = csv_rows(client)
    assert rows[0][:4] == ["rank", "name", "country", "rating"]
    total = PlayerRating.objects.filter(rating_list=big_list.club, rating__gt=0).count()
    assert len(rows) - 1 == total  # every page, not just the first 100
    by_name = {r[1]: r for r in rows[1:]}
    assert "'" + FORMULA in by_name and FORMULA not in by_name
    dan = by_name["'" + FORMULA]
    assert dan[3] == str(rated(big_list.club, big_list.dan))
    # numbers stay numbers: a negative change is written -N, not '-N
    changes = [r[-1] for r in rows[1:] if r[-1]]
    assert changes and all(re.fullmatch(r"-?\d+", c) for c in changes)
    assert any(c.startswith("-") for c in changes)
    filtered = csv_rows(client, {"club": "alpha"})
    assert sorted(r[1] for r in filtered[1:]) == sorted(["Ann Alpha", "'" + FORMULA])


@pytest.mark.parametrize("start", ["=", "+", "-", "@", "\t", "\r"])
def test_csv_cell_rule(start):
    from tournament.web.ratings import csv_cell

    assert csv_cell(start + "1+2") == "'" + start + "1+2"
    assert csv_cell("Ann") == "Ann"
    assert csv_cell(-12) == -12 and csv_cell(1500) == 1500 and csv_cell(None) == ""


# --- players -----------------------------------------------------------------------------------


def test_player_search_in_header_and_results(client, world):
    home = text(client.get("/"))
    assert 'action="/players/"' in home and 'name="q"' in home
    page = text(client.get("/players/", {"q": "beta"}))
    assert f'href="/players/{world.bob.pk}/"' in page and "Ann Alpha" not in page
    # a player seen only in a draft tournament is not findable
    hidden = Player.objects.create(name="Hidden Draftee")
    from tournament.models import Entry

    Entry.objects.create(division=world.draft.divisions.get(), player=hidden, number=3)
    assert "Hidden Draftee" not in text(client.get("/players/", {"q": "draftee"}))
    assert client.get(f"/players/{hidden.pk}/").status_code == 404
    # the head-to-head finder links pairs
    vs = text(client.get("/players/", {"q": "bob", "vs": str(world.ann.pk)}))
    assert f"/players/{world.ann.pk}/vs/{world.bob.pk}/" in vs


@pytest.mark.parametrize("q", [{"q": "a\x00"}, {"q": "x" * 500}, {"vs": "abc"}, {"vs": "999999"}])
def test_player_search_bad_input(client, world, q):
    assert client.get("/players/", q).status_code == 400


def test_profile_ratings_rank_events_and_records(client, world):
    r = client.get(f"/players/{world.ann.pk}/")
    assert r.status_code == 200
    page = text(r)
    ann = PlayerRating.objects.get(rating_list=world.club, player=world.ann)
    assert f">{ann.rating}<" in page
    rank = PlayerRating.objects.filter(rating_list=world.club, rating__gt=ann.rating).count() + 1
    assert re.search(
        rf'Club List</a></td>\s*<td class="num">{ann.rating}</td>\s*<td class="num">{rank}</td>',
        page,
    )
    # events, newest first, with division, record and spread from the division's games
    events = page[page.index("<h2>Events</h2>") :]
    assert events.index("Summer Open") < events.index("Spring Open") < events.index("Old Club")
    # Spring: W 450-300, L 390-420, W 512-301 -> 2-1, spread +150-30+211 = +331
    spring = page[page.index("Spring Open - A") :]
    assert "division A" in spring[:300]
    assert re.search(r'<td class="num">2-1</td>\s*<td class="num wide">\+331</td>', spring)
    # Summer: W 410-400 and a bye (+50): 2-0, +60
    summer = page[page.index("Summer Open - A") :]
    assert re.search(r'<td class="num">2-0</td>\s*<td class="num wide">\+60</td>', summer)
    # Old Club Night (list only): W 400-350, L 380-420 -> 1-1, +10
    old = page[page.index("Old Club Night") :]
    assert re.search(r'<td class="num">1-1</td>\s*<td class="num wide">\+10</td>', old)
    # records: published games only (the draft's 999 is not a record)
    assert "High game</dt><dd>512</dd>" in page
    games = [450, 390, 512, 410]  # Spring and Summer; the bye is not a game played
    assert f"Average score</dt><dd>{sum(games) / 4:.1f}</dd>" in page
    opp = [1400, 1600, 1450, 1400]
    assert sum(opp) / 4 == 1462.5
    assert "Average opponent rating</dt><dd>1463</dd>" in page  # shown rounded half up
    assert ">999<" not in page and "Secret Draft" not in page
    # upcoming: Future Cup (no results, future date)
    assert "Future Cup" in page.split("<h2>Upcoming</h2>", 1)[1]


def test_event_page_links_to_the_profile(client, world):
    div = world.spring.divisions.get()
    page = text(client.get(f"/t/{world.spring.slug}/{div.slug}/player/1/"))
    assert f'href="/players/{world.ann.pk}/"' in page


def test_performance_rating_on_a_hand_made_event(client, world):
    # Cat: 2 of 4 against 1400, 1400, 1600, 1600 -> symmetric -> exactly 1500
    page = text(client.get(f"/players/{world.cat.pk}/"))
    perf = page[page.index("Perf Night") :]
    assert re.search(r'<td class="num">1500</td></tr>', perf[:900])


def nsa(d: float) -> float:
    return 1 / (1 + math.exp(-NSA_SLOPE * d))


def test_performance_rating_solves_expected_equals_actual(world):
    opponents = [1700, 1300, 1400]
    r = performance_rating(opponents, 2.0)
    assert abs(sum(nsa(r - o) for o in opponents) - 2.0) < 1e-6
    assert performance_rating([1500, 1500], 1.0) == pytest.approx(1500, abs=1e-6)
    assert performance_rating([1500], 1.0) == 3000  # perfect score: clamped
    assert performance_rating([1500], 0.0) == 0  # whitewash: clamped
    assert performance_rating([], 0.0) is None


def test_performance_of_eve_on_the_profile(client, world):
    ev = RatingHistory.objects.filter(event__name="Perf Day")
    before = dict(ev.values_list("player_id", "before"))
    eve_games = [(o, w) for o, w in ((world.eve.pk, 0),)]  # noqa: F841 - readability
    from ratings.models import RatedEvent

    games = RatedEvent.objects.get(name="Perf Day").games
    opps = [b if a == world.eve.pk else a for _, a, b, _, _ in games]
    expected = performance_rating([before[o] for o in opps], 2.0)
    page = text(client.get(f"/players/{world.eve.pk}/"))
    day = page[page.index("Perf Day") :]
    assert f'<td class="num">{round(expected)}</td></tr>' in day[:900]


def test_head_to_head(client, world):
    r = client.get(f"/players/{world.ann.pk}/vs/{world.bob.pk}/")
    assert r.status_code == 200
    page = text(r)
    # Old Club Night (list only) W 400-350, L 380-420; Spring W 450-300; Summer W 410-400.
    # The draft's 999-100 is not shown.
    assert "3-1 in 4 games" in page
    assert "spread +170" in page  # 50 - 40 + 150 + 10
    assert "410.0 – 367.5" in page
    assert ">999<" not in page and "Secret Draft" not in page
    # newest first (issue 36: a long rivalry is paged, its latest games on page 1)
    assert page.index("Summer Open") < page.index("Spring Open") < page.index("Old Club Night")
    back = text(client.get(f"/players/{world.bob.pk}/vs/{world.ann.pk}/"))
    assert "1-3 in 4 games" in back and "367.5 – 410.0" in back
    none = text(client.get(f"/players/{world.cat.pk}/vs/{world.eve.pk}/"))
    assert "have not met" in none


@pytest.mark.parametrize(
    "url, status",
    [
        ("/players/999999/", 404),
        ("/players/abc/", 404),
        ("/players/0/", 404),
        ("/players/-1/", 404),
        ("/players/" + "9" * 40 + "/", 404),
        ("/players/{ann}/vs/999999/", 404),
        ("/players/xyz/vs/{ann}/", 404),
        ("/players/{ann}/vs/{ann}/", 400),
        ("/players/{ann}/?page=0", 400),
        ("/players/{ann}/?page=x", 400),
        ("/players/{ann}/?page=5", 400),
    ],
)
def test_unknown_players_and_bad_pages(client, world, url, status):
    r = client.get(url.format(ann=world.ann.pk))
    assert r.status_code == status
    if status == 404:
        assert "There is no player" in text(r)


def test_profile_pages_events_20_a_page(client, world):
    from ratings.engine import RatedGame
    from ratings.services import submit_event

    lst = world.perf
    import datetime

    for i in range(25):
        submit_event(
            lst,
            name=f"Weekly {i:02d}",
            date=datetime.date(2024, 3, 1) + datetime.timedelta(i),
            configured_rounds=1,
            games=[RatedGame(1, world.bob.pk, world.cat.pk, 400, 380)],
            rerate=False,
        )
    from ratings.services import rerate_list

    rerate_list(lst)
    total = RatingHistory.objects.filter(player=world.bob).count()
    first = text(client.get(f"/players/{world.bob.pk}/"))
    assert f"page 1 of 2 ({total} events)" in first
    # newest first: Summer Open (June), then Weekly 24 back to Weekly 06
    assert first.count("Weekly ") == 19 and "Weekly 24" in first and "Weekly 05" not in first
    second = text(client.get(f"/players/{world.bob.pk}/", {"page": "2"}))
    assert "Weekly 05" in second and "Old Club Night" in second


def test_no_email_or_phone_anywhere(client, world):
    players = [world.ann, world.bob, world.cat, world.dan, world.eve]
    urls = ["/ratings/", "/ratings/club/", "/ratings/perf/", "/players/?q=a"]
    urls += [f"/players/{p.pk}/" for p in players]
    urls += [f"/players/{world.ann.pk}/vs/{p.pk}/" for p in players[1:]]
    bodies = [text(client.get(u)) for u in urls]
    bodies.append(b"".join(client.get("/ratings/club/ratings.csv").streaming_content).decode())
    for p in Player.objects.all():
        for body in bodies:
            assert p.email not in body and p.phone not in body
            assert "secret-mail" not in body


def test_hostile_names_are_escaped(client, world):
    page = text(client.get(f"/players/{world.eve.pk}/"))
    assert "<script>alert(1)" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt; Smith" in page
    listing = text(client.get("/ratings/club/"))
    assert "<script>alert(1)" not in listing


def test_chart_on_the_profile_is_well_formed_svg(client, world):
    page = text(client.get(f"/players/{world.eve.pk}/"))
    svg = page[page.index("<svg") : page.index("</svg>") + 6]
    root = ET.fromstring(svg)
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    title = root.find("{http://www.w3.org/2000/svg}title")
    assert title is not None and title.text == f"Rating history of {SCRIPT}"
    lines = root.findall(".//{http://www.w3.org/2000/svg}polyline")
    assert len(lines) == 2  # Club List and Perf List


def test_profile_and_head_to_head_query_counts_do_not_grow_with_history(client, world):
    """Bob gets 25 more events; his pages ask the database as often as before."""
    import datetime

    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from ratings.engine import RatedGame
    from ratings.services import submit_event

    def count(url: str) -> int:
        with CaptureQueriesContext(connection) as ctx:
            assert client.get(url).status_code == 200
        return len(ctx.captured_queries)

    urls = [
        f"/players/{world.bob.pk}/",
        f"/players/{world.bob.pk}/vs/{world.ann.pk}/",
        "/ratings/club/",
    ]
    before = [count(u) for u in urls]
    for i in range(25):
        submit_event(
            world.club,
            name=f"Weekly {i:02d}",
            date=datetime.date(2024, 8, 1) + datetime.timedelta(i),
            configured_rounds=1,
            games=[RatedGame(1, world.bob.pk, world.ann.pk, 400, 380)],
        )
    assert RatingHistory.objects.filter(player=world.bob).count() >= 28
    assert [count(u) for u in urls] == before
