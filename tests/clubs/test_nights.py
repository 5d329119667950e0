"""Club night pages: starting a night, running it (draws, results by numbers and names, a game
without a draw, latecomers, closing and reopening), the venue's screen and the list of nights.

Every refusal is checked at its field with status 400 and Game, Entry, Night and AuditEvent
counts unchanged; every organiser page answers anonymous visitors with the sign-in page and
anyone not organising this club (another club's organiser included) with 403.
"""

from __future__ import annotations

import datetime
import html as htmllib
import re
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from ratings.models import PlayerRating
from tests.core.browser import BROWSER_OFF, CHROMIUM, HAVE_PLAYWRIGHT
from tests.core.conftest import browser  # noqa: F401 (a fixture)
from tournament.clubs import selectors
from tournament.clubs import services as club_services
from tournament.clubs.models import Night
from tournament.clubs.web.nights import numbered_line
from tournament.errors import ServiceError
from tournament.models import AuditEvent, Entry, Game, Membership, Player

PW = "pw-long-enough-1"
DAY = datetime.date(2025, 3, 4)
MEMBERS = [
    "Ann Lee",
    "Bob Ray",
    "Cat Fox",
    "Dan Poe",
    "Eve Kim",
    "Fay Orr",
    "Gil Day",
    "Hal Ng",
    "Ivy Wu",
]
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
        club,
        date=DAY,
        players=_ids(club, names),
        guests=list(guests),
        games=games,
        draw="random,koth",
        actor=org,
    )


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
    response = client.post(
        new,
        {
            "players": _ids(club),
            "guests": "Gus Guest\n\n",
            "games": "3",
            "draw": ["random", "koth", "koth"],
            "date": DAY.isoformat(),
        },
    )
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
        answer = client.post(
            _url(night, "results/"), {"line": f"{game.player1.number} 412 389"}, **HTMX
        )
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
    answer = client.post(
        _url(night, "log/"),
        {
            "player": "jon",
            "opponent": "Kim Moss",
            "score": "420",
            "opp_score": "330",
        },
        **HTMX,
    )
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
        PlayerRating.objects.filter(rating_list=club.rating_list).values_list(
            "player__name", "rating"
        )
    )
    assert set(ratings) == {*MEMBERS, "Gus Guest", "Jon Lake", "Kim Moss"}
    assert len(set(ratings.values())) > 1  # winners went up, losers down

    season = club_services.create_season(
        club, name="Spring", start_date="2025-03-01", end_date="2025-05-31", actor=org
    )
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
    assert (
        _client(None).get(reverse("clubs:night_screen", args=[hillside.slug, night.pk])).status_code
        == 404
    )
    assert (
        _client(other_org).get(reverse("clubs:night", args=[hillside.slug, night.pk])).status_code
        == 404
    )
    assert (
        _client(None).get(reverse("clubs:night_screen", args=[club.slug, 999999])).status_code
        == 404
    )
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


# --------------------------------------------------------------------------- denials


def _organiser_requests(club, night) -> list[tuple[str, str, dict]]:
    new = reverse("clubs:night_new", args=[club.slug])
    ticked = {"players": _ids(club)[:4], "games": "3", "date": "2025-03-11"}
    return [
        ("get", new, {}),
        ("post", new, ticked),
        ("get", _url(night), {}),
        ("post", _url(night, "results/"), {"line": "1 412 389"}),
        ("post", _url(night, "draw/"), {}),
        (
            "post",
            _url(night, "log/"),
            {"player": "1", "opponent": "2", "score": "400", "opp_score": "300"},
        ),
        ("post", _url(night, "players/"), {"name": "Late Comer"}),
        ("post", _url(night, "close/"), {}),
        ("post", _url(night, "reopen/"), {"reason": "because"}),
    ]


def test_anonymous_visitors_are_sent_to_sign_in(club, org):
    night = _night(club, org)
    before = _counts()
    for method, url, data in _organiser_requests(club, night):
        response = getattr(_client(None), method)(url, data)
        assert response.status_code == 302, url
        assert response["Location"].startswith("/accounts/login/?next="), url
    assert _counts() == before


@pytest.mark.parametrize("who", ["member", "other_organiser"])
def test_anyone_not_organising_this_club_gets_403(club, org, other_org, who):
    night = _night(club, org)
    club_services.pair_next_game(night, actor=org)
    if who == "member":
        user = User.objects.create_user("ann", password=PW)
    else:
        user = other_org
    before = _counts()
    for method, url, data in _organiser_requests(club, night):
        for extra in ({}, HTMX):
            response = getattr(_client(user), method)(url, data, **extra)
            assert response.status_code == 403, (url, response.status_code)
    assert _counts() == before
    assert not Night.objects.get(pk=night.pk).closed


