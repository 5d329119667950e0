"""all.tsh archives, tourney.js and .TOU files, round-tripped through the real divisions."""

from __future__ import annotations

import datetime
import json

import pytest

from tests.conftest import REAL_DATA
from tournament.formats import (
    FormatError,
    TshPlayer,
    build_tourney_js,
    parse_archive,
    parse_config,
    parse_t,
    parse_tou,
    parse_tourney_js,
    read_t,
    tourney_js_divisions,
    write_archive,
    write_t,
    write_tou,
    write_tourney_js,
)
from tournament.formats.tou import scored_rounds, tou_name

DATA = REAL_DATA


@pytest.fixture(scope="module")
def a_players():
    return read_t(DATA / "naspa-2023-a.t")


@pytest.fixture(scope="module")
def b_players():
    return read_t(DATA / "naspa-2006-b.t")


# --- all.tsh --------------------------------------------------------------------------------


def test_archive_round_trip(a_players, b_players):
    config_text = 'division A a.t\ndivision B b.t\nconfig event_name = "Test"\n'
    files = {"a.t": write_t(a_players), "b.t": write_t(b_players)}
    archive = write_archive(config_text, files)
    assert archive.count("#begin_file name=") == 2
    got_config, got_files = parse_archive(archive)
    assert got_config == config_text and got_files == files
    assert parse_t(got_files["a.t"]) == a_players
    # the archive is itself a readable config: the markers are comments
    cfg = parse_config(archive)
    assert cfg.divisions == [("A", "a.t"), ("B", "b.t")] and cfg.settings["event_name"] == "Test"


def test_archive_keeps_config_lines_between_files():
    text = "division A a.t\n#begin_file name=a.t\nX, Y 1500 0; 50\n#end_file name=a.t\nrealm nsa\n"
    config_text, files = parse_archive(text)
    assert config_text == "division A a.t\nrealm nsa\n"
    assert files == {"a.t": "X, Y 1500 0; 50\n"}


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        ("#begin_file name=a.t\nx\n", 1, "never ended"),
        ("#end_file name=a.t\n", 1, "without a matching"),
        ("#begin_file name=a.t\n#end_file name=b.t\n", 2, "open file is 'a.t'"),
        ("#begin_file name=a.t\n#begin_file name=b.t\n", 2, "inside the block"),
        (
            "#begin_file name=a.t\n#end_file name=a.t\n#begin_file name=a.t\n#end_file name=a.t\n",
            3,
            "twice",
        ),
    ],
)
def test_archive_errors(text, line, words):
    with pytest.raises(FormatError) as info:
        parse_archive(text)
    assert info.value.line == line and words in info.value.message
    assert str(info.value).startswith(f"all.tsh line {line}: ")


def test_archive_writer_refuses_marker_lines():
    with pytest.raises(FormatError):
        write_archive("", {"a.t": "#end_file name=a.t\n"})
    with pytest.raises(FormatError):
        write_archive("", {"a b.t": ""})


# --- tourney.js ------------------------------------------------------------------------------


def test_tourney_js_round_trip_with_real_divisions(a_players, b_players):
    config = {"event_name": "Test", "max_rounds": 23}
    data = build_tourney_js(config, [("A", a_players), ("B", b_players)])
    text = write_tourney_js(data)
    assert text.startswith("newt={") and text.endswith(";\n")
    assert parse_tourney_js(text) == data
    divisions = tourney_js_divisions(parse_tourney_js(text))
    assert divisions == [("A", a_players), ("B", b_players)]
    player = data["divisions"][0]["players"][1]
    assert data["divisions"][0]["players"][0] is None
    assert player["id"] == 1 and player["name"] == "Smylie, Jackson"
    assert player["etc"]["newr"][0] == 2010 and player["etc"]["excwins"] == [1.28205575493671]
    # JSON once TSH's unquoted undefined (players[0], missing values) reads as null
    json.loads(text[len("newt=") : -2].replace("undefined", "null"))


def test_tourney_js_reads_javascript_with_undefined():
    text = """// written by tsh
    newt = {config: {event_name: 'Sam\\'s Open', spare: undefined, 'n': -1.5e2},
      "divisions": [{name: "A", players: [null,
        {id: 1, name: "Richards, Nigel:XT006003", rating: 2200, pairings: [2, undefined,],
         scores: [450], etc: {p12: [1, 4], class: ["A"], note: [undefined]}},
        {id: 2, name: "Cappelletto, Brian", rating: 1950, pairings: [1, 0], scores: [400, 50],
         /* block comment */ etc: {p12: [2, 0]}}]}]};
    """
    data = parse_tourney_js(text)
    assert data["config"] == {"event_name": "Sam's Open", "spare": None, "n": -150.0}
    ((name, players),) = tourney_js_divisions(data)
    assert name == "A"
    nigel, brian = players
    assert (nigel.name, nigel.member_id, nigel.rating) == ("Richards, Nigel", "XT006003", 2200)
    assert nigel.opponents == [2, None] and nigel.scores == [450]
    assert nigel.fields == {"p12": ["1", "4"], "class": ["A"], "note": ["00"]}
    assert brian.opponents == [1, 0] and brian.p12 == [2, 0]
    # written back, undefined has become null, and it reads back the same
    assert parse_tourney_js(write_tourney_js(data)) == data
    # and the players survive a trip through a .t file
    assert parse_t(write_t(players)) == players


