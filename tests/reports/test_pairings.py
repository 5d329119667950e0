"""Pairing sheets: every board once, every player findable alphabetically."""

from __future__ import annotations

import pytest

from tournament.reports import PairingLine, ReportError, pairings_pdf

from . import realdata
from .conftest import find_sequence, pdf_pages


def _sections(pages):
    by_board = [p for p in pages if any("by board" in ln for ln in p[:5])]
    alpha = [p for p in pages if any("alphabetical" in ln for ln in p[:5])]
    assert len(by_board) + len(alpha) == len(pages)
    return by_board, alpha


@pytest.mark.parametrize("round_", [1, 7, 14])
def test_every_board_and_every_player_is_printed(event, players_2006, round_):
    lines = realdata.pairing_lines(players_2006, round_)
    pages = pdf_pages(pairings_pdf(event, "B", round_, lines))
    by_board, alpha = _sections(pages)
    board_text = [ln for p in by_board for ln in p]
    alpha_text = [ln for p in alpha for ln in p]
    for line in lines:
        if line.bye:
            seq = [str(line.first_number), line.first_name, "bye"]
        else:
            seq = [
                str(line.board),
                str(line.first_number),
                line.first_name,
                "vs" if line.first_decided else "draw",
                str(line.second_number),
                line.second_name,
            ]
        assert find_sequence(board_text, seq) >= 0, seq
    players = {p.number: p for p in players_2006}
    for p in players_2006:
        opp = p.opponents[round_ - 1]
        if opp == 0:
            seq = [p.name, str(p.number), "bye"]
        else:
            line = next(ln for ln in lines if p.number in (ln.first_number, ln.second_number))
            goes = "1st" if line.first_number == p.number else "2nd"
            seq = [p.name, str(p.number), str(line.board), goes, f"#{opp} {players[opp].name}"]
        assert find_sequence(alpha_text, seq) >= 0, seq


def test_alphabetical_pages_are_in_name_order_and_boards_in_board_order(event, players_2006):
    lines = realdata.pairing_lines(players_2006, 5)
    pages = pdf_pages(pairings_pdf(event, "B", 5, lines))
    by_board, alpha = _sections(pages)
    names = {p.name for p in players_2006}
    printed = [ln for p in alpha for ln in p if ln in names]
    # each name appears as a player line and maybe again inside "#n name" opponent cells
    assert printed == sorted(names, key=str.casefold)
    boards = [
        int(ln)
        for p in by_board
        for ln in p[p.index("Second (replies)") + 1 :]
        if ln.isdigit() and int(ln) in {x.board for x in lines}
    ]
    assert boards[0] == 1


def test_byes_and_tile_draws_are_shown(event):
    lines = [
        PairingLine(1, 3, "Edley, Joe", 5, "Geary, Jim", first_decided=False),
        PairingLine(None, 4, "Cappelletto, Brian"),
    ]
    pages = pdf_pages(pairings_pdf(event, "C", 2, lines))
    assert len(pages) == 2
    assert find_sequence(pages[0], ["1", "3", "Edley, Joe", "draw", "5", "Geary, Jim"]) >= 0
    assert find_sequence(pages[0], ["4", "Cappelletto, Brian", "bye"]) >= 0
    assert find_sequence(pages[1], ["Cappelletto, Brian", "4", "bye"]) >= 0
    assert find_sequence(pages[1], ["Geary, Jim", "5", "1", "draw", "#3 Edley, Joe"]) >= 0
    for n, p in enumerate(pages, start=1):
        assert f"page {n} of 2" in p
        assert any("Round 2 pairings" in ln for ln in p)


def test_a_hundred_players_find_their_board_in_big_type(event, players_2006):
    lines = realdata.pairing_lines(players_2006, 3)
    pages = pdf_pages(pairings_pdf(event, "B", 3, lines))
    _, alpha = _sections(pages)
    # one player per line, at least 30 lines per page: a wall of 109 players fits 4 pages
    assert len(alpha) <= 4


def test_clashing_boards_and_double_pairings_are_refused(event):
    twice_board = [PairingLine(1, 1, "A, A", 2, "B, B"), PairingLine(1, 3, "C, C", 4, "D, D")]
    with pytest.raises(ReportError, match="board 1 is given to both #1 A, A and #3 C, C"):
        pairings_pdf(event, "A", 1, twice_board)
    twice_player = [PairingLine(1, 1, "A, A", 2, "B, B"), PairingLine(2, 2, "B, B", 4, "D, D")]
    with pytest.raises(ReportError, match="player #2 B, B is paired twice"):
        pairings_pdf(event, "A", 1, twice_player)
    with pytest.raises(ReportError, match="round must be 1 or more"):
        pairings_pdf(event, "A", 0, twice_board[:1])
