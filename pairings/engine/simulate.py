"""Monte Carlo of a division's remaining rounds: many seeded playings, vectorised with numpy.

Why vectorised: prize chances want 100,000 playings of the rest of an event, and running the
real pairing engine (``pair_round``) in each would take minutes. So each future round is paired
by a cheap *approximation* of its scheduled system, over all simulations at once:

* a round already paired (``SimRound.pairs``) keeps its real pairings, and its results already
  in stay as recorded (``SimGame.margin``);
* table systems (round robin, Initial Fontes) pair from numbers and ratings only, so the caller
  pairs them with the real engine beforehand and passes them as known pairs;
* every system pairing on the standings (Swiss, King of the Hill, contention, Australian,
  factor pairing) is approximated as Woogles' COP simulation does: order each simulation by
  wins then spread and pair 1 v 2, 3 v 4 (factor pairing: 1 v 1+F within blocks of 2F); the
  lowest player takes the bye. Repeats and the start/reply rule are not considered;
* Gibson (``SimRound.gibson``): a leader nobody can catch (the engine's rule: the win gap over
  the next player is more than twice the rounds left, or exactly that and the spread gap more
  than the Gibson spread of those rounds) meets the highest player out of the money instead;
* ``random`` draws a random permutation.

``approximation_difference`` in ``tests/benchmarks/bench_chances.py`` measures how far this is
from the full engine on real fixtures (the figures are in the README's chances section).

The game model (``GameModel``): player a beats b with the rating system's expectancy ``p``
(the caller passes the matrix, so the engine knows no rating system); the margin is normal,
``margin = sigma * (z + ndtri(p))`` so that P(margin > 0) = p, with ``sigma`` fitted on real
games (``fit_game_model``); a tie is a margin within ``tie_band`` of 0, the band set so that
ties are as frequent as in the real games. Scores (only needed when points rank before spread)
are ``(combined +- margin) / 2`` with a normal combined score. Randomness is a seeded numpy
``Generator``: the same seed gives the same result on every machine.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from statistics import NormalDist

import numpy as np

__all__ = [
    "GameModel",
    "SimGame",
    "SimPlayer",
    "SimResult",
    "SimRound",
    "SimSetup",
    "approximate_pairs",
    "load_game_model",
    "simulate",
    "simulate_chunks",
]

MODEL_FILE = Path(__file__).with_name("game_model.json")
#: simulations handled together: big enough for numpy, small enough to stay in cache
CHUNK = 8192
#: the normal quantile table the margins are drawn from (one uint16 draw per game)
_TABLE_BITS = 16


@dataclass(frozen=True)
class GameModel:
    """How a game ends, fitted on real games (``manage.py fit_game_model`` writes the file).

    ``sigma``: standard deviation of a game's spread around its rating-predicted mean;
    ``slope``: mean spread per rating point of difference (kept for reference: the simulation
    takes its win chance from the rating system, and the margin's mean follows from it);
    ``tie_rate``: share of real games tied; ``combined_mean``/``combined_sd``: the two scores'
    sum, for events ranking on points before spread.
    """

    sigma: float = 95.0
    slope: float = 0.3
    tie_rate: float = 0.005
    combined_mean: float = 800.0
    combined_sd: float = 70.0
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


def approximate_pairs(
    order: np.ndarray, system: str, *, factor: int = 1, rng: np.random.Generator | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """The cheap pairing of one round in every simulation.

    ``order`` (sims, m): the active players' indices, best first. Returns ``(a, b, bye)``:
    a[s, g] meets b[s, g]; ``bye`` (sims,) is the player left out of an odd field, or None.
    ``random`` shuffles first; ``factor`` pairs 1 v 1+F within blocks of 2F; every other
    system pairs 1 v 2, 3 v 4.
    """
    sims, m = order.shape
    if system == "random" and rng is not None:
        order = np.take_along_axis(order, np.argsort(rng.random((sims, m)), axis=1), axis=1)
    bye = None
    if m % 2:
        bye = order[:, -1]
        order = order[:, :-1]
        m -= 1
    if system == "factor" and factor > 1:
        pos = np.arange(m)
        block = 2 * factor
        within = pos % block
        start = pos - within
        size = np.minimum(block, m - start)  # the last block may be short
        half = size // 2
        firsts = pos[within < half]
        seconds = firsts + half[firsts]
        return order[:, firsts], order[:, seconds], bye
    return order[:, 0::2], order[:, 1::2], bye


def _gibson_perm(m: int, cut: int) -> np.ndarray:
    """Positions so that adjacent pairing makes the leader (position 0) meet the player at
    ``cut`` (the first out of the money) and everyone else keeps their order."""
    cut = max(1, min(cut, m - 1))
    return np.array([0, cut, *range(1, cut), *range(cut + 1, m)], dtype=np.intp)


def simulate_chunks(
    setup: SimSetup, model: GameModel, sims: int, seed: int, chunk: int = CHUNK
) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
    """Play the remaining rounds ``sims`` times, a chunk at a time.

    Yields ``(wins2, losses2, spread, points)`` per chunk, each (chunk_sims, players): the final
    record (wins and losses doubled, so ties stay whole numbers). The building block of
    ``simulate`` and of anything else that needs whole final records (COP, calibration).
    """
    rng = np.random.default_rng(seed)
    n = len(setup.players)
    index = setup.index_of()
    table = _table()
    model_sigma = np.float32(model.sigma)
    band = np.float32(model.tie_band)
    wp = np.asarray(setup.win_prob, dtype=np.float64)
    if wp.shape != (n, n):
        raise ValueError(f"win_prob must be {n} x {n}, got {wp.shape}")
    mu = (_ndtri(wp) * model.sigma).astype(np.float32).ravel()
    w0 = np.array([round(2 * p.wins) for p in setup.players], dtype=np.int16)
    l0 = np.array([round(2 * p.losses) for p in setup.players], dtype=np.int16)
    s0 = np.array([p.spread for p in setup.players], dtype=np.int32)
    p0 = np.array([p.points for p in setup.players], dtype=np.int32)
    # equal keys are ordered by the standings' later tiebreaks (rating, name value, number)
    tiebreak = setup.tiebreak or sorted(range(n), key=lambda i: (-setup.players[i].rating, i))
    tie_rank = np.empty(n, dtype=np.int32)
    tie_rank[np.asarray(tiebreak, dtype=np.intp)] = np.arange(n, dtype=np.int32)
    tie_shift = min(15, int(n).bit_length())
    rounds = sorted(setup.rounds, key=lambda r: r.number)
    plans = []
    for r in rounds:
        active = np.array(
            [
                i
                for i, p in enumerate(setup.players)
                if p.plays_until is None or p.plays_until >= r.number
            ],
            dtype=np.intp,
        )
        known = None
        if r.pairs is not None:
            known = [
                (index[g.first], index[g.second] if g.second else -1, g.margin) for g in r.pairs
            ]
        later = [x for x in rounds if x.number >= r.number]
        catch = sum(x.gibson_spread for x in later)
        plans.append((r, active, known, len(later), catch))

    done = 0
    while done < sims:
        size = min(chunk, sims - done)
        done += size
        wins2 = np.broadcast_to(w0, (size, n)).copy()
        losses2 = np.broadcast_to(l0, (size, n)).copy()
        spread = np.broadcast_to(s0, (size, n)).copy()
        points = np.broadcast_to(p0, (size, n)).copy() if setup.sum_before_spread else None
        rows = np.arange(size)[:, None]
        for r, active, known, left, catch in plans:
            if known is not None:
                _play_known(r, known, setup, model, rng, wins2, losses2, spread, points, mu, n)
                continue
            m = len(active)
            if m < 2:
                continue
            # order by wins then spread (then the standings' fixed tiebreak), best first
            key = (wins2[:, active].astype(np.int64) << 40) + (
                (spread[:, active].astype(np.int64) + (1 << 24)) << tie_shift
            )
            key -= tie_rank[active]
            order = active[np.argsort(-key, axis=1)]
            if r.gibson and m > 2 and r.system != "random":
                lead, nxt = order[:, 0], order[:, 1]
                gap = wins2[rows[:, 0], lead].astype(np.int32) - wins2[rows[:, 0], nxt]
                sgap = spread[rows[:, 0], lead] - spread[rows[:, 0], nxt]
                clinched = (gap > 2 * left) | ((gap == 2 * left) & (sgap > catch))
                if clinched.any():
                    perm = _gibson_perm(m, setup.prize_places)
                    order[clinched] = order[clinched][:, perm]
            a, b, bye = approximate_pairs(order, r.system, factor=r.factor, rng=rng)
            if bye is not None:
                wins2[rows[:, 0], bye] += 2
                spread[rows[:, 0], bye] += _clip(setup.bye_spread, r.cap)
            _play(a, b, rows, rng, table, mu, n, model_sigma, band, r.cap, model, setup,
                  wins2, losses2, spread, points)  # fmt: skip
        yield wins2, losses2, spread, points if points is not None else np.zeros_like(spread)


def _clip(value: int, cap: int | None) -> int:
    return value if cap is None else max(-cap, min(cap, value))


def _play(
    a: np.ndarray,
    b: np.ndarray,
    rows: np.ndarray,
    rng: np.random.Generator,
    table: np.ndarray,
    mu: np.ndarray,
    n: int,
    sigma: np.float32,
    band: np.float32,
    cap: int | None,
    model: GameModel,
    setup: SimSetup,
    wins2: np.ndarray,
    losses2: np.ndarray,
    spread: np.ndarray,
    points: np.ndarray | None,
) -> None:
    """Play the games a v b of every simulation and add them to the records."""
    count = a.size
    raw = rng.bit_generator.random_raw((count + 3) // 4).view(np.uint16)[:count]
    margin = mu[a * n + b] + sigma * table[raw].reshape(a.shape)
    tie = np.abs(margin) < band
    win_a = (margin > 0) & ~tie
    win_b = (margin < 0) & ~tie
    m = np.rint(margin).astype(np.int32)
    m = np.where(win_a, np.maximum(m, 1), np.where(win_b, np.minimum(m, -1), 0))
    if cap is not None:
        m = np.clip(m, -cap, cap)
    wa = (2 * win_a + tie).astype(np.int16)
    wb = (2 * win_b + tie).astype(np.int16)
    wins2[rows, a] += wa
    wins2[rows, b] += wb
    losses2[rows, a] += wb
    losses2[rows, b] += wa
    spread[rows, a] += m
    spread[rows, b] -= m
    if points is not None:
        raw = rng.bit_generator.random_raw((count + 3) // 4).view(np.uint16)[:count]
        combined = model.combined_mean + model.combined_sd * table[raw].reshape(a.shape)
        unclipped = np.rint(margin).astype(np.int32)
        sa = np.rint((combined + unclipped) / 2).astype(np.int32)
        points[rows, a] += sa
        points[rows, b] += sa - unclipped


def _play_known(
    r: SimRound,
    known: list[tuple[int, int, int | None]],
    setup: SimSetup,
    model: GameModel,
    rng: np.random.Generator,
    wins2: np.ndarray,
    losses2: np.ndarray,
    spread: np.ndarray,
    points: np.ndarray | None,
    mu: np.ndarray,
    n: int,
) -> None:
    """A round with real pairings: results already in count as recorded, the rest are played."""
    size = wins2.shape[0]
    open_a, open_b = [], []
    for a, b, margin in known:
        if b < 0:
            value = setup.bye_spread if margin is None else margin
            if value > 0:
                wins2[:, a] += 2
            elif value < 0:
                losses2[:, a] += 2
            spread[:, a] += _clip(value, r.cap)
            continue
        if margin is None:
            open_a.append(a)
            open_b.append(b)
            continue
        wa = 2 if margin > 0 else 1 if margin == 0 else 0
        wins2[:, a] += wa
        wins2[:, b] += 2 - wa
        losses2[:, a] += 2 - wa
        losses2[:, b] += wa
        clipped = _clip(margin, r.cap)
        spread[:, a] += clipped
        spread[:, b] -= clipped
        if points is not None:
            points[:, a] += round((model.combined_mean + margin) / 2)
            points[:, b] += round((model.combined_mean - margin) / 2)
    if open_a:
        a = np.broadcast_to(np.array(open_a, dtype=np.intp), (size, len(open_a)))
        b = np.broadcast_to(np.array(open_b, dtype=np.intp), (size, len(open_b)))
        rows = np.arange(size)[:, None]
        _play(a, b, rows, rng, _table(), mu, n, np.float32(model.sigma),
              np.float32(model.tie_band), r.cap, model, setup,
              wins2, losses2, spread, points)  # fmt: skip


def final_places(
    setup: SimSetup, wins2: np.ndarray, losses2: np.ndarray, spread: np.ndarray, points: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The final standings of each simulation.

    Returns ``(order, start, end, ranked)``: ``order[s, k]`` is the player index in place k+1
    among the ranked players; ``start``/``end`` (sims, ranked players) the first and last
    place index of the group tied with that place (equal wins, losses[, points] and spread),
    so ``start + 1`` is the competition rank; ``ranked`` the player indices ranked.
    """
    ranked = np.array([i for i, p in enumerate(setup.players) if p.ranked], dtype=np.intp)
    w = wins2[:, ranked].astype(np.int64)
    lo = losses2[:, ranked].astype(np.int64)
    sp = spread[:, ranked].astype(np.int64) + (1 << 24)
    key = (w << 54) - (lo << 46) + (sp & ((1 << 25) - 1))
    if setup.sum_before_spread:
        key += (points[:, ranked].astype(np.int64) & ((1 << 20) - 1)) << 25
    pos = np.argsort(-key, axis=1)
    sk = np.take_along_axis(key, pos, axis=1)
    k = sk.shape[1]
    idx = np.arange(k)
    new = np.ones_like(sk, dtype=bool)
    new[:, 1:] = sk[:, 1:] != sk[:, :-1]
    start = np.maximum.accumulate(np.where(new, idx, 0), axis=1)
    last = np.ones_like(sk, dtype=bool)
    last[:, :-1] = new[:, 1:]
    end = np.minimum.accumulate(np.where(last, idx, k - 1)[:, ::-1], axis=1)[:, ::-1]
    return ranked[pos], start, end, ranked


def simulate(
    setup: SimSetup,
    model: GameModel,
    sims: int,
    seed: int,
    *,
    keep_ranks: bool = False,
    classes: Sequence[Sequence[int]] = (),
    class_exclusive_places: int = 0,
    chunk: int = CHUNK,
) -> SimResult:
    """Play the remaining rounds ``sims`` times and count where everyone finishes.

    ``classes``: for each class with a prize, the player indices in it; its prize goes to the
    best-placed member not already in the top ``class_exclusive_places`` (one prize per
    player), tied members sharing it. See ``SimResult`` for what is counted.
    """
    if sims < 1:
        raise ValueError(f"sims must be at least 1, got {sims}")
    n = len(setup.players)
    share = np.zeros((n, n), dtype=np.float64)
    best = np.full(n, n + 1, dtype=np.int64)
    worst = np.zeros(n, dtype=np.int64)
    class_share = np.zeros(n, dtype=np.float64) if classes else None
    kept: list[np.ndarray] = []
    ranked = np.array([], dtype=np.intp)
    for wins2, losses2, spread, points in simulate_chunks(setup, model, sims, seed, chunk):
        order, start, end, ranked = final_places(setup, wins2, losses2, spread, points)
        size, k = order.shape
        flat_player = order.ravel()
        size_g = (end - start + 1).ravel()
        st = start.ravel()
        single = size_g == 1
        share += np.bincount(flat_player[single] * n + st[single], minlength=n * n).reshape(n, n)
        if not single.all():
            tp, ts, tg = flat_player[~single], st[~single], size_g[~single]
            for j in range(int(tg.max())):
                ok = j < tg
                share += np.bincount(
                    tp[ok] * n + ts[ok] + j, weights=1.0 / tg[ok], minlength=n * n
                ).reshape(n, n)
        comp = np.empty((size, n), dtype=np.int32)
        comp.fill(0)
        np.put_along_axis(comp, order, (start + 1).astype(np.int32), axis=1)
        sub = comp[:, ranked]
        best[ranked] = np.minimum(best[ranked], sub.min(axis=0))
        worst[ranked] = np.maximum(worst[ranked], sub.max(axis=0))
        if class_share is not None:
            for members in classes:
                mem = np.asarray(members, dtype=np.intp)
                if mem.size == 0:
                    continue
                cr = comp[:, mem]
                eligible = (cr > class_exclusive_places) & (cr > 0)
                cand = np.where(eligible, cr, np.iinfo(np.int32).max)
                top = cand.min(axis=1, keepdims=True)
                win = eligible & (cand == top)
                counts = win.sum(axis=1, keepdims=True)
                class_share[mem] += (win / np.maximum(counts, 1)).sum(axis=0)
        if keep_ranks:
            kept.append(comp.astype(np.int16))
    best[best > n] = 0
    return SimResult(
        sims=sims,
        place_share=share,
        best=best,
        worst=worst,
        ranked=ranked,
        ranks=np.concatenate(kept) if keep_ranks else None,
        class_share=class_share,
    )
