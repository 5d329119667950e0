"""Shared page furniture: fonts, the event header, "page X of Y", text that always fits.

Everything is drawn straight onto a reportlab canvas (no platypus): every report knows its
page count before it draws the first page, so "page X of Y" needs no second pass, and a
250-page run of scorecards stays well inside the time a director will wait at the printer.
"""

from __future__ import annotations

import functools
import io
import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass

from reportlab import rl_config
from reportlab.lib.colors import Color
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFError, TTFont
from reportlab.pdfgen.canvas import Canvas

from .data import ReportEvent, page_size
from .words import gettext

# Player names come from many countries (TSH files are UTF-8 or Latin-1), so the type must
# cover more than the 14 standard PDF fonts' WinAnsi set: DejaVu Sans where the system has it,
# else reportlab's bundled Bitstream Vera (same metrics family, Latin-1 only).
_FONT_CANDIDATES = [
    (
        "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
        "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf",
    ),
    ("/usr/share/fonts/dejavu/DejaVuSans.ttf", "/usr/share/fonts/dejavu/DejaVuSans-Bold.ttf"),
    (
        "/usr/share/fonts/dejavu-sans-fonts/DejaVuSans.ttf",
        "/usr/share/fonts/dejavu-sans-fonts/DejaVuSans-Bold.ttf",
    ),
    ("/Library/Fonts/DejaVuSans.ttf", "/Library/Fonts/DejaVuSans-Bold.ttf"),
]
FONT = "GibsonSans"
FONT_BOLD = "GibsonSans-Bold"
_fonts_ready = False

# International events (WESPA) have players whose names are in scripts DejaVu lacks; without a
# fallback they print as empty boxes. Each such character is drawn with the first font below
# that has it: (regular, bold or None = the regular one, index in a TrueType collection).
# reportlab reads TrueType outlines only, not CFF, so e.g. Noto CJK (.otf/.ttc with CFF) cannot
# serve; these are Debian's TrueType packages fonts-wqy-zenhei and fonts-tlwg-garuda-ttf.
_FALLBACK_CANDIDATES: list[tuple[str, str | None, int]] = [
    ("/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc", None, 0),  # Chinese, Japanese, Korean
    ("/usr/share/fonts/wqy-zenhei/wqy-zenhei.ttc", None, 0),  # same font, Fedora's path
    (
        "/usr/share/fonts/truetype/tlwg/Garuda.ttf",  # Thai
        "/usr/share/fonts/truetype/tlwg/Garuda-Bold.ttf",
        0,
    ),
    ("/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf", None, 0),  # CJK, if present
]
_coverage: dict[str, dict[int, object]] = {}  # registered font name -> its code points
_fallbacks: list[tuple[str, str]] | None = None  # (regular, bold) names, loaded on first need
_fallback_lock = threading.Lock()
_fallback_of: dict[tuple[str, bool], str | None] = {}  # (character, bold) -> font that has it

INK = Color(0, 0, 0)
GREY = Color(0.45, 0.45, 0.45)
RULE = Color(0.6, 0.6, 0.6)
FAINT = Color(0.8, 0.8, 0.8)
ZEBRA = Color(0.93, 0.94, 0.96)
HEAD_FILL = Color(0.86, 0.88, 0.92)


def ensure_fonts() -> None:
    """Register the report fonts once per process (TTF parsing is the slow part)."""
    global _fonts_ready
    if _fonts_ready:
        return
    regular = bold = None
    for reg, bld in _FONT_CANDIDATES:
        if os.path.exists(reg) and os.path.exists(bld):
            regular, bold = reg, bld
            break
    if regular is None:
        regular, bold = "Vera.ttf", "VeraBd.ttf"  # found on reportlab's own font path
    for name, path in ((FONT, regular), (FONT_BOLD, bold)):
        font = TTFont(name, path)
        pdfmetrics.registerFont(font)
        _coverage[name] = font.face.charWidths
    _fonts_ready = True


