"""Rasterise one page of each report with poppler's pdftoppm: it must draw, at the paper size.

pypdf reads text back but does not draw; pdftoppm is what a print server would run, so a page
that poppler cannot render (or renders blank) fails here. Skipped without poppler-utils.
"""

from __future__ import annotations

import io
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from PIL import Image
from reportlab.pdfgen.canvas import Canvas

from tournament.reports import (
    ReportEvent,
    pairings_pdf,
    prizes_from,
    prizes_pdf,
    scorecards_pdf,
    standings_pdf,
    wallchart_pdf,
)
from tournament.reports.qrcode import QUIET, draw_qr, qr_modules

from . import realdata

PDFTOPPM = shutil.which("pdftoppm")
pytestmark = pytest.mark.skipif(
    PDFTOPPM is None, reason="pdftoppm not installed (apt-get install -y poppler-utils)"
)
DPI = 72


def rasterise(pdf: bytes, tmp_path, name: str, dpi: int = DPI, page: int = 1) -> Image.Image:
    src = tmp_path / f"{name}.pdf"
    src.write_bytes(pdf)
    out = tmp_path / name
    subprocess.run(
        [
            PDFTOPPM,
            "-png",
            "-r",
            str(dpi),
            "-f",
            str(page),
            "-l",
            str(page),
            "-singlefile",
            str(src),
            str(out),
        ],
        check=True,
        capture_output=True,
        timeout=60,
    )
    return Image.open(f"{out}.png").convert("L")


def _reports(players, paper):
    event = ReportEvent("Render test", venue="Here", dates="today", paper=paper)
    standings = realdata.standings(players, 12)
    return {
        "scorecards-2": (scorecards_pdf(event, "A", realdata.scorecards(players, 6, 12)), False),
        "scorecards-4": (
            scorecards_pdf(event, "A", realdata.scorecards(players, 6, 12), per_page=4),
            True,
        ),
        "pairings": (pairings_pdf(event, "A", 7, realdata.pairing_lines(players, 7)), False),
        "standings": (standings_pdf(event, "A", 12, standings), False),
        "wallchart": (wallchart_pdf(event, "A", realdata.wallchart(players, 12), 12), True),
        "prizes": (
            prizes_pdf(event, "A", prizes_from(standings, realdata.prize_games(players, 12))),
            False,
        ),
    }


@pytest.mark.parametrize("paper", ["letter", "a4"])
def test_each_report_renders_a_page_at_the_paper_size(tmp_path, players_2023, paper):
    portrait = {"letter": (612, 792), "a4": (595, 842)}[paper]
    for name, (pdf, landscape) in _reports(players_2023, paper).items():
        image = rasterise(pdf, tmp_path, f"{name}-{paper}")
        keep = os.environ.get("GIBSON_RENDER_DIR")
        if keep:  # CI keeps one PNG per kind so a reviewer can see a broken layout
            Path(keep).mkdir(parents=True, exist_ok=True)
            shutil.copy(tmp_path / f"{name}-{paper}.png", Path(keep) / f"{name}-{paper}.png")
        expected = portrait[::-1] if landscape else portrait
        assert image.size == pytest.approx(expected, abs=1), name
        histogram = image.histogram()
        dark = sum(histogram[:128]) / (image.size[0] * image.size[1])
        assert 0.005 < dark < 0.5, f"{name}: page looks blank or solid ({dark:.3f} dark)"


def test_drawn_qr_code_matches_the_encoder_module_for_module(tmp_path):
    url = "https://gibson.example.org/e/spring-open/A/p/17"
    buf = io.BytesIO()
    c = Canvas(buf, pagesize=(100, 100))
    draw_qr(c, url, 10, 10, 80)
    c.showPage()
    c.save()
    dpi = 600
    image = rasterise(buf.getvalue(), tmp_path, "qr", dpi=dpi)
    modules = qr_modules(url)
    n = len(modules)
    box = 80 / (n + 2 * QUIET) * dpi / 72  # pixels per module
    origin_x = 10 * dpi / 72
    origin_y = (100 - 90) * dpi / 72  # top edge of the code, from the image top
    for r in range(-QUIET, n + QUIET):
        for col in range(-QUIET, n + QUIET):
            px = origin_x + (col + QUIET + 0.5) * box
            py = origin_y + (r + QUIET + 0.5) * box
            dark = image.getpixel((int(px), int(py))) < 128
            expected = 0 <= r < n and 0 <= col < n and modules[r][col]
            assert dark == expected, (r, col)


def test_fast_mask_choice_gives_reportlabs_own_matrix():
    """The bit-twiddled mask scoring must pick exactly the mask reportlab's encoder picks."""
    import random
    import string

    from reportlab.graphics.barcode import qr

    rng = random.Random(2026)
    samples = [f"https://gibson.example.org/e/spring-open/A/p/{i}" for i in range(1, 40)]
    samples += [
        "".join(rng.choice(string.printable[:94]) for _ in range(rng.randint(1, 260)))
        for _ in range(40)
    ]
    for data in samples:
        widget = qr.QrCodeWidget(data, barLevel="M")
        widget.qr.make()
        assert qr_modules(data) == [[bool(m) for m in row] for row in widget.qr.modules], data
