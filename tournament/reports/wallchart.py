"""The wall chart (cross table): a row per player, a cell per round, landscape.

Many rounds do not fit one page width, so the rounds are split into even blocks ("rounds 1-12",
"rounds 13-23"); each block repeats the player columns and ends with the record and spread
through its last round, so every page reads on its own when taped to a wall.
"""

from __future__ import annotations

from collections.abc import Sequence
from math import ceil

from reportlab.pdfgen.canvas import Canvas

from .data import (
    ReportError,
    ReportEvent,
    WallChartGame,
    WallChartPlayer,
    format_record,
    format_spread,
)
from .layout import (
    FONT,
    FONT_BOLD,
    GREY,
    HEAD_FILL,
    INK,
    RULE,
    ZEBRA,
    Document,
    content_height,
    content_width,
    draw_fitted,
)
from .words import gettext, pgettext

ROW = 25.0
HEAD_H = 16.0
MIN_CELL = 46.0
MAX_CELL = 62.0
NUM_W, NAME_W, RATING_W = 26.0, 150.0, 36.0
REC_W, SPREAD_W = 44.0, 46.0


def wallchart_pdf(
    event: ReportEvent, division: str, players: Sequence[WallChartPlayer], rounds: int
) -> bytes:
    """The cross table for ``rounds`` rounds; rounds with no game print as empty cells."""
    if rounds < 1:
        raise ReportError(f"wall chart: rounds must be at least 1 (got {rounds})")
    numbers = {p.number for p in players}
    if len(numbers) != len(players):
        raise ReportError("wall chart: a player number appears twice")
    cells: list[dict[int, WallChartGame]] = []
    for p in players:
        by_round: dict[int, WallChartGame] = {}
        for g in p.games:
            where = f"wall chart: player #{p.number} {p.name}, round {g.round}"
            if not 1 <= g.round <= rounds:
                raise ReportError(f"{where}: round outside 1-{rounds}")
            if g.round in by_round:
                raise ReportError(f"{where}: two games in one round")
            if g.opponent_number and g.opponent_number not in numbers:
                raise ReportError(f"{where}: opponent #{g.opponent_number} is not in the division")
            by_round[g.round] = g
        cells.append(by_round)

    width = content_width(event, landscape=True)
    fixed = NUM_W + NAME_W + RATING_W + REC_W + SPREAD_W
    max_per_block = max(1, int((width - fixed) // MIN_CELL))
    blocks_n = ceil(rounds / max_per_block)
    per_block = ceil(rounds / blocks_n)
    blocks = [
        (start, min(rounds, start + per_block - 1)) for start in range(1, rounds + 1, per_block)
    ]
    cell_w = min(MAX_CELL, (width - fixed) / per_block)
    per_page = max(1, int((content_height(event, landscape=True) - 8 - HEAD_H) // ROW))
    row_pages = [
        list(range(i, min(i + per_page, len(players)))) for i in range(0, len(players), per_page)
    ] or [[]]

    doc = Document(
        event,
        division,
        title=gettext("Wall chart"),
        total_pages=len(blocks) * len(row_pages),
        landscape=True,
    )
    for first, last in blocks:
        for indexes in row_pages:
            subtitle = gettext("Wall chart  ·  rounds {first}-{last} of {rounds}")
            c = doc.start_page(subtitle.format(first=first, last=last, rounds=rounds))
            _draw_block(c, doc, players, cells, indexes, first, last, cell_w)
    return doc.finish()


def _draw_block(
    c: Canvas,
    doc: Document,
    players: Sequence[WallChartPlayer],
    cells: Sequence[dict[int, WallChartGame]],
    indexes: list[int],
    first: int,
    last: int,
    cell_w: float,
) -> None:
    x0, top = doc.left, doc.top - 8
    widths = [NUM_W, NAME_W, RATING_W] + [cell_w] * (last - first + 1) + [REC_W, SPREAD_W]
    # Translators: wall chart column: round N, abbreviated
    rd = gettext("Rd {round}")
    titles = ["#", gettext("Player"), gettext("Rating")]
    titles += [rd.format(round=r) for r in range(first, last + 1)]
    # Translators: wall chart column: wins-losses through round N
    titles += [gettext("W-L ({round})").format(round=last), gettext("Spread")]
    total_w = sum(widths)
    _draw_head(c, x0, top, titles, widths)
    y = top - HEAD_H
    for k, i in enumerate(indexes):
        p, games = players[i], cells[i]
        if k % 2:
            c.setFillColor(ZEBRA)
            c.rect(x0, y - ROW, total_w, ROW, stroke=0, fill=1)
            c.setFillColor(INK)
        cx = x0
        draw_fitted(c, str(p.number), cx, y - ROW, NUM_W - 3, ROW, size=9, align="right")
        cx += NUM_W
        draw_fitted(c, p.name, cx + 3, y - ROW, NAME_W - 6, ROW, font=FONT_BOLD, size=9, min_size=5)
        cx += NAME_W
        draw_fitted(
            c,
            str(p.rating) if p.rating else gettext("unr."),
            cx,
            y - ROW,
            RATING_W - 3,
            ROW,
            size=8.5,
            align="right",
        )
        cx += RATING_W
        wins = losses = 0.0
        spread = 0
        for r in range(1, last + 1):
            g = games.get(r)
            if g is not None and g.spread is not None:
                result = g.result
                if result is not None:
                    wins += result
                    losses += 1 - result
                spread += g.spread
            if r >= first:
                off = p.withdrawn_round is not None and r >= p.withdrawn_round
                if off and (g is None or g.bye):
                    # a withdrawn player plays no game: their recorded withdrawal score is not
                    # a bye or forfeit on the wall
                    _draw_withdrawn(c, g, cx, y - ROW, cell_w)
                else:
                    _draw_cell(c, g, cx, y - ROW, cell_w)
                cx += cell_w
        draw_fitted(
            c,
            format_record(wins, losses),
            cx,
            y - ROW,
            REC_W,
            ROW,
            font=FONT_BOLD,
            size=9,
            align="center",
        )
        cx += REC_W
        draw_fitted(c, format_spread(spread), cx, y - ROW, SPREAD_W - 4, ROW, size=9, align="right")
        y -= ROW
    _draw_grid(c, x0, top, y, widths)


def _draw_head(c: Canvas, x0: float, top: float, titles: list[str], widths: list[float]) -> None:
    """The block's head row: number, player, rating, each round shown, record and spread."""
    c.setFillColor(HEAD_FILL)
    c.rect(x0, top - HEAD_H, sum(widths), HEAD_H, stroke=0, fill=1)
    c.setFillColor(INK)
    cx = x0
    for i, (title, w) in enumerate(zip(titles, widths, strict=True)):
        align = "left" if i == 1 else "center"
        draw_fitted(
            c,
            title,
            cx + 2,
            top - HEAD_H,
            w - 4,
            HEAD_H,
            font=FONT_BOLD,
            size=8,
            align=align,
            min_size=5,
        )
        cx += w


def _draw_grid(c: Canvas, x0: float, top: float, bottom: float, widths: list[float]) -> None:
    """Column rules between rounds (the chart is read from a distance) and the block's
    top, head and bottom lines, one path."""
    total_w = sum(widths)
    c.setStrokeColor(RULE)
    c.setLineWidth(0.5)
    path = c.beginPath()
    cx = x0
    for w in widths[:-1]:
        cx += w
        path.moveTo(cx, top)
        path.lineTo(cx, bottom)
    path.moveTo(x0, top)
    path.lineTo(x0 + total_w, top)
    path.moveTo(x0, top - HEAD_H)
    path.lineTo(x0 + total_w, top - HEAD_H)
    path.moveTo(x0, bottom)
    path.lineTo(x0 + total_w, bottom)
    c.drawPath(path, stroke=1, fill=0)


def _draw_withdrawn(c: Canvas, g: WallChartGame | None, x: float, y: float, w: float) -> None:
    """A round after the player withdrew: "withdrawn", with the score recorded for it if any."""
    half = ROW / 2
    c.setFillColor(GREY)
    draw_fitted(
        c, gettext("withdrawn"), x + 2, y + half - 1, w - 4, half, font=FONT, size=7, align="center"
    )
    if g is not None and g.score is not None:
        draw_fitted(c, format_spread(g.score), x + 2, y + 1, w - 4, half, size=7, align="center")
    c.setFillColor(INK)


def _draw_cell(c: Canvas, g: WallChartGame | None, x: float, y: float, w: float) -> None:
    """Top line: result and opponent ("W 12"); bottom line: score and spread ("452 +87")."""
    if g is None:
        return
    half = ROW / 2
    if g.bye:
        top = gettext("forfeit") if (g.score or 0) < 0 else pgettext("game result", "bye")
    else:
        result = g.result
        # Translators: wall chart: one-letter win / loss / tie
        letters = {1.0: gettext("W"), 0.0: gettext("L"), 0.5: gettext("T")}
        letter = letters.get(result, "") if result is not None else ""
        top = f"{letter} {g.opponent_number}".strip()
    draw_fitted(c, top, x + 2, y + half - 1, w - 4, half, font=FONT_BOLD, size=8, align="center")
    if g.score is None:
        return
    spread = g.spread
    if g.bye:
        bottom = format_spread(g.score)
    else:
        bottom = str(g.score) if spread is None else f"{g.score} {format_spread(spread)}"
    c.setFillColor(GREY if g.bye else INK)
    draw_fitted(c, bottom, x + 2, y + 1, w - 4, half, font=FONT, size=7.5, align="center")
    c.setFillColor(INK)