def _load_fallbacks() -> list[tuple[str, str]]:
    """Register the installed fallback fonts, once, only when a text first needs one.

    Parsing a CJK collection takes a tenth of a second, which a report of Latin names should
    not pay. A font file that cannot be read is skipped: its characters print as boxes, as
    they did before there were fallbacks, rather than failing the whole report.
    """
    global _fallbacks
    with _fallback_lock:
        if _fallbacks is not None:
            return _fallbacks
        loaded: list[tuple[str, str]] = []
        for regular, bold, index in _FALLBACK_CANDIDATES:
            if not os.path.exists(regular):
                continue
            # named after the file, so registering it again (tests do) is the same font
            name = f"GibsonFallback-{os.path.splitext(os.path.basename(regular))[0]}-{index}"
            try:
                font = TTFont(name, regular, subfontIndex=index)
                pdfmetrics.registerFont(font)
                _coverage[name] = font.face.charWidths
                bold_name = name
                if bold and os.path.exists(bold):
                    bold_font = TTFont(f"{name}-Bold", bold, subfontIndex=index)
                    pdfmetrics.registerFont(bold_font)
                    bold_name = f"{name}-Bold"
                    _coverage[bold_name] = bold_font.face.charWidths
            except (TTFError, OSError):
                continue
            loaded.append((name, bold_name))
        _fallbacks = loaded
        return loaded


def _fallback_font(ch: str, bold: bool) -> str | None:
    key = (ch, bold)
    if key not in _fallback_of:
        code = ord(ch)
        found = None
        for regular, heavy in _load_fallbacks():
            name = heavy if bold else regular
            if code in _coverage[name]:
                found = name
                break
        _fallback_of[key] = found
    return _fallback_of[key]


def _runs(text: str, font: str) -> tuple[tuple[str, str], ...] | None:
    """``text`` split into (font, part) runs when ``font`` lacks some of its characters.

    None means ``font`` has them all (always so for ASCII), and the caller draws the text
    exactly as it did before fallback fonts existed: the common case stays as fast as it was.
    """
    if text.isascii() or font not in _coverage:
        return None  # not one of our fonts (its coverage is unknown): drawn as given
    return _runs_of(text, font)


@functools.lru_cache(maxsize=8192)  # opponent names recur on every card they appear on
def _runs_of(text: str, font: str) -> tuple[tuple[str, str], ...] | None:
    have = _coverage[font]
    if all(ord(ch) in have for ch in text):
        return None
    bold = font == FONT_BOLD
    runs: list[list] = []  # [font, [characters]]
    for ch in text:
        code = ord(ch)
        if runs and ch.isspace() and code in _coverage[runs[-1][0]]:
            use = runs[-1][0]  # "山田 太郎" stays one run: fewer font switches, one word to copy
        elif code in have:
            use = font
        else:
            use = _fallback_font(ch, bold) or font  # no font has it: a box, as before
        if runs and runs[-1][0] == use:
            runs[-1][1].append(ch)
        else:
            runs.append([use, [ch]])
    if len(runs) == 1 and runs[0][0] == font:
        return None
    return tuple((f, "".join(chars)) for f, chars in runs)


def text_width(text: str, font: str, size: float) -> float:
    """Width of ``text`` as drawn, including the parts drawn with a fallback font."""
    runs = _runs(text, font)
    if runs is None:
        return pdfmetrics.stringWidth(text, font, size)
    return sum(pdfmetrics.stringWidth(part, f, size) for f, part in runs)


def draw_text(
    c: Canvas, x: float, y: float, text: str, font: str, size: float, align: str = "left"
) -> None:
    """One line at baseline ``y`` (``x`` is its left, centre or right end, by ``align``).

    Use this rather than ``c.drawString`` for anything a person typed (names, event, venue):
    characters the report font lacks then come from a fallback font instead of printing as
    boxes. Leaves ``font`` at ``size`` as the canvas's current font, as setFont would.
    """
    c.setFont(font, size)
    runs = _runs(text, font)
    if runs is None:
        if align == "right":
            c.drawRightString(x, y, text)
        elif align == "center":
            c.drawCentredString(x, y, text)
        else:
            c.drawString(x, y, text)
        return
    _draw_runs(c, x, y, runs, font, size, align)


