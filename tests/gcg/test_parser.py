"""The GCG reader alone (no database): turns, pragmas, the board, and the first bad line."""

from __future__ import annotations

import pytest

from tournament.formats.gcg import GcgError, parse_gcg

HEAD = "#player1 ann Ann Able\n#player2 bo Bo Baker\n"


def test_a_play_across_and_down_with_a_blank_fills_the_board():
    game = parse_gcg(
        HEAD
        + "#lexicon CSW21\n#title Final\n#id io.woogles abc\n"
        + ">ann: ?ACDERT 8D CRAtED +70 70\n"
        + "#note the opening\nand its second line\n"
        + ">bo: EIOPSTV F8 .POTS +20 20\n"
    )
    assert [t.kind for t in game.turns] == ["play", "play"]
    assert game.turns[0].note == "the opening\nand its second line"
    assert game.lexicon == "CSW21" and game.title == "Final" and game.game_id == "io.woogles abc"
    after = game.boards[-1]
    assert after[7][3:9] == "CRAtED"
    assert "".join(row[5] for row in after[7:12]) == "APOTS"
    assert game.totals() == {"Ann Able": 70, "Bo Baker": 20}
    assert game.players[0].nick == "ann" and game.players[0].line == 1


def test_exchange_pass_withdrawn_challenge_time_and_end_rack():
    game = parse_gcg(
        HEAD
        + ">ann: AEINRST 8H RETAINS +66 66\n"
        + ">ann: AEINRST -- -66 0\n"
        + ">bo: QQQ -QQ +0 0\n"
        + ">ann: AEINRST - +0 0\n"
        + ">bo: ABC -7 +0 0\n"
        + ">ann: AEINRST 8D RETAINS +66 66\n"
        + ">bo: XYZ (challenge) +5 5\n"
        + ">bo: (time) -10 -5\n"
        + ">ann: (XYZ) +34 100\n"
    )
    kinds = [t.kind for t in game.turns]
    assert kinds == [
        "play", "withdrawn", "exchange", "pass", "exchange", "play", "challenge", "time",
        "end_rack",
    ]  # fmt: skip
    assert game.boards[1][7] == "." * 15  # the phony came off
    assert game.boards[-1][7][3:10] == "RETAINS"
    assert game.totals() == {"Ann Able": 100, "Bo Baker": -5}


@pytest.mark.parametrize(
    ("turns", "line", "kind", "words"),
    [
        (">ann: ABC 8H CAB +10 10\n>bo: DEF 9H FED +10 11\n", 4, "total", "is not 0 +10 = 10"),
        (">ann: ABC 8H CAB +10 10\n>ann: DEF 9H FED +12 20\n", 4, "total", "is not 10 +12 = 22"),
        (">ann: ABC 8H CAB +10\n", 3, "malformed", "running total"),
        (">cy: ABC 8H CAB +10 10\n", 3, "malformed", "neither player1"),
        (">ann: ABC 8Z CAB +10 10\n", 3, "malformed", "not a square"),
        (">ann: ABC 8M CABS +10 10\n", 3, "malformed", "runs off the board"),
        (">ann: ABC 8H C.B +10 10\n", 3, "malformed", "which is empty"),
        (">ann: ABC 8H CAB +10 10\n>bo: ABC H8 CAB +10 10\n", 4, "malformed", "already taken"),
        (">ann: ABC 8H CAB +10 10\nstray words\n", 4, "malformed", "neither a pragma"),
        (">bo: ABC -- -10 -10\n", 3, "malformed", "takes back a play"),
        (">ann: ABC *BC +10 10\n", 3, "malformed", "not a move"),
    ],
)
def test_the_first_wrong_line_is_named(turns, line, kind, words):
    with pytest.raises(GcgError) as caught:
        parse_gcg(HEAD + turns)
    assert caught.value.line == line and caught.value.kind == kind
    assert words in str(caught.value) and f"line {line}" in str(caught.value)


def test_turns_before_the_players_are_named_or_no_players_at_all():
    with pytest.raises(GcgError, match="line 1: the turns start before"):
        parse_gcg(">ann: ABC 8H CAB +10 10\n")
    with pytest.raises(GcgError, match="names no #player1"):
        parse_gcg("#lexicon NWL20\n")


def test_latin1_without_a_header_and_a_declared_encoding_are_read():
    text = "#player1 cesar César Del Solar\n#player2 doug Doug\n>cesar: ABC 8H CAB +10 10\n"
    assert parse_gcg(text.encode("latin-1")).players[0].name == "César Del Solar"
    declared = "#character-encoding ISO-8859-1\n" + text
    assert parse_gcg(declared.encode("latin-1")).players[0].name == "César Del Solar"
    with pytest.raises(GcgError, match="line 1: the file is not in the encoding"):
        parse_gcg(b"#character-encoding UTF-8\n" + text.encode("latin-1"))
