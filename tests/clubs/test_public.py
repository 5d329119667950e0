"""Public club pages: the clubs index, a club's page (meets, members, ladder, nights, records,
ratings), its seasons; fixed query counts; caching under the club's version; nothing private.

The fixture club is built through the services only. Its games (hand-picked pairings, so the
records can be computed by hand below):

Night 1, 2024-12-10 (Autumn 2024, archived): Ann, Bob, Cat, Dan
  g1 Ann 400-350 Bob, Cat 380-380 Dan (a tie) · g2 Ann 420-300 Cat, Bob 390-410 Dan
  g3 Ann 450-440 Dan, Bob 360-355 Cat
Night 2, 2025-01-14 (Winter 2025): Ann, Bob, Cat and the guest Gus
  g1 Ann 500-320 Gus, Bob 300-310 Cat · g2 Ann 380-380 Bob (a tie), Cat 400-390 Gus
  g3 Ann 410-400 Cat, Bob 420-330 Gus
Night 3, 2025-01-21 (Winter 2025), four games: Ann, Bob, Cat, Dan
  g1 Ann 390-395 Bob, Cat 480-470 Dan · g2 Ann 350-300 Cat, Bob 400-380 Dan
  g3 Ann 360-350 Dan, Cat 330-300 Bob · g4 Ann 400-300 Bob, Cat 340-350 Dan
Night 4, 2025-01-28, still open: Ann 600-200 Bob (counts for nothing yet)
"""

from __future__ import annotations

import datetime
import re

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from pairings.services.store import set_pairing
from tests.builders import club_with_a_night
from tournament.clubs import selectors
from tournament.clubs import services as club_services
from tournament.clubs.models import Night
from tournament.models import Game, Player
from tournament.services.results import correct_result, record_result

PW = "pw-long-enough-1"
ANN, BOB, CAT, DAN, GUS = "Ann Lee", "Bob Ray", "Cat Ames", "Dan Oak", "Gus Visitor"

pytestmark = pytest.mark.django_db

NIGHTS = [
    (
        datetime.date(2024, 12, 10),
        [ANN, BOB, CAT, DAN],
        [],
        [
            [(ANN, 400, BOB, 350), (CAT, 380, DAN, 380)],
            [(ANN, 420, CAT, 300), (BOB, 390, DAN, 410)],
            [(ANN, 450, DAN, 440), (BOB, 360, CAT, 355)],
        ],
    ),
    (
        datetime.date(2025, 1, 14),
        [ANN, BOB, CAT],
        [GUS],
        [
            [(ANN, 500, GUS, 320), (BOB, 300, CAT, 310)],
            [(ANN, 380, BOB, 380), (CAT, 400, GUS, 390)],
            [(ANN, 410, CAT, 400), (BOB, 420, GUS, 330)],
        ],
    ),
    (
        datetime.date(2025, 1, 21),
        [ANN, BOB, CAT, DAN],
        [],
        [
            [(ANN, 390, BOB, 395), (CAT, 480, DAN, 470)],
            [(ANN, 350, CAT, 300), (BOB, 400, DAN, 380)],
            [(ANN, 360, DAN, 350), (CAT, 330, BOB, 300)],
            [(ANN, 400, BOB, 300), (CAT, 340, DAN, 350)],
        ],
    ),
]


def _play(night: Night, games: list[list[tuple]], actor) -> None:
    division = night.tournament.divisions.get()
    number = {e.player.name: e.number for e in division.entries.select_related("player")}
    for rnd, pairs in enumerate(games, start=1):
        for a, sa, b, sb in pairs:
            set_pairing(division, rnd, number[a], number[b], actor=actor, first_known=False)
            record_result(division, rnd, number[a], sa, sb, actor=actor)


