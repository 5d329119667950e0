"""From the database to the report dataclasses: the Django shell of the PDF reports.

The PDF modules in this package are pure; this one loads a division's entries and games once,
turns them into the dataclasses the renderers take, and refuses a report that cannot be true
yet (a round not yet paired) before anything is drawn or written. Standings come from
``services.division_standings`` and estimates from ``ratings.division`` so a printed sheet
shows exactly what the pages and the API show.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from django.conf import settings
from django.utils import formats, translation

from ratings.division import division_estimates
from ratings.engine import RatingError
from tournament.errors import ServiceError
from tournament.selectors import division_standings

from ..models import Division, Entry, First, Game, Tournament
from ..services.audit import Actor
from ..services.selfentry import ensure_tokens
from .data import (
    CardRound,
    PairingLine,
    Prize,
    PrizeGame,
    ReportError,
    ReportEvent,
    Scorecard,
    StandingLine,
    WallChartGame,
    WallChartPlayer,
    page_size,
)
from .pairings import pairings_pdf
from .prize_list import prizes_pdf
from .prizes import prizes_from
from .scorecards import scorecards_pdf
from .standings import standings_pdf
from .wallchart import wallchart_pdf
from .words import gettext as _
from .words import use as use_words

# the renderers' words follow the active language (build_report overrides it per tournament)
use_words(
    gettext=translation.gettext,
    ngettext=translation.ngettext,
    pgettext=translation.pgettext,
    number=lambda value: formats.number_format(value, force_grouping=True),
)

KINDS = ("scorecards", "pairings", "standings", "wallchart", "prizes")


def report_language(tournament: Tournament) -> str:
    """The language a tournament's sheets are printed in: its own, the site's without one."""
    language = getattr(tournament, "language", None) or settings.LANGUAGE_CODE
    return language if language in dict(settings.LANGUAGES) else settings.LANGUAGE_CODE


def _day(day) -> str:
    # Translators: a date on the printed sheets (Django's date format: 4 April 2026)
    return formats.date_format(day, _("j F Y"))


def report_event(tournament: Tournament, paper: str | None = None) -> ReportEvent:
    """The page header facts; ``paper`` overrides the tournament's own paper size."""
    start, end = tournament.start_date, tournament.end_date
    # the dates as the active language writes them ("4 avril 2026", "4 kwietnia 2026")
    if start and end and end != start:
        dates = f"{_day(start)} - {_day(end)}"
    elif start:
        dates = _day(start)
    else:
        dates = ""
    return ReportEvent(
        name=tournament.name,
        venue=tournament.venue,
        dates=dates,
        paper=paper if paper is not None else tournament.paper,
    )


@dataclass(frozen=True)
class _Side:
    """One player's view of one game."""

    round: int
    board: int | None
    opponent: int  # 0 = bye / forfeit
    first: bool | None
    score: int | None
    opponent_score: int | None


class DivisionData:
    """A division's entries and every game, loaded once, seen from each player's side."""

    def __init__(self, division: Division):
        self.division = division
        self.entries: list[Entry] = list(
            division.entries.select_related("player").order_by("number")
        )
        self.by_number = {e.number: e for e in self.entries}
        self.number_of = number_of = {e.pk: e.number for e in self.entries}
        self.sides: dict[int, dict[int, _Side]] = {e.number: {} for e in self.entries}
        self.games: list[tuple[int, Game]] = []
        for g in (
            Game.objects.filter(round__division=division)
            .select_related("round")
            .order_by("round__number", "board", "id")
        ):
            r = g.round.number
            self.games.append((r, g))
            a = number_of[g.player1_id]
            if g.player2_id is None:
                self.sides[a][r] = _Side(r, g.board, 0, None, g.score1, None)
                continue
            b = number_of[g.player2_id]
            first_a = {First.PLAYER1: True, First.PLAYER2: False}.get(g.first)
            first_b = None if first_a is None else not first_a
            self.sides[a][r] = _Side(r, g.board, b, first_a, g.score1, g.score2)
            self.sides[b][r] = _Side(r, g.board, a, first_b, g.score2, g.score1)
        self.last_paired = max((r for r, _ in self.games), default=0)
        self.rounds_total = max(division.rounds, self.last_paired, 1)
        # per round: (games scored, games paired); a bye or forfeit is scored when recorded
        self.scored_in: dict[int, list[int]] = {}
        for r, g in self.games:
            count = self.scored_in.setdefault(r, [0, 0])
            count[1] += 1
            if g.score1 is not None and (g.player2_id is None or g.score2 is not None):
                count[0] += 1

    @property
    def last_complete(self) -> int:
        """The last round that, with every round before it, has every game scored (0: none)."""
        done = 0
        for r in range(1, self.last_paired + 1):
            scored, paired = self.scored_in.get(r, (0, 0))
            if paired == 0 or scored < paired:
                break
            done = r
        return done

    def name(self, number: int) -> str:
        return self.by_number[number].player.name

    def check_round(self, round_number: int | None, *, allow_zero: bool = False) -> int:
        """The round asked for (default: the last paired), refused if not paired yet."""
        d = self.division
        if round_number is None:
            if self.last_paired == 0 and not allow_zero:
                raise ReportError(f"division {d.name}: no round has been paired yet")
            return self.last_paired
        low = 0 if allow_zero else 1
        if round_number < low:
            raise ReportError(f"division {d.name}: round {round_number} must be {low} or more")
        if round_number > self.last_paired:
            paired = (
                f"rounds 1-{self.last_paired} are paired" if self.last_paired else "none is paired"
            )
            raise ReportError(
                f"division {d.name}: round {round_number} is not paired yet ({paired})"
            )
        return round_number


