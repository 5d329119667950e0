"""Club reads: the club, members and guests, nights, seasons and a season's ladder as the
club's services and selectors made them; 404s in the errors shape; nothing private; ETag/304
moved by a club write."""

from __future__ import annotations

import datetime

import pytest
from rest_framework.test import APIClient

from tournament.clubs import selectors
from tournament.clubs import services as clubs
from tournament.models import Game

from .clubdata import CLUB_SECRETS, NIGHT_GAMES
from .conftest import token_client

BASE = "/api/v1/clubs/riverside/"


def get(url: str, client: APIClient | None = None, **extra):
    return (client or APIClient()).get(url, **extra)


def test_club_list_filters_and_pages(club_data):
    body = get("/api/v1/clubs/").json()
    assert body["count"] == 2
    assert [c["slug"] for c in body["results"]] == ["hilltop", "riverside"]
    riverside = body["results"][1]
    assert riverside == {
        "slug": "riverside",
        "name": "Riverside",
        "city": "Springfield",
        "country": "USA",
        "meets": "Tuesdays 7pm, Library",
        "realm": "nsa",
    }
    assert [c["slug"] for c in get("/api/v1/clubs/?name=river").json()["results"]] == ["riverside"]
    assert [c["slug"] for c in get("/api/v1/clubs/?city=shelby").json()["results"]] == ["hilltop"]
    assert get("/api/v1/clubs/?country=usa").json()["count"] == 2
    assert get("/api/v1/clubs/?country=France").json()["count"] == 0
    page = get("/api/v1/clubs/?limit=1&offset=1").json()
    assert [c["slug"] for c in page["results"]] == ["riverside"] and page["previous"]


def test_club_detail(club_data):
    body = get(BASE).json()
    assert body["name"] == "Riverside"
    assert body["meets"] == "Tuesdays 7pm, Library"
    assert body["realm"] == "nsa"
    assert body["rating_list"] == club_data.club.rating_list.slug == "club-riverside"
    assert body["members"] == 3  # Viv lapsed, Gus a guest
    assert body["current_season"] == club_data.season.pk
    assert selectors.current_season(club_data.club).pk == club_data.season.pk


def test_members_are_active_members_and_guests(club_data):
    rows = get(BASE + "members/").json()["results"]
    assert [(r["name"], r["active"], r["guest"]) for r in rows] == [
        ("Reed, Rae", True, False),
        ("Shaw, Sam", True, False),
        ("Tate, Tia", True, False),
        ("Gray, Gus", True, True),
    ]
    rae = club_data.club.memberships.get(player__name="Reed, Rae")
    assert rows[0]["player_id"] == rae.player_id
    assert rows[0]["joined"] == "2024-01-09"
    assert rows[3]["joined"] is None
    assert set(rows[0]) == {"player_id", "name", "joined", "active", "guest"}
    guests = get(BASE + "members/?guest=true").json()["results"]
    assert [r["name"] for r in guests] == ["Gray, Gus"]
    assert [r["name"] for r in get(BASE + "members/?name=sha").json()["results"]] == ["Shaw, Sam"]


def test_nights(club_data):
    rows = get(BASE + "nights/").json()["results"]
    later, earlier = club_data.nights[1], club_data.nights[0]
    assert [r["date"] for r in rows] == [later.date.isoformat(), earlier.date.isoformat()]
    assert [r["tournament"] for r in rows] == [later.tournament.slug, earlier.tournament.slug]
    for r in rows:
        assert (r["players"], r["games"], r["games_recorded"], r["closed"]) == (
            4,
            2,
            len(NIGHT_GAMES),
            True,
        )
    clubs.reopen_night(later, actor=club_data.organiser, reason="a score to fix")
    closed = get(BASE + "nights/?closed=true").json()["results"]
    assert [r["date"] for r in closed] == [earlier.date.isoformat()]
    assert get(BASE + "nights/?closed=false").json()["results"][0]["closed"] is False
    after = get(BASE + f"nights/?after={later.date.isoformat()}").json()["results"]
    assert [r["date"] for r in after] == [later.date.isoformat()]


