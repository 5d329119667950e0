"""The pure helpers under the PDFs: results, running figures, fitting text, atomic writes."""

from __future__ import annotations

import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tournament.reports import (
    CardRound,
    PairingLine,
    ReportError,
    ReportEvent,
    Scorecard,
    alphabetical,
    card_rows,
    write_atomically,
)
from tournament.reports.data import game_result, page_size
from tournament.reports.layout import FONT, FONT_BOLD, Document, ensure_fonts, fit_text, text_width


@pytest.mark.parametrize(
    ("score", "opp", "bye", "expected"),
    [
        (400, 300, False, 1.0),
        (300, 400, False, 0.0),
        (350, 350, False, 0.5),
        (50, None, True, 1.0),
        (-50, None, True, 0.0),
        (0, None, True, None),
        (None, None, False, None),
        (400, None, False, None),
    ],
)
def test_game_result(score, opp, bye, expected):
    assert game_result(score, opp, bye=bye) == expected


def test_running_figures_stop_at_the_first_unplayed_round():
    card = Scorecard(
        1,
        "A, B",
        1500,
        4,
        [
            CardRound(1, True, 1, 2, "C, D", 1600, 400, 380),
            CardRound(2, False, 1, 3, "E, F", 1400),  # paired, not yet scored
            CardRound(3, True, 2, 2, "C, D", 1600, 410, 300),  # scored out of order
        ],
    )
    rows = card_rows(card)
    assert [r.cumulative_spread for r in rows] == [20, None, None, None]
    assert [r.meeting for r in rows] == [1, 1, 2, 0]
    assert rows[2].spread == 110 and rows[2].played
    assert rows[3].paired is False


def test_alphabetical_sorts_case_blind_and_marks_draws_and_byes():
    lines = [
        PairingLine(2, 1, "van Dyke, Ann", 2, "Able, Zed", first_decided=False),
        PairingLine(1, 3, "Baker, Cy", 4, "abbot, Al"),
        PairingLine(None, 5, "Zane, Bo"),
    ]
    out = alphabetical(lines)
    assert [a.name for a in out] == [
        "abbot, Al",
        "Able, Zed",
        "Baker, Cy",
        "van Dyke, Ann",
        "Zane, Bo",
    ]
    assert [a.goes for a in out] == ["2nd", "draw", "1st", "draw", "bye"]
    assert out[0].opponent_number == 3 and out[0].board == 1


def test_unknown_paper_size_is_a_clear_error():
    with pytest.raises(ReportError, match=r"event 'Open': unknown paper size 'legal' .*a4, letter"):
        page_size(ReportEvent("Open", paper="legal"))
    assert page_size(ReportEvent("Open", paper=" A4 "))[0] == pytest.approx(595.2756, abs=0.01)


@settings(max_examples=200, deadline=None)
@given(
    text=st.text(
        alphabet=st.sampled_from("abcdefghijklmnopqrstuvwxyzÆØÅŁłőçñ ,.-'WM"), max_size=90
    ),
    width=st.floats(min_value=20, max_value=400),
    height=st.floats(min_value=8, max_value=40),
    size=st.floats(min_value=6, max_value=16),
    bold=st.booleans(),
)
def test_fitted_text_never_leaves_its_cell(text, width, height, size, bold):
    ensure_fonts()
    font = FONT_BOLD if bold else FONT
    fitted = fit_text(text, font, size, width, height)
    assert len(fitted.lines) in (1, 2)
    for line in fitted.lines:
        assert text_width(line, font, fitted.size) <= width + 1e-6
    if len(fitted.lines) == 2:
        assert fitted.size * 2.3 <= height + 1e-6
    if not any(line.endswith("…") for line in fitted.lines):  # nothing lost unless cut
        assert " ".join(fitted.lines).split() == text.split()


def test_fit_text_keeps_short_text_untouched_and_cuts_only_as_a_last_resort():
    ensure_fonts()
    assert fit_text("Smith, Jo", FONT, 10, 200, 14).lines == ("Smith, Jo",)
    cut = fit_text("X" * 200, FONT, 10, 50, 10)
    assert cut.lines[0].endswith("…") and cut.size == 5.0


def test_a_wrong_page_count_is_caught():
    doc = Document(ReportEvent("X"), "A", title="t", total_pages=2)
    doc.start_page("one")
    with pytest.raises(AssertionError, match="drew 1 pages but announced 2"):
        doc.finish()


def test_write_atomically_replaces_the_file_whole(tmp_path):
    target = tmp_path / "standings.pdf"
    target.write_bytes(b"old")
    write_atomically(target, b"%PDF-new")
    assert target.read_bytes() == b"%PDF-new"
    assert os.listdir(tmp_path) == ["standings.pdf"]


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path):
    target = tmp_path / "pairings.pdf"
    target.write_bytes(b"old")
    with pytest.raises(TypeError):
        write_atomically(target, "not bytes")  # type: ignore[arg-type]
    assert target.read_bytes() == b"old"
    assert os.listdir(tmp_path) == ["pairings.pdf"]
    with pytest.raises(ValueError, match="missing-dir does not exist"):
        write_atomically(tmp_path / "missing-dir" / "x.pdf", b"data")