def player_url(tournament: Tournament, division: Division, number: int) -> str:
    """The player's public page (read-only): a card without a self-entry link opens it."""
    base = getattr(settings, "SITE_URL", "").rstrip("/")
    return f"{base}/t/{tournament.slug}/{division.slug}/player/{number}/"


def selfentry_url(token: str) -> str:
    """The player's own link (their page plus result entry), which the scorecard's QR code
    opens. The token is secret: it is printed on this card and shown nowhere else."""
    base = getattr(settings, "SITE_URL", "").rstrip("/")
    return f"{base}/e/{token}/"


def card_url(entry: Entry) -> str:
    """The QR code's link: the self-entry link, or the public page for an entry without one
    (a director revoked it and has not issued a new one)."""
    if entry.entry_token:
        return selfentry_url(entry.entry_token)
    d = entry.division
    return player_url(d.tournament, d, entry.number)


def scorecards(data: DivisionData, through_round: int | None = None) -> list[Scorecard]:
    """One card per entry, with every paired round up to ``through_round`` (default: all)."""
    last = data.last_paired if through_round is None else through_round
    cards = []
    for e in data.entries:
        rounds = []
        for r, side in sorted(data.sides[e.number].items()):
            if r > last:
                continue
            opp = data.by_number.get(side.opponent) if side.opponent else None
            rounds.append(
                CardRound(
                    round=r,
                    first=side.first,
                    board=side.board,
                    opponent_number=side.opponent,
                    opponent_name=opp.player.name if opp else "",
                    opponent_rating=opp.seed_rating if opp else None,
                    score=side.score,
                    opponent_score=side.opponent_score,
                )
            )
        cards.append(
            Scorecard(
                number=e.number,
                name=e.player.name,
                rating=e.seed_rating,
                rounds_total=data.rounds_total,
                rounds=rounds,
                career_games=e.career_games,
                url=card_url(e),
                player_class=e.player_class,
            )
        )
    return cards


def pairing_lines(data: DivisionData, round_number: int) -> list[PairingLine]:
    lines = []
    for r, g in data.games:
        if r != round_number:
            continue
        a = data.by_number[_number(data, g.player1_id)]
        if g.player2_id is None:
            note = "forfeit" if (g.score1 or 0) < 0 else ""
            lines.append(PairingLine(None, a.number, a.player.name, note=note))
            continue
        b = data.by_number[_number(data, g.player2_id)]
        first, second = (b, a) if g.first == First.PLAYER2 else (a, b)
        lines.append(
            PairingLine(
                board=g.board,
                first_number=first.number,
                first_name=first.player.name,
                second_number=second.number,
                second_name=second.player.name,
                first_rating=first.seed_rating,
                second_rating=second.seed_rating,
                first_decided=g.first in (First.PLAYER1, First.PLAYER2),
            )
        )
    return lines


def _number(data: DivisionData, entry_pk: int) -> int:
    return data.number_of[entry_pk]


def standing_lines(data: DivisionData, after_round: int) -> list[StandingLine]:
    estimates = _estimates(data.division, after_round)
    lines = []
    for row in division_standings(data.division, after_round):
        e = data.by_number[row.number]
        lines.append(
            StandingLine(
                rank=row.rank,
                number=row.number,
                name=row.name,
                wins=row.wins,
                losses=row.losses,
                spread=row.spread,
                rating=row.rating,
                estimate=estimates.get(row.number),
                player_class=e.player_class,
                note="withdrawn" if row.withdrawn else "",
            )
        )
    return lines


def _estimates(division: Division, after_round: int) -> dict[int, int]:
    """In-event rating estimates after the round; none when the rating engine cannot say."""
    if after_round < 1:
        return {}
    try:
        rows = division_estimates(division, through_round=after_round)
    except (RatingError, ServiceError):
        return {}
    out = {}
    for row in rows:
        by_round = row["by_round"]
        if len(by_round) >= after_round and by_round[after_round - 1]:
            out[row["number"]] = by_round[after_round - 1]
    return out