# --------------------------------------------------------------------------- bad input


def _refused(response, field: str, words: str) -> str:
    """A 400 with the message beside its field (the element id_FIELD_error)."""
    assert response.status_code == 400, response.content.decode()[:500]
    html = response.content.decode()
    match = re.search(rf'id="id_{field}_error"[^>]*>(.*?)</p>', html, re.S)
    assert match, f"no error at {field}: {html[:3000]}"
    message = htmllib.unescape(re.sub(r"<[^>]+>", "", match.group(1)))
    assert words in message, message
    return message


def _new_night_post(club, **changes) -> dict:
    data = {
        "players": _ids(club),
        "guests": "",
        "games": "3",
        "draw": ["random", "koth"],
        "date": "2025-03-11",
    }
    data.update(changes)
    return data


@pytest.mark.parametrize(
    ("changes", "field", "words"),
    [
        ({"players_twice": True}, "players", "is ticked twice for the night"),
        ({"guests": "ann  lee"}, "guests", "Ann Lee is ticked as a member"),
        ({"guests": "Gus Guest\nGus Guest"}, "guests", "Gus Guest is ticked twice"),
        ({"date": "2025-13-45"}, "date", "give the date as YYYY-MM-DD"),
        ({"date": "tuesday"}, "date", "give the date as YYYY-MM-DD"),
        ({"games": "0"}, "games", "greater than or equal to 1"),
        ({"games": "13"}, "games", "less than or equal to 12"),
        ({"games": "three"}, "games", "whole number"),
        ({"draw": ["random", "chess"]}, "draw", "chess is not one of the available choices"),
        ({"players": [], "guests": "Gus Guest"}, "players", "at least 2 players"),
        ({"players": ["999999"]}, "players", "999999 is not an active member of the club"),
        ({"players": ["x"]}, "players", "x is not an active member"),
    ],
)
def test_new_night_refusals(club, org, changes, field, words):
    client = _client(org)
    if changes.pop("players_twice", False):
        ids = _ids(club)
        changes["players"] = [*ids, ids[0]]
    new = reverse("clubs:night_new", args=[club.slug])
    before = _counts()
    for extra in ({}, HTMX):
        response = client.post(new, _new_night_post(club, **changes), **extra)
        _refused(response, field, words)
        if extra:
            assert "<html" not in response.content.decode()
            assert response.content.decode().lstrip().startswith('<form id="night-form"')
    assert _counts() == before


def test_a_lapsed_member_is_not_offered_nor_accepted(club, org):
    lapsed = Membership.objects.get(club=club, player__name="Ivy Wu")
    club_services.update_member(lapsed, active=False, actor=org)
    client = _client(org)
    new = reverse("clubs:night_new", args=[club.slug])
    assert "Ivy Wu" not in client.get(new).content.decode()
    before = _counts()
    _refused(client.post(new, _new_night_post(club)), "players", "not an active member")
    assert _counts() == before


@pytest.fixture
def drawn(club, org):
    """A night of 10 with game 1 drawn (no results yet)."""
    night = _night(club, org)
    club_services.pair_next_game(night, actor=org)
    return night


def _apart(night: Night) -> tuple[Game, Game]:
    one, two = _games(night, 1)[:2]
    return one, two


@pytest.mark.parametrize(
    ("line", "words"),
    [
        ("{a} 1600 389", "outside 0..1500"),
        ("{a} 412 -5", "outside 0..1500"),
        ("zed 412 389", "'zed' is not a player at this night"),
        ("g 412 389", "Gil Day; Gus Guest"),
        ("{a} 412 {c} 389", "{c}"),
        ("99 412 389", "99"),
        ("412", ""),
        ("b9 412 389", "9"),
        ("ann bob", ""),
    ],
)
def test_result_line_refusals(drawn, org, line, words):
    one, two = _apart(drawn)
    fill = {"a": one.player1.number, "c": two.player1.number}
    before = _counts()
    for extra in ({}, HTMX):
        response = _client(org).post(
            _url(drawn, "results/"), {"line": line.format(**fill)}, **extra
        )
        _refused(response, "line", words.format(**fill))
    assert _counts() == before