@pytest.fixture
def club_data():
    """The fixture club: 4 members, a guest, 3 closed nights, 1 open, 2 seasons."""
    org = User.objects.create_user("org", password=PW)
    club = club_services.create_club(
        name="Riverside Scrabble",
        actor=org,
        city="Riverton",
        country="Canada",
        meets="Tuesdays 7pm, Library",
    )
    players = {}
    for name in (ANN, BOB, CAT, DAN):
        players[name] = club_services.add_member(club, name, actor=org, since="2024-01-01").player
    # contact details the registry holds: never on a public page
    Player.objects.filter(name=ANN).update(email="ann.secret@example.com", phone="555-0199")
    autumn = club_services.create_season(
        club,
        name="Autumn 2024",
        start_date="2024-09-01",
        end_date="2024-12-31",
        actor=org,
        preset="two-one",
    )
    winter = club_services.create_season(
        club,
        name="Winter 2025",
        start_date="2025-01-01",
        end_date="2025-03-31",
        actor=org,
        rule={"min_nights": 2},
    )
    nights = []
    for date, present, guests, games in NIGHTS:
        night = club_services.create_night(
            club,
            date=date,
            players=[players[n] for n in present],
            guests=guests,
            games=len(games),
            draw="random",
            actor=org,
        )
        _play(night, games, org)
        club_services.close_night(night, actor=org)
        nights.append(night)
        if date.year == 2024:
            autumn = club_services.archive_season(autumn, actor=org)
    open_night = club_services.create_night(
        club,
        date="2025-01-28",
        players=[players[ANN], players[BOB]],
        games=1,
        draw="random",
        actor=org,
    )
    club_services.log_game(
        open_night, player="Ann", opponent="Bob", score=600, opp_score=200, actor=org
    )
    club.refresh_from_db()
    return {
        "org": org,
        "club": club,
        "nights": nights,
        "open": open_night,
        "autumn": autumn,
        "winter": winter,
        "players": players,
    }


def _text(response) -> str:
    """The page's text without tags, spaces squeezed (for reading rows)."""
    html = response.content.decode()
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def _section(response, name: str) -> str:
    """One section of the club page (``<section id=NAME>``) as text."""
    html = response.content.decode().split(f'<section id="{name}">')[1].split("</section>")[0]
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def _record(records, key):
    return next(r for r in records if r.key == key)


# --------------------------------------------------------------------------- records


def test_records_match_hand_computed_values(club_data):
    club, nights = club_data["club"], club_data["nights"]
    records = selectors.club_records(club)
    high = _record(records, "high_game")
    assert high.value == 500  # the open night's 600 does not count
    assert [(m.name, m.date, m.detail) for m in high.marks] == [
        (ANN, datetime.date(2025, 1, 14), f"500-320 against {GUS}")
    ]
    assert high.marks[0].slug == nights[1].tournament.slug
    loss = _record(records, "high_loss")
    assert loss.value == 470
    assert [(m.name, m.date, m.detail) for m in loss.marks] == [
        (DAN, datetime.date(2025, 1, 21), f"470-480 against {CAT}")
    ]
    combined = _record(records, "high_combined")
    assert combined.value == 950
    assert [(m.name, m.detail) for m in combined.marks] == [(CAT, f"480-470 with {DAN}")]
    # Ann: 400+420+450 + 500+380+410 + 390+350+360+400 = 4060 over 10 games
    average = _record(records, "best_average")
    assert average.value == 406.0
    assert [(m.name, m.detail) for m in average.marks] == [(ANN, "10 games")]
    # Ann won 3 on night 1 and the first game of night 2: 4; the tie in game 2 ends it (if a
    # tie did not, her win in game 3 would make it 5). Bob's best is 3 (n2 g3, n3 g1-g2).
    streak = _record(records, "winning_streak")
    assert streak.value == 4
    (mark,) = streak.marks
    assert (mark.name, mark.date, mark.until_date) == (
        ANN,
        datetime.date(2024, 12, 10),
        datetime.date(2025, 1, 14),
    )
    assert (mark.slug, mark.until_slug) == (nights[0].tournament.slug, nights[1].tournament.slug)


