"""Issue 36, item 3: rating lists filtered by lexicon and activity, names that link to the
player on the round and cross-table pages, and a head-to-head with its last meeting, paged."""

from __future__ import annotations

import datetime
import html
import re

import pytest

from pairings.services.store import PlannedGame, save_round_pairings
from ratings.engine import RatedGame
from ratings.services import submit_event
from tournament import services
from tournament.models import Tournament

from .conftest import World


def names(page: str) -> list[str]:
    return [html.unescape(n) for n in re.findall(r'<td><a href="/players/\d+/">([^<]+)</a>', page)]


def test_the_lexicon_filter_keeps_players_of_events_in_that_lexicon(client, world: World):
    Tournament.objects.filter(pk=world.summer.pk).update(lexicon="CSW24")
    page = client.get("/ratings/club/", {"lexicon": "csw24"}).content.decode()
    # the summer's three players; Cat and Dan played only the spring (no lexicon given)
    assert sorted(names(page)) == sorted([world.ann.name, world.bob.name, world.eve.name])
    assert 'name="lexicon" value="csw24"' in page


def test_the_active_filter_keeps_players_rated_in_the_last_12_months(client, world: World):
    recent = datetime.date.today() - datetime.timedelta(days=30)
    submit_event(
        world.club,
        name="Recent Club Night",
        date=recent,
        configured_rounds=1,
        games=[RatedGame(1, world.cat.pk, world.dan.pk, 400, 350)],
    )
    everyone = names(client.get("/ratings/club/").content.decode())
    active = names(client.get("/ratings/club/", {"active": "1"}).content.decode())
    assert len(everyone) > 2
    assert sorted(active) == sorted([world.cat.name, world.dan.name])
    response = client.get("/ratings/club/ratings.csv", {"active": "1"})
    csv = b"".join(response.streaming_content).decode()
    assert world.cat.name in csv and world.ann.name not in csv


@pytest.mark.parametrize("raw", ["yes", "2", "x" * 101])
def test_a_bad_active_value_is_refused(client, world: World, raw):
    response = client.get("/ratings/club/", {"active": raw})
    assert response.status_code == 400
    assert "active" in response.content.decode()


def test_round_and_cross_table_names_link_to_the_players(client, world: World):
    t = world.spring
    d = t.divisions.get()
    round_page = client.get(f"/t/{t.slug}/{d.slug}/round/1/").content.decode()
    assert f'<a href="/t/{t.slug}/{d.slug}/player/1/">Ann Alpha</a>' in round_page
    cross = client.get(f"/t/{t.slug}/{d.slug}/crosstable/").content.decode()
    assert f'<a href="/t/{t.slug}/{d.slug}/player/2/">Bob Beta</a>' in cross


def test_head_to_head_names_the_last_meeting(client, world: World):
    page = client.get(f"/players/{world.ann.pk}/vs/{world.bob.pk}/").content.decode()
    last = re.search(r'<dd id="last-meeting">([^<]+)</dd>', page).group(1)
    # their last game: Summer Open round 1, Ann 410 Bob 400
    assert last.startswith("410-400 (won), Summer Open round 1")


def test_a_long_head_to_head_is_paged_newest_first(client, world: World):
    t = services.create_tournament(
        name="Marathon", published=True, start_date=datetime.date(2025, 1, 1)
    )
    d = services.create_division(t, name="A", rounds=130)
    services.register_player(d, player=world.ann, rating=1500)
    services.register_player(d, player=world.bob, rating=1400)
    for r in range(1, 131):
        save_round_pairings(d, r, [PlannedGame(1, 2)], system="manual")
        services.record_result(d, r, 1, 300 + r, 300)
    url = f"/players/{world.ann.pk}/vs/{world.bob.pk}/"
    first = client.get(url).content.decode()
    assert "page 1 of 2" in first and "games, newest first" in first
    assert first.count("Marathon</a>") == 100
    assert "430-300 (won), Marathon round 130" in first
    second = client.get(url, {"page": "2"}).content.decode()
    assert "page 2 of 2" in second
    assert client.get(url, {"page": "3"}).status_code == 400
    assert client.get(url, {"page": "x"}).status_code == 400
