"""Team entries (issue 18 item 3): a rating written ``a+b+c`` (TSH's team form) imports.

fixtures/teams/school.t is a small team division we made from the form (see its README): the
real school events with ``0+0+0`` ratings were refused at import. A team imports, is seeded and
paired by its members' mean rating, ranks like any entry, and is exported with the rating text
it came with, so the file round-trips byte for byte.

Teams of players (TSH's ``team`` field, fixtures/teams/interclub.t): they import, keep their
field byte for byte on export, and get TSH's team standings on the public standings page, the
console's and ``manage.py standings --teams``; a division without the field shows none.
"""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from pairings.services.rounds import pair_round
from ratings.division import division_estimates, rating_estimates
from tournament.formats import FormatError, parse_t
from tournament.formats.tourney_js import write_tourney_js
from tournament.interchange.exports import export_files, export_tourney_js
from tournament.interchange.imports import import_tsh
from tournament.models import Division, Game
from tournament.selectors import division_standings, division_team_standings, division_teams
from tournament.services import publish_tournament

SCHOOL = Path(__file__).resolve().parents[2] / "fixtures" / "teams" / "school.t"
INTERCLUB = SCHOOL.with_name("interclub.t")
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


# fixtures/teams/README.md: (rank, team, members' ranks, W, L, spread, % vs others) after 3
INTERCLUB_TEAMS = [
    (1, "Good", [2, 5], 3.5, 2.5, -30, 58.33),
    (2, "Evil", [3, 4], 3.0, 3.0, 100, 50.0),
    (3, "St Mary's", [1, 6], 2.5, 3.5, -70, 37.5),
]


def interclub():
    t = import_tsh(INTERCLUB, rounds=3)
    publish_tournament(t, True, actor="test")
    return t, Division.objects.get(tournament=t)


@pytest.mark.django_db
def test_teams_of_players_import_rank_as_tsh_and_round_trip_byte_for_byte():
    t, division = interclub()
    assert division_teams(division) == {
        1: "Good",
        2: "Good",
        3: "Evil",
        4: "Evil",
        5: "St Mary's",
        6: "St Mary's",
    }
    rows = division_team_standings(division)
    got = [
        (r.rank, r.team, r.ranks, r.wins, r.losses, r.spread, round(r.percent_vs_others, 2))
        for r in rows
    ]
    assert got == INTERCLUB_TEAMS
    assert [(r.rank, r.team) for r in division_team_standings(division, 1)] == [
        (1, "Good"),
        (2, "St Mary's"),
        (3, "Evil"),
    ]
    [text] = [v for k, v in export_files(t).items() if k.endswith(".t")]
    assert text == INTERCLUB.read_text("utf-8")  # 'team St Mary's' as it came


@pytest.mark.django_db
def test_a_division_of_team_entries_has_no_team_standings():
    """'a+b+c' entries are each one entry: TSH ranks them in the ordinary standings only."""
    division = Division.objects.get(tournament=import_tsh(SCHOOL, rounds=4))
    assert division_teams(division) == {}
    assert division_team_standings(division) == []


@pytest.mark.django_db
def test_the_standings_pages_show_team_standings_only_where_there_are_teams(client):
    t, division = interclub()
    body = client.get(f"/t/{t.slug}/{division.slug}/standings/").content.decode()
    section = body[body.index('id="team-standings"') :]
    for rank, team, ranks, *_rest, percent in INTERCLUB_TEAMS:
        cells = f'<td class="num">{rank}</td><td>{team.replace(chr(39), "&#x27;")}</td>'
        assert cells in section, team
        assert f'<td class="wide">{" ".join(map(str, ranks))}</td>' in section
        assert f"{percent:.2f}" in section
    assert section.index(">Good<") < section.index(">Evil<") < section.index(">St Mary")
    after_one = client.get(f"/t/{t.slug}/{division.slug}/standings/", {"after": 1})
    section = after_one.content.decode().split('id="team-standings"')[1]
    assert section.index(">Good<") < section.index(">St Mary") < section.index(">Evil<")

    school = import_tsh(SCHOOL, rounds=4)
    publish_tournament(school, True, actor="test")
    plain = client.get(f"/t/{school.slug}/{school.divisions.get().slug}/standings/")
    assert plain.status_code == 200 and b"team-standings" not in plain.content


@pytest.mark.django_db
def test_the_console_standings_show_the_team_standings(client):
    from tests.core.conftest import make_director

    t, division = interclub()
    make_director(t, "td")
    client.login(username="td", password="pw-long-enough-1")
    body = client.get(f"/t/{t.slug}/console/{division.slug}/standings/").content.decode()
    section = body[body.index('id="team-standings"') :]
    assert section.index(">Good<") < section.index(">Evil<") < section.index(">St Mary")


