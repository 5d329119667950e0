"""A game's page: the board viewer of its GCG record (public), and the zip of a division's.

The page is whole without scripts: the final board, the score sheet with every note. The
static ``gcg-viewer.js`` then steps through the turns (buttons, arrow keys, swipe) from the
steps this module writes into the page as JSON (a data block, which the CSP leaves alone).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from ..formats.gcg import COLUMNS, PREMIUMS, SIZE, GcgGame, Turn, parse_gcg, zip_records
from ..models import Game, GameRecord

PREMIUM_NAMES = {
    "T": ("tw", "3W", "triple word"),
    "D": ("dw", "2W", "double word"),
    "*": ("dw", "★", "centre, double word"),
    "t": ("tl", "3L", "triple letter"),
    "d": ("dl", "2L", "double letter"),
}


def describe(turn: Turn) -> str:
    """A turn in words for the score sheet and the viewer's status line."""
    if turn.kind == "play":
        return f"{turn.position} {turn.word}"
    if turn.kind == "exchange":
        if turn.exchanged.isdigit():
            count = int(turn.exchanged)
            return ngettext("exchanged {count} tile", "exchanged {count} tiles", count).format(
                count=turn.exchanged
            )
        return _("exchanged {tiles}").format(tiles=turn.exchanged)
    if turn.kind == "end_rack":
        return _("rack left ({tiles})").format(tiles=turn.exchanged)
    words = {
        "pass": _("passed"),
        # Translators: a phony (invalid word) withdrawn after a challenge
        "withdrawn": _("phony taken back"),
        "challenge": _("challenge bonus"),
        "time": _("time penalty"),
    }
    return words.get(turn.kind, turn.kind)


def _viewer_words() -> dict[str, str]:
    """What gcg-viewer.js says as it steps through the turns (its fallbacks are English)."""
    return {
        "start": _("Start of the game"),
        "turn": _("Turn {at} of {last}:"),
        "empty": _("The empty board"),
        "after": _("The board after turn {at}"),
    }


@dataclass
class SheetRow:
    step: int
    turn: Turn
    name: str
    text: str


def viewer(record: GameRecord) -> dict[str, Any]:
    """What the viewer template needs: the players, the final board, the score sheet and the
    steps (the empty board, then the board after each turn) for the script."""
    parsed: GcgGame = parse_gcg(record.text)
    names = [p.name for p in parsed.players]
    steps: list[dict[str, Any]] = [
        {"rows": ["." * SIZE] * SIZE, "placed": [], "who": None, "text": "", "rack": "",
         "note": parsed.description, "totals": [0, 0], "score": 0},
    ]  # fmt: skip
    totals = [0, 0]
    sheet = []
    for i, turn in enumerate(parsed.turns, start=1):
        totals[turn.side] = turn.total
        steps.append(
            {
                "rows": list(parsed.boards[i - 1]),
                "placed": [[r, c] for r, c, _ in turn.tiles],
                "who": turn.side,
                "text": describe(turn),
                "rack": turn.rack,
                "note": turn.note,
                "totals": list(totals),
                "score": turn.score,
            }
        )
        sheet.append(SheetRow(i, turn, names[turn.side], describe(turn)))
    last = steps[-1]
    placed = {(r, c) for r, c in last["placed"]}
    board = []
    for r in range(SIZE):
        cells = []
        for c in range(SIZE):
            letter = last["rows"][r][c]
            premium = PREMIUM_NAMES.get(PREMIUMS[r][c])
            cells.append(
                {
                    "letter": "" if letter == "." else letter.upper(),
                    "blank": letter != "." and letter.islower(),
                    "cls": premium[0] if premium else "",
                    "mark": premium[1] if premium else "",
                    "name": f"{COLUMNS[c]}{r + 1}",
                    "new": (r, c) in placed,
                }
            )
        board.append({"number": r + 1, "cells": cells})
    return {
        "record": record,
        "parsed": parsed,
        "names": names,
        "columns": COLUMNS,
        "board": board,
        "sheet": sheet,
        # the script's own words, in the reader's language ({at}, {last}: turn numbers)
        "steps": {"names": names, "steps": steps, "words": _viewer_words()},
        "last": len(steps) - 1,
        "final": steps[-1],
    }


def game_page(request: HttpRequest, game: Game, record: GameRecord, back: str) -> HttpResponse:
    """The viewer for one game's record (the public page and the player's own link)."""
    division = game.round.division
    context = {
        "tournament": division.tournament,
        "division": division,
        "game": game,
        "back": back,
        **viewer(record),
    }
    return render(request, "tournament/game.html", context)


def zip_response(files: list[tuple[str, str]], filename: str) -> HttpResponse:
    """GCG files as one zip download."""
    response = HttpResponse(zip_records(files), content_type="application/zip")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response