def test_tourney_js_unicode_escapes():
    data = parse_tourney_js('newt={"a":"M\\u00fcller \\ud83d\\ude00","b":[1,,3]}')
    assert data == {"a": "Müller 😀", "b": [1, None, 3]}


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("alert(1)", "expected 'newt=' or '{'"),
        ("newt={a: alert(1)}", "not a data value"),
        ("newt={a: 1}; alert(1)", "unexpected text after"),
        ("newt=[1]", "not an object"),
        ("newt={a: 'x}", "unterminated string"),
        ("newt={a: 1\n b: 2}", "expected ',' or '}'"),
        ("newt={a: [1 2]}", "expected ',' or ']'"),
    ],
)
def test_tourney_js_errors(text, words):
    with pytest.raises(FormatError) as info:
        parse_tourney_js(text)
    assert words in info.value.message and info.value.source == "tourney.js"


def test_tourney_js_error_line_number():
    with pytest.raises(FormatError) as info:
        parse_tourney_js("newt={\n a: 1,\n b: oops\n}")
    assert info.value.line == 3


def test_tourney_js_password_never_published():
    p = TshPlayer(1, "A, B", "", 1500, [], [], {"password": ["sekrit"], "class": ["A"]})
    data = build_tourney_js({}, [("A", [p])])
    assert "sekrit" not in write_tourney_js(data)


def test_tourney_js_bad_player_values():
    data = {"divisions": [{"name": "A", "players": [None, {"name": "A, B", "scores": ["x"]}]}]}
    with pytest.raises(FormatError, match="player 1 scores"):
        tourney_js_divisions(data)
    with pytest.raises(FormatError, match="'divisions'"):
        tourney_js_divisions({})


# --- .TOU ------------------------------------------------------------------------------------


def test_tou_layout(a_players):
    text = write_tou("Lake George Open", datetime.date(2023, 2, 17), [("A", a_players)])
    assert text.isascii()
    lines = text.split("\r\n")
    assert "\n" not in text.replace("\r\n", "")
    assert lines[0] == "*M17.02.2023 Lake George Open"
    assert lines[1] == "*A"
    assert lines[2] == " " * 38 + "0"
    assert lines[-2] == "*** END OF FILE ***" and lines[-1] == ""
    smylie = lines[3]
    assert smylie.startswith("Jackson Smylie      ")  # 20-character name field
    assert len(smylie) == 20 + 23 * 9
    # round 1: won 572-? against 21, went second; round 3: won against 9, went first
    assert smylie[20:29] == " 2572  21"
    assert smylie[38:47] == " 2388  +9"
    keras = lines[3 + 15]
    assert keras[20 + 19 * 9 : 20 + 20 * 9] == "  050  16"  # forfeit: loss of 50 against herself
    sealy = lines[3 + 25]
    assert sealy[20 + 19 * 9 : 20 + 20 * 9] == " 2050 +26"  # bye: win of 50, '+' on own number


def test_tou_round_trip_real_files(a_players, b_players):
    text = write_tou("Test", datetime.date(2006, 3, 1), [("A", a_players), ("B", b_players)])
    name, date, divisions = parse_tou(text)
    assert (name, date) == ("Test", datetime.date(2006, 3, 1))
    assert [d for d, _ in divisions] == ["A", "B"]
    for (_, got), original in zip(divisions, [a_players, b_players], strict=True):
        for g, o in zip(got, original, strict=True):
            assert g.name == tou_name(o.name)
            assert g.opponents == o.opponents and g.scores == o.scores
            games = [r for r, opp in enumerate(o.opponents) if opp]
            assert [g.p12[r] for r in games] == [o.p12[r] for r in games]
    lines = text.split("\r\n")
    assert len(lines[3]) == 20 + 23 * 9  # 26 players: 3-character opponent numbers
    assert len(lines[3 + 26 + 3]) == 20 + 14 * 10  # 109 players: 4 characters


def test_tou_writes_only_fully_scored_rounds():
    players = parse_t("A, A 1500 2 2; 400 350\nB, B 1400 1 1; 300\n")
    assert scored_rounds(players) == 1
    text = write_tou("E", datetime.date(2024, 1, 1), [("A", players)])
    assert text.split("\r\n")[3] == f"{'A A':<20} 2400   2"


def test_tou_ascii_names_and_ties():
    players = parse_t(
        "Müller, Jörg 1500 2; 400; p12 1\nÑúñez, José María Of The Long 1400 1; 400\n"
    )
    text = write_tou("Café", datetime.date(2024, 1, 1), [("Ä", players)])
    lines = text.split("\r\n")
    assert lines[0] == "*M01.01.2024 Cafe" and lines[1] == "*A"
    assert lines[3] == f"{'Jorg Muller':<20} 1400  +2"
    assert lines[4] == "Jose Maria Of The Lo 1400   1"


def test_tou_refuses_unwritable_scores():
    players = parse_t("A, A 1500 2; 1200\nB, B 1400 1; 300\n")
    with pytest.raises(FormatError, match="round 1: score 1200"):
        write_tou("E", datetime.date(2024, 1, 1), [("A", players)])


def test_tou_reader_errors():
    with pytest.raises(FormatError, match="before the"):
        parse_tou("Somebody            2400  2\r\n")
    head = "*M01.01.2024 E\r\n*A\r\n" + " " * 38 + "0\r\n"
    bad = head + f"{'A A':<20} 2400   x\r\n"
    with pytest.raises(FormatError, match="bad round block") as info:
        parse_tou(bad)
    assert info.value.line == 4
    with pytest.raises(FormatError, match="not a player"):
        parse_tou(head + f"{'A A':<20} 2400   7\r\n")
    with pytest.raises(FormatError, match="bad date"):
        parse_tou("*M41.01.2024 E\r\n*A\r\n")
