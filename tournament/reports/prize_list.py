"""The prize list sheet: what ``prizes_from`` worked out, in the order prizes are announced."""

from __future__ import annotations

from collections.abc import Sequence

from .data import Prize, ReportEvent
from .layout import Column, Document, chunk, content_height, draw_table_page, rows_per_page
from .words import gettext

ROW = 22.0
SIZE = 10.5
HEAD_H = 17.0


def prizes_pdf(
    event: ReportEvent,
    division: str,
    prizes: Sequence[Prize],
    *,
    after_round: int | None = None,
    title: str | None = None,
) -> bytes:
    """One line per prize: the prize, the winner(s) with their numbers, and the facts behind it.

    ``title`` (default "Prize list after round N") says what the list includes."""
    columns = [
        Column(gettext("Prize"), 124, bold=True),
        Column(gettext("Winner"), 190, bold=True),
        Column(gettext("Details"), 0),
    ]
    rows = []
    for p in prizes:
        winner = "  &  ".join(f"#{n} {name}" for n, name in zip(p.numbers, p.names, strict=True))
        rows.append([p.label, winner, p.detail])
    if not rows:
        rows = [["", gettext("No prizes to award yet"), ""]]
    per_page = rows_per_page(content_height(event) - 8, ROW, HEAD_H)
    pages = chunk(rows, per_page)
    if title is None:
        if after_round:
            title = gettext("Prize list after round {round}").format(round=after_round)
        else:
            title = gettext("Prize list")
    doc = Document(event, division, title=title, total_pages=len(pages))
    for page in pages:
        c = doc.start_page(title)
        draw_table_page(
            c,
            columns,
            page,
            x=doc.left,
            top=doc.top - 8,
            width=doc.right - doc.left,
            row_h=ROW,
            size=SIZE,
            head_h=HEAD_H,
        )
    return doc.finish()
