"""The player's page's "What you need" reads at a glance (issue 31, a director's weekend).

With ten players close together before the last round, a player's statement for a place
still open ran to 2,500 characters on one line. The page now says, for each such place, what
every way needs and how many ways there are, with the full list of ways behind a tap
(<details>), simplest first; the command and the API keep the whole statements.
"""

from __future__ import annotations

import re

import pytest
from django.test import Client

from pairings.needs import division_needs
from pairings.services.store import PlannedGame, save_round_pairings
from tournament import services

pytestmark = pytest.mark.django_db


@pytest.fixture
def close_field():
    """Ten players after two rounds, round 3 (the last) paired, four prize places."""
    t = services.create_tournament(name="Need Close", slug="need-close")
    services.publish_tournament(t, True, None)
    d = services.create_division(t, name="A", rounds=3, prize_places=4)
    for i in range(10):
        services.register_player(d, name=f"P{i:02d}, Pat", rating=2000 - i * 10)
    save_round_pairings(d, 1, [PlannedGame(2 * i + 1, 2 * i + 2) for i in range(5)])
    for i in range(5):
        services.record_result(d, 1, 2 * i + 1, 400 + i * 3, 380 - i * 2)
    pairs = [(1, 3), (5, 7), (9, 2), (4, 6), (8, 10)]
    save_round_pairings(d, 2, [PlannedGame(a, b) for a, b in pairs])
    for a, scores in zip(
        (1, 5, 9, 4, 8),
        ((400, 390), (410, 400), (380, 400), (405, 395), (390, 385)),
        strict=True,
    ):
        services.record_result(d, 2, a, *scores)
    pairs = [(1, 5), (3, 9), (7, 4), (2, 6), (8, 10)]
    save_round_pairings(d, 3, [PlannedGame(a, b) for a, b in pairs])
    d.refresh_from_db()
    return d


def _text(html: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


def test_a_long_statement_shows_what_matters_first_and_every_way_behind_a_tap(close_field):
    full = division_needs(close_field, 8).players[0].lines
    assert max(len(line) for line in full) > 2000  # the statement the page used to print
    html = Client().get("/t/need-close/a/player/8/").content.decode()
    section = html[html.index('id="needs"') : html.index("</section>", html.index('id="needs"'))]
    shown = re.sub(r"<details>.*?</details>", "", section, flags=re.S)
    items = [_text(li) for li in re.findall(r"<li>(.*?)</li>", shown, flags=re.S)]
    assert items and max(len(item) for item in items) <= 320, items
    assert len(_text(shown)) < 800
    assert items[0].startswith("2nd or better: in every way, you win; #2 P01, Pat does not")
    assert "Can no longer finish above 2nd." in items
    # behind the tap: every condition of every statement, each way a list item
    hidden = _text(" ".join(re.findall(r"<details>.*?</details>", section, flags=re.S)))
    for line in (line for line in full if len(line) > 160):  # the long ones are grouped
        for condition in re.split(r"; or | and |, for example if | if ", line.rstrip(".")):
            if condition and not condition.endswith("better") and condition != "you win":
                assert condition in hidden, condition
    assert section.count("<details>") == 3 and "All 6 ways, simplest first" in section


def test_short_statements_stay_as_they_are(close_field):
    html = Client().get("/t/need-close/a/player/6/").content.decode()
    section = html[html.index('id="needs"') : html.index("</section>", html.index('id="needs"'))]
    assert "<details>" not in section
    assert "Can no longer finish in the prizes (top 4)." in _text(section)
