""".TOU as the rating programs read it: split() on whitespace, not columns.

Those readers take the leading tokens that contain a letter as the name, then pairs of
(outcome-and-score, opponent) tokens, the score being ``int(token) % 1000`` and the outcome
``int(token) // 1000`` (2 win, 1 tie, 0 loss), the opponent ``int(token)`` with ``+`` meaning
the player went first. ``split_reader`` below is that reading, so every test here checks what a
real reader would get, not just our own ``parse_tou``.
"""

from __future__ import annotations

import datetime
import re

import pytest

from tests.conftest import REAL_DATA
from tournament.formats import FormatError, TshPlayer, parse_tou, read_t, write_tou
from tournament.formats.tou import scored_rounds, tou_name, tou_names

DAY = datetime.date(2024, 1, 1)
REAL_FILES = ["naspa-2023-a.t", "naspa-2006-b.t"]


Game = tuple[int, int, int, bool]  # outcome (2 win, 1 tie, 0 loss), score, opponent, went first


def split_reader(text: str) -> list[tuple[str, list[tuple[str, list[Game]]]]]:
    """[(section, [(name, [game])])] as WESPA-style readers see the file."""
    sections: list[tuple[str, list]] = []
    for line in text.split("\r\n"):
        if not line or line.startswith(" ") or line.startswith("*M"):
            continue  # blank, the high-word line, the header
        if line.strip() == "*** END OF FILE ***":
            break
        if line.startswith("*"):
            sections.append((line[1:].strip(), []))
            continue
        tokens = line.split()
        name: list[str] = []
        while tokens and re.search("[a-zA-Z]", tokens[0]):
            name.append(tokens.pop(0))
        assert len(tokens) % 2 == 0, f"odd number of result tokens in {line!r}"
        games = []
        for score_token, opp_token in zip(tokens[::2], tokens[1::2], strict=True):
            value = int(score_token)  # raises on a stray non-number, as the readers do
            games.append((value // 1000, value % 1000, int(opp_token), opp_token.startswith("+")))
        sections[-1][1].append((" ".join(name), games))
    return sections


def player(number: int, name: str, opponents: list[int], scores: list[int], p12=None) -> TshPlayer:
    p12 = p12 or [0 if opp == 0 else 2 for opp in opponents]
    return TshPlayer(number, name, "", 1500, opponents, scores, {"p12": [str(x) for x in p12]})


def pairs(names: list[str]) -> list[TshPlayer]:
    """A one-round division with everyone paired 1-2, 3-4...; an odd last player has a bye."""
    players = []
    for i, name in enumerate(names, start=1):
        if i % 2:
            opp = i + 1 if i < len(names) else 0
        else:
            opp = i - 1
        first = 0 if opp == 0 else 1 if i % 2 else 2
        players.append(player(i, name, [opp], [50 if opp == 0 else 300 + i], [first]))
    return players


# --- real data: what a split() reader gets -----------------------------------------------------


@pytest.fixture(scope="module")
def real():
    return [(f, read_t(REAL_DATA / f)) for f in REAL_FILES]


def test_real_data_has_byes_and_forfeits(real):
    """Guard: the files below must keep exercising games against oneself."""
    self_games = {
        f: sorted({s for p in ps for o, s in zip(p.opponents, p.scores, strict=True) if o == 0})
        for f, ps in real
    }
    assert self_games == {"naspa-2023-a.t": [-50, 50], "naspa-2006-b.t": [50]}


def test_split_reader_gets_every_pair_of_real_exports(real):
    text = write_tou("Test", DAY, [(f, ps) for f, ps in real])
    got = split_reader(text)
    assert [s for s, _ in got] == REAL_FILES
    for (_, rows), (_, players) in zip(got, real, strict=True):
        assert len(rows) == len(players)
        rounds = scored_rounds(players)
        assert rounds == len(players[0].opponents)  # both files are complete
        assert len({name for name, _ in rows}) == len(rows)  # names identify players
        for (name, games), p in zip(rows, players, strict=True):
            assert name == tou_name(p.name)
            assert len(games) == rounds
            for rnd, (outcome, score, opp, first) in enumerate(games, start=1):
                opponent, own = p.opponents[rnd - 1], p.scores[rnd - 1]
                where = (p.name, rnd)
                if opponent == 0:  # bye (win of 50, '+' on own number) or forfeit (loss of 50)
                    assert (opp, score, first) == (p.number, abs(own), own > 0), where
                    assert outcome == (2 if own > 0 else 0), where
                    continue
                theirs = players[opponent - 1].scores[rnd - 1]
                assert (opp, score) == (opponent, own), where
                assert outcome == (2 if own > theirs else 1 if own == theirs else 0), where
                assert first == (p.p12[rnd - 1] == 1), where


def test_parse_tou_round_trips_real_data(real):
    text = write_tou("Test", DAY, [(f, ps) for f, ps in real])
    name, date, divisions = parse_tou(text)
    assert (name, date, [d for d, _ in divisions]) == ("Test", DAY, REAL_FILES)
    for (_, got), (_, original) in zip(divisions, real, strict=True):
        for g, o in zip(got, original, strict=True):
            assert (g.number, g.name) == (o.number, tou_name(o.name))
            assert g.opponents == o.opponents and g.scores == o.scores
            # p12 survives for games; a game against oneself has no first player in a .TOU
            assert g.p12 == [
                0 if opp == 0 else x for opp, x in zip(o.opponents, o.p12, strict=True)
            ]


def test_every_score_token_is_four_characters_wide(real):
    """The bug this guards: '{:3d}' wrote a bye as '2 50', which split() reads as 2 and 50."""
    for f, players in real:
        width = 4 if len(players) > 99 else 3
        block = rf" [ 12]\d{{3}} [ +\d]{{{width}}}"
        lines = write_tou("Test", DAY, [(f, players)]).split("\r\n")[3 : 3 + len(players)]
        for line in lines:
            assert re.fullmatch(rf"[^ ].{{19}}(?:{block})+", line), line


# --- score fields ------------------------------------------------------------------------------


def test_score_fields_are_zero_padded():
    players = [
        player(1, "Ann Win", [2, 0, 0], [488, 50, 0], [1, 0, 0]),
        player(2, "Bob Loss", [1, 0, 3], [5, -50, 400], [2, 0, 1]),
        player(3, "Cy Tie", [0, 4, 2], [50, 345, 400], [0, 1, 2]),
        player(4, "Di Low", [0, 3, 0], [-50, 345, 0], [0, 2, 0]),
    ]
    lines = write_tou("E", DAY, [("A", players)]).split("\r\n")
    assert lines[3] == f"{'Ann Win':<20} 2488  +2 2050  +1  000   1"
    assert lines[4] == f"{'Bob Loss':<20}  005   1  050   2 1400  +3"
    assert lines[5] == f"{'Cy Tie':<20} 2050  +3 1345  +4 1400   2"
    assert lines[6] == f"{'Di Low':<20}  050   4 1345   3  000   4"
    rows = split_reader("\r\n".join(lines))[0][1]
    assert rows[1] == ("Bob Loss", [(0, 5, 1, False), (0, 50, 2, False), (1, 400, 3, True)])
    _, _, [(_, back)] = parse_tou("\r\n".join(lines))
    assert [p.scores for p in back] == [p.scores for p in players]
    assert [p.opponents for p in back] == [p.opponents for p in players]


def test_parse_tou_still_reads_space_padded_scores():
    """Files written before the zero padding: '2 50' (bye), '   50' (forfeit), '  0' (bye of 0)."""
    head = "*M01.01.2024 E\r\n*A\r\n" + " " * 38 + "0\r\n"
    old = head + f"{'Ann':<20}" + " 2 50   1" + "   50   1" + "    0   1" + " 2400  +2" + "\r\n"
    old += f"{'Bob':<20}" + " 2 50   2" * 3 + "  300   1" + "\r\n"
    _, _, [(_, (ann, bob))] = parse_tou(old)
    assert ann.opponents == [0, 0, 0, 2] and ann.scores == [50, -50, 0, 400]
    assert ann.p12 == [0, 0, 0, 1] and bob.scores == [50, 50, 50, 300] and bob.p12[3] == 2


@pytest.mark.parametrize("score", ["0 5", "5  ", "x50", "-50"])
def test_parse_tou_refuses_a_malformed_score_with_the_line(score):
    head = "*M01.01.2024 E\r\n*A\r\n" + " " * 38 + "0\r\n"
    with pytest.raises(FormatError, match="bad round block") as info:
        parse_tou(head + f"{'Ann':<20} 2{score}   1\r\n")
    assert info.value.line == 4


# --- names -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "written"),
    [
        ("Łukasz, Żółć", "Zolc Lukasz"),
        ("Ørsted, Søren", "Soren Orsted"),
        ("Straße, Jörg", "Jorg Strasse"),
        ("Æbelø, Ægir", "Aegir Aebelo"),
        ("Œuvre, Cœur", "Coeur Oeuvre"),
        ("Đoković, Novak", "Novak Dokovic"),
        ("Þórsdóttir, Guðrún", "Gudrun Thorsdottir"),
        ("Yılmaz, Işık", "Isik Yilmaz"),
        ("Ħaġar, Ġorġ", "Gorg Hagar"),
        ("O’Brien, Seán", "Sean O'Brien"),
        ("Nguyễn, Văn Thị", "Van Thi Nguyen"),
        ("Петров, Иван", "Ivan Petrov"),
        ("Шевченко, Юлія", "Yuliya Shevchenko"),
        ("  Smith ,\t John \u00a0 Paul  ", "John Paul Smith"),
        ("Jose Maria Of The Long", "Jose Maria Of The Lo"),
    ],
)
def test_names_are_transliterated(name, written):
    assert tou_name(name) == written


@pytest.mark.parametrize("name", ["สมชาย, ใจดี", "李明", "Ελένη", "???", "2 4"])
def test_names_without_latin_letters_become_player_n(name):
    assert tou_name(name, 7) == "Player-7"
    players = pairs(["Ann", name, "Bob"])
    rows = split_reader(write_tou("E", DAY, [("A", players)]))[0][1]
    assert [n for n, _ in rows] == ["Ann", "Player-2", "Bob"]
    assert rows[1][1] == [(2, 302, 1, False)]


@pytest.mark.parametrize(
    ("name", "written"),
    [
        ("Smith 2, John", "John Smith-2"),  # a bare '2' would be read as a score
        ("Smith, John 3", "John-3 Smith"),
        ("2 Pac", "2-Pac"),
        ("A & B", "A& B"),
        ("Lee, - -", "--Lee"),  # glued to the first token that has a letter
        ("*Star, Rock", "Rock *Star"),
        ("**Star", "Star"),  # a leading '*' would start a new section
        ("Abcdefghij Klmnopq 2nd", "Abcdefghij Klmnopq"),  # the cut left a bare '2'
        ("Abcdefghijklmnopqr 22", "Abcdefghijklmnopqr-2"),
    ],
)
def test_every_name_token_has_a_letter(name, written):
    got = tou_name(name, 9)
    assert got == written and len(got) <= 20
    assert all(re.search("[A-Za-z]", token) for token in got.split())
    assert not got.startswith("*")


def test_odd_names_still_read_back_through_split():
    names = ["Smith 2, John", "A & B", "*Star", "李明", "Ørsted, 3 Søren", "x - y 7"]
    players = pairs(names)
    text = write_tou("E", DAY, [("A", players)])
    rows = split_reader(text)[0][1]
    assert [n for n, _ in rows] == tou_names(players)
    for (_, games), p in zip(rows, players, strict=True):
        opp = p.opponents[0] or p.number
        assert [(g[1], g[2]) for g in games] == [(abs(p.scores[0]), opp)]
    _, _, [(_, back)] = parse_tou(text)
    assert [p.name for p in back] == tou_names(players)


def test_event_and_division_names_are_one_ascii_line():
    players = pairs(["Ann", "Bob"])
    text = write_tou("Café\r\nCup", DAY, [("Ä\nB", players)])
    assert text.isascii()
    assert text.split("\r\n")[:2] == ["*M01.01.2024 Cafe Cup", "*A B"]
    # readers split the header into date and name: the name may not be empty
    assert write_tou("李明", DAY, [("A", players)]).startswith("*M01.01.2024 Event\r\n")


# --- unique names within a division ------------------------------------------------------------


def test_names_equal_after_the_cut_are_made_unique():
    names = [
        "Smythe, Alexandra Christina",
        "Smith, Alexandra Christina",
        "Smithers, Alexandra Christina",
        "Other, Ann",
    ]
    players = pairs(names)
    assert tou_name(names[0]) == tou_name(names[2]) == "Alexandra Christina"
    got = tou_names(players)
    assert got == [
        "Alexandra Christina",
        "Alexandra Christin-2",
        "Alexandra Christin-3",
        "Ann Other",
    ]
    rows = split_reader(write_tou("E", DAY, [("A", players)]))[0][1]
    assert [n for n, _ in rows] == got


def test_unique_names_ignore_case_and_avoid_real_names():
    players = pairs(["Smith, John", "SMITH, JOHN", "Smith-2, John", "Smith, John"])
    assert tou_names(players) == ["John Smith", "JOHN SMITH-3", "John Smith-2", "John Smith-4"]
    # other divisions do not matter: uniqueness is within a section, as readers number players
    text = write_tou("E", DAY, [("A", pairs(["Ann"])), ("B", pairs(["Ann"]))])
    assert [[n for n, _ in rows] for _, rows in split_reader(text)] == [["Ann"], ["Ann"]]


def test_several_no_latin_names_stay_distinct():
    players = pairs(["李明", "李明", "Player-2"])
    assert tou_names(players) == ["Player-1", "Player-2", "Player-2-2"]


def test_a_division_with_no_players_yet_has_no_scored_rounds():
    # a division created for late entries, still empty, hung the .TOU export and the
    # federation files page in an endless loop (found by the console's axe sweep)
    assert scored_rounds([]) == 0
