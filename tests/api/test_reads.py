"""Reads: each resource as the public pages show it, drafts hidden, standings equal to the
command's, pages and filters, ETag/304."""

from __future__ import annotations

import json
from io import StringIO

from django.core.management import call_command
from rest_framework.test import APIClient

from tests.core.conftest import make_director
from tournament import services
from tournament.models import Entry
from tournament.services.selfentry import issue_token

from .conftest import SECRETS, token_client

BASE = "/api/v1/tournaments/api-open/"
DIV = BASE + "divisions/a/"


def get(url: str, client: APIClient | None = None, **extra):
    return (client or APIClient()).get(url, **extra)


def test_tournament_list_and_detail(event):
    r = get("/api/v1/tournaments/")
    assert r.status_code == 200
    assert r["Content-Type"] == "application/json"
    body = r.json()
    assert body["count"] == 1
    assert body["results"][0]["slug"] == "api-open"
    assert body["results"][0]["divisions"] == ["a"]
    r = get(BASE)
    assert r.json()["name"] == "Api Open"


def test_divisions_entries_rounds_games(event):
    assert [d["slug"] for d in get(BASE + "divisions/").json()["results"]] == ["a"]
    assert get(DIV).json()["rounds"] == 3
    entries = get(DIV + "entries/").json()["results"]
    assert [(e["number"], e["name"], e["seed_rating"]) for e in entries] == [
        (1, "Able, Ann", 1800),
        (2, "Baker, Bo", 1700),
        (3, "Cole, Cy", 1600),
        (4, "Dunn, Di", 1500),
    ]
    rounds = get(DIV + "rounds/").json()["results"]
    assert [r["number"] for r in rounds] == [1, 2]
    g = rounds[0]["games"][0]
    assert (g["player1"]["number"], g["player2"]["number"], g["score1"], g["score2"]) == (
        1,
        2,
        420,
        380,
    )
    assert all(g["score1"] is None for g in rounds[1]["games"])
    games = get(DIV + "games/?round=2&player=4").json()["results"]
    assert [(g["player1"]["number"], g["player2"]["number"]) for g in games] == [(1, 4)]
    assert get(DIV + "games/?scored=true").json()["count"] == 2


def test_standings_equal_the_command(event):
    t, d = event
    for after in (None, 0, 1, 2):
        out = StringIO()
        args = ["standings", "api-open", "--json"]
        if after is not None:
            args += ["--after-round", str(after)]
        call_command(*args, stdout=out)
        url = DIV + "standings/" + (f"?after_round={after}" if after is not None else "")
        body = get(url).json()
        assert body["rows"] == json.loads(out.getvalue()), after
        assert body["after_round"] == (2 if after is None else after)


def test_standings_after_an_unpaired_round_is_refused_at_its_field(event):
    for bad, code in (("9", "number_too_large"), ("x", "not_a_number"), ("-1", "below_minimum")):
        r = get(DIV + "standings/?after_round=" + bad)
        assert r.status_code == 400
        err = r.json()["errors"][0]
        assert (err["field"], err["code"]) == ("after_round", code)


def test_rating_lists_and_player_history(event, db):
    from ratings.models import PlayerRating, RatingList
    from tournament.models import Player

    lst = RatingList.objects.create(name="Club list", slug="club")
    ann = Player.objects.get(name="Able, Ann")
    PlayerRating.objects.create(rating_list=lst, player=ann, rating=1810)
    assert get("/api/v1/rating-lists/").json()["results"][0]["slug"] == "club"
    ratings = get("/api/v1/rating-lists/club/ratings/").json()["results"]
    assert ratings == [
        {
            "player_id": ann.pk,
            "name": "Able, Ann",
            "rating": 1810,
            "career_games": None,
            "last_event_date": None,
        }
    ]
    player = get(f"/api/v1/players/{ann.pk}/").json()
    assert player["ratings"] == [{"rating_list": "club", "rating": 1810, "career_games": None}]
    assert player["history"] == []
    assert get("/api/v1/rating-lists/nope/ratings/").status_code == 404
    assert get("/api/v1/players/999999/").json()["errors"][0]["code"] == "not_found"


