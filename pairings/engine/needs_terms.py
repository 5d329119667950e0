"""The terms a need is stated in: a player's standing, the games still to play, conditions on
their margins, and each prize place a player can reach (``Need``).

Split from ``pairings.engine.needs`` (the statements' computation and wording), which
re-exports every name. Pure Python: dataclasses in, dataclasses out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

# The largest margin counted for an uncapped game: the Gibson rule's default spread per game
# (docs/rules.md); a real game's margin beyond it is rare, and counts as "by N or more".
MARGIN_BOUND = 500


@dataclass(frozen=True)
class Standing:
    """A player's counted results so far, as the standings rank them."""

    number: int
    wins: float
    losses: float
    spread: int  # the spread as ranked (clipped per game under a spread cap)
    tiebreak: tuple = ()  # orders players level on wins, losses and spread (lower first)
    ranked: bool = True  # False: withdrawn, not ranked among the active players


@dataclass(frozen=True)
class Pending:
    """A paired game without its result; ``margin`` is the largest margin it counts (the
    round's spread cap, or ``MARGIN_BOUND``)."""

    player1: int
    player2: int
    margin: int = MARGIN_BOUND


@dataclass(frozen=True)
class NeedsInput:
    players: Sequence[Standing]
    pending: Sequence[Pending] = ()
    future_margins: Sequence[int] = ()  # one per round not yet paired: its largest margin
    places: int = 3
    spread_decides: bool = True  # False when points scored rank before spread


@dataclass(frozen=True)
class Margin:
    """``player``'s margin in their pending game is from ``lo`` to ``hi`` (their view)."""

    player: int
    lo: int
    hi: int
    bound: int = MARGIN_BOUND  # the game's largest margin (for the wording)

    def holds(self, margins: Mapping[int, int]) -> bool:
        return self.lo <= margins[self.player] <= self.hi


@dataclass(frozen=True)
class Behind:
    """``player`` does not finish ahead of ``of``: their margin stays below
    ``clamp(of's margin + offset, lo, hi1)`` (offset from the spreads, lo/hi1 the result
    class in which the two records are level)."""

    player: int
    of: int
    offset: int
    lo: int
    hi1: int
    bound: int = MARGIN_BOUND  # the largest margin of ``player``'s game

    def limit(self, x: int) -> int:
        return max(self.lo, min(self.hi1, x + self.offset))

    def holds(self, margins: Mapping[int, int]) -> bool:
        return margins[self.player] < self.limit(margins[self.of])


Condition = Margin | Behind


@dataclass(frozen=True)
class Need:
    """Whether and how ``player`` can finish ``place``-th or better.

    ``status``: ``clinched`` (in every outcome), ``out`` (in none), ``open`` (it depends).
    ``alternatives``: when ``exact``, the player gets there exactly when one alternative holds
    (each a conjunction of conditions); when not exact, each alternative is enough, and there
    may be other ways (bounds mode lists none).
    """

    player: int
    place: int
    status: str
    exact: bool
    alternatives: tuple[tuple[Condition, ...], ...] = ()
    text: str = ""


@dataclass
class PlayerNeeds:
    number: int
    mode: str  # "exact", "bounds" or "final"
    needs: list[Need] = field(default_factory=list)
    summary: list[str] = field(default_factory=list)
    place: int | None = None  # "final": the place finished (the summary's number)


@dataclass(frozen=True)
class NeedLine:
    """One statement of a player's needs as data, for the shell to word in the reader's
    language (``pairings.needs_words``); the engine's English wording is ``summarize``'s.

    ``kind``: ``finished`` (``place``), ``clinched_place`` (bounds: ``place`` or better),
    ``clinched_prize`` (``place`` is the last prize place), ``no_prize`` (out of the top
    ``places``), ``not_above`` (cannot finish above ``place``), ``contention`` (still in it
    for 1st), ``finishes`` (``place`` clinched and nothing higher reachable), ``need`` (one
    place's ``need``, worded as ``describe`` words it).
    """

    kind: str
    place: int = 0
    places: int = 0
    need: Need | None = None


def holds(need: Need, margins: Mapping[int, int]) -> bool:
    """Whether the need's alternatives hold for the pending games' margins (player -> own
    margin; both players of a game are in the mapping)."""
    return any(all(c.holds(margins) for c in alt) for alt in need.alternatives)


def ordinal(n: int) -> str:
    if 10 <= n % 100 <= 20:
        return f"{n}th"
    return f"{n}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th') }"