def test_best_average_needs_its_minimum_of_games(club_data):
    records = selectors.club_records(club_data["club"], min_games=11)
    average = _record(records, "best_average")
    assert average.value is None and average.marks == ()
    # at 9 games Bob (3595/10) and Cat (3595/10) are still below Ann
    records = selectors.club_records(club_data["club"], min_games=9)
    assert [m.name for m in _record(records, "best_average").marks] == [ANN]


def test_one_game_and_one_win_are_said_in_the_singular(db, monkeypatch):
    """A club's first night: every player has one game, each winner one win in a row. The
    records said "1 games" and "1 wins in a row" (and the page "at least 1 games")."""
    club, *_ = club_with_a_night("org-one", preset="two-one")
    records = selectors.club_records(club, min_games=1)
    average = _record(records, "best_average")
    assert {m.detail for m in average.marks} == {"1 game"}
    assert average.note == "average score over all club games; at least 1 game"
    assert {m.detail for m in _record(records, "winning_streak").marks} == {"1 win in a row"}
    assert "at least 10 games" in _record(selectors.club_records(club), "best_average").note
    monkeypatch.setattr(selectors, "RECORD_MIN_GAMES", 1)
    page = " ".join(_text(Client().get(f"/clubs/{club.slug}/")).split())
    assert "Best average needs at least 1 game." in page
    assert "1 game" in page and "1 games" not in page and "1 wins" not in page


def test_a_shared_record_names_every_holder(club_data):
    org, night = club_data["org"], club_data["nights"][2]
    club_services.reopen_night(night, actor=org, reason="a score was misread")
    game = Game.objects.get(
        round__division__tournament=night.tournament, round__number=4, score1=340
    )
    correct_result(game, 500, 350, reason="misread", actor=org)
    club_services.close_night(night, actor=org)
    high = _record(selectors.club_records(club_data["club"]), "high_game")
    assert high.value == 500
    assert [(m.name, m.date) for m in high.marks] == [
        (ANN, datetime.date(2025, 1, 14)),
        (CAT, datetime.date(2025, 1, 21)),
    ]


# --------------------------------------------------------------------------- the club page


def test_club_page_shows_meets_members_guests_and_no_contact_details(club_data):
    response = Client().get("/clubs/riverside-scrabble/")
    assert response.status_code == 200
    html = response.content.decode()
    text = _text(response)
    assert "Meets: Tuesdays 7pm, Library" in text and "Riverton, Canada" in text
    members = html.split('id="members"')[1]
    listed, guests = members.split("<h3>Guests</h3>")
    for name in (ANN, BOB, CAT, DAN):
        assert name in listed
    assert GUS not in listed and GUS in guests
    assert "Members (4)" in text
    for secret in ("ann.secret", "example.com", "555-0199", "mailto:", "token"):
        assert secret not in html
    assert f'href="/players/{club_data["players"][ANN].pk}/"' in html


def test_club_page_ladder_is_the_current_season_with_its_rule(club_data):
    ladder = _section(Client().get("/clubs/riverside-scrabble/"), "ladder")
    assert "Ladder: Winter 2025" in ladder
    # two closed nights of Winter 2025 (2 a win, 1 a tie; 2 nights to be ranked)
    assert "1 Ann Lee 11 5.5-1.5 +345 2" in ladder
    assert "2 Cat Ames 8 4-3 -10 2" in ladder
    assert "3 Bob Ray 7 3.5-3.5 -25 2" in ladder
    assert "* Dan Oak (not yet qualified) 2 1-3 -30 1" in ladder
    assert "* Gus Visitor (not yet qualified) 0 0-3 -280 1" in ladder
    assert ladder.index("Bob Ray") < ladder.index("Dan Oak") < ladder.index("Gus Visitor")
    assert (
        "2 points a win, 1 a tie, 0 a loss; 2 nights played to be ranked; ties on points "
        "are broken by wins, then spread."
    ) in ladder
    assert "2 nights counted" in ladder