def test_no_contact_details_nor_entry_tokens_anywhere(event, db):
    from ratings.models import PlayerRating, RatingList
    from tournament.models import Player

    t, d = event
    lst = RatingList.objects.create(name="Club list", slug="club")
    for p in Player.objects.all():
        PlayerRating.objects.create(rating_list=lst, player=p, rating=1500)
    tokens = [e.entry_token for e in Entry.objects.all()]
    assert all(tokens)
    urls = [
        "/api/v1/tournaments/",
        BASE,
        BASE + "divisions/",
        DIV,
        DIV + "entries/",
        DIV + "rounds/",
        DIV + "games/",
        DIV + "standings/",
        "/api/v1/rating-lists/",
        "/api/v1/rating-lists/club/ratings/",
        *(f"/api/v1/players/{p.pk}/" for p in Player.objects.all()),
    ]
    director = make_director(t, "seer")
    for client in (APIClient(), token_client(director)):
        for url in urls:
            r = client.get(url)
            assert r.status_code == 200, url
            text = r.content.decode()
            for secret in (*SECRETS, *tokens):
                assert secret not in text, (url, secret)
            assert "email" not in text and "phone" not in text and "entry_token" not in text


def test_a_draft_is_hidden_but_its_staff_see_it(event):
    t, d = event
    services.publish_tournament(t, False, None)
    assert get("/api/v1/tournaments/").json()["count"] == 0
    for url in (BASE, DIV, DIV + "entries/", DIV + "standings/", DIV + "rounds/"):
        r = get(url)
        assert r.status_code == 404, url
        assert r.json()["errors"][0]["code"] == "not_found"
    other = services.create_tournament(name="Other", slug="other")
    outsider = make_director(other, "outsider")
    assert get(BASE, token_client(outsider)).status_code == 404
    staff = token_client(make_director(t, "owner"))
    assert get(BASE, staff).json()["published"] is False
    slugs = [x["slug"] for x in get("/api/v1/tournaments/", staff).json()["results"]]
    assert "api-open" in slugs
    anonymous = [x["slug"] for x in get("/api/v1/tournaments/").json()["results"]]
    assert "api-open" not in anonymous
    assert get(DIV + "entries/", staff).status_code == 200


def test_pagination_and_filters(event):
    body = get(DIV + "entries/?limit=2&offset=1").json()
    assert body["count"] == 4
    assert [e["number"] for e in body["results"]] == [2, 3]
    assert body["next"] and body["previous"]
    assert [e["number"] for e in get(DIV + "entries/?name=baker").json()["results"]] == [2]
    services.create_tournament(name="Second Event", slug="second")
    names = [t["slug"] for t in get("/api/v1/tournaments/?name=api").json()["results"]]
    assert names == ["api-open"]
    assert get("/api/v1/tournaments/?limit=1").json()["count"] >= 1


def test_etag_304_until_a_result_changes_it(event):
    t, d = event
    for url in (BASE, DIV + "standings/", DIV + "rounds/", "/api/v1/tournaments/"):
        first = get(url)
        etag = first["ETag"]
        assert etag
        again = get(url, HTTP_IF_NONE_MATCH=etag)
        assert again.status_code == 304, url
        assert again.content == b""
    etag = get(DIV + "standings/")["ETag"]
    services.record_result(d, 2, 1, 400, 300)
    changed = get(DIV + "standings/", HTTP_IF_NONE_MATCH=etag)
    assert changed.status_code == 200
    assert changed["ETag"] != etag
    site_etag = get("/api/v1/tournaments/")["ETag"]
    services.record_result(d, 2, 2, 390, 380)
    assert get("/api/v1/tournaments/", HTTP_IF_NONE_MATCH=site_etag).status_code == 200


def test_a_draft_gets_no_etag(event):
    t, d = event
    services.publish_tournament(t, False, None)
    staff = token_client(make_director(t, "owner"))
    assert not get(BASE, staff).has_header("ETag")


def test_entry_tokens_stay_secret_after_reissue(event):
    t, d = event
    entry = d.entries.get(number=1)
    token = issue_token(entry)
    assert token not in get(DIV + "entries/").content.decode()


def test_any_other_address_under_api_is_a_json_404(db):
    for url in ("/api/v1/players/-1/", "/api/v1/nothing/", "/api/v1/tournaments/a%20b/"):
        r = get(url)
        assert r.status_code == 404, url
        assert r["Content-Type"] == "application/json"
        assert r.json()["errors"][0]["code"] == "not_found"