def test_a_night_without_results_counts_what_is_recorded(club_data):
    night = clubs.create_night(
        club_data.club,
        date=datetime.date.today(),
        players=["Reed, Rae", "Shaw, Sam"],
        games=3,
        actor=club_data.organiser,
    )
    clubs.pair_next_game(night, actor=club_data.organiser)
    row = get(BASE + "nights/").json()["results"][0]
    assert (row["date"], row["players"], row["games"], row["games_recorded"], row["closed"]) == (
        night.date.isoformat(),
        2,
        3,
        0,
        False,
    )


def test_seasons(club_data):
    rows = get(BASE + "seasons/").json()["results"]
    assert [r["id"] for r in rows] == [club_data.season.pk, club_data.archived.pk]
    current, earlier = rows
    assert current["name"] == "Current"
    assert current["start_date"] == club_data.season.start_date.isoformat()
    assert current["end_date"] == club_data.season.end_date.isoformat()
    assert current["preset"] == "wins"
    assert current["rule"]["win"] == 1 and current["rule"]["tie"] == 0.5
    assert (current["archived"], current["archived_at"], current["awards"]) == (False, None, [])
    assert earlier["archived"] is True and earlier["archived_at"]
    assert earlier["preset"] == "two-one" and earlier["rule"]["win"] == 2
    clubs.archive_season(club_data.season, actor=club_data.organiser)
    awards = get(BASE + "seasons/").json()["results"][0]["awards"]
    assert awards and awards == selectors.season_awards(club_data.season)
    assert awards[0]["award"] == "champion"


def test_season_ladder(club_data):
    body = get(BASE + f"seasons/{club_data.season.pk}/ladder/").json()
    expected = [row.as_dict() for row in selectors.season_ladder(club_data.season)]
    assert body == {"season": club_data.season.pk, "name": "Current", "rows": expected}
    assert len(body["rows"]) == 4
    assert sum(r["games"] for r in body["rows"]) == 2 * 2 * len(NIGHT_GAMES)
    assert all(r["nights"] == 2 for r in body["rows"])
    assert sum(r["wins"] for r in body["rows"]) == 2 * len(NIGHT_GAMES)
    assert sum(r["spread"] for r in body["rows"]) == 0
    assert [r["rank"] for r in body["rows"]] == [1, 2, 3, 4]
    empty = get(BASE + f"seasons/{club_data.archived.pk}/ladder/").json()
    assert empty["rows"] == []


@pytest.mark.parametrize(
    "url",
    [
        "/api/v1/clubs/nowhere/",
        "/api/v1/clubs/nowhere/members/",
        "/api/v1/clubs/nowhere/nights/",
        "/api/v1/clubs/nowhere/seasons/",
        "/api/v1/clubs/nowhere/seasons/1/ladder/",
        BASE + "seasons/999999/ladder/",
        BASE + "seasons/99999999999999999999/ladder/",
    ],
)
def test_unknown_club_or_season_is_a_404_in_the_errors_shape(club_data, url):
    r = get(url)
    assert r.status_code == 404
    assert r["Content-Type"] == "application/json"
    (entry,) = r.json()["errors"]
    assert entry["code"] == "not_found"
    assert set(entry) == {"code", "field", "message", "params"}
    assert not r.has_header("ETag")


def test_a_season_of_another_club_is_not_found(club_data):
    other = club_data.other_season.pk
    assert get(f"/api/v1/clubs/hilltop/seasons/{other}/ladder/").status_code == 200
    r = get(BASE + f"seasons/{other}/ladder/")
    assert r.status_code == 404
    assert r.json()["errors"][0]["code"] == "not_found"
    assert get(f"/api/v1/clubs/hilltop/seasons/{club_data.season.pk}/ladder/").status_code == 404


def test_nothing_private_in_any_answer(club_data):
    urls = [
        "/api/v1/clubs/",
        BASE,
        BASE + "members/",
        BASE + "members/?guest=true",
        BASE + "nights/",
        BASE + "seasons/",
        BASE + f"seasons/{club_data.season.pk}/ladder/",
    ]
    clubs.archive_season(club_data.season, actor=club_data.organiser)  # awards name players
    for client in (APIClient(), token_client(club_data.organiser)):
        for url in urls:
            r = client.get(url)
            assert r.status_code == 200, url
            text = r.content.decode()
            for secret in CLUB_SECRETS:
                assert secret not in text, (url, secret)
            assert "email" not in text and "phone" not in text, url

            def keys(value):
                if isinstance(value, dict):
                    for k, v in value.items():
                        yield k
                        yield from keys(v)
                elif isinstance(value, list):
                    for v in value:
                        yield from keys(v)

            assert not {"email", "phone", "organisers"} & set(keys(r.json())), url


