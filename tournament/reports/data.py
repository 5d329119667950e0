"""The plain data every report is drawn from.

The PDF modules never touch the ORM: the Django shell (or a notebook, or a test) builds these
dataclasses from whatever holds the games, and the renderers only read them. That keeps a
printed scorecard, a pairing sheet or a wall chart showing exactly the numbers the pages show,
and lets the layout be tested without a database.

Conventions shared by all of them:
- player numbers are the division's 1-based numbers; ``0`` as an opponent means a bye (or a
  forfeit, when the score is negative), ``None`` means "not paired yet";
- scores are whole numbers, ``None`` means "not played / not entered yet";
- a bye scores its own spread (usually +50), a forfeit loss a negative score, a bye scored 0 is
  neither a win nor a loss (see docs/rules.md).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from reportlab.lib.pagesizes import A4, LETTER

from ..standings import format_record, format_wins  # noqa: F401 (the reports' names)

PAPER_SIZES: dict[str, tuple[float, float]] = {"a4": A4, "letter": LETTER}


class ReportError(ValueError):
    """Input that cannot be printed honestly (unknown paper size, a round outside the event...).

    Subclasses ``ValueError`` so callers that only care about "bad input" catch the broad class.
    """


@dataclass(frozen=True)
class ReportEvent:
    """What heads every page: the event, where and when, and the paper it is printed on."""

    name: str
    venue: str = ""
    dates: str = ""
    paper: str = "letter"  # "a4" | "letter" (case-insensitive)


def page_size(event: ReportEvent) -> tuple[float, float]:
    """Portrait page size in points for the event's paper; unknown paper is refused."""
    key = (event.paper or "").strip().lower()
    if key not in PAPER_SIZES:
        known = ", ".join(sorted(PAPER_SIZES))
        raise ReportError(
            f"event {event.name!r}: unknown paper size {event.paper!r} (use one of: {known})"
        )
    return PAPER_SIZES[key]


# --------------------------------------------------------------------------------------------
# Results
# --------------------------------------------------------------------------------------------


def game_result(score: int | None, opponent_score: int | None, *, bye: bool) -> float | None:
    """Wins earned by one game: 1, 0.5, 0, or ``None`` when not played yet.

    A bye's result comes from its own score (positive = win, negative = forfeit loss, 0 = counts
    as neither, returned as ``None``), because byes have no opponent score.
    """
    if score is None:
        return None
    if bye:
        if score > 0:
            return 1.0
        if score < 0:
            return 0.0
        return None
    if opponent_score is None:
        return None
    if score > opponent_score:
        return 1.0
    if score < opponent_score:
        return 0.0
    return 0.5


def format_spread(spread: int) -> str:
    return f"+{spread}" if spread > 0 else str(spread)


# --------------------------------------------------------------------------------------------
# Scorecards
# --------------------------------------------------------------------------------------------


@dataclass
class CardRound:
    """One round of a player's scorecard, as far as it is known when the card is printed."""

    round: int
    first: bool | None = None  # True = start (first), False = reply (second), None = unknown
    board: int | None = None
    opponent_number: int | None = None  # None = not paired yet, 0 = bye / forfeit
    opponent_name: str = ""
    opponent_rating: int | None = None
    score: int | None = None  # own score (a bye's or forfeit's score is its spread)
    opponent_score: int | None = None

    @property
    def paired(self) -> bool:
        return self.opponent_number is not None

    @property
    def bye(self) -> bool:
        return self.opponent_number == 0


@dataclass
class Scorecard:
    """One player's card. ``rounds`` holds the rounds paired so far; the rest print blank."""

    number: int
    name: str
    rating: int
    rounds_total: int
    rounds: list[CardRound] = field(default_factory=list)
    starts: int | None = None  # None = count from the scored rounds on the card
    replies: int | None = None
    career_games: int | None = None
    url: str = ""  # the player's own page; printed under the QR code
    player_class: str = ""


