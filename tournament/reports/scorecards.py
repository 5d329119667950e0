"""NASPA-style scorecards, two or four to a page, pre-filled as far as the event has got.

Players keep their own card during the event and write each result on it, so rows for rounds
not yet played stay blank and keep a row height a pen can use. Each card carries the event and
division (cards are cut apart) and a QR code to the player's own page with the address printed
under it, for phones that cannot scan.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from math import ceil

from reportlab.pdfgen.canvas import Canvas

from .data import (
    CardRow,
    ReportError,
    ReportEvent,
    Scorecard,
    card_rows,
    format_record,
    format_spread,
    starts_replies,
)
from .layout import (
    FAINT,
    FONT,
    FONT_BOLD,
    FOOTER_H,
    GREY,
    HEAD_FILL,
    HEADER_H,
    INK,
    MARGIN,
    RULE,
    Document,
    division_label,
    draw_fitted,
    draw_text,
    text_width,
)
from .qrcode import draw_qr
from .words import gettext, gettext_noop, pgettext, translated
from .words import number as format_number

GAP = 14.0  # between cards: room for scissors
PAD = 6.0  # inside a card's border
MIN_ROW = 9.5  # points; below this a result cannot be written by hand
LEGEND_H = 9.0

# (title on a wide card, title on a narrow card, widest value, align). The widest value sizes
# the column at the card's type size, so a 2199 rating or a +999 spread prints as large as the
# rest of the row; the opponent column ("") takes what is left.
# The titles are translated as they are drawn (words.translated): a narrow card's are short.
_COLUMNS = [
    # Translators: scorecard column: the round number (narrow: abbreviated)
    (gettext_noop("Rd"), gettext_noop("Rd"), "23", "center"),
    # Translators: scorecard column: whether the player went first or second
    (gettext_noop("1st/2nd"), gettext_noop("1/2"), "2nd", "center"),
    # Translators: scorecard column: the table the game is played at
    (gettext_noop("Board"), gettext_noop("Bd"), "199", "center"),
    # Translators: scorecard column: the opponent's player number
    (gettext_noop("Opp #"), gettext_noop("Opp"), "199", "center"),
    (gettext_noop("Rating"), gettext_noop("Rtg"), "2199", "center"),
    (gettext_noop("Opponent"), gettext_noop("Opponent"), "", "left"),
    # Translators: scorecard column: the player's wins-losses record so far
    (gettext_noop("Won-Lost"), gettext_noop("W-L"), "13.5-9.5", "center"),
    # Translators: scorecard column: the player's own score in the game
    (gettext_noop("For"), gettext_noop("For"), "699", "center"),
    # Translators: scorecard column: the opponent's score in the game
    (gettext_noop("Against"), gettext_noop("Agst"), "699", "center"),
    (gettext_noop("Spread"), gettext_noop("Spr"), "+999", "center"),
    # Translators: scorecard column: the spread added up over the rounds
    (gettext_noop("Cum. spread"), gettext_noop("Cum."), "+1999", "center"),
]
_BOLD_CELLS = (0, 10)  # round number and cumulative spread: what a player looks for first
_PEN_CELLS = (6, 7, 8, 9, 10)  # won-lost, for, against, spread, cumulative
CELL_PAD = 3.0  # each side of a cell's text
MIN_TYPE = 5.5  # points: the smallest type a row is printed in
MIN_OPPONENT = 110.0  # points left for the opponent's name before the other columns give way
ROOMY_OPPONENT = 150.0  # enough for nearly every name at full size
_WIDE = 552.0  # a portrait card one to a page: full type sizes


def scorecards_pdf(
    event: ReportEvent,
    division: str,
    cards: Sequence[Scorecard],
    *,
    per_page: int = 2,
    round: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> bytes:
    """Scorecards for ``cards`` in the given order, ``per_page`` (1, 2 or 4) to a page.

    Two per page print portrait, one card above the other; four per page print landscape in a
    2 x 2 grid. ``round`` (optional) names the round the cards are pre-filled through, for the
    page header. ``progress(cards_done, cards_total)``, if given, is called after each page
    (a Celery task reports it to the director's browser). Raises ``ReportError`` when the
    rounds cannot fit with room to write.
    """
    if per_page not in (1, 2, 4):
        raise ReportError(f"scorecards: per_page must be 1, 2 or 4 (got {per_page})")
    if not cards:
        raise ReportError(f"scorecards for {division_label(division)}: no players to print")
    rows_of = [card_rows(card) for card in cards]  # validates every card before drawing
    pages = ceil(len(cards) / per_page)
    doc = Document(
        event, division, title=gettext("Scorecards"), total_pages=pages, landscape=per_page == 4
    )
    cols_n, rows_n = {1: (1, 1), 2: (1, 2), 4: (2, 2)}[per_page]
    card_w = (doc.right - doc.left - GAP * (cols_n - 1)) / cols_n
    card_h = (doc.top - 6 - doc.bottom - GAP * (rows_n - 1)) / rows_n
    most_rounds = max(card.rounds_total for card in cards)
    geometry = _CardGeometry(card_w, card_h, most_rounds)
    if geometry.row_h < MIN_ROW:
        fits = [n for n in (1, 2, 4) if _fits(doc, n, most_rounds)]
        hint = f"; print {max(fits)} per page instead (--per-page {max(fits)})" if fits else ""
        raise ReportError(
            f"scorecards: {most_rounds} rounds do not fit {per_page} cards per page with "
            f"room to write{hint}"
        )
    subtitle = gettext("Scorecards")
    if round:
        subtitle += "  ·  " + gettext("pre-filled through round {round}").format(round=round)
    for page_start in range(0, len(cards), per_page):
        c = doc.start_page(subtitle)
        for slot in range(per_page):
            i = page_start + slot
            if i >= len(cards):
                break
            col, row = slot % cols_n, slot // cols_n
            x = doc.left + col * (card_w + GAP)
            y = doc.top - 6 - (row + 1) * card_h - row * GAP
            _draw_card(c, geometry, x, y, event, division, cards[i], rows_of[i])
        if progress is not None:
            progress(min(page_start + per_page, len(cards)), len(cards))
    return doc.finish()


def _fits(doc: Document, per_page: int, rounds: int) -> bool:
    w, h = doc.width, doc.height
    return card_geometry(min(w, h), max(w, h), per_page, rounds).row_h >= MIN_ROW


def card_geometry(
    portrait_w: float, portrait_h: float, per_page: int, rounds: int
) -> _CardGeometry:
    """The card sizes a director gets on this paper (portrait points) with that many per page."""
    w, h = (portrait_h, portrait_w) if per_page == 4 else (portrait_w, portrait_h)
    cols_n, rows_n = {1: (1, 1), 2: (1, 2), 4: (2, 2)}[per_page]
    content_w = w - 2 * MARGIN
    content_h = h - 2 * MARGIN - HEADER_H - FOOTER_H - 6
    return _CardGeometry(
        (content_w - GAP * (cols_n - 1)) / cols_n,
        (content_h - GAP * (rows_n - 1)) / rows_n,
        rounds,
    )


class _CardGeometry:
    """Sizes for one card size and round count (the same for every card of a run).

    Every card of a run shares one type size and one set of column widths, so cut-apart cards
    look alike; the type follows the row height, and each fixed column is as wide as its widest
    value at that size (cards are read across a table, so a squeezed rating is a misread one).
    """

    def __init__(self, w: float, h: float, rounds: int):
        self.w, self.h = w, h
        self.narrow = (w - 2 * PAD) / _WIDE < 0.85
        self.header_h = 66.0
        self.qr = self.header_h - 12
        self.head_row = 15.0 if not self.narrow else 13.0
        self.head_size = 7.5 if not self.narrow else 6.5
        table_h = h - 2 * PAD - self.header_h - self.head_row - LEGEND_H
        self.table_h = table_h
        self.row_h = table_h / max(1, rounds)  # the tightest card of the run
        self.titles = [translated(c[1] if self.narrow else c[0]) for c in _COLUMNS]
        self.aligns = [c[3] for c in _COLUMNS]
        inner = w - 2 * PAD
        # Type follows the row height, then steps down until every fixed column holds its
        # widest value and the opponent still has room for a long name.
        size = max(MIN_TYPE, min(9.5, self.row_h * 0.62)) * (1.0 if not self.narrow else 0.92)
        need = self._needs(size)
        while size > MIN_TYPE and sum(need) + MIN_OPPONENT > inner:
            size = max(MIN_TYPE, size - 0.25)
            need = self._needs(size)
        self.size = size
        fixed = sum(need)
        # A very narrow card gives up width proportionally (the text then shrinks to fit).
        squeeze = min(1.0, (inner - MIN_OPPONENT) / fixed) if fixed else 1.0
        self.widths = [n * squeeze if n else inner - fixed * squeeze for n in need]
        # Spare room beyond a long name goes to the columns the player fills in by pen.
        opponent = _COLUMNS.index(next(c for c in _COLUMNS if not c[2]))
        spare = self.widths[opponent] - ROOMY_OPPONENT
        if spare > 0:
            extra = spare * 0.6 / len(_PEN_CELLS)
            for i in _PEN_CELLS:
                self.widths[i] += extra
            self.widths[opponent] -= extra * len(_PEN_CELLS)

    def _needs(self, size: float) -> list[float]:
        """Each fixed column's width for its title and widest value at ``size``; 0 = flexible."""
        return [
            max(
                text_width(title, FONT_BOLD, self.head_size),
                text_width(sample, FONT_BOLD if i in _BOLD_CELLS else FONT, size),
            )
            + 2 * CELL_PAD
            if sample
            else 0.0
            for i, (title, (_, _, sample, _)) in enumerate(zip(self.titles, _COLUMNS, strict=True))
        ]


def _draw_card(
    c: Canvas,
    g: _CardGeometry,
    x: float,
    y: float,
    event: ReportEvent,
    division: str,
    card: Scorecard,
    rows: list[CardRow],
) -> None:
    w, h = g.w, g.h
    c.setStrokeColor(INK)
    c.setLineWidth(0.9)
    c.roundRect(x, y, w, h, 4, stroke=1, fill=0)
    left, right, top = x + PAD, x + w - PAD, y + h - PAD
    _draw_card_header(c, g, left, right, top, event, division, card)
    _draw_card_table(c, g, left, right, top, card, rows)
    # legend
    c.setFillColor(GREY)
    legend = gettext(
        "*2 = second meeting with this opponent (a repeat)   ·   1st = start, 2nd = reply"
    )
    draw_fitted(c, legend, left, y + PAD - 1, right - left, LEGEND_H, size=6, min_size=4)
    c.setFillColor(INK)


def _draw_card_header(
    c: Canvas,
    g: _CardGeometry,
    left: float,
    right: float,
    top: float,
    event: ReportEvent,
    division: str,
    card: Scorecard,
) -> None:
    """Who the card belongs to (event, number, name, rating, class, starts and replies) and
    the QR code of the player's own link, with the link printed under it."""
    w = g.w
    qr_left = right
    if card.url:
        q = g.qr
        c.setFillColor(INK)
        draw_qr(c, card.url, right - q, top - q, q)
        url_w = min(w * 0.5, 230.0)
        qr_left = right - q - 6
        c.setFillColor(GREY)
        draw_fitted(
            c,
            card.url,
            right - url_w,
            top - g.header_h + 1,
            url_w,
            10,
            size=6.5,
            align="right",
            min_size=4.0,
        )
    text_w = qr_left - left
    c.setFillColor(GREY)
    draw_fitted(
        c,
        f"{event.name}  ·  {division_label(division)}",
        left,
        top - 10,
        text_w,
        10,
        size=7.5,
        min_size=5,
    )
    c.setFillColor(INK)
    number = f"#{card.number}"
    num_size = 16.0 if not g.narrow else 14.0
    c.setFont(FONT_BOLD, num_size)
    c.drawString(left, top - 30, number)
    nw = text_width(number, FONT_BOLD, num_size) + 8
    draw_fitted(
        c,
        card.name,
        left + nw,
        top - 36,
        text_w - nw,
        22,
        font=FONT_BOLD,
        size=num_size - 1,
        min_size=6,
    )
    starts, replies = starts_replies(card)
    facts = [
        (gettext("Rating"), str(card.rating) if card.rating else gettext("unrated")),
        # Translators: the player's rating class (A, B, ...) on a scorecard
        (gettext("Class"), card.player_class),
        # Translators: how many games the player started and replied in, "3:2"
        (gettext("Starts:Replies"), f"{starts}:{replies}"),
        (
            gettext("Career games"),
            format_number(card.career_games) if card.career_games is not None else "",
        ),
    ]
    _draw_facts(c, [f for f in facts if f[1]], left, top - 52, text_w, 14, 8.5 if g.narrow else 9.0)


def _draw_card_table(
    c: Canvas,
    g: _CardGeometry,
    left: float,
    right: float,
    top: float,
    card: Scorecard,
    rows: list[CardRow],
) -> None:
    """The rounds' table: its head, a writing line per round, the column rules, and the rows
    already paired or played."""
    row_h = g.table_h / max(1, card.rounds_total)
    table_top = top - g.header_h
    table_bottom = table_top - g.head_row - row_h * card.rounds_total
    c.setFillColor(HEAD_FILL)
    c.rect(left, table_top - g.head_row, right - left, g.head_row, stroke=0, fill=1)
    c.setFillColor(INK)
    cx = left
    head_size = g.head_size
    for title, cw, align in zip(g.titles, g.widths, g.aligns, strict=True):
        draw_fitted(
            c,
            title,
            cx + CELL_PAD,
            table_top - g.head_row,
            cw - 2 * CELL_PAD,
            g.head_row,
            font=FONT_BOLD,
            size=head_size,
            align=align,
            min_size=4.5,
        )
        cx += cw

    # writing lines and column rules, one path each
    c.setStrokeColor(FAINT)
    c.setLineWidth(0.5)
    path = c.beginPath()
    yy = table_top - g.head_row
    for _ in range(card.rounds_total - 1):
        yy -= row_h
        path.moveTo(left, yy)
        path.lineTo(right, yy)
    c.drawPath(path, stroke=1, fill=0)
    c.setStrokeColor(RULE)
    path = c.beginPath()
    cx = left
    for cw in g.widths[:-1]:
        cx += cw
        path.moveTo(cx, table_top)
        path.lineTo(cx, table_bottom)
    c.drawPath(path, stroke=1, fill=0)
    c.setStrokeColor(INK)
    c.setLineWidth(0.7)
    c.rect(left, table_bottom, right - left, table_top - table_bottom, stroke=1, fill=0)
    c.line(left, table_top - g.head_row, right, table_top - g.head_row)

    size = g.size
    y_row = table_top - g.head_row
    for row in rows:
        y_row -= row_h
        cells = _row_cells(row)
        cx = left
        for i, (cell, cw, align) in enumerate(zip(cells, g.widths, g.aligns, strict=True)):
            if cell:
                font = FONT_BOLD if i in _BOLD_CELLS else FONT
                draw_fitted(
                    c,
                    cell,
                    cx + CELL_PAD,
                    y_row,
                    cw - 2 * CELL_PAD,
                    row_h,
                    font=font,
                    size=size,
                    align=align,
                    min_size=4.5,
                )
            cx += cw


def _draw_facts(
    c: Canvas,
    facts: list[tuple[str, str]],
    x: float,
    y: float,
    width: float,
    height: float,
    size: float,
) -> None:
    """Label/value pairs on one line ("Rating 2009"), shrunk together if the line is short."""
    gap = 12.0

    def total(s: float) -> float:
        return sum(
            text_width(label + " ", FONT, s) + text_width(value, FONT_BOLD, s) + gap
            for label, value in facts
        )

    while size > 5 and total(size) > width:
        size -= 0.25
    cx = x
    base = y + (height - size * 0.72) / 2
    for label, value in facts:
        c.setFillColor(GREY)
        c.setFont(FONT, size)
        c.drawString(cx, base, label + " ")
        cx += text_width(label + " ", FONT, size)
        c.setFillColor(INK)
        draw_text(c, cx, base, value, FONT_BOLD, size)  # a class may be in any script
        cx += text_width(value, FONT_BOLD, size) + gap


def _row_cells(row: CardRow) -> list[str]:
    """The 11 printed cells of a row; unknown values stay empty for the player's pen."""
    cells = [str(row.round)] + [""] * 10
    if not row.paired:
        return cells
    if row.bye:
        cells[5] = gettext("forfeit") if (row.score or 0) < 0 else pgettext("game result", "bye")
    else:
        # Translators: on a scorecard: the player went first (1st) or second (2nd)
        cells[1] = {True: gettext("1st"), False: gettext("2nd"), None: ""}[row.first]
        cells[3] = str(row.opponent_number)
        if row.opponent_rating is not None:
            # Translators: abbreviation of "unrated", in a narrow column
            cells[4] = str(row.opponent_rating) if row.opponent_rating else gettext("unr.")
        mark = f" *{row.meeting}" if row.meeting > 1 else ""
        name = row.opponent_name or gettext("player #{number}").format(number=row.opponent_number)
        cells[5] = name + mark
    if row.board is not None and not row.bye:
        cells[2] = str(row.board)
    if row.played:
        if row.wins is not None and row.losses is not None:
            cells[6] = format_record(row.wins, row.losses)
        cells[7] = str(row.score)
        cells[8] = "" if row.opponent_score is None else str(row.opponent_score)
        cells[9] = format_spread(row.spread or 0)
        if row.cumulative_spread is not None:
            cells[10] = format_spread(row.cumulative_spread)
    return cells
