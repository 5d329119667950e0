"""Club night pages: starting a night, running it (draws, results by numbers and names, a game
without a draw, latecomers, closing and reopening), the venue's screen and the list of nights.

Every refusal is checked at its field with status 400 and Game, Entry, Night and AuditEvent
counts unchanged; every organiser page answers anonymous visitors with the sign-in page and
anyone not organising this club (another club's organiser included) with 403.
"""

from __future__ import annotations

import datetime
import re

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from ratings.models import PlayerRating
from tournament.clubs import selectors
from tournament.clubs import services as club_services
from tournament.clubs.models import Night
from tournament.clubs.web.nights import numbered_line
from tournament.models import AuditEvent, Entry, Game, Membership, Player
from tournament.services.errors import ServiceError

PW = "pw-long-enough-1"
DAY = datetime.date(2025, 3, 4)
MEMBERS = [
    "Ann Lee", "Bob Ray", "Cat Fox", "Dan Poe", "Eve Kim", "Fay Orr", "Gil Day", "Hal Ng",
    "Ivy Wu",
]  # fmt: skip
HTMX = {"HTTP_HX_REQUEST": "true"}

pytestmark = pytest.mark.django_db


# --------------------------------------------------------------------------- fixtures


@pytest.fixture
def org() -> User:
    return User.objects.create_user("org", password=PW)


@pytest.fixture
def club(org):
    club = club_services.create_club(name="Riverside", actor=org)
    for name in MEMBERS:
        club_services.add_member(club, name, actor=org)
    return club


@pytest.fixture
def other_org() -> User:
    """The organiser of another club: 403 on every organiser page of Riverside."""
    user = User.objects.create_user("hill", password=PW)
    club_services.create_club(name="Hillside", actor=user)
    return user


def _client(user: User | None) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def _ids(club, names=MEMBERS) -> list[int]:
    return list(
        Membership.objects.filter(club=club, player__name__in=names).values_list(
            "player_id", flat=True
        )
    )


def _night(club, org, names=MEMBERS, guests=("Gus Guest",), games=3) -> Night:
    return club_services.create_night(
        club, date=DAY, players=_ids(club, names), guests=list(guests), games=games,
        draw="random,koth", actor=org,
    )  # fmt: skip


def _url(night: Night, what: str = "") -> str:
    return reverse("clubs:night", args=[night.club.slug, night.pk]) + what


def _counts() -> tuple[int, int, int, int, int]:
    return (
        Game.objects.count(),
        Entry.objects.count(),
        Night.objects.count(),
        AuditEvent.objects.count(),
        Player.objects.count(),
    )


def _games(night: Night, number: int) -> list[Game]:
    return list(
        Game.objects.filter(round__division__tournament=night.tournament, round__number=number)
        .select_related("player1__player", "player2__player")
        .order_by("board", "id")
    )


def _first_name(game: Game, side: int) -> str:
    entry = game.player1 if side == 1 else game.player2
    return entry.player.name.split()[0].lower()


# --------------------------------------------------------------------------- happy paths


def test_a_whole_night_from_ticking_to_the_season_ladder(club, org):
    client = _client(org)
    new = reverse("clubs:night_new", args=[club.slug])
    page = client.get(new)
    assert page.status_code == 200
    html = page.content.decode()
    for name in MEMBERS:
        assert name in html
    assert 'value="random" selected' in html and 'value="koth" selected' in html
    assert f'value="{datetime.date.today().isoformat()}"' in html
    response = client.post(new, {
        "players": _ids(club), "guests": "Gus Guest\n\n", "games": "3",
        "draw": ["random", "koth", "koth"], "date": DAY.isoformat(),
    })  # fmt: skip
    night = Night.objects.get(club=club)
    assert response.status_code == 302 and response["Location"] == _url(night)
    assert night.games == 3 and night.draw == "random,koth,koth"
    assert night.tournament.divisions.get().entries.count() == 10
    assert Membership.objects.get(club=club, player__name="Gus Guest").guest

    page = client.get(_url(night))
    assert page.status_code == 200
    assert "No game drawn yet" in page.content.decode()
    assert "Draw game 1" in page.content.decode()
    assert reverse("desk:export", args=[night.tournament.slug, "all.tsh"]) in page.content.decode()

    # game 1 (random): entered by numbers
    assert client.post(_url(night, "draw/"), **HTMX).status_code == 200
    games = _games(night, 1)
    assert len(games) == 5
    page = client.get(_url(night)).content.decode()
    assert "Draw game 2" in page and "5 result(s) missing" in page
    for game in games:
        answer = client.post(_url(night, "results/"), {"line": f"{game.player1.number} 412 389"},
                             **HTMX)  # fmt: skip
        assert answer.status_code == 200, answer.content.decode()
        text = answer.content.decode()
        assert "Recorded" in text and game.player1.player.name in text and "now 1-0" in text
    assert all(g.score1 == 412 and g.score2 == 389 for g in _games(night, 1))

    # game 2 (koth): by names, both players named
    assert client.post(_url(night, "draw/")).status_code == 200
    for game in _games(night, 2):
        line = f"{_first_name(game, 1)} 400 {_first_name(game, 2)} 350"
        answer = client.post(_url(night, "results/"), {"line": line}, **HTMX)
        assert answer.status_code == 200, answer.content.decode()
    assert all(g.score1 == 400 and g.score2 == 350 for g in _games(night, 2))

    # game 3 (koth): one name, then both scores; the opponent is whoever is drawn
    client.post(_url(night, "draw/"))
    for game in _games(night, 3):
        answer = client.post(_url(night, "results/"), {"line": f"{_first_name(game, 2)} 380 370"})
        assert answer.status_code == 200
    assert all(g.score1 == 370 and g.score2 == 380 for g in _games(night, 3))

    # two latecomers play each other without a draw, logged into game 3
    for name in ("Jon Lake", "Kim Moss"):
        answer = client.post(_url(night, "players/"), {"name": name, "guest": "on"}, **HTMX)
        assert answer.status_code == 200 and f"{name} joins the night" in answer.content.decode()
    answer = client.post(_url(night, "log/"), {
        "player": "jon", "opponent": "Kim Moss", "score": "420", "opp_score": "330",
    }, **HTMX)  # fmt: skip
    assert answer.status_code == 200, answer.content.decode()
    assert "Logged (no draw)" in answer.content.decode()
    logged = [g for g in _games(night, 3) if g.player1.player.name == "Jon Lake"]
    assert len(logged) == 1 and (logged[0].score1, logged[0].score2) == (420, 330)

    assert not PlayerRating.objects.filter(rating_list=club.rating_list).exists()
    answer = client.post(_url(night, "close/"), **HTMX)
    assert answer.status_code == 200, answer.content.decode()
    night.refresh_from_db()
    assert night.closed
    ratings = dict(
        PlayerRating.objects.filter(rating_list=club.rating_list)
        .values_list("player__name", "rating")
    )
    assert set(ratings) == {*MEMBERS, "Gus Guest", "Jon Lake", "Kim Moss"}
    assert len(set(ratings.values())) > 1  # winners went up, losers down

    season = club_services.create_season(club, name="Spring", start_date="2025-03-01",
                                         end_date="2025-05-31", actor=org)
    ladder = selectors.season_ladder(season)
    assert {row.name for row in ladder} == set(ratings)
    assert sum(row.wins for row in ladder) == 16  # 5 + 5 + 5 drawn games and one logged

    # reopened with a reason, closed again
    assert client.post(_url(night, "reopen/"), {"reason": "a score was wrong"}).status_code == 200
    night.refresh_from_db()
    assert not night.closed
    assert AuditEvent.objects.filter(action="reopen_night", reason="a score was wrong").exists()


