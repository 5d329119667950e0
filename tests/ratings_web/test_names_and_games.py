"""Issue 17 item 8 on the rating pages: names found in either order, and the Games column
showing the games really rated (a newcomer seeded from elsewhere is not 100 games ahead)."""

from __future__ import annotations

import csv
import io
import re

import pytest

from ratings.models import PlayerRating
from tournament.models import Player

pytestmark = pytest.mark.django_db


def text(response) -> str:
    return response.content.decode()


@pytest.fixture
def esposito(world) -> Player:
    """A family-name-first player on the club list (rated through a real submission)."""
    import datetime

    from ratings.engine import RatedGame
    from ratings.services import submit_event

    emil = Player.objects.create(name="Esposito, Emil")
    submit_event(
        world.club,
        name="Esposito Night",
        date=datetime.date(2024, 8, 1),
        configured_rounds=1,
        games=[RatedGame(1, emil.pk, world.ann.pk, 420, 380)],
        start={emil.pk: (0, 0)},
    )
    return emil


@pytest.mark.parametrize("q", ["Emil Esposito", "esposito, emil", "Esposito Emil", "emil"])
def test_list_search_finds_either_order(client, world, esposito, q):
    page = text(client.get("/ratings/club/", {"q": q}))
    assert "Esposito, Emil" in page and "Bob Beta" not in page


@pytest.mark.parametrize("q", ["Emil Esposito", "esposito,emil"])
def test_player_search_finds_either_order(client, world, esposito, q):
    page = text(client.get("/players/", {"q": q}))
    assert f'href="/players/{esposito.pk}/"' in page and "Ann Alpha" not in page


def test_words_must_all_match(client, world, esposito):
    page = text(client.get("/ratings/club/", {"q": "Emil Alpha"}))
    assert "Esposito, Emil" not in page and "Ann Alpha" not in page


def _games_cell(page: str, player: Player) -> int:
    row = re.search(rf'<a href="/players/{player.pk}/">.*?</tr>', page, flags=re.S)
    assert row, "player not on the page"
    return int(re.findall(r'<td class="num wide">(\d+)</td>', row.group(0))[0])


def test_games_column_is_the_real_count_for_a_seeded_newcomer(client, world):
    # Eve entered Summer Open with a seed of 1300 and no career count: one rated game (the
    # other round was a bye). The K table treats her as 100 games in; the page must not.
    eve = PlayerRating.objects.get(rating_list=world.club, player=world.eve)
    assert eve.start_career_games is None and eve.start_rating == 1300
    assert eve.career_games == 101  # what the engine carries (the K table's assumption)
    assert eve.rated_games == 1
    assert _games_cell(text(client.get("/ratings/club/")), world.eve) == 1
    r = client.get("/ratings/club/ratings.csv")
    rows = list(csv.reader(io.StringIO(b"".join(r.streaming_content).decode())))
    header = rows[0]
    eve_row = next(r for r in rows if "alert(1)" in r[1])
    assert eve_row[header.index("rated games")] == "1"
    profile = text(client.get(f"/players/{world.eve.pk}/"))
    assert '<td class="num wide">1</td>' in profile and ">101<" not in profile


def test_games_column_keeps_a_known_career(client, world):
    # Ann came onto the list with 100 known games and played 2 + 3 + 1 since
    ann = PlayerRating.objects.get(rating_list=world.club, player=world.ann)
    assert ann.start_career_games == 100
    assert ann.rated_games == ann.career_games == 106
    assert _games_cell(text(client.get("/ratings/club/")), world.ann) == 106


def _live_event(world, start, end, score_all=False):
    from pairings.services.store import PlannedGame, save_round_pairings
    from tournament import services

    t = services.create_tournament(name="Live Open", start_date=start, end_date=end, published=True)
    d = services.create_division(t, name="A", rounds=3)
    for p in (world.ann, world.bob, world.cat, world.dan):
        services.register_player(d, player=p, rating=1500)
    save_round_pairings(
        d, 1, [PlannedGame(1, 2, board=1), PlannedGame(3, 4, board=2)], system="manual"
    )
    services.record_result(d, 1, 1, 400, 300)
    if score_all:
        services.record_result(d, 1, 3, 400, 300)
    return t, d


