"""Expensive reads are bounded: the API's page size, and PDFs, exports and pairing proposals per
client address (issue 19: 257 requests a minute of games/?limit=1000, under the old limit,
slowed cached pages to 3.6-9 s).

Each address gets GIBSON_HEAVY_RATE heavy requests (3 a minute here), then a 429 that names
the limit and when to try again; another address is not affected.
"""

from __future__ import annotations

import pytest
from django.core.cache import cache
from django.urls import reverse
from rest_framework.test import APIClient

from pairings.models import ScheduleRange
from pairings.services.store import PlannedGame, save_round_pairings
from ratings.services import create_rating_list, import_ratings
from tests.core.conftest import make_director
from tournament import services
from tournament.models import Game
from tournament.web.forms.pairing import encode_pairs

pytestmark = pytest.mark.django_db

RATE = "3/minute"


@pytest.fixture(autouse=True)
def heavy_rate(settings, tmp_path):
    settings.HEAVY_RATE = RATE
    settings.DATA_DIR = tmp_path
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def division():
    t = services.create_tournament(name="Heavy Open", slug="heavy-open", actor="test")
    services.publish_tournament(t, True, None)
    d = services.create_division(t, name="A", rounds=5, actor="test")
    for n in range(1, 9):
        services.register_player(d, name=f"Player{n}, Test", rating=1500 + n, actor="test")
    return d


def _limited(response, wait_at_most: int = 60) -> str:
    assert response.status_code == 429, response.status_code
    assert 1 <= int(response["Retry-After"]) <= wait_at_most
    return response.content.decode()


def test_the_desk_answers_three_then_a_429_naming_the_limit(client, division):
    client.force_login(make_director(division.tournament, "td"))
    desk = f"/t/{division.tournament.slug}/desk/"
    urls = [f"{desk}export/csv", f"{desk}a/report.pdf?kind=standings", f"{desk}export/tou"]
    assert [client.get(u).status_code for u in urls] == [200, 200, 400]  # tou: no date, refused
    text = _limited(client.get(f"{desk}export/csv"))
    assert "Too many PDFs, exports and pairing proposals from your address" in text
    assert "at most 3/minute (GIBSON_HEAVY_RATE)" in text
    # another address (another desk at another venue) is counted on its own
    assert client.get(f"{desk}export/csv", REMOTE_ADDR="10.0.0.7").status_code == 200


def test_pairing_proposals_count_but_publishing_does_not(client, division):
    client.force_login(make_director(division.tournament, "td"))
    ScheduleRange.objects.create(division=division, first_round=1, last_round=5, system="swiss")
    url = reverse("console:pair", args=(division.tournament.slug, division.slug, 1))
    for _ in range(3):
        assert client.get(url).status_code == 200
    assert "at most 3/minute" in _limited(client.get(url))
    games = encode_pairs([(2 * k + 1, 2 * k + 2) for k in range(4)])
    published = client.post(
        url, {"action": "publish", "publish-games": games, "publish-pins": "", "publish-system": ""}
    )
    assert published.status_code == 302, published.content[:800]
    assert Game.objects.filter(round__division=division, round__number=1).count() == 4


def test_the_api_pairing_is_throttled_with_the_apis_429(division):
    client = APIClient()
    client.force_authenticate(make_director(division.tournament, "apitd"))
    ScheduleRange.objects.create(division=division, first_round=1, last_round=5, system="swiss")
    api = f"/api/v1/tournaments/{division.tournament.slug}/divisions/{division.slug}/"
    assert client.post(f"{api}rounds/1/pair/", {}, format="json").status_code == 201
    # round 2 waits for round 1's results: refused, but the engine's door was knocked on
    assert client.post(f"{api}rounds/2/pair/", {}, format="json").status_code == 400
    assert client.post(f"{api}rounds/2/pair/", {}, format="json").status_code == 400
    r = client.post(f"{api}rounds/2/pair/", {}, format="json")
    assert r.status_code == 429, r.content
    err = r.json()["errors"][0]
    assert err["code"] == "throttled" and "try again in" in err["message"]
    assert 1 <= int(r["Retry-After"]) <= 60


def test_the_rating_list_csv_is_counted_too(client, db):
    lst = create_rating_list("Club", slug="club")
    import_ratings(lst, 'name,rating\n"Able, Ann",1500\n')
    for _ in range(3):
        assert client.get("/ratings/club/ratings.csv").status_code == 200
    _limited(client.get("/ratings/club/ratings.csv"))


def test_the_api_page_is_at_most_200_games(client, division):
    division.rounds = 60
    division.save(update_fields=["rounds"])
    for n in range(1, 53):  # 52 rounds of 4 games: 208 games
        save_round_pairings(division, n, [PlannedGame(2 * k + 1, 2 * k + 2) for k in range(4)])
    api = f"/api/v1/tournaments/{division.tournament.slug}/divisions/{division.slug}/games/"
    body = client.get(api + "?limit=1000").json()
    assert body["count"] == 208
    assert len(body["results"]) == 200
    assert "limit=200" in body["next"] and "offset=200" in body["next"]
    assert len(client.get(body["next"]).json()["results"]) == 8