def test_names_become_numbers_for_the_console_parser(club, org):
    night = _night(club, org)
    division = night.tournament.divisions.get()
    number = {e.name: e.number for e in division.entries.select_related("player")}
    ann, bob = number["Ann Lee"], number["Bob Ray"]
    assert numbered_line(division, "ann 412 bob 389") == f"{ann} 412 {bob} 389"
    assert numbered_line(division, "Ann  Lee 412 389") == f"{ann} 412 389"
    assert numbered_line(division, "ann f") == f"{ann} f"
    assert numbered_line(division, "3 412 389") == "3 412 389"
    assert numbered_line(division, "B2 412 389") == "B2 412 389"
    assert numbered_line(division, "  ") == ""
    with pytest.raises(ServiceError) as refused:
        numbered_line(division, "zed 412 389")
    assert refused.value.code == "not_at_night" and refused.value.field == "line"


def test_screen_and_list_are_public(club, org, other_org):
    night = _night(club, org)
    club_services.pair_next_game(night, actor=org)
    game = _games(night, 1)[0]
    screen = reverse("clubs:night_screen", args=[club.slug, night.pk])
    for user in (None, other_org, org):
        client = _client(user)
        page = client.get(screen)
        assert page.status_code == 200
        html = page.content.decode()
        assert 'hx-trigger="every 15s"' in html
        assert game.player1.player.name in html and game.player2.player.name in html
        assert "Goes first" in html
        fragment = client.get(screen, **HTMX).content.decode()
        assert '<div id="screen"' in fragment and "<html" not in fragment
        listing = client.get(reverse("clubs:nights", args=[club.slug]))
        assert listing.status_code == 200
        html = listing.content.decode()
        assert "2025-03-04" in html and "running" in html
        assert f"/t/{night.tournament.slug}/club/standings/" in html
        assert ("Start a new night" in html) == (user is org)


def test_screen_of_another_clubs_night_is_not_found(club, org, other_org):
    night = _night(club, org)
    hillside = club.__class__.objects.get(slug="hillside")
    assert _client(None).get(
        reverse("clubs:night_screen", args=[hillside.slug, night.pk])
    ).status_code == 404
    assert _client(other_org).get(
        reverse("clubs:night", args=[hillside.slug, night.pk])
    ).status_code == 404
    assert _client(None).get(reverse("clubs:night_screen", args=[club.slug, 999999])
                             ).status_code == 404  # fmt: skip
    assert _client(None).get(reverse("clubs:nights", args=["nowhere"])).status_code == 404


def test_a_small_night_gives_the_reason_instead_of_the_export(club, org):
    night = _night(club, org, names=["Ann Lee", "Bob Ray"], guests=["Gus Guest"])
    html = _client(org).get(_url(night)).content.decode()
    assert "the federation rates club events of 4 or more players" in html
    assert "all.tsh" not in html
    assert reverse("console:home", args=[night.tournament.slug]) in html
    assert "kind=scorecards" in html


def test_draw_is_disabled_while_results_are_missing(club, org):
    night = _night(club, org)
    client = _client(org)
    client.post(_url(night, "draw/"))
    html = client.get(_url(night)).content.decode()
    assert re.search(r'id="draw-button" disabled', html)
    assert "game 1 still has 5 result(s) missing" in html
    assert "kind=pairings&amp;round=1" in html
    before = _counts()
    answer = client.post(_url(night, "draw/"), **HTMX)
    assert answer.status_code == 400
    assert 'id="id_draw_error"' in answer.content.decode()
    assert _counts() == before