def _draw_runs(
    c: Canvas,
    x: float,
    y: float,
    runs: tuple[tuple[str, str], ...],
    font: str,
    size: float,
    align: str,
) -> None:
    if align != "left":
        total = sum(pdfmetrics.stringWidth(part, f, size) for f, part in runs)
        x -= total if align == "right" else total / 2
    # One text object for the whole line, so a PDF reader copies "Chen, 陈" as one string,
    # ended by a line break (T*) as drawString ends its own.
    t = c.beginText(x, y)
    last = len(runs) - 1
    for i, (f, part) in enumerate(runs):
        t.setFont(f, size)
        if i < last:
            t.textOut(part)
        else:
            t.textLine(part)
    c.drawText(t)
    c.setFont(font, size)


def _wrap_words(text: str, font: str, size: float, width: float) -> list[str] | None:
    """Split ``text`` into lines no wider than ``width`` at spaces; None if a word is too wide."""
    lines: list[str] = []
    current = ""
    for word in text.split():
        trial = f"{current} {word}" if current else word
        if text_width(trial, font, size) <= width:
            current = trial
            continue
        if not current or text_width(word, font, size) > width:
            return None
        lines.append(current)
        current = word
    if current:
        lines.append(current)
    return lines


def _ellipsize(text: str, font: str, size: float, width: float) -> str:
    if text_width(text, font, size) <= width:
        return text
    lo, hi = 0, len(text)
    while lo < hi:  # longest prefix that fits with the ellipsis
        mid = (lo + hi + 1) // 2
        if text_width(text[:mid] + "…", font, size) <= width:
            lo = mid
        else:
            hi = mid - 1
    return text[:lo] + "…"


@dataclass(frozen=True)
class Fitted:
    lines: tuple[str, ...]
    size: float


def fit_text(
    text: str,
    font: str,
    size: float,
    width: float,
    height: float,
    *,
    min_size: float = 5.0,
) -> Fitted:
    """Make ``text`` fit a ``width`` x ``height`` box: shrink a little, then wrap, then shrink.

    A name that overflows its cell would run into the next column and look like a different
    player's data, so a cell's text never leaves the cell: as a last resort it is cut with an
    ellipsis (only when even two lines at ``min_size`` cannot hold it).
    """
    if not text or width <= 0:
        return Fitted((text,), size)
    natural = text_width(text, font, size)
    if natural <= width:
        return Fitted((text,), size)
    # 1. shrink up to a quarter: still one line, still readable
    shrunk = size * width / natural
    if shrunk >= max(size * 0.75, min_size):
        return Fitted((text,), _floor(shrunk))
    # 2. two lines, as large as the box height allows
    s = min(size, height / 2.3)
    while s >= min_size:
        lines = _wrap_words(text, font, s, width)
        if lines is not None and len(lines) <= 2:
            return Fitted(tuple(lines), s)
        s -= 0.5
    # 3. one line down to the minimum size
    if shrunk >= min_size:
        return Fitted((text,), _floor(shrunk))
    return Fitted((_ellipsize(text, font, min_size, width),), min_size)


def _floor(size: float) -> float:
    return int(size * 4) / 4.0  # quarter points: avoids rounding back over the width


def draw_fitted(
    c: Canvas,
    text: str,
    x: float,
    y: float,
    width: float,
    height: float,
    *,
    font: str = FONT,
    size: float = 9.0,
    align: str = "left",
    min_size: float = 5.0,
) -> None:
    """Draw ``text`` inside the box (x, y) .. (x + width, y + height), vertically centred."""
    if text == "":
        return
    fitted = fit_text(text, font, size, width, height, min_size=min_size)
    s = fitted.size
    n = len(fitted.lines)
    leading = s * 1.12
    # baseline of the first line so the block is centred on the box (cap height ~ 0.72 em)
    block = (n - 1) * leading + s * 0.72
    base = y + (height + block) / 2 - s * 0.72
    c.setFont(font, s)
    for i, line in enumerate(fitted.lines):
        yy = base - i * leading
        runs = _runs(line, font)
        if runs is not None:  # characters the font lacks: drawn run by run with fallbacks
            ax = x + width if align == "right" else x + width / 2 if align == "center" else x
            _draw_runs(c, ax, yy, runs, font, s, align)
        elif align == "right":
            c.drawRightString(x + width, yy, line)
        elif align == "center":
            c.drawCentredString(x + width / 2, yy, line)
        else:
            c.drawString(x, yy, line)