def test_club_page_lists_recent_nights_with_winners_and_links(club_data):
    response = Client().get("/clubs/riverside-scrabble/")
    html, nights = response.content.decode(), _section(response, "nights")
    assert nights.index("Tue 28 Jan 2025") < nights.index("Tue 21 Jan 2025")
    assert "Tue 28 Jan 2025 · 2 players · in progress" in nights
    assert "Tue 21 Jan 2025 · 4 players · winner: Ann Lee" in nights
    assert "Tue 14 Jan 2025 · 4 players · winner: Ann Lee" in nights
    assert "Ann Lee 3-1 +155" in nights  # night 3's results
    for night in club_data["nights"] + [club_data["open"]]:
        assert f'href="/t/{night.tournament.slug}/club/standings/"' in html
        assert f'href="/clubs/riverside-scrabble/nights/{night.pk}/screen/"' in html


def test_club_page_records_ratings_and_links(club_data):
    response = Client().get("/clubs/riverside-scrabble/")
    html, records = response.content.decode(), _section(response, "records")
    assert "at least 10 games" in records
    assert "High game 500 Ann Lee , 500-320 against Gus Visitor: 14 Jan 2025" in records
    assert "High loss" in records and "470 Dan Oak , 470-480 against Cat Ames" in records
    assert "950 Cat Ames , 480-470 with Dan Oak" in records
    assert "Best average" in records and "406.0 Ann Lee , 10 games" in records
    assert "Longest winning streak" in records
    assert "4 Ann Lee , 4 wins in a row: 10 Dec 2024 to 14 Jan 2025" in records
    club = club_data["club"]
    assert f'href="/ratings/{club.rating_list.slug}/"' in html
    ratings = _section(response, "ratings")
    for name in (ANN, BOB, CAT, DAN, GUS):
        assert name in ratings


def test_unpublished_nights_are_left_out(club_data):
    night = club_data["nights"][1]
    night.tournament.__class__.objects.filter(pk=night.tournament_id).update(published=False)
    records = selectors.club_records(club_data["club"])
    assert _record(records, "high_game").value == 480  # 500 was on the hidden night
    shown = [n.id for n in selectors.recent_night_results(club_data["club"])]
    assert night.pk not in shown and len(shown) == 3


# --------------------------------------------------------------------------- seasons


def test_seasons_page_lists_current_and_archived_with_awards(club_data):
    text = _text(Client().get("/clubs/riverside-scrabble/seasons/"))
    assert "Winter 2025 (current)" in text
    assert "Autumn 2024 (archived)" in text
    assert "Champion: Ann Lee (6)" in text
    assert "Second: Dan Oak (3)" in text and "Third: Bob Ray (2)" in text


def test_archived_season_page_shows_its_awards_and_ladder(club_data):
    autumn = club_data["autumn"]
    response = Client().get(f"/clubs/riverside-scrabble/seasons/{autumn.pk}/")
    assert response.status_code == 200
    text = _text(response)
    awards = text.split("Awards")[1].split("Ladder")[0]
    assert "Champion: Ann Lee (6)" in awards and "High game: Ann Lee (450)" in awards
    assert "1 Ann Lee 6 3-0 +180 1" in text  # 50 + 120 + 10
    assert "2 Dan Oak 3 1.5-1.5 +10 1" in text
    assert "1 night counted" in text


def test_current_season_page_has_no_awards(club_data):
    winter = club_data["winter"]
    text = _text(Client().get(f"/clubs/riverside-scrabble/seasons/{winter.pk}/"))
    assert "current season" in text and "Awards" not in text
    assert "1 Ann Lee 11 5.5-1.5 +345 2" in text


def test_unknown_club_or_season_is_404(club_data):
    other = club_services.create_club(name="Hilltop", actor=club_data["org"])
    theirs = club_services.create_season(
        other, name="Spring", start_date="2025-03-01", end_date="2025-05-31", actor=club_data["org"]
    )
    client = Client()
    assert client.get("/clubs/nowhere/").status_code == 404
    assert client.get("/clubs/nowhere/seasons/").status_code == 404
    assert client.get("/clubs/nowhere/seasons/1/").status_code == 404
    assert client.get("/clubs/riverside-scrabble/seasons/999999/").status_code == 404
    # a season of another club is not this club's
    assert client.get(f"/clubs/riverside-scrabble/seasons/{theirs.pk}/").status_code == 404
    assert client.get(f"/clubs/hilltop/seasons/{theirs.pk}/").status_code == 200
    # a refusal is never cached: once the club exists, its page answers
    assert client.get("/clubs/later/").status_code == 404
    club_services.create_club(name="Later", actor=club_data["org"])
    assert client.get("/clubs/later/").status_code == 200


