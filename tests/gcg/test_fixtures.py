"""Every real GCG file in fixtures/gcg/ imports with the totals and turn count it states.

The expected numbers are read off each file by eye (its last line for each player, its count
of '>' lines), not computed by the parser under test.
"""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command

from tests.conftest import REPO
from tournament.models import GameRecord

from .conftest import two_player_event

pytestmark = pytest.mark.django_db

FIXTURES = REPO / "fixtures" / "gcg"

# file: ((player1 full name, final total), (player2 full name, final total), turns, lexicon)
STATED = {
    "doug_v_emely.gcg": (("doug", 451), ("emely", 345), 28),
    "vs_josh_time_penalty.gcg": (("Cesar", 387), ("Josh", 397), 26),
    "many_challenges.gcg": (("Winter", 373), ("jvc", 477), 35),
    "polish_endgame.gcg": (("ptf1559", 316), ("smut3k", 323), 53),
    "vs_frentz.gcg": (("cesar", 439), ("frentz", 550), 25),
    "noah_vs_mishu.gcg": (("whatnoloan", 377), ("mishu7", 388), 36),
    "josh_nationals_round_1.gcg": (("Dielle", 419), ("jvc", 491), 26),
}


def test_every_fixture_file_has_its_stated_numbers_and_a_readme_line():
    files = sorted(p.name for p in FIXTURES.glob("*.gcg"))
    assert files == sorted(STATED)
    readme = (FIXTURES / "README.md").read_text()
    for name in files:
        assert name in readme


@pytest.mark.parametrize("name", sorted(STATED))
def test_gcg_import_json_gives_the_totals_and_turns_the_file_states(name):
    (first, total1), (second, total2), turns = STATED[name]
    t, d, game = two_player_event(first, second, (total1, total2))
    out = StringIO()
    call_command(
        "gcg",
        "import",
        t.slug,
        str(FIXTURES / name),
        "--round",
        "1",
        "--board",
        "1",
        "--json",
        stdout=out,
    )
    assert json.loads(out.getvalue()) == {
        "totals": {first: total1, second: total2},
        "turns": turns,
        "lexicon": None,
    }
    record = GameRecord.objects.get(game=game)
    assert record.turns == turns and record.file_name == name