@dataclass(frozen=True)
class CardRow:
    """A scorecard row with the running figures worked out (what the player would write)."""

    round: int
    paired: bool
    bye: bool
    first: bool | None
    board: int | None
    opponent_number: int | None
    opponent_name: str
    opponent_rating: int | None
    meeting: int  # 1 = first meeting with this opponent, 2 = second (a repeat), ...
    played: bool
    score: int | None
    opponent_score: int | None
    spread: int | None
    wins: float | None  # running record after this round (None while not played)
    losses: float | None
    cumulative_spread: int | None


def card_rows(card: Scorecard) -> list[CardRow]:
    """Work out the running record and cumulative spread, one row per round of the event.

    Rows after the first unplayed round still carry their pairing (pairings may run ahead of
    scores) but no running figures, so the player can write them in as the games finish.
    """
    if card.rounds_total < 1:
        raise ReportError(f"player #{card.number} {card.name}: rounds_total must be at least 1")
    by_round: dict[int, CardRound] = {}
    for r in card.rounds:
        if not 1 <= r.round <= card.rounds_total:
            raise ReportError(
                f"player #{card.number} {card.name}: round {r.round} is outside the event's "
                f"rounds 1-{card.rounds_total}"
            )
        if r.round in by_round:
            raise ReportError(f"player #{card.number} {card.name}: round {r.round} given twice")
        if r.opponent_number is not None and r.opponent_number < 0:
            raise ReportError(
                f"player #{card.number} {card.name}, round {r.round}: "
                f"opponent number {r.opponent_number} is negative"
            )
        if r.score is not None and r.opponent_number is None:
            raise ReportError(
                f"player #{card.number} {card.name}, round {r.round}: a score without a pairing"
            )
        if r.score is not None and not r.bye and r.opponent_score is None:
            raise ReportError(
                f"player #{card.number} {card.name}, round {r.round}: "
                "own score given but the opponent's score is missing"
            )
        by_round[r.round] = r

    rows: list[CardRow] = []
    meetings: dict[int, int] = {}
    wins = losses = 0.0
    cumulative = 0
    running = True  # running figures only while every earlier round is played
    for n in range(1, card.rounds_total + 1):
        r = by_round.get(n, CardRound(round=n))
        meeting = 0
        if r.opponent_number:
            meeting = meetings.get(r.opponent_number, 0) + 1
            meetings[r.opponent_number] = meeting
        result = game_result(r.score, r.opponent_score, bye=r.bye) if r.paired else None
        played = r.paired and r.score is not None
        spread: int | None = None
        if played:
            spread = r.score if r.bye else r.score - r.opponent_score  # type: ignore[operator]
        running = running and played
        if running:
            if result is not None:
                wins += result
                losses += 1.0 - result
            cumulative += spread or 0
        rows.append(
            CardRow(
                round=n,
                paired=r.paired,
                bye=r.bye,
                first=None if r.bye else r.first,
                board=r.board,
                opponent_number=r.opponent_number,
                opponent_name=r.opponent_name,
                opponent_rating=r.opponent_rating,
                meeting=meeting,
                played=played,
                score=r.score if played else None,
                opponent_score=r.opponent_score if played and not r.bye else None,
                spread=spread,
                wins=wins if running else None,
                losses=losses if running else None,
                cumulative_spread=cumulative if running else None,
            )
        )
    return rows


def starts_replies(card: Scorecard) -> tuple[int, int]:
    """Starts and replies so far: the given counts, or counted from the card's played games."""
    if card.starts is not None and card.replies is not None:
        return card.starts, card.replies
    starts = replies = 0
    for r in card.rounds:
        if r.bye or r.score is None or r.first is None:
            continue
        if r.first:
            starts += 1
        else:
            replies += 1
    return (card.starts if card.starts is not None else starts), (
        card.replies if card.replies is not None else replies
    )


# --------------------------------------------------------------------------------------------
# Pairings
# --------------------------------------------------------------------------------------------


