"""The .t reader and writer, against the two real NASPA files and against each kind of bad line."""

from __future__ import annotations

import re

import pytest

from tests.conftest import REAL_DATA
from tournament.formats import FormatError, TshPlayer, parse_t, read_t, write_t
from tournament.formats.tsh import decode_bytes, standings_input, withdrawn_round

DATA = REAL_DATA
FILES = ["naspa-2023-a.t", "naspa-2006-b.t"]


def _raw_lines(name: str) -> list[str]:
    return [ln for ln in (DATA / name).read_text().splitlines() if ln.strip()]


def _squash(line: str) -> str:
    return re.sub(r"\s+", " ", line).strip()


# --- the real files -------------------------------------------------------------------------


@pytest.mark.parametrize("name", FILES)
def test_real_file_parses_every_token_of_every_line(name):
    """Re-tokenise each raw line independently and compare to the parsed structure."""
    players = read_t(DATA / name)
    lines = _raw_lines(name)
    assert len(players) == len(lines)
    for number, (p, raw) in enumerate(zip(players, lines, strict=True), start=1):
        head, scores, *extra = raw.split(";")
        tokens = head.split()
        n_numbers = len(p.opponents) + 1
        assert p.number == number
        assert p.name == " ".join(tokens[:-n_numbers])
        assert p.member_id == ""
        assert p.rating == int(tokens[-n_numbers])
        assert p.opponents == [int(t) for t in tokens[-n_numbers + 1 :]] if n_numbers > 1 else []
        assert p.scores == [int(t) for t in scores.split()]
        assert p.fields == {seg.split()[0]: seg.split()[1:] for seg in extra}
        assert list(p.fields) == [seg.split()[0] for seg in extra]  # file order kept


@pytest.mark.parametrize("name", FILES)
def test_real_file_round_trips(name):
    players = read_t(DATA / name)
    text = write_t(players)
    again = parse_t(text, source="written.t")
    assert again == players
    # Same text as the original once the column alignment is ignored.
    assert [_squash(ln) for ln in text.splitlines()] == [_squash(ln) for ln in _raw_lines(name)]


def test_2023_file_facts():
    players = read_t(DATA / "naspa-2023-a.t")
    assert len(players) == 26
    assert all(len(p.opponents) == 23 and len(p.scores) == 23 for p in players)
    keras = players[15]
    assert keras.name == "Keras, Lydia"
    assert keras.off == -50
    assert keras.opponents[19:] == [0, 0, 0, 0] and keras.scores[19:] == [-50] * 4
    assert withdrawn_round(keras) == 20
    assert [withdrawn_round(p) for p in players].count(None) == 25
    smylie = players[0]
    assert smylie.player_class == "A"
    assert smylie.lifeg == 1726
    assert len(smylie.newr) == 23 and smylie.newr[0] == 2010
    assert len(smylie.rrank) == 24  # index 0 = before round 1
    assert smylie.p12[:3] == [2, 2, 1]
    assert smylie.board[:4] == [1, 1, 1, 2]
    assert smylie.penalty == []
    # Every pairing is symmetric and every p12 pair is one first, one second.
    for p in players:
        for rnd, opp in enumerate(p.opponents, start=1):
            if opp:
                other = players[opp - 1]
                assert other.opponents[rnd - 1] == p.number
                assert {p.p12[rnd - 1], other.p12[rnd - 1]} == {1, 2}


def test_2006_file_facts():
    players = read_t(DATA / "naspa-2006-b.t")
    assert len(players) == 109
    byes = [(rnd, p.number) for p in players for rnd, o in enumerate(p.opponents, 1) if o == 0]
    assert sorted(r for r, _ in byes) == list(range(1, 15))  # one bye each round, odd field
    assert all(players[n - 1].scores[r - 1] == 50 for r, n in byes)


def test_standings_input_mirrors_the_games():
    players = read_t(DATA / "naspa-2023-a.t")
    entrants, rounds = standings_input(players)
    assert [e.withdrawn_round for e in entrants].count(20) == 1
    assert len(rounds) == 26 * 23
    by_key = {(r.player, r.round): r for r in rounds}
    for r in rounds:
        if r.opponent is not None:
            mirror = by_key[(r.opponent, r.round)]
            assert (mirror.score, mirror.opponent_score) == (r.opponent_score, r.score)


# --- names, ids, encodings, undefined tokens ---------------------------------------------------


def test_member_id_and_name_ending_in_a_digit():
    text = (
        "Richards, Nigel:XT006003 2200 2 3; 450 500; class A\n"
        "Smith, John 3, 1500 1 0; 300 50\n"
        "Doe, Jane 1400 0 1; -50 400\n"
    )
    players = parse_t(text)
    assert players[0].name == "Richards, Nigel" and players[0].member_id == "XT006003"
    assert players[0].full_name == "Richards, Nigel:XT006003"
    assert players[1].name == "Smith, John 3" and players[1].rating == 1500
    out = write_t(players)
    assert "Smith, John 3, " in out and "Richards, Nigel:XT006003 " in out
    assert parse_t(out) == players


def test_undefined_token_and_pairings_ahead_of_scores():
    players = parse_t("A, A 1500 2 00 2; 400 00\nB, B 1400 1 00 1; 350\n")
    assert players[0].opponents == [2, None, 2]
    assert players[0].scores == [400, None]
    assert players[1].scores == [350]
    assert parse_t(write_t(players)) == players
    assert "00" in write_t(players).split("\n")[0]