def test_a_recorded_result_is_not_entered_twice(drawn, org):
    game = _games(drawn, 1)[0]
    client = _client(org)
    assert (
        client.post(_url(drawn, "results/"), {"line": f"{game.player1.number} 400 300"}).status_code
        == 200
    )
    before = _counts()
    response = client.post(_url(drawn, "results/"), {"line": f"{game.player1.number} 401 300"})
    _refused(response, "line", "")
    assert _counts() == before
    game.refresh_from_db()
    assert (game.score1, game.score2) == (400, 300)


def test_result_before_any_draw_and_after_closing(club, org):
    night = _night(club, org, names=["Ann Lee"], guests=["Gus Guest"])
    client = _client(org)
    before = _counts()
    _refused(
        client.post(_url(night, "results/"), {"line": "1 400 300"}), "line", "round 1 is not paired"
    )
    _refused(client.post(_url(night, "results/"), {"line": ""}), "line", "type a result")
    assert _counts() == before
    client.post(_url(night, "draw/"))
    assert client.post(_url(night, "results/"), {"line": "1 400 300"}).status_code == 200
    assert client.post(_url(night, "close/")).status_code == 200
    before = _counts()
    _refused(client.post(_url(night, "results/"), {"line": "1 400 300"}), "line", "is closed")
    _refused(
        client.post(
            _url(night, "log/"), {"player": "1", "opponent": "2", "score": "1", "opp_score": "2"}
        ),
        "log",
        "is closed",
    )
    _refused(client.post(_url(night, "players/"), {"name": "Late"}), "name", "is closed")
    _refused(client.post(_url(night, "draw/")), "draw", "is closed")
    _refused(client.post(_url(night, "close/")), "close", "")
    _refused(client.post(_url(night, "reopen/"), {"reason": ""}), "reason", "say why")
    assert _counts() == before
    assert Night.objects.get(pk=night.pk).closed


def test_reopening_an_open_night_is_refused(drawn, org):
    before = _counts()
    _refused(_client(org).post(_url(drawn, "reopen/"), {"reason": "x"}), "reason", "not closed")
    assert _counts() == before


def test_closing_with_missing_results_is_refused(drawn, org):
    before = _counts()
    for extra in ({}, HTMX):
        response = _client(org).post(_url(drawn, "close/"), **extra)
        _refused(response, "close", "5 game(s) without a result")
    assert _counts() == before
    assert not Night.objects.get(pk=drawn.pk).closed


def test_log_game_refusals(club, org, drawn):
    hill = club_services.create_club(name="Lakeside", actor=org)
    club_services.create_night(hill, date=DAY, players=[], guests=["Zed Zee", "Yan Yu"], actor=org)
    one, two = _apart(drawn)
    a, c = one.player1, two.player1
    cases = [
        ({"player": a.name, "opponent": "Zed Zee"}, "opponent", "'Zed Zee' is not a player"),
        ({"player": "yan", "opponent": a.name}, "player", "'yan' is not a player at this"),
        ({"player": a.name, "opponent": c.name}, "player", "already"),
        ({"player": a.name, "opponent": a.name}, "opponent", ""),
        ({"player": a.name, "opponent": "", "score": "1"}, "opponent", "required"),
        ({"player": a.name, "opponent": c.name, "score": "1600"}, "score", "0..1500"),
        ({"player": a.name, "opponent": c.name, "opp_score": "-1"}, "opp_score", "0..1500"),
        ({"player": a.name, "opponent": c.name, "score": "lots"}, "score", "whole number"),
        ({"player": "g", "opponent": c.name}, "player", "Gil Day; Gus Guest"),
    ]
    client = _client(org)
    before = _counts()
    for changes, field, words in cases:
        data = {"score": "400", "opp_score": "300", **changes}
        for extra in ({}, HTMX):
            _refused(client.post(_url(drawn, "log/"), data, **extra), field, words)
    assert _counts() == before


def test_latecomer_refusals(drawn, org):
    client = _client(org)
    before = _counts()
    _refused(client.post(_url(drawn, "players/"), {"name": ""}), "name", "required")
    _refused(client.post(_url(drawn, "players/"), {"name": "Ann Lee"}), "name", "Ann Lee")
    _refused(client.post(_url(drawn, "players/"), {"name": "x" * 201}), "name", "at most 200")
    assert _counts() == before


HOSTILE = [
    "",
    " ",
    "\x00",
    "-1",
    "0",
    "99999999999999999999999",
    "1e9",
    "NaN",
    "１２",
    "<script>x",
    "'; drop table x; --",
    "%00",
    "a" * 5000,
    "../../etc/passwd",
    "b0 1 1",
    "0 0 0 0 0",
]
FIELDS = [
    "players",
    "guests",
    "games",
    "draw",
    "date",
    "line",
    "player",
    "opponent",
    "score",
    "opp_score",
    "name",
    "guest",
    "reason",
]


