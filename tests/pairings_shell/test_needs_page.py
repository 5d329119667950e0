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
from tests.builders import last_round_paired

pytestmark = pytest.mark.django_db


@pytest.fixture
def close_field():
    """Ten players after two rounds, round 3 (the last) paired, four prize places."""
    return last_round_paired("Need Close", "need-close").divisions.get()


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
