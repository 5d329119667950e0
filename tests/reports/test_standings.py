"""Standings sheets: each rank, name, record and spread printed as given."""

from __future__ import annotations

import math

import pytest

from tournament.reports import ReportError, ReportEvent, StandingLine, standings_pdf
from tournament.reports.data import format_record, format_spread

from . import realdata
from .conftest import find_sequence, pdf_pages


@pytest.mark.parametrize("after", [1, 12, 23])
def test_every_line_prints_rank_number_name_record_spread_rating_estimate_class(
    event, players_2023, after
):
    lines = realdata.standings(players_2023, after)
    pages = pdf_pages(standings_pdf(event, "A", after, lines))
    text = [ln for p in pages for ln in p]
    for s in lines:
        seq = [
            str(s.rank),
            str(s.number),
            s.name,
            format_record(s.wins, s.losses),
            format_spread(s.spread),
            str(s.rating),
            str(s.estimate),
            s.player_class,
        ]
        assert find_sequence(text, seq) >= 0, seq
    assert any(f"Standings after round {after}" in ln for ln in pages[0])


def test_records_match_the_games_in_the_file(event, players_2023):
    # Independent check of the test data itself: after all 23 rounds wins + losses = 23.
    for s in realdata.standings(players_2023, 23):
        assert s.wins + s.losses == 23


def test_five_hundred_players_paginate_with_page_x_of_y(event):
    lines = [
        StandingLine(i + 1, i + 1, f"Player{i + 1:03d}, Test", 10 - i // 50, i // 50, 500 - i, 1500)
        for i in range(500)
    ]
    pages = pdf_pages(standings_pdf(event, "A", 7, lines))
    per_page = sum(1 for ln in pages[0] if ln.startswith("Player0"))
    assert len(pages) == math.ceil(500 / per_page)
    for n, p in enumerate(pages, start=1):
        assert f"page {n} of {len(pages)}" in p
        assert p[0] == event.name
    printed = [ln for p in pages for ln in p if ln.startswith("Player") and "," in ln]
    assert printed == [s.name for s in lines]


def test_withdrawn_players_print_last_without_a_rank(event):
    lines = [
        StandingLine(None, 3, "Gone, Early", 2, 5, -300, 1700, note="withdrawn"),
        StandingLine(1, 1, "Top, Player", 6, 1, 400, 1800),
        StandingLine(2, 2, "Next, Player", 5, 2, 100, 0),
    ]
    text = pdf_pages(standings_pdf(event, "A", 7, lines))[0]
    top = text.index("Top, Player")
    nxt = text.index("Next, Player")
    gone = text.index("Gone, Early")
    assert top < nxt < gone
    assert text[gone - 1] == "3" and text[gone - 2] != "3"  # number, no rank before it
    assert find_sequence(text, ["Next, Player", "5-2", "+100", "unr."]) >= 0
    assert "withdrawn" in text


def test_a_sixty_character_name_is_printed(event):
    name = "Wolfeschlegelsteinhausenbergerdorff, Hubert Blaine Maximilian"[:60]
    text = pdf_pages(standings_pdf(event, "A", 1, [StandingLine(1, 1, name, 1, 0, 50, 1500)]))[0]
    assert name in " ".join(text)


def test_no_players_yet_still_prints_a_page(event):
    pages = pdf_pages(standings_pdf(event, "A", 0, []))
    assert len(pages) == 1
    assert "No players yet" in pages[0]
    assert any("Standings before round 1" in ln for ln in pages[0])


def test_bad_input_is_refused(event):
    line = StandingLine(1, 1, "A, B", 1, 0, 10, 1500)
    with pytest.raises(ReportError, match="player #1 A, B appears twice"):
        standings_pdf(event, "A", 1, [line, line])
    with pytest.raises(ReportError, match="after_round must not be negative"):
        standings_pdf(event, "A", -1, [line])
    with pytest.raises(ReportError, match="unknown paper size 'legal'"):
        standings_pdf(ReportEvent("X", paper="legal"), "A", 1, [line])
