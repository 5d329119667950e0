"""Printed reports (PDF): scorecards, pairings, standings, wall chart, prize list.

Pure rendering: plain dataclasses in, PDF bytes out, no Django import anywhere in this package,
so the Django shell, a management command, a Celery task or a notebook can all print the same
sheets from the same data the pages show.

Inputs (``tournament.reports.data``)
    ReportEvent(name, venue="", dates="", paper="letter")      paper: "a4" | "letter"
    Scorecard(number, name, rating, rounds_total, rounds=[CardRound...], starts=None,
              replies=None, career_games=None, url="", player_class="")
    CardRound(round, first=None, board=None, opponent_number=None, opponent_name="",
              opponent_rating=None, score=None, opponent_score=None)
        opponent_number None = not paired yet, 0 = bye (score > 0) / forfeit (score < 0)
    PairingLine(board, first_number, first_name, second_number=0, second_name="",
                first_rating=0, second_rating=0, first_decided=True, note="")
        second_number 0 = a bye; first_decided False = the players draw for first
    StandingLine(rank, number, name, wins, losses, spread, rating, estimate=None,
                 player_class="", note="")                     rank None = unranked (withdrawn)
    WallChartPlayer(number, name, rating, games=[WallChartGame(round, opponent_number,
                    score=None, opponent_score=None)...])
    PrizeGame(round, player_number, player_score, opponent_number, opponent_score)
    Prize(category, label, numbers, names, detail, value=None)  (made by prizes_from)

Renderers (each returns the PDF as bytes; bad input raises ``ReportError``, a ValueError)
    scorecards_pdf(event, division, cards, *, per_page=2, round=None, progress=None)
                                                         per_page 1, 2 or 4; progress(done, total)
    pairings_pdf(event, division, round, lines)          by board, then alphabetical
    standings_pdf(event, division, after_round, lines)   lines already ranked by the caller
    wallchart_pdf(event, division, players, rounds)      landscape, rounds split into blocks
    prizes_pdf(event, division, prizes, *, after_round=None)
    prizes_from(standings, games, *, places=3, class_places=None, exclusive=True) -> [Prize]
    write_atomically(path, data)                         temp file + os.replace

Every page carries the event name, division, what the sheet is (round), the dates and
"page X of Y". Long names shrink, then wrap, and never leave their cell.

The Django shell (not imported here, so this package stays importable without Django):
    tournament.reports.build   DivisionData(division), build_report(division, kind, round_number=,
                               per_page=, paper=) -> BuiltReport(kind, division, round, pdf, pages)
    tournament.reports.tasks   division_scorecards Celery task (progress state, atomic write)
    manage.py report SLUG --kind scorecards|pairings|standings|wallchart|prizes --out FILE.pdf

Example::

    from tournament.reports import ReportEvent, StandingLine, standings_pdf, write_atomically
    event = ReportEvent("Spring Open", venue="Toronto", dates="4-5 April 2026", paper="a4")
    pdf = standings_pdf(event, "A", 7, [StandingLine(1, 12, "Smylie, Jackson", 6, 1, 512, 2009)])
    write_atomically("/tmp/standings-A-7.pdf", pdf)
"""

from .data import (
    AlphaLine,
    CardRound,
    CardRow,
    PairingLine,
    Prize,
    PrizeGame,
    ReportError,
    ReportEvent,
    Scorecard,
    StandingLine,
    WallChartGame,
    WallChartPlayer,
    alphabetical,
    card_rows,
    starts_replies,
)
from .files import write_atomically
from .pairings import pairings_pdf
from .prize_list import prizes_pdf
from .prizes import prizes_from
from .scorecards import scorecards_pdf
from .standings import standings_pdf
from .wallchart import wallchart_pdf

__all__ = [
    "AlphaLine",
    "CardRound",
    "CardRow",
    "PairingLine",
    "Prize",
    "PrizeGame",
    "ReportError",
    "ReportEvent",
    "Scorecard",
    "StandingLine",
    "WallChartGame",
    "WallChartPlayer",
    "alphabetical",
    "card_rows",
    "pairings_pdf",
    "prizes_from",
    "prizes_pdf",
    "scorecards_pdf",
    "standings_pdf",
    "starts_replies",
    "wallchart_pdf",
    "write_atomically",
]
