"""Pairing sheets: by board for the director and the tables, alphabetical for the players.

A hundred players crowd round the wall between rounds; each needs one fact (my board, my
opponent, do I start) in seconds. So the alphabetical list uses large type, a bold board number
and one player per line, and the by-board list is a separate section that starts on a new page.
"""

from __future__ import annotations

from collections.abc import Sequence

from .data import AlphaLine, PairingLine, ReportError, ReportEvent, alphabetical
from .layout import Column, Document, chunk, content_height, draw_table_page, rows_per_page
from .words import gettext, pgettext

BOARD_ROW = 19.0
BOARD_SIZE = 11.5
ALPHA_ROW = 20.0
ALPHA_SIZE = 12.5
HEAD_H = 18.0


def pairings_pdf(
    event: ReportEvent, division: str, round: int, lines: Sequence[PairingLine]
) -> bytes:
    """Round ``round``'s pairings: first by board, then every player alphabetically."""
    if round < 1:
        raise ReportError(f"pairings: round must be 1 or more (got {round})")
    _check_boards(round, lines)
    alpha = alphabetical(lines)  # also refuses a player paired twice
    by_board = sorted(lines, key=lambda ln: (ln.bye, ln.board is None, ln.board or 0))

    avail = content_height(event) - 8
    per_board = rows_per_page(avail, BOARD_ROW, HEAD_H)
    per_alpha = rows_per_page(avail, ALPHA_ROW, HEAD_H)
    board_pages = chunk(by_board, per_board)
    alpha_pages = chunk(alpha, per_alpha)

    doc = Document(
        event,
        division,
        title=gettext("Round {round} pairings").format(round=round),
        total_pages=len(board_pages) + len(alpha_pages),
    )
    width = doc.right - doc.left
    board_cols = [
        Column(pgettext("table", "Board"), 46, "center", bold=True, size=BOARD_SIZE + 1),
        Column("#", 34, "right"),
        Column(gettext("First (starts)"), 0, bold=True),
        Column("", 26, "center"),
        Column("#", 34, "right"),
        Column(gettext("Second (replies)"), 0, bold=True),
    ]
    show_note = any(line.note for line in lines)
    if show_note:
        board_cols.append(Column(gettext("Note"), 70))
    for page in board_pages:
        c = doc.start_page(gettext("Round {round} pairings  ·  by board").format(round=round))
        rows = [_board_row(line)[: len(board_cols)] for line in page]
        draw_table_page(
            c,
            board_cols,
            rows,
            x=doc.left,
            top=doc.top - 8,
            width=width,
            row_h=BOARD_ROW,
            size=BOARD_SIZE,
            head_h=HEAD_H,
            head_size=9.5,
        )
    alpha_cols = [
        Column(gettext("Player"), 0, bold=True),
        Column("#", 34, "right"),
        Column(pgettext("table", "Board"), 52, "center", bold=True, size=ALPHA_SIZE + 2),
        # Translators: pairings column: whether the player goes first or second
        Column(gettext("Goes"), 44, "center"),
        Column(gettext("Opponent"), 0),
    ]
    for page in alpha_pages:
        c = doc.start_page(gettext("Round {round} pairings  ·  alphabetical").format(round=round))
        rows = [_alpha_row(a) for a in page]
        draw_table_page(
            c,
            alpha_cols,
            rows,
            x=doc.left,
            top=doc.top - 8,
            width=width,
            row_h=ALPHA_ROW,
            size=ALPHA_SIZE,
            head_h=HEAD_H,
            head_size=9.5,
        )
    return doc.finish()


def _check_boards(round: int, lines: Sequence[PairingLine]) -> None:
    """Refuse a board given to two games: the room would send two pairs to one table."""
    boards: dict[int, PairingLine] = {}
    for line in lines:
        if line.board is not None and not line.bye:
            if line.board in boards:
                other = boards[line.board]
                raise ReportError(
                    f"round {round}: board {line.board} is given to both "
                    f"#{other.first_number} {other.first_name} and "
                    f"#{line.first_number} {line.first_name}"
                )
            boards[line.board] = line


def _board_row(line: PairingLine) -> list[str]:
    board = "" if line.bye or line.board is None else str(line.board)
    if line.bye:
        bye = pgettext("game result", "bye")
        return [board, str(line.first_number), line.first_name, "", "", bye, line.note]
    # Translators: between the two players of a game; "draw": they draw for who goes first
    vs = gettext("vs") if line.first_decided else pgettext("draw for first", "draw")
    return [
        board,
        str(line.first_number),
        line.first_name,
        vs,
        str(line.second_number),
        line.second_name,
        line.note,
    ]


def _alpha_row(a: AlphaLine) -> list[str]:
    if a.goes == "bye":
        return [a.name, str(a.number), "", pgettext("game result", "bye"), a.note]
    opponent = f"#{a.opponent_number} {a.opponent_name}"
    if a.note:
        opponent += f"  ({a.note})"
    board = "" if a.board is None else str(a.board)
    goes = {
        "1st": gettext("1st"),
        "2nd": gettext("2nd"),
        "draw": pgettext("draw for first", "draw"),
    }.get(a.goes, a.goes)
    return [a.name, str(a.number), board, goes, opponent]