# --------------------------------------------------------------------------------------------
# Pages
# --------------------------------------------------------------------------------------------

MARGIN = 28.0
HEADER_H = 30.0
FOOTER_H = 16.0


class Document:
    """A PDF with the event header and "page X of Y" on every page.

    The caller states the page count up front (every report paginates before it draws), which
    is what lets the footer be written in the same pass as the page.
    """

    def __init__(
        self,
        event: ReportEvent,
        division: str,
        *,
        title: str,
        total_pages: int,
        landscape: bool = False,
    ):
        ensure_fonts()
        w, h = page_size(event)
        self.width, self.height = (h, w) if landscape else (w, h)
        self.event = event
        self.division = division
        self.total_pages = max(1, total_pages)
        self.page = 0
        self._buf = io.BytesIO()
        self.canvas = Canvas(
            self._buf, pagesize=(self.width, self.height), pageCompression=1, invariant=1
        )
        self.canvas.setTitle(f"{event.name} - {division_label(division)} - {title}")
        self.canvas.setAuthor("Gibson")
        self.canvas.setCreator("Gibson tournament reports")
        # The content box every report draws into (below the header, above the footer).
        self.left = MARGIN
        self.right = self.width - MARGIN
        self.top = self.height - MARGIN - HEADER_H
        self.bottom = MARGIN + FOOTER_H

    def start_page(self, subtitle: str) -> Canvas:
        """Finish the previous page (if any) and draw the next one's header and footer."""
        c = self.canvas
        if self.page:
            c.showPage()
        self.page += 1
        top = self.height - MARGIN
        c.setFillColor(INK)
        right_text = self.event.dates
        rw = text_width(right_text, FONT, 9) + 12 if right_text else 0
        draw_fitted(
            c,
            self.event.name,
            self.left,
            top - 14,
            self.right - self.left - rw,
            14,
            font=FONT_BOLD,
            size=12,
            min_size=7,
        )
        if right_text:
            draw_text(c, self.right, top - 10, right_text, FONT, 9, align="right")
        line2 = f"{division_label(self.division)}  ·  {subtitle}" if subtitle else ""
        venue = self.event.venue
        vw = min(text_width(venue, FONT, 8.5) + 12, (self.right - self.left) / 3) if venue else 0
        draw_fitted(
            c,
            line2,
            self.left,
            top - 27,
            self.right - self.left - vw,
            12,
            font=FONT,
            size=9.5,
            min_size=6,
        )
        if venue:
            c.setFillColor(GREY)
            draw_fitted(
                c,
                venue,
                self.right - vw + 12,
                top - 27,
                vw - 12,
                12,
                size=8.5,
                align="right",
                min_size=5,
            )
            c.setFillColor(INK)
        c.setStrokeColor(RULE)
        c.setLineWidth(0.6)
        c.line(self.left, top - HEADER_H + 1, self.right, top - HEADER_H + 1)
        # footer
        c.setFont(FONT, 7.5)
        c.setFillColor(GREY)
        c.drawString(self.left, MARGIN, "Gibson")
        c.setFillColor(INK)
        c.setFont(FONT, 8.5)
        page = gettext("page {page} of {pages}").format(page=self.page, pages=self.total_pages)
        c.drawRightString(self.right, MARGIN, page)
        return c

    def finish(self) -> bytes:
        if self.page == 0:
            self.start_page("")
        if self.page != self.total_pages:  # a pagination bug would print a wrong "of Y"
            raise AssertionError(f"drew {self.page} pages but announced {self.total_pages}")
        self.canvas.showPage()
        # ASCII85 wrapping of compressed streams (reportlab's default) only matters for 7-bit
        # mail transports; it grows the file by a quarter and, without reportlab's optional C
        # accelerator, costs a second per 250 pages. It is read only while saving.
        saved = rl_config.useA85
        rl_config.useA85 = 0
        try:
            self.canvas.save()
        finally:
            rl_config.useA85 = saved
        return self._buf.getvalue()