def test_a_club_without_nights_or_seasons(club_data):
    club_services.create_club(name="Empty Club", actor=club_data["org"])
    text = _text(Client().get("/clubs/empty-club/"))
    assert "No season yet" in text and "No nights yet" in text
    assert "nobody yet" in text and "No members yet" in text
    assert "No seasons yet" in _text(Client().get("/clubs/empty-club/seasons/"))


# --------------------------------------------------------------------------- the clubs index


def test_clubs_index_lists_and_searches(club_data):
    club_services.create_club(name="Hilltop Words", actor=club_data["org"], city="Lakeside")
    client = Client()
    text = _text(client.get("/clubs/"))
    assert "Riverside Scrabble Riverton , Canada Tuesdays 7pm, Library 4 28 Jan 2025" in text
    assert "Hilltop Words Lakeside 0 none yet" in text
    found = _text(client.get("/clubs/", {"q": "riverton"}))
    assert "Riverside Scrabble" in found and "Hilltop" not in found
    found = _text(client.get("/clubs/", {"q": "HILL"}))
    assert "Hilltop Words" in found and "Riverside" not in found
    assert "No club's name or city holds" in _text(client.get("/clubs/", {"q": "zzz"}))
    assert client.get("/clubs/", {"q": "x" * 101}).status_code == 400
    assert client.get("/clubs/", {"q": "a\x00b"}).status_code == 400


def test_pages_answer_signed_in_users_and_refuse_writes(club_data):
    client = Client()
    client.force_login(club_data["org"])
    for url in (
        "/clubs/",
        "/clubs/riverside-scrabble/",
        "/clubs/riverside-scrabble/seasons/",
        f"/clubs/riverside-scrabble/seasons/{club_data['winter'].pk}/",
    ):
        response = client.get(url)
        assert response.status_code == 200, url
        assert response["Cache-Control"] == "private, no-cache"
        assert client.post(url).status_code == 405


# --------------------------------------------------------------------------- caching


def test_a_correction_in_a_closed_night_changes_the_page(club_data):
    client = Client()
    first = client.get("/clubs/riverside-scrabble/")
    etag = first["ETag"]
    assert client.get("/clubs/riverside-scrabble/", HTTP_IF_NONE_MATCH=etag).status_code == 304
    night, org = club_data["nights"][1], club_data["org"]
    club_services.reopen_night(night, actor=org, reason="a score was misread")
    reopened = client.get("/clubs/riverside-scrabble/", HTTP_IF_NONE_MATCH=etag)
    assert "High game 480 Cat Ames" in _text(reopened)  # night 2 counts no more
    game = Game.objects.get(
        round__division__tournament=night.tournament, round__number=1, score1=500
    )
    correct_result(game, 520, 320, reason="misread", actor=org)
    club_services.close_night(night, actor=org)
    again = client.get("/clubs/riverside-scrabble/", HTTP_IF_NONE_MATCH=etag)
    assert again.status_code == 200 and again["ETag"] != etag
    assert "High game 520 Ann Lee , 520-320 against Gus Visitor" in _text(again)
    assert "+365" in _text(again)  # the ladder moved too: Ann's spread 345 + 20


def test_a_result_in_the_open_night_changes_the_page(club_data):
    client = Client()
    before = client.get("/clubs/riverside-scrabble/")
    night = club_data["open"]
    division = night.tournament.divisions.get()
    number = {e.player.name: e.number for e in division.entries.select_related("player")}
    club_services.pair_next_game(night, actor=club_data["org"])
    record_result(division, 2, number[ANN], 410, 420, actor=club_data["org"])
    after = client.get("/clubs/riverside-scrabble/")
    assert after["ETag"] != before["ETag"]
    assert "Ann Lee 1-1 +390" in _text(after)