def wallchart_players(data: DivisionData, through_round: int) -> list[WallChartPlayer]:
    return [
        WallChartPlayer(
            e.number,
            e.player.name,
            e.seed_rating,
            [
                WallChartGame(r, s.opponent, s.score, s.opponent_score)
                for r, s in sorted(data.sides[e.number].items())
                if r <= through_round
            ],
            e.withdrawn_round,
        )
        for e in data.entries
    ]


DEFAULT_PRIZE_PLACES = 3


def prize_places(division: Division) -> int:
    """The places that win a prize: the division's own setting, 3 when it has none (0)."""
    return division.prize_places or DEFAULT_PRIZE_PLACES


def prize_round(data: DivisionData, round_number: int | None) -> int:
    """The round a prize list is after: the one asked for (refused if not paired), else the
    last fully scored round, so a list printed mid-round does not rank players on a round
    that is half in (the default used to be the last paired round)."""
    if round_number is not None:
        return data.check_round(round_number)
    r = data.last_complete
    if r == 0:
        raise ReportError(f"division {data.division.name}: no round has every game scored yet")
    return r


def prize_title(data: DivisionData, after_round: int) -> str:
    """The prize list's title: what it includes (a round still being scored says how much)."""
    scored, paired = data.scored_in.get(after_round, (0, 0))
    if scored >= paired:
        return _("Prize list after round {round}, every game scored").format(round=after_round)
    return _(
        "Prize list after round {round}, {scored} of {paired} games of round {round} in"
    ).format(round=after_round, scored=scored, paired=paired)


def prize_list(data: DivisionData, after_round: int, *, places: int = 3) -> list[Prize]:
    games = []
    for r, g in data.games:
        if r > after_round or g.player2_id is None or g.score1 is None or g.score2 is None:
            continue
        games.append(
            PrizeGame(
                r, _number(data, g.player1_id), g.score1, _number(data, g.player2_id), g.score2
            )
        )
    return prizes_from(standing_lines(data, after_round), games, places=places)


@dataclass(frozen=True)
class BuiltReport:
    kind: str
    division: str
    round: int | None
    pdf: bytes

    @property
    def pages(self) -> int:
        return page_count(self.pdf)


def page_count(pdf: bytes) -> int:
    """Pages in a PDF we wrote (reportlab writes one ``/Type /Page`` object per page)."""
    return len(re.findall(rb"/Type /Page\b(?!s)", pdf))


def build_report(
    division: Division,
    kind: str,
    *,
    round_number: int | None = None,
    per_page: int = 2,
    paper: str | None = None,
    progress=None,
    actor: Actor | str | None = None,
) -> BuiltReport:
    """Render one report of a division in its tournament's language; every refusal happens
    before any PDF is made.

    Scorecards first give every entry without one its self-entry link (one audited batch,
    ``actor`` or "scorecard printing"), so each card's QR code carries the player's link.
    """
    with translation.override(report_language(division.tournament)):
        return _build_report(division, kind, round_number, per_page, paper, progress, actor)


def _build_report(division, kind, round_number, per_page, paper, progress, actor) -> BuiltReport:
    if kind not in KINDS:
        raise ReportError(f"unknown report kind {kind!r} (use one of: {', '.join(KINDS)})")
    event = report_event(division.tournament, paper)
    page_size(event)  # an unknown paper size is refused before any database work
    if kind == "scorecards":
        ensure_tokens(division, actor or Actor("scorecard printing"))
    data = DivisionData(division)
    name = division.name
    if kind == "scorecards":
        through = None if round_number is None else data.check_round(round_number)
        cards = scorecards(data, through)
        pdf = scorecards_pdf(
            event, name, cards, per_page=per_page, round=through, progress=progress
        )
        return BuiltReport(kind, name, through, pdf)
    if kind == "pairings":
        r = data.check_round(round_number)
        return BuiltReport(kind, name, r, pairings_pdf(event, name, r, pairing_lines(data, r)))
    if kind == "standings":
        r = data.check_round(round_number, allow_zero=True)
        return BuiltReport(kind, name, r, standings_pdf(event, name, r, standing_lines(data, r)))
    if kind == "wallchart":
        r = data.check_round(round_number)
        players = wallchart_players(data, r)
        return BuiltReport(kind, name, r, wallchart_pdf(event, name, players, data.rounds_total))
    r = prize_round(data, round_number)
    prizes = prize_list(data, r, places=prize_places(division))
    pdf = prizes_pdf(
        event,
        name,
        prizes,
        after_round=r,
        title=prize_title(data, r),
    )
    return BuiltReport(kind, name, r, pdf)
