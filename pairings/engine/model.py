"""The engine's data contract: plain dataclasses in, plain dataclasses out.

The engine never loads anything: the caller (the Django shell, a test, a notebook) builds a
``Field`` from recorded games and standings, and gets back a ``RoundPairing``. Keeping the
contract this small is what lets the checker, the random tournament generator and the real-data
replays drive the engine without a database.
"""

from __future__ import annotations

from dataclasses import dataclass, field


class PairingError(ValueError):
    """A round cannot be paired under the rules in force.

    The message names the rule that made it impossible and what the director can relax, e.g.
    ``repeats forbidden: players 1, 2, 3 have all met; allow 2 meetings (max_meetings=2)``.
    """

    def __init__(self, message: str, *, rule: str = "", players: tuple[int, ...] = ()):
        self.rule = rule
        self.players = players
        super().__init__(message)


@dataclass
class FieldPlayer:
    """One entrant of the division as the pairing engine sees it.

    ``wins``/``losses``/``spread`` are the record from complete rounds only (a round still being
    played counts as not played). ``opponents`` and ``firsts`` hold one entry per round already
    paired, including a lagged round still in progress, so repeats are avoided against it too.
    """

    number: int
    rating: int
    name: str = ""
    player_class: str = ""
    wins: float = 0
    losses: float = 0
    spread: int = 0
    rank: int = 0
    opponents: list[int] = field(default_factory=list)
    firsts: list[int] = field(default_factory=list)
    byes: int = 0
    active: bool = True

    @property
    def starts(self) -> int:
        """Games gone first; byes and forfeits (opponent 0) never count."""
        return self._games_with_first(1)

    @property
    def replies(self) -> int:
        """Games gone second; byes and forfeits (opponent 0) never count."""
        return self._games_with_first(2)

    def _games_with_first(self, first: int) -> int:
        """Rounds with this ``firsts`` entry against a real opponent.

        Counted with ``list.count`` (in C), then corrected for the rare byes and forfeits,
        because pairing a big field asks every player's starts and replies.
        """
        firsts = self.firsts
        if len(firsts) > len(self.opponents):
            firsts = firsts[: len(self.opponents)]
        count = firsts.count(first)
        if 0 in self.opponents:
            byes = zip(self.opponents, firsts, strict=False)
            count -= sum(1 for opp, f in byes if not opp and f == first)
        return count


@dataclass
class Field:
    """A division about to pair ``round``.

    ``complete_rounds`` is how many rounds have all results in (default ``round - 1``); with a
    lagged pairing it is smaller, and Gibsonization and contention are judged on it.
    ``forbidden`` holds pairs of player numbers that must never meet (family, teammates).
    """

    players: list[FieldPlayer]
    round: int
    rounds_total: int
    forbidden: set[frozenset[int]] = field(default_factory=set)
    complete_rounds: int | None = None

    @property
    def rounds_complete(self) -> int:
        return self.round - 1 if self.complete_rounds is None else self.complete_rounds


@dataclass
class PairingOptions:
    """Director settings that shape a pairing.

    ``max_meetings`` is how often two players may meet when it is avoidable; a further meeting is
    only made when no pairing without it exists (explained as "unavoidable"), unless
    ``hard_repeat_limit`` is set, in which case the round is refused with a ``PairingError``.
    ``repeats_since_round`` counts meetings only from that round on (a new phase of the event).
    ``gibson_spread`` may be a dict ``{round: spread}`` for events that change it per round.
    ``prize_bands`` are cumulative paid places, e.g. ``[1, 3, 8]`` = 1st, 2nd-3rd, 4th-8th.
    ``gibson_places`` extends Gibsonization to several equivalent places (qualifying spots).
    ``system_start_round`` is the first round of the schedule range using this system, so a
    round robin or Initial Fontes started mid-event counts its own rounds.
    """

    max_meetings: int = 1
    repeats_since_round: int | None = None
    hard_repeat_limit: bool = False
    avoid_last_opponent: bool = True
    bye_method: str = "bottom_up"
    gibson: bool = True
    gibson_spread: int | dict[int, int] = 500
    gibson_places: int = 1
    prize_bands: list[int] = field(default_factory=lambda: [1])
    factor_distance: int = 1
    fontes_rounds: int = 3
    fontes_order: str = "snake"
    system_start_round: int = 1
    seed: int = 0
    sparse_above: int = 300
    manual_pairs: list[tuple[int, int]] | None = None
    #: ``cop`` only: P(each paid place) per player number, from the caller's simulation
    #: (None: the system simulates the field itself); the contender threshold
    cop_chances: dict[int, tuple[float, ...]] | None = None
    cop_threshold: float = 0.01

    def spread_for_round(self, rnd: int) -> int:
        if isinstance(self.gibson_spread, dict):
            if rnd in self.gibson_spread:
                return self.gibson_spread[rnd]
            return self.gibson_spread.get(0, 500)
        return self.gibson_spread


@dataclass
class PairedGame:
    """One board of a round; ``second == 0`` marks the bye (then ``first`` is the bye player)."""

    board: int
    first: int
    second: int
    explanation: str

    @property
    def is_bye(self) -> bool:
        return self.second == 0


@dataclass
class RoundPairing:
    round: int
    system: str
    games: list[PairedGame]
    notes: list[str] = field(default_factory=list)

    def pairs(self) -> list[tuple[int, int]]:
        """Each game as (first, second); the bye as (player, 0)."""
        return [(g.first, g.second) for g in self.games]

    def opponent_of(self) -> dict[int, int]:
        out: dict[int, int] = {}
        for g in self.games:
            out[g.first] = g.second
            if g.second:
                out[g.second] = g.first
        return out
