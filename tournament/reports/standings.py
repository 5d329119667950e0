"""Standings after any round, as a sheet for the wall and the director's file."""

from __future__ import annotations

from collections.abc import Sequence

from .data import ReportError, ReportEvent, StandingLine, format_record, format_spread
from .layout import Column, Document, chunk, content_height, draw_table_page, rows_per_page
from .words import gettext

ROW = 14.5
SIZE = 10.0
HEAD_H = 16.0


def standings_pdf(
    event: ReportEvent, division: str, after_round: int, lines: Sequence[StandingLine]
) -> bytes:
    """Standings after ``after_round`` in the order given (the caller ranks; we only print).

    Unranked players (withdrawn) print at the end with no rank, whatever order they come in,
    so a withdrawal never looks like a place in the table.
    """
    if after_round < 0:
        raise ReportError(f"standings: after_round must not be negative (got {after_round})")
    seen: set[int] = set()
    for line in lines:
        if line.number in seen:
            raise ReportError(
                f"standings after round {after_round}: player #{line.number} {line.name} "
                "appears twice"
            )
        seen.add(line.number)
    ordered = [ln for ln in lines if ln.rank is not None] + [ln for ln in lines if ln.rank is None]
    show_estimate = any(ln.estimate is not None for ln in ordered)
    show_class = any(ln.player_class for ln in ordered)
    show_note = any(ln.note for ln in ordered)
    columns = [
        Column(gettext("Rank"), 40, "right", bold=True),
        Column("#", 34, "right"),
        Column(gettext("Player"), 0, bold=True),
        Column(gettext("Won-Lost"), 66, "center"),
        Column(gettext("Spread"), 56, "right"),
        Column(gettext("Rating"), 48, "right"),
    ]
    if show_estimate:
        # Translators: standings column: the player's rating estimated from this event
        columns.append(Column(gettext("Estimate"), 56, "right"))
    if show_class:
        columns.append(Column(gettext("Class"), 40, "center"))
    if show_note:
        columns.append(Column(gettext("Note"), 70))

    per_page = rows_per_page(content_height(event) - 8, ROW, HEAD_H)
    pages = chunk(ordered, per_page)
    if after_round:
        title = gettext("Standings after round {round}").format(round=after_round)
    else:
        title = gettext("Standings before round 1")
    doc = Document(event, division, title=title, total_pages=len(pages))
    for page in pages:
        c = doc.start_page(title)
        rows = []
        for ln in page:
            row = [
                "" if ln.rank is None else str(ln.rank),
                str(ln.number),
                ln.name,
                format_record(ln.wins, ln.losses),
                format_spread(ln.spread),
                str(ln.rating) if ln.rating else gettext("unr."),
            ]
            if show_estimate:
                row.append("" if ln.estimate is None else str(ln.estimate))
            if show_class:
                row.append(ln.player_class)
            if show_note:
                row.append(ln.note)
            rows.append(row)
        if not rows:
            rows = [["", "", gettext("No players yet")] + [""] * (len(columns) - 3)]
        draw_table_page(
            c,
            columns,
            rows,
            x=doc.left,
            top=doc.top - 8,
            width=doc.right - doc.left,
            row_h=ROW,
            size=SIZE,
            head_h=HEAD_H,
        )
    return doc.finish()