def content_height(event: ReportEvent, *, landscape: bool = False) -> float:
    """Height of the box between header and footer, for paginating before drawing."""
    w, h = page_size(event)
    return (w if landscape else h) - 2 * MARGIN - HEADER_H - FOOTER_H


def content_width(event: ReportEvent, *, landscape: bool = False) -> float:
    w, h = page_size(event)
    return (h if landscape else w) - 2 * MARGIN


def division_label(division: str) -> str:
    d = division.strip()
    word = gettext("Division")
    if not d:
        return word
    if d.lower().startswith(("division", word.lower())):
        return d
    return gettext("Division {division}").format(division=d)


# --------------------------------------------------------------------------------------------
# Tables
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Column:
    title: str
    width: float  # points; a column with width 0 takes the width left over
    align: str = "left"
    bold: bool = False
    size: float | None = None  # None = the table's size


def resolve_widths(columns: Sequence[Column], total: float) -> list[float]:
    fixed = sum(col.width for col in columns)
    flex = [i for i, col in enumerate(columns) if col.width == 0]
    rest = max(0.0, total - fixed)
    widths = [col.width for col in columns]
    for i in flex:
        widths[i] = rest / len(flex)
    if not flex and fixed > 0 and fixed != total:  # stretch proportionally to the box
        widths = [w * total / fixed for w in widths]
    return widths


def draw_table_page(
    c: Canvas,
    columns: Sequence[Column],
    rows: Sequence[Sequence[str]],
    *,
    x: float,
    top: float,
    width: float,
    row_h: float,
    size: float,
    head_h: float | None = None,
    zebra: bool = True,
    pad: float = 3.0,
    head_size: float | None = None,
    min_size: float = 5.0,
) -> float:
    """Draw a heading row and ``rows`` below ``top``; returns the y of the table's bottom."""
    widths = resolve_widths(columns, width)
    head_h = head_h or row_h
    hs = head_size or min(size, 9.0)
    c.setFillColor(HEAD_FILL)
    c.rect(x, top - head_h, width, head_h, stroke=0, fill=1)
    c.setFillColor(INK)
    cx = x
    for col, w in zip(columns, widths, strict=True):
        draw_fitted(
            c,
            col.title,
            cx + pad,
            top - head_h,
            w - 2 * pad,
            head_h,
            font=FONT_BOLD,
            size=hs,
            align=col.align,
            min_size=min_size,
        )
        cx += w
    y = top - head_h
    for i, row in enumerate(rows):
        if zebra and i % 2 == 1:
            c.setFillColor(ZEBRA)
            c.rect(x, y - row_h, width, row_h, stroke=0, fill=1)
            c.setFillColor(INK)
        cx = x
        for col, w, cell in zip(columns, widths, row, strict=True):
            draw_fitted(
                c,
                cell,
                cx + pad,
                y - row_h,
                w - 2 * pad,
                row_h,
                font=FONT_BOLD if col.bold else FONT,
                size=col.size or size,
                align=col.align,
                min_size=min_size,
            )
            cx += w
        y -= row_h
    c.setStrokeColor(RULE)
    c.setLineWidth(0.5)
    c.line(x, top, x + width, top)
    c.line(x, top - head_h, x + width, top - head_h)
    c.line(x, y, x + width, y)
    return y


def rows_per_page(available: float, row_h: float, head_h: float) -> int:
    return max(1, int((available - head_h) // row_h))


def chunk(seq: Sequence, size: int) -> list[Sequence]:
    return [seq[i : i + size] for i in range(0, len(seq), size)] or [seq[:0]]
