"""Team entries (issue 18 item 3): a rating written ``a+b+c`` (TSH's team form) imports.

fixtures/teams/school.t is a small team division we made from the form (see its README): the
real school events with ``0+0+0`` ratings were refused at import. A team imports, is seeded and
paired by its members' mean rating, ranks like any entry, and is exported with the rating text
it came with, so the file round-trips byte for byte.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pairings.services.rounds import pair_round
from tournament.formats import FormatError, parse_t
from tournament.interchange.exports import export_files, export_tourney_js
from tournament.interchange.imports import import_tsh
from tournament.models import Division, Game
from tournament.selectors import division_standings

SCHOOL = Path(__file__).resolve().parents[2] / "fixtures" / "teams" / "school.t"
NAMES = ["Hillside School A", "Riverside  High", "St Mary's B", "Oakwood Academy"]


def test_team_ratings_are_read_as_the_members_mean_and_kept_as_written():
    players = parse_t(SCHOOL.read_text("utf-8"))
    assert [p.name for p in players] == NAMES
    assert [p.rating for p in players] == [0, 0, 1067, 500]
    assert [p.rating_text for p in players] == ["0+0+0", "0+0+0", "1200+1100+900", "800+700+0"]
    assert players[2].opponents == [4, 1, 2] and players[2].scores == [450, 420, 380]


@pytest.mark.parametrize(
    "bad", ["1500+", "+1500", "1500++1400", "1500+x", "1500+99999999"], ids=repr
)
def test_a_broken_team_rating_is_still_refused_with_its_line(bad):
    with pytest.raises(FormatError) as info:
        parse_t(f"Team One {bad} 2; 400\nTeam Two 0+0 1; 380\n")
    assert info.value.line == 1


@pytest.mark.django_db
def test_a_team_division_imports_ranks_and_round_trips_byte_for_byte():
    t = import_tsh(SCHOOL, rounds=4)
    division = Division.objects.get(tournament=t)
    seeds = list(division.entries.order_by("number").values_list("seed_rating", flat=True))
    assert seeds == [0, 0, 1067, 500]
    rows = division_standings(division, 3)
    assert [(r.name, r.wins, r.spread) for r in rows] == [
        ("St Mary's B", 3, 240),
        ("Hillside School A", 2, 180),
        ("Riverside  High", 1, -40),
        ("Oakwood Academy", 0, -380),
    ]
    assert [r.rank for r in rows] == [1, 2, 3, 4]
    [text] = [v for k, v in export_files(t).items() if k.endswith(".t")]
    assert text == SCHOOL.read_text("utf-8")  # '0+0+0' and '1200+1100+900' as they came


@pytest.mark.django_db
def test_a_team_division_pairs_its_next_round():
    t = import_tsh(SCHOOL, rounds=4)
    division = Division.objects.get(tournament=t)
    pair_round(division, 4, system="koth", actor="test")
    games = Game.objects.filter(round__division=division, round__number=4)
    numbers = sorted(
        n for g in games for n in (g.player1.number, g.player2.number if g.player2 else 0)
    )
    assert numbers == [1, 2, 3, 4]  # every team paired once, no bye in an even division


@pytest.mark.django_db
def test_a_feed_with_team_ratings_imports_them(tmp_path):
    """A tourney.js carries a team's rating as the string TSH holds ('0+0+0')."""
    feed = export_tourney_js(import_tsh(SCHOOL, rounds=4))
    for player, text in zip(
        feed["divisions"][0]["players"][1:],
        ["0+0+0", "0+0+0", "1200+1100+900", "800+700+0"],
        strict=True,
    ):
        player["rating"] = text
    js = tmp_path / "tourney.js"
    js.write_text("newt=" + json.dumps(feed) + ";", encoding="utf-8")
    t = import_tsh(js)
    division = Division.objects.get(tournament=t)
    seeds = list(division.entries.order_by("number").values_list("seed_rating", flat=True))
    assert seeds == [0, 0, 1067, 500]
    [text] = [v for k, v in export_files(t).items() if k.endswith(".t")]
    assert [p.rating_text for p in parse_t(text)] == [
        "0+0+0",
        "0+0+0",
        "1200+1100+900",
        "800+700+0",
    ]


def test_a_feed_rating_that_is_neither_is_refused():
    from tournament.formats import tourney_js_divisions

    data = {"divisions": [{"name": "A", "players": [None, {"name": "X", "rating": "12ab"}]}]}
    with pytest.raises(FormatError, match="neither a rating nor"):
        tourney_js_divisions(data)
