"""Byes and forfeits in our ``.TOU`` as the AuPair-style readers take them.

Facts (public repository cocoscrabble/ratings, studied, not copied): its ``TouReader``
(``rating.py``, and its later ``coco_ratings`` package) splits a player line on whitespace,
takes the
leading tokens holding a letter as the name, then pairs of tokens: the score is
``int(token) % 1000`` (the outcome digit in front dropped), the opponent ``int(token)`` (a
``+`` dropped). Its real AuPair file ``testdata/isropn20.tou`` writes a bye as ``2001  +9`` on
the player's own number and an absent round as ``   0  24`` (no ``+``).

``aupair_reader`` below reads that way and additionally keeps what the tokens carry beyond
``% 1000``: the outcome (``int(token) // 1000``), which gives a loss against oneself its minus
sign, and the ``+`` on the own number, which marks a bye.
"""

from __future__ import annotations

import datetime
import re

import pytest

from tournament.formats import TshPlayer, parse_tou, read_t, write_tou
from tournament.interchange.exports import render_export
from tournament.interchange.imports import import_tsh

# Part of a line of the real file (isropn20.tou, player 9, rounds 19-23): a bye in round 21.
REAL_BYE_LINE = "Ami Tzubery          2489 +33  312 +25 2001  +9 2357  22  375  +8"

Read = tuple[int, int, bool]  # signed score, opponent number, bye


def aupair_reader(text: str) -> list[tuple[str, list[tuple[str, list[Read]]]]]:
    """[(section, [(name, [(signed score, opponent, bye)])])], split() as the readers do."""
    sections: list[tuple[str, list]] = []
    lines = text.split("\r\n")
    for line in lines[1:]:  # the first line is the '*M' header
        if not line or line.startswith(" "):
            continue  # the high-word line
        line = line.strip()
        if line == "*** END OF FILE ***":
            break
        if line.startswith("*"):
            sections.append((line[1:], []))
            continue
        parts = line.split()
        name = []
        while parts and re.search("[a-zA-Z]", parts[0]):
            name.append(parts.pop(0))
        games: list[Read] = []
        number = len(sections[-1][1]) + 1
        for score_token, opp_token in zip(parts[::2], parts[1::2], strict=True):
            value, opponent = int(score_token), int(opp_token)
            score = value % 1000  # what TouReader keeps
            outcome = value // 1000  # 2 win, 1 tie, 0 loss
            if opponent == number:  # a game against oneself: bye or forfeit
                bye = opp_token.startswith("+")
                games.append((score if outcome == 2 else -score, opponent, bye))
            else:
                games.append((score, opponent, False))
        sections[-1][1].append((" ".join(name), games))
    return sections


def test_reader_reads_the_real_files_bye_as_a_bye():
    """The reader itself, on the real AuPair form: the '+' on the own number is the bye."""
    text = "*M01.03.2020 E\r\n*A\r\n" + " " * 38 + "0\r\n"
    text += "".join(f"P{n} X{' 400   1' * 3}\r\n" for n in range(1, 9)) + REAL_BYE_LINE + "\r\n"
    [(_, rows)] = aupair_reader(text)
    assert rows[8] == (
        "Ami Tzubery",
        [(489, 33, False), (312, 25, False), (1, 9, True), (357, 22, False), (375, 8, False)],
    )


@pytest.mark.django_db
def test_naspa_export_gives_back_every_sign_bye_and_opponent(real_data):
    original = read_t(real_data / "naspa-2023-a.t")
    t = import_tsh(real_data / "naspa-2023-a.t", rounds=23)
    text = render_export(t, "tou", date=datetime.date(2023, 2, 17)).data.decode("ascii")
    [(_, rows)] = aupair_reader(text)
    assert len(rows) == len(original) == 26
    forfeits = byes = 0
    for (_, games), p in zip(rows, original, strict=True):
        assert len(games) == 23
        for rnd, (score, opponent, bye) in enumerate(games, start=1):
            opp, own = p.opponents[rnd - 1], p.scores[rnd - 1]
            where = (p.name, rnd)
            assert score == own, where  # every score with its sign
            assert opponent == (opp or p.number), where
            assert bye == (opp == 0 and own > 0), where
            byes += bye
            forfeits += opp == 0 and own < 0
    assert byes > 0 and forfeits > 0  # the file keeps exercising both
    # forfeits of -50 in rounds 20-23, as the fixture is known to have
    assert {r for p in original for r in range(20, 24) if p.scores[r - 1] == -50}


def _player(number: int, name: str, opponents: list[int], scores: list[int]) -> TshPlayer:
    p12 = ["0" if o == 0 else "1" if number < o else "2" for o in opponents]
    return TshPlayer(number, name, "", 1500, opponents, scores, {"p12": p12})


def test_hand_made_bye_and_forfeit_byte_for_byte():
    """Round 1: 1-2 play, 3 has a bye (+50). Round 2: 1-3 play, 2 forfeits (-50)."""
    players = [
        _player(1, "Ann Able", [2, 3], [420, 380]),
        _player(2, "Bob Baker", [1, 0], [350, -50]),
        _player(3, "Cy Cole", [0, 1], [50, 401]),
    ]
    text = write_tou("Tiny Open", datetime.date(2024, 3, 9), [("A", players)])
    assert (
        text.encode("ascii")
        == (
            b"*M09.03.2024 Tiny Open\r\n"
            b"*A\r\n" + b" " * 38 + b"0\r\n"
            b"Ann Able             2420  +2  380  +3\r\n"
            b"Bob Baker             350   1  050   2\r\n"  # forfeit: a loss, own number, no '+'
            b"Cy Cole              2050  +3 2401   1\r\n"  # bye: a win, '+' on own number
            b"*** END OF FILE ***\r\n"
        )
    )
    # the bye block has the real file's shape: ' 2', three digits, own number with '+'
    bye_block = re.compile(r" 2\d{3} {1,2}\+\d{1,2}")
    assert bye_block.search(REAL_BYE_LINE) and bye_block.search(text.split("\r\n")[5])
    [(_, rows)] = aupair_reader(text)
    assert [g for _, g in rows] == [
        [(420, 2, False), (380, 3, False)],
        [(350, 1, False), (-50, 2, False)],
        [(50, 3, True), (401, 1, False)],
    ]
    # TouReader's own '% 1000' cannot carry a minus: '-050' would come back as 950
    assert int("-050") % 1000 == 950 and "-" not in text


def test_parse_tou_reads_old_and_new_bye_forms_alike():
    head = "*M01.01.2024 E\r\n*A\r\n" + " " * 38 + "0\r\n"
    new = head + f"{'Ann':<20} 2050  +1  050   1\r\n"
    old = head + f"{'Ann':<20} 2050   1  050   1\r\n"
    for text in (new, old):
        _, _, [(_, [ann])] = parse_tou(text)
        assert (ann.opponents, ann.scores, ann.p12) == ([0, 0], [50, -50], [0, 0])
