"""What a simulation of a division's remaining rounds takes and gives, and its game model.

Split from ``pairings.engine.simulate`` (which plays the rounds): the setup a caller builds
(``SimSetup`` of ``SimPlayer`` and ``SimRound``), the result it gets (``SimResult``) and the game
model (``GameModel``, fitted by ``fit_game_model`` into ``game_model.json``) with the normal
quantiles its margins are drawn from, and the counts each chunk of simulations tallies.
``pairings.engine.simulate`` re-exports every public name.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from statistics import NormalDist
from typing import Any

import numpy as np

#: the normal quantile table the margins are drawn from (one uint16 draw per game)
_TABLE_BITS = 16
MODEL_FILE = Path(__file__).with_name("game_model.json")


@dataclass(frozen=True)
class GameModel:
    """How a game ends, fitted on real games (``manage.py fit_game_model`` writes the file).

    ``sigma``: standard deviation of a game's spread around its rating-predicted mean;
    ``slope``: mean spread per rating point of difference (kept for reference: the simulation
    takes its win chance from the rating system, and the margin's mean follows from it);
    ``tie_rate``: share of real games tied; ``combined_mean``/``combined_sd``: the two scores'
    sum, for events ranking on points before spread; ``confidence``: how far to trust the
    rating system's expectancy, fitted on the real games' wins (a win chance p becomes
    Phi(confidence * Phi^-1(p)): below 1, ratings predicted the fixtures' games too surely).
    """

    sigma: float = 95.0
    slope: float = 0.3
    tie_rate: float = 0.005
    combined_mean: float = 800.0
    combined_sd: float = 70.0
    confidence: float = 1.0
    games: int = 0
    source: str = ""

    @property
    def tie_band(self) -> float:
        """Half-width of the band of margins counted as a tie: for a normal margin of spread
        ``sigma`` around 0, P(|margin| < h) ~ 2h / (sigma * sqrt(2 pi)) = tie_rate."""
        return self.tie_rate * self.sigma * math.sqrt(2 * math.pi) / 2

    def to_json(self) -> dict:
        return {
            "sigma": self.sigma,
            "slope": self.slope,
            "tie_rate": self.tie_rate,
            "combined_mean": self.combined_mean,
            "combined_sd": self.combined_sd,
            "confidence": self.confidence,
            "games": self.games,
            "source": self.source,
        }


def load_game_model(path: str | Path | None = None) -> GameModel:
    """The committed fitted model (``pairings/engine/game_model.json``); defaults if absent."""
    p = Path(path) if path else MODEL_FILE
    if not p.exists():
        return GameModel()
    data = json.loads(p.read_text())
    return GameModel(**{k: data[k] for k in GameModel.__dataclass_fields__ if k in data})


@dataclass
class SimPlayer:
    """One entrant at the start of the simulation.

    ``spread`` is the *ranking* spread (each game clipped to the round's cap), ``plays_from``
    ..``plays_until``: rounds the player is paired in (a withdrawn player stops); ``ranked``:
    whether the final standings rank them (a withdrawn player is not ranked).
    """

    number: int
    rating: int = 0
    wins: float = 0.0
    losses: float = 0.0
    spread: int = 0
    points: int = 0
    player_class: str = ""
    name: str = ""
    plays_until: int | None = None  # last round played; None = every round
    ranked: bool = True

    @classmethod
    def from_standing(cls, player: Any, row: Any, *, ranked: bool) -> SimPlayer:
        """The entrant as the standings left them: ``player`` as the standings take it
        (number, rating, name, withdrawn_round), ``row`` its standings row (wins, losses,
        spread, points_for). One place for the division's shell, the calibration replays and
        the benchmark, which each built it field by field."""
        withdrawn = player.withdrawn_round
        return cls(
            number=player.number,
            rating=player.rating,
            wins=row.wins,
            losses=row.losses,
            spread=row.spread,
            points=row.points_for,
            name=player.name,
            plays_until=None if withdrawn is None else withdrawn - 1,
            ranked=ranked,
        )


@dataclass(frozen=True)
class SimGame:
    """A known game of a future round: ``second`` 0 is a bye (or forfeit when margin < 0);
    ``margin`` is the first player's spread when the result is already in."""

    first: int
    second: int
    margin: int | None = None


@dataclass
class SimRound:
    """A round to play: its system, or its real pairings when already known."""

    number: int
    system: str = "koth"
    pairs: list[SimGame] | None = None
    gibson: bool = False
    gibson_spread: int = 500
    factor: int = 1
    cap: int | None = None
    max_meetings: int = 1  # a pairing meeting this often already is a repeat to avoid
    #: False: the system's pairing stands whatever the meetings (a King of the Hill allowing
    #: repeats, as NASPA events pair their last round), previous round's opponent included
    avoid_repeats: bool = True


@dataclass
class SimSetup:
    """A division after its last counted round, and the rounds left to play.

    ``win_prob[i, j]``: chance player index i beats j (ties half), from the rating system;
    ``prize_places``: paid places (Gibson pairs a clinched leader with the first one out).
    """

    players: list[SimPlayer]
    rounds: list[SimRound]
    win_prob: np.ndarray
    bye_spread: int = 50
    sum_before_spread: bool = False
    prize_places: int = 1
    tiebreak: list[int] = field(default_factory=list)  # order of equal players (index list)
    #: games already played, as pairs of player numbers (one entry a meeting): the
    #: approximation swaps a proposed repeat with the next game's opponent when that avoids it
    met: list[tuple[int, int]] = field(default_factory=list)

    def index_of(self) -> dict[int, int]:
        return {p.number: i for i, p in enumerate(self.players)}


@dataclass
class SimResult:
    """What ``simulate`` counted over all simulations.

    ``place_share[i, k]``: in how many simulations player index i finished in place k+1
    (players tied on wins, losses[, points] and spread share their places equally, so a
    two-way tie for 1st counts one half each); ``best``/``worst``: best and worst competition
    rank seen; ``ranks`` (only with ``keep_ranks``): competition rank per simulation and player
    (0 for an unranked player), for callers that need joint outcomes (calibration, COP).
    """

    sims: int
    place_share: np.ndarray
    best: np.ndarray
    worst: np.ndarray
    ranked: np.ndarray
    ranks: np.ndarray | None = None
    class_share: np.ndarray | None = None


def _ndtri(p: np.ndarray) -> np.ndarray:
    """Inverse normal CDF of each probability (no SciPy): NormalDist on the distinct values."""
    flat = np.clip(np.asarray(p, dtype=np.float64), 1e-9, 1 - 1e-9)
    values, inverse = np.unique(flat, return_inverse=True)
    inv = NormalDist().inv_cdf
    out = np.array([inv(v) for v in values], dtype=np.float64)
    return out[inverse].reshape(flat.shape)


def _quantile_table() -> np.ndarray:
    """Standard normal quantiles at the midpoints of 65,536 equal slices: a uint16 draw looked
    up here is a normal draw, at a tenth of the cost of ``standard_normal``."""
    size = 1 << _TABLE_BITS
    mids = (np.arange(size, dtype=np.float64) + 0.5) / size
    return _ndtri(mids).astype(np.float32)


_TABLE: np.ndarray | None = None


def _table() -> np.ndarray:
    global _TABLE
    if _TABLE is None:
        _TABLE = _quantile_table()
    return _TABLE


@dataclass(frozen=True)
class _Want:
    """What a count needs beyond the places: class prizes, every simulation's ranks."""

    classes: Sequence[Sequence[int]] = ()
    class_exclusive_places: int = 0
    keep_ranks: bool = False

    @property
    def comp(self) -> bool:
        return bool(self.classes) or self.keep_ranks


@dataclass
class _Counts:
    """One chunk's counts, flat over (slot, place index): ``hist`` the players' positions
    in the final order; ``comp_fix``/``share_fix`` what tied groups change in it (None: no
    tie) for the competition rank (a tied group's first place) and the shared places.
    ``class_share`` and ``ranks`` are by player index."""

    hist: np.ndarray
    comp_fix: np.ndarray | None = None
    share_fix: np.ndarray | None = None
    class_share: np.ndarray | None = None
    ranks: np.ndarray | None = None