def test_hostile_values_never_answer_500(drawn, org):
    client = _client(org)
    club = drawn.club
    urls = [reverse("clubs:night_new", args=[club.slug])] + [
        _url(drawn, what) for what in ("results/", "log/", "players/", "reopen/")
    ]
    for url in urls:
        for value in HOSTILE:
            data = {field: value for field in FIELDS}
            for extra in ({}, HTMX):
                response = client.post(url, data, **extra)
                assert response.status_code < 500, (url, value, response.status_code)
    for value in ("99999999999999999999999", "0"):
        for path in ("", "screen/"):
            url = f"/clubs/{club.slug}/nights/{value}/{path}"
            assert client.get(url).status_code == 404, url
    assert client.get(f"/clubs/{club.slug}/nights/abc/").status_code == 404


def test_the_run_pages_links_answer_for_the_organiser(drawn, org):
    client = _client(org)
    html = htmllib.unescape(client.get(_url(drawn)).content.decode())
    slug = drawn.tournament.slug
    links = {
        "pairings": f"/t/{slug}/desk/club/report.pdf?kind=pairings&round=1",
        "scorecards": f"/t/{slug}/desk/club/report.pdf?kind=scorecards",
        "tsh": f"/t/{slug}/desk/export/all.tsh",
        "console": f"/t/{slug}/console/",
        "screen": _url(drawn, "screen/"),
        "standings": f"/t/{slug}/club/standings/",
    }
    for what, url in links.items():
        assert f'href="{url}"' in html, what
        response = client.get(url)
        assert response.status_code in (200, 302), (what, response.status_code)
        if what in ("pairings", "scorecards"):
            assert response["Content-Type"] == "application/pdf"
        if what == "tsh":
            assert b"Ann Lee" in response.content or b"Lee, Ann" in response.content


# --------------------------------------------------------------------------- in a browser


def _signed_in_context(chromium, live_server, user):
    client = _client(user)
    context = chromium.new_context(viewport={"width": 390, "height": 844})
    context.add_cookies(
        [{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}]
    )
    return context


@pytest.mark.skipif(BROWSER_OFF, reason="GIBSON_BROWSER_TESTS=0: the browser ran them once")
@pytest.mark.skipif(not HAVE_PLAYWRIGHT, reason="playwright is not installed")
@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Debian's chromium is not installed")
@pytest.mark.django_db(transaction=True)
def test_a_night_at_a_phones_width(browser, live_server, org, club):  # noqa: F811
    """One tap a member, a draw select a game, then the result box typed by name: the box
    empties on Enter and keeps the focus, and a refused line comes back for fixing."""
    page = _signed_in_context(browser, live_server, org).new_page()
    page.goto(live_server.url + reverse("clubs:night_new", args=[club.slug]))
    for name in ("Ann Lee", "Bob Ray", "Cat Fox", "Dan Poe"):
        page.get_by_text(name, exact=True).click()
    assert page.locator("#here-count").inner_text() == "4"
    page.fill("#id_games", "4")
    page.dispatch_event("#id_games", "input")
    assert page.locator("#draws label[data-game]:not([hidden])").count() == 4
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.click("button.submit")
    page.wait_for_url(re.compile(r".*/nights/[0-9]+/$"))
    night = Night.objects.get(club=club)
    assert night.games == 4 and night.draw == "random,koth,koth,koth"
    page.click("#draw-button")
    page.wait_for_selector("table.games tr.missing")
    game = _games(night, 1)[0]
    page.focus("#id_line")
    page.keyboard.type("zed 400 300")
    page.keyboard.press("Enter")
    page.wait_for_selector("#id_line_error")
    assert page.input_value("#id_line") == "zed 400 300"
    page.fill("#id_line", "")
    page.keyboard.type(f"{_first_name(game, 1)} 400 300")
    page.keyboard.press("Enter")
    page.wait_for_selector(".echo[data-kind=recorded]")
    assert page.input_value("#id_line") == ""
    assert page.evaluate("document.activeElement.id") == "id_line"
    assert page.locator("#links a", has_text="Printable pairings (game 1)").count() == 1
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    game.refresh_from_db()
    assert (game.score1, game.score2) == (400, 300)
    screen = browser.new_page(viewport={"width": 1280, "height": 720})
    screen.goto(live_server.url + _url(night, "screen/"))
    assert game.player1.player.name in screen.inner_text("#screen")
