"""QR codes drawn straight onto the page as one filled path.

reportlab's ``QrCodeWidget`` builds a drawing object per dark run and renders it through the
graphics layer; for 500 scorecards that dominated the run. The encoder is the same
(``reportlab.graphics.barcode.qr``); only the drawing is done here, one path per code.
"""

from __future__ import annotations

from reportlab.graphics.barcode import qr
from reportlab.pdfgen.canvas import Canvas

QUIET = 2  # modules of white border drawn inside the box; the card's white space adds more


def qr_modules(data: str, level: str = "M") -> list[list[bool]]:
    """The QR matrix (True = dark) for ``data`` with error correction ``level``."""
    widget = qr.QrCodeWidget(data, barLevel=level)
    code = widget.qr
    code.make()
    return [[bool(m) for m in row] for row in code.modules]


def draw_qr(c: Canvas, data: str, x: float, y: float, size: float, level: str = "M") -> None:
    """Draw the code for ``data`` in the square with lower-left corner (x, y)."""
    modules = qr_modules(data, level)
    n = len(modules)
    box = size / (n + 2 * QUIET)
    path = c.beginPath()
    for r, row in enumerate(modules):
        yy = y + size - (r + QUIET + 1) * box
        col = 0
        while col < n:
            if row[col]:
                start = col
                while col < n and row[col]:
                    col += 1
                # a hair of overlap downwards so viewers show no seams between rows
                left = x + (start + QUIET) * box
                path.rect(left, yy - box * 0.03, (col - start) * box, box * 1.03)
            else:
                col += 1
    c.drawPath(path, stroke=0, fill=1)