def test_etag_304_until_a_club_write_changes_it(club_data):
    ladder = BASE + f"seasons/{club_data.season.pk}/ladder/"
    for url in (
        "/api/v1/clubs/",
        BASE,
        BASE + "members/",
        BASE + "nights/",
        BASE + "seasons/",
        ladder,
    ):
        first = get(url)
        etag = first["ETag"]
        assert etag
        again = get(url, HTTP_IF_NONE_MATCH=etag)
        assert again.status_code == 304, url
        assert again.content == b""
        assert again["ETag"] == etag
    etags = {url: get(url)["ETag"] for url in ("/api/v1/clubs/", BASE + "members/", ladder)}
    clubs.add_member(club_data.club, "Yew, Yan", actor=club_data.organiser)
    for url, etag in etags.items():
        changed = get(url, HTTP_IF_NONE_MATCH=etag)
        assert changed.status_code == 200, url
        assert changed["ETag"] != etag
    assert "Yew, Yan" in [r["name"] for r in get(BASE + "members/").json()["results"]]


def test_a_corrected_night_game_moves_the_ladder_etag(club_data):
    ladder = BASE + f"seasons/{club_data.season.pk}/ladder/"
    etag = get(ladder)["ETag"]
    night = club_data.nights[0]
    clubs.reopen_night(night, actor=club_data.organiser, reason="wrong score")
    division = night.tournament.divisions.get()
    game = Game.objects.filter(round__division=division, round__number=1).order_by("board")[0]
    from tournament.services import results

    results.correct_player_result(
        division, 1, game.player1.number, 500, 300, reason="wrong score", actor=club_data.organiser
    )
    r = get(ladder, HTTP_IF_NONE_MATCH=etag)
    assert r.status_code == 200
    assert r.json()["rows"] == [row.as_dict() for row in selectors.season_ladder(club_data.season)]
    assert all(row["nights"] == 1 for row in r.json()["rows"])  # the reopened night is out


def test_the_schema_documents_the_club_reads(db):
    schema = APIClient().get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    paths = schema.json()["paths"]
    for p in (
        "/api/v1/clubs/",
        "/api/v1/clubs/{slug}/",
        "/api/v1/clubs/{slug}/members/",
        "/api/v1/clubs/{slug}/nights/",
        "/api/v1/clubs/{slug}/seasons/",
        "/api/v1/clubs/{slug}/seasons/{season}/ladder/",
    ):
        assert set(paths[p]) == {"get"}, p
        assert "404" in paths[p]["get"]["responses"], p


@pytest.mark.django_db(transaction=True)
def test_real_answers_match_the_schema(live_server, club_data):
    """The fuzz run (test_schemathesis) rarely guesses a club's slug, so each club read is
    also called here with the real club and season and checked against its schema."""
    schemathesis = pytest.importorskip("schemathesis")
    from schemathesis.specs.openapi.checks import response_schema_conformance

    from .test_schemathesis import CHECKS

    assert response_schema_conformance in CHECKS
    clubs.archive_season(club_data.season, actor=club_data.organiser)  # awards in the answer
    schema = schemathesis.openapi.from_url(live_server.url + "/api/schema/")
    params = {"slug": "riverside", "season": club_data.season.pk}
    checked = 0
    for result in schema.get_all_operations():
        operation = result.ok()
        if not operation.path.startswith("/api/v1/clubs/"):
            continue
        wanted = {p.name for p in operation.path_parameters}
        case = operation.Case(path_parameters={k: params[k] for k in wanted})
        response = case.call(base_url=live_server.url)
        assert response.status_code == 200, operation.path
        case.validate_response(response, checks=CHECKS)
        checked += 1
    assert checked == 6