def test_records_and_ladder_are_kept_while_the_open_night_is_played(club_data, monkeypatch):
    """Results of tonight's open night change the page (recent nights) but not what is read
    from closed nights only: records and the ladder are not recomputed for them."""
    client = Client()
    client.get("/clubs/riverside-scrabble/")
    calls = []
    real_records, real_ladder = selectors.club_records, selectors.season_ladder
    monkeypatch.setattr(
        selectors, "club_records", lambda *a, **k: calls.append("records") or real_records(*a, **k)
    )
    monkeypatch.setattr(
        selectors, "season_ladder", lambda *a, **k: calls.append("ladder") or real_ladder(*a, **k)
    )
    night, org = club_data["open"], club_data["org"]
    club_services.pair_next_game(night, actor=org)
    division = night.tournament.divisions.get()
    record_result(division, 2, 1, 410, 420, actor=org)
    assert "in progress" in _text(client.get("/clubs/riverside-scrabble/"))
    assert calls == []
    club_services.close_night(night, actor=org)  # now it counts: both are computed anew
    text = _text(client.get("/clubs/riverside-scrabble/"))
    assert sorted(calls) == ["ladder", "records"]
    assert "High game 600 Ann Lee , 600-200 against Bob Ray" in text


def test_anonymous_pages_are_served_from_the_cache(club_data):
    client = Client()
    client.get("/clubs/riverside-scrabble/")
    with CaptureQueriesContext(connection) as queries:
        response = client.get("/clubs/riverside-scrabble/")
    assert response.status_code == 200 and response["Cache-Control"].startswith("public")
    assert len(queries) == 1  # the version stamp


# --------------------------------------------------------------------------- query counts


def _build_club(name: str, nights: int, members: int, org) -> None:
    club = club_services.create_club(name=name, actor=org)
    players = [
        club_services.add_member(club, f"{name} Player {i:02d}", actor=org).player
        for i in range(members)
    ]
    club_services.create_season(
        club,
        name="All",
        start_date="2020-01-01",
        end_date="2025-12-31",
        actor=org,
        rule={"min_nights": 2},
    )
    first = datetime.date(2024, 1, 2)
    for n in range(nights):
        a, b = players[n % members], players[(n + 1) % members]
        night = club_services.create_night(
            club,
            date=first + datetime.timedelta(weeks=n),
            players=[a, b],
            games=1,
            draw="random",
            actor=org,
        )
        club_services.log_game(
            night, player=a.name, opponent=b.name, score=400 + n, opp_score=350, actor=org
        )
        club_services.close_night(night, actor=org)
        if n == 0:
            club_services.create_night(
                club,
                date=first,
                players=[a, b],
                guests=["A Guest"],
                games=1,
                draw="random",
                actor=org,
            )


def _queries(url: str) -> int:
    from tournament import cache as caching

    caching.reset_failures()
    from django.core.cache import cache

    cache.clear()
    with CaptureQueriesContext(connection) as queries:
        assert Client().get(url).status_code == 200
    return len(queries)


def test_query_counts_do_not_grow_with_nights_or_members():
    org = User.objects.create_user("org", password=PW)
    _build_club("Small", 3, 3, org)
    _build_club("Large", 30, 30, org)
    small = _queries("/clubs/small/")
    assert small == _queries("/clubs/large/")
    assert small <= 16, small
    from tournament.clubs.models import Season

    pages = [("/clubs/{}/seasons/", None), ("/clubs/{}/seasons/{}/", Season)]
    for url, model in pages:
        counts = []
        for slug in ("small", "large"):
            pk = model.objects.get(club__slug=slug).pk if model else None
            counts.append(_queries(url.format(slug, pk)))
        assert counts[0] == counts[1], (url, counts)
    assert _queries("/clubs/") == _queries("/clubs/?q=a")