@pytest.mark.django_db
def test_the_standings_command_prints_team_standings():
    t, _division = interclub()
    out = StringIO()
    call_command("standings", t.slug, "--teams", "--json", stdout=out)
    rows = json.loads(out.getvalue())
    assert [
        (r["rank"], r["team"], r["ranks"], r["wins"], r["losses"], r["spread"]) for r in rows
    ] == [row[:6] for row in INTERCLUB_TEAMS]
    assert [r["percent_vs_others"] for r in rows] == [58.33, 50.0, 37.5]
    out = StringIO()
    call_command("standings", t.slug, "--teams", "--after-round", "1", stdout=out)
    lines = out.getvalue().splitlines()
    assert "team standings after round 1" in lines[0]
    assert [line.split()[5:7] for line in lines[2:]] == [
        ["75.00", "Good"],
        ["0.00", "St"],
        ["25.00", "Evil"],
    ]


@pytest.mark.django_db
def test_team_standings_of_a_division_without_teams_is_a_clear_error():
    school = import_tsh(SCHOOL, rounds=4)
    with pytest.raises(CommandError, match="has no teams: no player's line names one"):
        call_command("standings", school.slug, "--teams")


@pytest.mark.django_db
def test_the_feed_carries_the_teams_and_imports_them(tmp_path):
    """tourney.js holds the field as TSH does (``etc.team``, its words), so a division read
    from a feed gets the same team standings."""
    t, _division = interclub()
    feed = export_tourney_js(t)
    assert feed["divisions"][0]["players"][5]["etc"]["team"] == ["St", "Mary's"]
    js = tmp_path / "tourney.js"
    js.write_text("newt=" + json.dumps(feed) + ";", encoding="utf-8")
    again = Division.objects.get(tournament=import_tsh(js))
    assert [(r.rank, r.team, r.ranks) for r in division_team_standings(again)] == [
        (rank, team, ranks) for rank, team, ranks, *_ in INTERCLUB_TEAMS
    ]


# A team event rated by TSH's 'none' (fixtures/teams/none/, hand-made after TSH's rules, see
# fixtures/teams/README.md): TSH copies each entry's rating into its estimate, so a team's
# etc.newr is its 'a+b+c' text, round after round (Ratings::None, docs/formats.md).
NONE_DIR = SCHOOL.with_name("none")
TEAM_TEXTS = ["0+0+0", "0+0+0", "1200+1100+900", "800+700+0"]


@pytest.mark.django_db
def test_a_team_event_rated_by_none_round_trips_byte_for_byte():
    t = import_tsh(NONE_DIR / "config.tsh")
    division = Division.objects.get(tournament=t)
    assert division.rating_system == "none"
    assert export_files(t)["a.t"] == (NONE_DIR / "a.t").read_text("utf-8")
    feed_text = (NONE_DIR / "tourney.js").read_text("utf-8")
    assert write_tourney_js(export_tourney_js(t)) == feed_text
    # the feed TSH would publish imports (its newr "0+0+0" was refused) and comes back whole
    again = import_tsh(NONE_DIR / "tourney.js")
    assert write_tourney_js(export_tourney_js(again)) == feed_text
    assert export_files(again)["a.t"] == (NONE_DIR / "a.t").read_text("utf-8")


@pytest.mark.django_db
def test_rating_system_none_copies_each_rating_into_the_estimates(tmp_path):
    # school.t has no newr: every value below is computed, not kept from a file
    (tmp_path / "a.t").write_text(SCHOOL.read_text("utf-8"), encoding="utf-8")
    (tmp_path / "config.tsh").write_text(
        "division A a.t\nconfig max_rounds = 3\nconfig rating_system = 'none'\n", "utf-8"
    )
    t = import_tsh(tmp_path / "config.tsh")
    division = Division.objects.get(tournament=t)
    rows = division_estimates(division)
    assert [row["by_round"] for row in rows] == [[s] * 3 for s in (0, 0, 1067, 500)]
    assert rating_estimates(division, 2) == {1: 0, 2: 0, 3: 1067, 4: 500}
    players = export_tourney_js(t)["divisions"][0]["players"][1:]
    assert [p["etc"]["newr"] for p in players] == [[text] * 3 for text in TEAM_TEXTS]
    assert [p["rating"] for p in players] == TEAM_TEXTS
    assert [p["etc"]["rrank"] for p in players] == [
        [3, 2, 3, 2],
        [3, 3, 2, 3],
        [1] * 4,
        [2, 4, 4, 4],
    ]
    # .t readers take the team's estimate as the members' mean, which Gibson rates by
    written = parse_t((NONE_DIR / "a.t").read_text("utf-8"))
    assert [p.newr for p in written] == [[s] * 3 for s in (0, 0, 1067, 500)]


@pytest.mark.parametrize("bad", ["0+0+", "+0+0", "0+x+0", "1500+99999999"], ids=repr)
def test_a_broken_team_estimate_is_still_refused(bad):
    with pytest.raises(FormatError, match="newr"):
        parse_t(f"Team One 0+0+0 2; 400; newr {bad}\nTeam Two 0+0+0 1; 380\n")
