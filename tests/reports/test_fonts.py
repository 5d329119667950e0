"""Names in scripts the report font lacks (Chinese, Japanese, Korean, Thai) print as glyphs.

DejaVu Sans has no CJK or Thai; without a fallback those names came out as empty boxes on
WESPA events' scorecards and standings. The fallbacks are Debian's TrueType fonts-wqy-zenhei
and fonts-tlwg-garuda-ttf (.ci/run installs them); without them these tests skip.
"""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest
from PIL import Image, ImageChops
from reportlab.pdfbase import pdfmetrics

from tournament.reports import (
    CardRound,
    PairingLine,
    ReportEvent,
    Scorecard,
    StandingLine,
    WallChartGame,
    WallChartPlayer,
    layout,
    pairings_pdf,
    prizes_from,
    prizes_pdf,
    scorecards_pdf,
    standings_pdf,
    wallchart_pdf,
)
from tournament.reports.layout import FONT, FONT_BOLD, ensure_fonts, fit_text, text_width

from .conftest import joined, pdf_pages, pdf_reader

CJK_FONT = "/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc"
THAI_FONT = "/usr/share/fonts/truetype/tlwg/Garuda.ttf"
pytestmark = pytest.mark.skipif(
    not (os.path.exists(CJK_FONT) and os.path.exists(THAI_FONT)),
    reason="fallback fonts not installed (apt-get install -y fonts-wqy-zenhei "
    "fonts-tlwg-garuda-ttf; .ci/run installs them)",
)

NAMES = ["王小明", "山田 太郎", "김민준", "สมชาย ใจดี", "Chen, 陈", "さくら, Ōno"]
EVENT = ReportEvent("WESPA 世界锦标赛 2025", venue="กรุงเทพฯ", dates="1-5 Dec", paper="a4")