def test_comments_blank_lines_bom_and_line_numbers():
    text = "\ufeff# a comment\n\nA, A 1500 2; 400\n   \nB, B 1400 1; 350\n"
    players = parse_t(text)
    assert [p.number for p in players] == [1, 2]
    assert [p.line for p in players] == [3, 5]


def test_decode_utf8_latin1_and_bom(tmp_path):
    utf8 = "Müller, Jörg 1500 0; 50\n".encode()
    assert decode_bytes(b"\xef\xbb\xbf" + utf8) == "Müller, Jörg 1500 0; 50\n"
    latin = "Müller, Jörg 1500 0; 50\n".encode("iso-8859-1")
    path = tmp_path / "old.t"
    path.write_bytes(latin)
    assert read_t(path)[0].name == "Müller, Jörg"


def test_unknown_fields_kept_and_written_back_as_tsh_writes_them():
    text = "A, A 1500 2; 400; zeta 1 x; alpha; password secret\nB, B 1400 1; 350\n"
    players = parse_t(text)
    assert list(players[0].fields.items()) == [
        ("zeta", ["1", "x"]),
        ("alpha", []),
        ("password", ["secret"]),
    ]
    # TSH's TFile::FormatLine: keys in alphabetical order, a field without values left out
    written = write_t(players)
    assert written == (
        "A, A                    1500 2; 400; password secret; zeta 1 x\n"
        "B, B                    1400 1; 350\n"
    )
    del players[0].fields["alpha"]
    assert parse_t(written) == players


# --- bad input: one test per kind -----------------------------------------------------------


def _error(text: str) -> FormatError:
    with pytest.raises(FormatError) as info:
        parse_t(text, source="naspa.t")
    return info.value


def test_error_format_names_source_and_line():
    err = _error("A, A 1500 2; 400\nB, B 1400 1 350\n")
    assert err.source == "naspa.t" and err.line == 2
    assert str(err) == f"naspa.t line 2: {err.message}"
    assert "no ';'" in err.message
    assert str(FormatError("plain")) == "plain"


def test_error_non_integer_rating():
    err = _error("A, A 15x0 2; 400\nB, B 1400 1; 350\n")
    assert err.line == 1 and "rating" in err.message


def test_error_non_integer_opponent():
    err = _error("A, A 1500 2 x 2; 400\nB, B 1400 1 0 1; 350\n")
    assert err.line == 1 and "'x'" in err.message


def test_error_non_integer_score():
    err = _error("A, A 1500 2; 4o0\nB, B 1400 1; 350\n")
    assert err.line == 1 and "'4o0'" in err.message


def test_error_non_integer_typed_field():
    err = _error("A, A 1500 2; 400; p12 1 x\nB, B 1400 1; 350\n")
    assert err.line == 1 and "p12" in err.message


def test_error_missing_name_and_duplicate_field():
    assert "name" in _error("1500 2; 400\n").message
    assert "twice" in _error("A, A 1500 0; 50; board 1; board 2\n").message


def test_error_opponent_out_of_range():
    err = _error("A, A 1500 3; 400\nB, B 1400 0; 350\n")
    assert err.line == 1 and "opponent 3" in err.message and "1-2" in err.message


def test_error_negative_opponent():
    err = _error("A, A 1500 -2; 400\nB, B 1400 0; 350\n")
    assert err.line == 1 and "opponent -2" in err.message


def test_error_pairings_disagree():
    text = "\n".join(f"P{n}, X {1000 + n} {o}; 400" for n, o in enumerate([2, 1, 0, 5, 4], 1))
    lines = text.splitlines()
    lines[2] = "P3, X 1003 5; 400"  # 3 says he played 5 in round 1, 5 says he played 4
    err = _error("\n".join(lines) + "\n")
    assert err.line == 3
    assert "round 1" in err.message and "player 3" in err.message and "player 5" in err.message
    assert "player 4" in err.message


def test_error_partner_has_no_pairing_in_that_round():
    err = _error("A, A 1500 2 2; 400\nB, B 1400 1; 350\n")
    assert "no pairing in round 2" in err.message


def test_error_paired_with_himself():
    err = _error("A, A 1500 1; 400\n")
    assert "himself" in err.message and err.line == 1


def test_error_scores_beyond_pairings():
    err = _error("A, A 1500 2; 400 300\nB, B 1400 1; 350\n")
    assert err.line == 1 and "2 scores" in err.message


def test_typed_helper_on_hand_edited_fields_reports_player():
    p = TshPlayer(1, "A, A", "", 1500, [], [], {"newr": ["12a"]}, line=7)
    with pytest.raises(FormatError, match="line 7.*newr"):
        _ = p.newr


def test_write_refuses_misnumbered_players_and_bad_names():
    p = TshPlayer(2, "A, A", "", 1500, [], [], {})
    with pytest.raises(FormatError, match="position 1"):
        write_t([p])
    with pytest.raises(FormatError, match="cannot be written"):
        write_t([TshPlayer(1, "A; B", "", 1500, [], [], {})])
    with pytest.raises(FormatError, match="cannot be written"):
        write_t([TshPlayer(1, "A", "", 1500, [], [], {"k": ["two words"]})])


def test_read_t_names_the_file_in_errors(tmp_path):
    path = tmp_path / "naspa.t"
    path.write_bytes(b"A, A 1500 2; 400\nB, B 1400 1; 350\nC, C 1300 0 50\n")
    with pytest.raises(FormatError) as info:
        read_t(path)
    assert str(info.value).startswith("naspa.t line 3: ")