@dataclass
class PairingLine:
    """One board of a round. A bye is a line with ``second_number == 0`` and no board."""

    board: int | None
    first_number: int
    first_name: str
    second_number: int = 0
    second_name: str = ""
    first_rating: int = 0
    second_rating: int = 0
    first_decided: bool = True  # False: the two players draw tiles to decide who starts
    note: str = ""  # e.g. "forfeit", "Gibson"

    @property
    def bye(self) -> bool:
        return self.second_number == 0


@dataclass(frozen=True)
class AlphaLine:
    """One player's line of the alphabetical pairing list."""

    name: str
    number: int
    board: int | None
    goes: str  # "1st", "2nd", "draw", "bye"
    opponent_number: int
    opponent_name: str
    note: str = ""


def alphabetical(lines: Iterable[PairingLine]) -> list[AlphaLine]:
    """Every paired player once, sorted by name, so each can find their board at a glance."""
    out: list[AlphaLine] = []
    seen: dict[int, int] = {}
    for line in lines:
        entries = [(line.first_number, line.first_name, line.second_number, line.second_name)]
        if not line.bye:
            entries.append(
                (line.second_number, line.second_name, line.first_number, line.first_name)
            )
        for i, (number, name, opp, opp_name) in enumerate(entries):
            if number in seen:
                raise ReportError(
                    f"player #{number} {name} is paired twice (boards {seen[number]} and "
                    f"{line.board})"
                )
            seen[number] = line.board or 0
            if line.bye:
                goes = "bye"
            elif not line.first_decided:
                goes = "draw"
            else:
                goes = "1st" if i == 0 else "2nd"
            out.append(AlphaLine(name, number, line.board, goes, opp, opp_name, line.note))
    out.sort(key=lambda a: (a.name.casefold(), a.number))
    return out


# --------------------------------------------------------------------------------------------
# Standings
# --------------------------------------------------------------------------------------------


@dataclass
class StandingLine:
    """One player's line in the standings after a given round (already ranked by the caller)."""

    rank: int | None  # None = not ranked (withdrawn)
    number: int
    name: str
    wins: float
    losses: float
    spread: int
    rating: int  # pre-event rating, 0 = unrated
    estimate: int | None = None  # in-event rating estimate
    player_class: str = ""
    note: str = ""  # e.g. "Gibson", "withdrawn"


# --------------------------------------------------------------------------------------------
# Wall chart
# --------------------------------------------------------------------------------------------


@dataclass
class WallChartGame:
    """One cell of the wall chart: a player's game in one round."""

    round: int
    opponent_number: int  # 0 = bye / forfeit
    score: int | None = None
    opponent_score: int | None = None

    @property
    def bye(self) -> bool:
        return self.opponent_number == 0

    @property
    def result(self) -> float | None:
        return game_result(self.score, self.opponent_score, bye=self.bye)

    @property
    def spread(self) -> int | None:
        if self.score is None:
            return None
        if self.bye:
            return self.score
        if self.opponent_score is None:
            return None
        return self.score - self.opponent_score


@dataclass
class WallChartPlayer:
    number: int
    name: str
    rating: int
    games: list[WallChartGame] = field(default_factory=list)
    withdrawn_round: int | None = None  # first round not played: from it on, "withdrawn"


# --------------------------------------------------------------------------------------------
# Prizes
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PrizeGame:
    """One played game, once, for the special prizes (byes and forfeits are not games)."""

    round: int
    player_number: int
    player_score: int
    opponent_number: int
    opponent_score: int


@dataclass(frozen=True)
class Prize:
    """One line of the prize list. Tied winners of a special each get their own line."""

    category: str  # "place", "class", "high game", "high loss", "high combined", "upset", ...
    label: str  # what is printed, e.g. "1st", "Class B 1st", "High game"
    numbers: tuple[int, ...]  # the winning player(s); two for a high combined game
    names: tuple[str, ...]
    detail: str  # e.g. "18-5 +1203" or "612 vs #4 Fagen, Michael (round 7)"
    value: int | float | None = None