def _cards() -> list[Scorecard]:
    n = len(NAMES)
    return [
        Scorecard(
            i + 1,
            name,
            1500 + i,
            4,
            rounds=[
                CardRound(1, i % 2 == 0, i // 2 + 1, (i ^ 1) + 1, NAMES[i ^ 1], 1500, 400, 350),
                CardRound(2, True, 1, (i + 2) % n + 1, NAMES[(i + 2) % n], 1600),
            ],
        )
        for i, name in enumerate(NAMES)
    ]


def _standings() -> list[StandingLine]:
    return [
        StandingLine(i + 1, i + 1, n, 4 - i // 2, i // 2, 90 - 30 * i, 1500)
        for i, n in enumerate(NAMES)
    ]


def _font_names(pdf: bytes) -> set[str]:
    names = set()
    for page in pdf_reader(pdf).pages:
        fonts = page["/Resources"]["/Font"]
        names |= {str(fonts[k].get_object()["/BaseFont"]) for k in fonts}
    return names


def _embeds(pdf: bytes, face: str) -> bool:
    return any(face in name for name in _font_names(pdf))


@pytest.fixture
def no_fallbacks(monkeypatch):
    """The fallback machinery as on a machine where no fallback font can be read."""

    def reset():
        layout._fallback_of.clear()
        layout._runs_of.cache_clear()

    reset()
    monkeypatch.setattr(layout, "_fallbacks", None)
    yield monkeypatch
    reset()


def test_scorecards_print_the_players_and_their_opponents_names():
    pdf = scorecards_pdf(EVENT, "A", _cards())
    pages = pdf_pages(pdf)
    text = [ln for p in pages for ln in p]
    for name in NAMES:
        assert name in text, name  # the card's own name and the opponent cell, each a line
        assert text.count(name) >= 3, name  # own card, and opponent on two others' cards
    assert all(EVENT.name in joined(p) for p in pages)
    assert _embeds(pdf, "WenQuanYiZenHei") and _embeds(pdf, "Garuda")


def test_standings_print_the_names_and_embed_the_fallback_fonts():
    pdf = standings_pdf(EVENT, "A", 2, _standings())
    text = pdf_pages(pdf)[0]
    for name in NAMES:
        assert name in text, name
    assert text[0] == EVENT.name
    assert "กรุงเทพฯ" in text  # the venue, drawn right-aligned
    fonts = _font_names(pdf)
    assert any("WenQuanYiZenHei" in f for f in fonts), fonts
    assert any("Garuda-Bold" in f for f in fonts), fonts  # the name column is bold


def test_pairings_wall_chart_and_prizes_print_the_names_too():
    lines = [
        PairingLine(1, 1, NAMES[0], 2, NAMES[1]),
        PairingLine(2, 3, NAMES[2], 4, NAMES[3]),
        PairingLine(None, 5, NAMES[4]),
    ]
    players = [
        WallChartPlayer(i + 1, n, 1500, [WallChartGame(1, (i ^ 1) + 1, 400, 300)])
        for i, n in enumerate(NAMES)
    ]
    standings = _standings()
    prizes = prizes_from(standings, [])
    for pdf in (
        pairings_pdf(EVENT, "A", 1, lines),
        wallchart_pdf(EVENT, "A", players, 3),
        prizes_pdf(EVENT, "A", prizes),
    ):
        text = joined([ln for p in pdf_pages(pdf) for ln in p])
        for name in NAMES[:3]:
            assert name in text, name
        assert _embeds(pdf, "WenQuanYiZenHei")


def test_latin_names_take_the_old_path_and_embed_no_fallback():
    ensure_fonts()
    for text in ("Smith, Anna", "Łukasz Müller", "Ødegård, Søren"):
        assert layout._runs(text, FONT) is None, text
        assert text_width(text, FONT, 10) == pdfmetrics.stringWidth(text, FONT, 10)
    lines = [StandingLine(1, 1, "Łukasz Müller", 1, 0, 50, 1500)]
    pdf = standings_pdf(ReportEvent("Latin Open"), "A", 1, lines)
    assert not any(
        "Gibson" not in f and "DejaVu" not in f and "Helvetica" not in f for f in _font_names(pdf)
    ), _font_names(pdf)


def test_widths_are_the_fallback_fonts_so_a_long_name_still_fits_its_cell():
    ensure_fonts()
    name = "Chen, 陈小明"
    runs = layout._runs(name, FONT_BOLD)
    assert runs is not None and [part for _, part in runs] == ["Chen, ", "陈小明"]
    fallback = runs[1][0]
    assert text_width(name, FONT_BOLD, 10) == pytest.approx(
        pdfmetrics.stringWidth("Chen, ", FONT_BOLD, 10)
        + pdfmetrics.stringWidth("陈小明", fallback, 10)
    )
    long = "欧阳" * 30
    fitted = fit_text(long, FONT, 10, 120, 14)
    assert all(text_width(line, FONT, fitted.size) <= 120 + 1e-6 for line in fitted.lines)


def test_without_fallback_fonts_names_print_as_before_without_error(no_fallbacks, tmp_path):
    no_fallbacks.setattr(layout, "_FALLBACK_CANDIDATES", [(str(tmp_path / "gone.ttf"), None, 0)])
    ensure_fonts()
    assert layout._runs("王小明", FONT) is None  # nothing can draw it: the old single string
    pdf = standings_pdf(ReportEvent("No fonts"), "A", 2, _standings())
    assert len(pdf_pages(pdf)) == 1
    assert not _embeds(pdf, "WenQuanYi")


def test_an_unreadable_fallback_font_file_is_skipped(no_fallbacks, tmp_path):
    broken = tmp_path / "broken.ttf"
    broken.write_bytes(b"not a font at all" * 10)
    no_fallbacks.setattr(
        layout, "_FALLBACK_CANDIDATES", [(str(broken), None, 0), (CJK_FONT, None, 0)]
    )
    ensure_fonts()
    pdf = standings_pdf(ReportEvent("Broken font"), "A", 2, _standings())
    assert "王小明" in pdf_pages(pdf)[0]
    assert _embeds(pdf, "WenQuanYiZenHei")


PDFTOPPM = shutil.which("pdftoppm")


def _rasterise(pdf: bytes, tmp_path, name: str) -> Image.Image:
    src = tmp_path / f"{name}.pdf"
    src.write_bytes(pdf)
    subprocess.run(
        [
            PDFTOPPM,
            "-png",
            "-r",
            "100",
            "-f",
            "1",
            "-l",
            "1",
            "-singlefile",
            str(src),
            str(tmp_path / name),
        ],
        check=True,
        capture_output=True,
        timeout=60,
    )
    return Image.open(tmp_path / f"{name}.png").convert("L")


@pytest.mark.skipif(PDFTOPPM is None, reason="pdftoppm not installed (poppler-utils)")
def test_rendered_names_are_glyphs_not_missing_glyph_boxes(tmp_path, monkeypatch):
    lines = [StandingLine(i + 1, i + 1, n, 1, 0, 10, 1500) for i, n in enumerate(NAMES[:4])]
    with_fonts = _rasterise(standings_pdf(EVENT, "A", 1, lines), tmp_path, "fallback")

    layout._fallback_of.clear()
    layout._runs_of.cache_clear()
    monkeypatch.setattr(layout, "_fallbacks", [])  # as if none were installed: boxes
    try:
        boxes = _rasterise(standings_pdf(EVENT, "A", 1, lines), tmp_path, "boxes")
    finally:
        layout._fallback_of.clear()
        layout._runs_of.cache_clear()

    # The name column of the four rows: ink in both, but different ink (glyphs vs boxes).
    w, h = with_fonts.size
    box = (int(w * 0.17), int(h * 0.098), int(w * 0.45), int(h * 0.168))
    names_img, boxes_img = with_fonts.crop(box), boxes.crop(box)
    ink = sum(names_img.histogram()[:128])
    assert ink > 200, "the names drew nothing"
    diff = ImageChops.difference(names_img, boxes_img)
    changed = sum(diff.histogram()[64:])
    assert changed > ink * 0.3, "the names look the same as the missing-glyph boxes"