def test_the_event_a_player_is_playing_is_on_their_profile(client, world):
    import datetime

    today = datetime.date.today()
    t, d = _live_event(world, today - datetime.timedelta(days=1), today)
    page = text(client.get(f"/players/{world.ann.pk}/"))
    assert "Playing now" in page
    live = page[page.index('id="live"') :]
    assert f"/t/{t.slug}/{d.slug}/player/1/" in live.split("</ul>")[0]
    # round 1 complete, rounds 2-3 still to pair: still live
    from tournament import services

    services.record_result(d, 1, 3, 400, 300)
    assert "Playing now" in text(client.get(f"/players/{world.ann.pk}/"))


def test_a_finished_or_old_event_is_not_live(client, world):
    import datetime

    today = datetime.date.today()
    # over: its end date is past
    _live_event(world, today - datetime.timedelta(days=40), today - datetime.timedelta(days=39))
    assert "Playing now" not in text(client.get(f"/players/{world.ann.pk}/"))
    from ratings.selectors import live_entries

    assert live_entries(world.ann.pk, today) == []
    # no end date, started long ago: abandoned, not live
    _live_event(world, today - datetime.timedelta(days=100), None)
    assert live_entries(world.ann.pk, today) == []
    # no end date, started yesterday: live
    _t, d = _live_event(world, today - datetime.timedelta(days=1), None)
    assert [e.division_id for e in live_entries(world.ann.pk, today)] == [d.pk]


def _upcoming(page: str) -> str:
    """The profile's Upcoming list ('' when it has none)."""
    if "<h2>Upcoming</h2>" not in page:
        return ""
    return page.split("<h2>Upcoming</h2>", 1)[1].split("</ul>", 1)[0]


def test_a_finished_event_is_not_upcoming(client, world):
    """Issue 31: an event of today whose rounds are all scored showed under "Upcoming" (its
    start date was not past); so did a finished event without dates, and one whose end date
    passed with results missing. Finished is: every round paired and scored, or the end date
    past. A future event and today's event not started yet stay upcoming."""
    import datetime

    from pairings.services.store import PlannedGame, save_round_pairings
    from ratings.selectors import upcoming_entries
    from tournament import services

    today = datetime.date.today()

    def event(name: str, start, end, scored: int) -> None:
        t = services.create_tournament(name=name, start_date=start, end_date=end, published=True)
        d = services.create_division(t, name="A", rounds=1)
        for p in (world.ann, world.bob, world.cat, world.dan):
            services.register_player(d, player=p, rating=1500)
        if scored:
            games = [PlannedGame(1, 2, board=1), PlannedGame(3, 4, board=2)]
            save_round_pairings(d, 1, games, system="manual")
        for first in (1, 3)[:scored]:
            services.record_result(d, 1, first, 400, 300)

    event("Done Today", today, today, scored=2)
    event("Done Undated", None, None, scored=2)
    days_ago = [today - datetime.timedelta(days=n) for n in (3, 1)]
    event("Ended Unscored", *days_ago, scored=0)
    event("Starts Today", today, today, scored=0)
    upcoming = _upcoming(text(client.get(f"/players/{world.ann.pk}/")))
    for finished in ("Done Today", "Done Undated", "Ended Unscored"):
        assert finished not in upcoming, (finished, upcoming)
    assert "Starts Today" in upcoming and "Future Cup" in upcoming
    names = [e.division.tournament.name for e in upcoming_entries(world.ann.pk, today)]
    assert names == ["Starts Today", "Future Cup"]


def test_games_column_of_an_unseeded_newcomer_without_lifeg():
    # TSH counts a missing lifeg as 100 games for newcomers too (docs/ratings.md rule 3), so
    # the engine carries 100 + 3 for a newcomer who came with no rating and no career count;
    # the Games column still shows the 3 games rated.
    row = PlayerRating(start_rating=0, start_career_games=None, rating=1400, career_games=103)
    assert row.rated_games == 3
