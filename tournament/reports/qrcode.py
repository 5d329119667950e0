"""QR codes for scorecards: reportlab's encoder, a faster mask choice, one path per code.

reportlab's ``QrCodeWidget`` picks the mask pattern by building all eight masked matrices
module by module and scoring each with per-module Python loops, then draws one graphics object
per dark run. For 500 scorecards that alone took longer than the whole print budget. Here the
same encoder builds the data once; the eight candidate masks are bit operations on row
integers, scored with the same penalty rules (and the same quirks) as reportlab, so the chosen
mask and the final matrix are identical to reportlab's (the tests check that); the code is then
drawn as a single path in module units.
"""

from __future__ import annotations

import re
from functools import lru_cache

from reportlab.graphics.barcode import qr
from reportlab.graphics.barcode.qrencoder import QRUtil
from reportlab.pdfgen.canvas import Canvas

QUIET = 2  # modules of white border drawn inside the box; the card's white space adds more

_RUN5 = re.compile(r"0{5,}|1{5,}")
_FINDER_LIKE = "10111010000"  # reportlab scores only this orientation; so do we


@lru_cache(maxsize=64)
def _mask_rows(n: int, k: int) -> tuple[int, ...]:
    """Rows of mask pattern ``k`` as integers (column 0 = most significant bit)."""
    mask = QRUtil.getMask(k)
    return tuple(int("".join("1" if mask(r, c) else "0" for c in range(n)), 2) for r in range(n))


def _rows_to_ints(modules: list[list[bool]]) -> list[int]:
    return [int("".join("1" if m else "0" for m in row), 2) for row in modules]


def _lost_points(rows: list[int], n: int) -> int:
    """reportlab's ``QRUtil.getLostPoint`` on row integers (same rules, same result)."""
    fmt = f"0{n}b"
    strings = [format(r, fmt) for r in rows]
    columns = ["".join(col) for col in zip(*strings, strict=True)]
    score = 0
    # rule 1: runs of five or more of one colour, rows and columns: 3 + (length - 5)
    for s in strings + columns:
        for m in _RUN5.finditer(s):
            score += m.end() - m.start() - 2
    # rule 2: 2 x 2 blocks of one colour
    low = (1 << (n - 1)) - 1
    full = (1 << n) - 1
    for a, b in zip(rows, rows[1:], strict=False):
        dark = a & b & (a >> 1) & (b >> 1) & low
        na, nb = ~a & full, ~b & full
        light = na & nb & (na >> 1) & (nb >> 1) & low
        score += 3 * (dark.bit_count() + light.bit_count())
    # rule 3: finder-like pattern, scanned the way reportlab scans (non-overlapping, j < n-11,
    # rows only: reportlab's column pass compares tuples with a list and never matches)
    limit = n - len(_FINDER_LIKE)
    for s in strings:
        j = 0
        while True:
            k = s.find(_FINDER_LIKE, j)
            if k < 0 or k >= limit:
                break
            score += 40
            j = k + len(_FINDER_LIKE)
    # rule 4: balance of dark and light
    dark_count = sum(r.bit_count() for r in rows)
    score += 10 * (abs(100 * dark_count // (n * n) - 50) // 5)
    return score


def qr_modules(data: str, level: str = "M") -> list[list[bool]]:
    """The QR matrix (True = dark) for ``data``, identical to reportlab's own ``make()``."""
    code = qr.QrCodeWidget(data, barLevel=level).qr
    if code.version is None:
        code.version = code.calculate_version()
    code.makeImpl(True, 0)  # function patterns, blank format info, data under mask 0
    n = code.moduleCount
    base = _rows_to_ints(code.modules)
    data_rows = [0] * n
    for col, row in code.dataPosIterator():
        data_rows[row] |= 1 << (n - 1 - col)
    mask0 = _mask_rows(n, 0)
    unmasked = [b ^ (m & d) for b, m, d in zip(base, mask0, data_rows, strict=True)]
    best_k, best_rows, best_score = 0, base, None
    for k in range(8):
        mk = _mask_rows(n, k)
        rows = [u ^ (m & d) for u, m, d in zip(unmasked, mk, data_rows, strict=True)]
        score = _lost_points(rows, n)
        if best_score is None or score < best_score:
            best_k, best_rows, best_score = k, rows, score
    fmt = f"0{n}b"
    code.modules = [[ch == "1" for ch in format(r, fmt)] for r in best_rows]
    code.setupTypeInfo(False, best_k)
    if code.version >= 7:
        code.setupTypeNumber(False)
    return [list(row) for row in code.modules]


class _ModulePath:
    """A path given as raw PDF operators, accepted by ``Canvas.drawPath`` (it calls getCode)."""

    def __init__(self, code: str):
        self._code = code

    def getCode(self) -> str:  # noqa: N802 - reportlab's name
        return self._code


def draw_qr(c: Canvas, data: str, x: float, y: float, size: float, level: str = "M") -> None:
    """Draw the code for ``data`` in the square with lower-left corner (x, y)."""
    modules = qr_modules(data, level)
    n = len(modules)
    box = size / (n + 2 * QUIET)
    ops = []
    for r, row in enumerate(modules):
        col = 0
        while col < n:
            if row[col]:
                start = col
                while col < n and row[col]:
                    col += 1
                # a hair of overlap downwards so viewers show no seams between rows
                ops.append(f"{start} {r} {col - start} 1.03 re")
            else:
                col += 1
    c.saveState()
    # module space: origin at the code's top-left module, one unit per module, rows downwards
    c.transform(box, 0, 0, -box, x + QUIET * box, y + size - QUIET * box)
    c.drawPath(_ModulePath(" ".join(ops)), stroke=0, fill=1)
    c.restoreState()
