"""Monte Carlo of a division's remaining rounds: many seeded playings, vectorised with numpy.

Why vectorised: prize chances want 100,000 playings of the rest of an event, and running the
real pairing engine (``pair_round``) in each would take minutes. So each future round is paired
by a cheap *approximation* of its scheduled system, over all simulations at once:

* a round already paired (``SimRound.pairs``) keeps its real pairings, and its results already
  in stay as recorded (``SimGame.margin``);
* table systems (round robin, Initial Fontes) pair from numbers and ratings only, so the caller
  pairs them with the real engine beforehand and passes them as known pairs;
* every system pairing on the standings is approximated on each simulation's order by wins
  then spread, as Woogles' COP simulation does: King of the Hill, contention and ``cop``
  (whose last round is KOTH among the contenders, and whose own chances would otherwise need
  a simulation inside each simulation) pair 1 v 2, 3 v 4; Swiss (and Australian, Fontes
  past its table) top half v bottom half of each score group, an odd group's last player
  dropping to the next; factor pairing 1 v 1+F within
  blocks of 2F; the lowest player takes the bye. Repeats and the start/reply rule are not
  considered (the main difference from the engine: see the README's figures);
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

import math
import os
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from .simdata import (
    MODEL_FILE,  # noqa: F401  (fit_game_model writes it)
    GameModel,
    SimGame,
    SimPlayer,
    SimResult,
    SimRound,
    SimSetup,
    _Counts,
    _ndtri,
    _table,
    _Want,
    load_game_model,
)
from .simpairs import (
    HALVES_SYSTEMS,
    REPEAT_REACH,
    SPARSE_REPEATS,
    _factor_columns,
    _gibson_perm,
    _score_group_halves,
    approximate_pairs,
)
from .simrecords import (
    _POINTS,
    MAX_PLAYERS,
    _aligned_ok,
    _by_slot,
    _distinct,
    _opponents,
    _pack,
    _picker,
    _plain_layout,
    _Plan,
    _reuse_freed_memory,
    _set_opponents,
    _slot_view,
    _slots,
    _unpack,
)

__all__ = [
    "GameModel",
    "SimGame",
    "SimPlayer",
    "SimResult",
    "SimRound",
    "SimSetup",
    "approximate_pairs",
    "idle_cores",
    "load_game_model",
    "simulate",
    "simulate_chunks",
]

#: simulations handled together: about CHUNK_CELLS players' records (so a round's arrays stay
#: in cache), at least CHUNK simulations (so small divisions are not slowed by Python's
#: per-call cost); ``chunk`` arguments of 0 mean this rule
CHUNK = 2048
#: most threads ``simulate`` plays chunks on (0 = one per core up to this)
MAX_THREADS = 4
CHUNK_CELLS = 400_000
#: margins are drawn in 1/QUANTUM of a point (the expectation and the draw each rounded to
#: it): fine enough that the tie band (about half a point) keeps its width within 2%
QUANTUM = 16


class Prepared:
    """A setup in slot terms (slot = place in the tiebreak order), ready to simulate."""

    def __init__(self, setup: SimSetup, model: GameModel):
        _reuse_freed_memory()
        n = len(setup.players)
        if n > MAX_PLAYERS:
            raise ValueError(f"at most {MAX_PLAYERS} players can be simulated, not {n}")
        wp = np.asarray(setup.win_prob, dtype=np.float64)
        if wp.shape != (n, n):
            raise ValueError(f"win_prob must be {n} x {n}, got {wp.shape}")
        self.setup, self.model, self.n = setup, model, n
        self.lay = _POINTS if setup.sum_before_spread else _plain_layout(setup, model)
        order = setup.tiebreak or sorted(range(n), key=lambda i: (-setup.players[i].rating, i))
        self.player_of = np.asarray(order, dtype=np.intp)  # slot -> player index
        slot_of = np.empty(n, dtype=np.intp)
        slot_of[self.player_of] = np.arange(n)
        self.slot_of = slot_of
        ps = [setup.players[i] for i in self.player_of]
        code = _pack(
            self.lay,
            [round(2 * p.wins) for p in ps],
            [round(2 * p.losses) for p in ps],
            [p.spread for p in ps],
            [p.points for p in ps],
        )
        self.v0 = ((self.lay.base - code) << self.lay.shift) | (
            np.arange(n, dtype=np.int64) << self.lay.opp
        )
        if self.lay.opp:
            self.v0 |= self.lay.no_opp
        self.mu = (
            (_ndtri(wp[np.ix_(self.player_of, self.player_of)]) * (model.confidence * model.sigma))
            .astype(np.float32)
            .ravel()
        )
        self.sigma = np.float32(model.sigma)
        self.band = float(model.tie_band)
        self.table = _table()
        #: the quantile table in points (sigma applied once, not per game)
        self.ztab = (self.table * self.sigma).astype(np.float32)
        #: margins reach at most |ndtri| 6 (win chances clipped to 1e-9) + 4.4 (the table's
        #: extreme) sigmas: a game's record change is looked up by its margin in a table
        self.reach = int(10.5 * model.sigma) + 2
        #: the plain layout draws margins in 1/QUANTUM points as integers: the expected margin
        #: (offset so that a sum is a table index) plus the normal draw, then one lookup gives
        #: the game's record change, the tie band and the rounding folded into the table
        off = QUANTUM * self.reach
        self.mu_q = (np.rint(self.mu.astype(np.float64) * QUANTUM) + off).astype(np.int32)
        z_q = np.rint(self.table.astype(np.float64) * model.sigma * QUANTUM)
        # int16 when it holds (sigma under ~470 points): half the table, so its random
        # look-ups (one a game) stay in the core's cache more often
        small = np.abs(z_q).max() <= np.iinfo(np.int16).max
        self.z_q = z_q.astype(np.int16 if small else np.int32)
        self._codes: dict[int | None, np.ndarray] = {}
        self._penalties: dict[int, np.ndarray] = {}
        self.unranked = np.array(
            sorted(int(slot_of[i]) for i, p in enumerate(setup.players) if not p.ranked),
            dtype=np.int64,
        )
        self.ranked_count = n - self.unranked.size
        index = setup.index_of()
        self.met = np.zeros((n, n), dtype=np.int16)
        for a, b in setup.met:
            if a in index and b in index:
                sa, sb = slot_of[index[a]], slot_of[index[b]]
                self.met[sa, sb] += 1
                self.met[sb, sa] += 1
        self.any_met = bool(self.met.any())
        self.plans = self._plans()

    def _plans(self) -> list[_Plan]:
        setup = self.setup
        index = setup.index_of()
        rounds = sorted(setup.rounds, key=lambda r: r.number)
        out = []
        playing = set(range(self.n))
        for r in rounds:
            now = {
                int(self.slot_of[i])
                for i, p in enumerate(setup.players)
                if p.plays_until is None or p.plays_until >= r.number
            }
            stopping = np.array(sorted(playing - now), dtype=np.int64)
            playing &= now
            known = None
            if r.pairs is not None:
                known = [
                    (
                        int(self.slot_of[index[g.first]]),
                        int(self.slot_of[index[g.second]]) if g.second else -1,
                        g.margin,
                    )
                    for g in r.pairs
                ]
            later = [x for x in rounds if x.number >= r.number]
            catch = sum(x.gibson_spread for x in later)
            out.append(_Plan(r, len(playing), stopping, known, len(later), catch))
        return out

    # -- games --------------------------------------------------------------------------------
    def normals(self, rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
        return self.table.take(self.raw16(rng, shape))

    @staticmethod
    def raw16(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
        """Uniform uint16 draws (four per 64-bit output), indices into the quantile table."""
        count = int(np.prod(shape))
        raw = rng.bit_generator.random_raw((count + 3) // 4).view(np.uint16)[:count]
        return raw.reshape(shape)

    def margin_codes(self, cap: int | None) -> np.ndarray:
        """What a game whose drawn margin is q / QUANTUM points (index q + QUANTUM * reach)
        subtracts from the first player's V: wins, losses and the (capped) spread in one
        number, so a game is one table lookup. A margin within the tie band of 0 is a tie;
        any other is rounded half up, and one rounding to 0 is a win (or loss) by 1."""
        table = self._codes.get(cap)
        if table is None:
            lay = self.lay
            q = np.arange(-QUANTUM * self.reach, QUANTUM * self.reach + 1, dtype=np.int64)
            raw = q / QUANTUM
            m = np.floor(raw + 0.5).astype(np.int64)
            m = np.where(m == 0, np.sign(q), m)
            m = np.where(np.abs(raw) < self.band, 0, m)
            c = m if cap is None else np.clip(m, -cap, cap)
            base = (np.sign(m) + 1) * ((1 << lay.w) + (1 << lay.l)) + c - (1 << (lay.l + 1))
            table = self._codes[cap] = base << lay.shift
        return table

    def penalty(self, max_meetings: int) -> np.ndarray:
        """Per pair of slots (flat, a * n + b): meetings at the event beyond the allowance."""
        table = self._penalties.get(max_meetings)
        if table is None:
            extra = np.maximum(self.met.astype(np.int32) - (max_meetings - 1), 0)
            table = self._penalties[max_meetings] = extra.ravel()
        return table

    def deltas(
        self,
        rng: np.random.Generator,
        sa: np.ndarray,
        sb: np.ndarray,
        cap: int | None,
        *,
        sims: int = 0,
    ) -> tuple[np.ndarray, np.ndarray]:
        """What the games sa v sb (slots) subtract from each player's V.

        ``sims``: when sa and sb are one row that every simulation plays (the same pairings
        everywhere), the number of simulations to draw those games for."""
        lay = self.lay
        shape = (sims, sa.shape[-1]) if sims and sa.shape[0] == 1 else sa.shape
        # in place wherever possible: these arrays are the bulk of the simulation's work
        idx = np.multiply(sa, self.n, dtype=np.intp)
        idx += sb
        if lay.p is not None:
            margin = self.ztab.take(self.raw16(rng, shape))
            margin += self.mu.take(idx)
            return self._deltas_points(rng, margin, cap)
        # the margin in 1/QUANTUM points, already an index into the margin table
        z = self.z_q.take(self.raw16(rng, shape))
        q = self.mu_q.take(idx)
        if q.shape == z.shape:
            q += z
        else:  # one row of pairings for every simulation
            q = q + z
        da = self.margin_codes(cap).take(q)
        # a's and b's changes sum to one win and one loss each side
        db = np.subtract(((1 << (lay.w + 1)) - (1 << (lay.l + 1))) << lay.shift, da)
        return da, db

    def _deltas_points(
        self, rng: np.random.Generator, margin: np.ndarray, cap: int | None
    ) -> tuple[np.ndarray, np.ndarray]:
        """``deltas`` when points rank before spread: the scores are drawn too."""
        lay, model = self.lay, self.model
        mf = np.rint(margin)
        reach = max(0, math.ceil(self.band - 0.5))
        near = np.flatnonzero(mf == 0 if reach == 0 else np.abs(mf) <= reach)
        if near.size:
            raw = margin.ravel()[near]
            mf.ravel()[near] = np.where(np.abs(raw) < self.band, 0, np.sign(raw))
        m = mf.astype(np.int64)
        s = np.sign(m)
        s += 1  # 2 win, 1 tie, 0 loss (doubled wins of a)
        combined = model.combined_mean + model.combined_sd * self.normals(rng, m.shape)
        score_a = np.maximum(0, np.rint((combined + m) / 2)).astype(np.int64)
        score_b = np.maximum(0, score_a - m)
        if cap is not None:
            np.clip(m, -cap, cap, out=m)
        base = s
        base *= (1 << lay.w) + (1 << lay.l)
        base += m
        base -= 1 << (lay.l + 1)  # what the game adds to a's record code (wins, losses, spread)
        other = (1 << (lay.w + 1)) - (1 << (lay.l + 1))  # a's and b's additions sum to this
        da = base + (score_a << lay.p)
        db = other - base + (score_b << lay.p)
        da <<= lay.shift
        db <<= lay.shift
        return da, db

    # -- rounds -------------------------------------------------------------------------------
    def chunk_sizes(self, sims: int, chunk: int = 0) -> list[int]:
        """How ``sims`` playings are split: about CHUNK_CELLS records a chunk, at least CHUNK
        simulations. Fixed by the setup alone, so a seed gives the same figures however many
        threads play the chunks."""
        chunk = chunk or max(CHUNK, CHUNK_CELLS // max(1, self.n))
        full, rest = divmod(sims, chunk)
        return [chunk] * full + ([rest] if rest else [])

    def chunks(self, sims: int, seed: int, chunk: int = 0) -> Iterator[np.ndarray]:
        """Final V of every simulation, a chunk at a time (sorted, or by slot after a known
        round that was the last). Chunk k draws from its own generator, seeded (seed, k)."""
        for k, size in enumerate(self.chunk_sizes(sims, chunk)):
            yield self.play(np.random.default_rng([seed, k]), size)

    def play(self, rng: np.random.Generator, size: int) -> np.ndarray:
        """``size`` playings of the remaining rounds: the final V of each."""
        lay = self.lay
        first = self.plans[0] if self.plans else None
        if (
            first is not None
            and first.known is None
            and first.rnd.system != "random"
            and first.active >= 2
        ):
            # the first round is paired on row 0 and then writes every column of the other
            # rows (see ``_play_round``'s ``alike``): they need not be filled first
            v = np.empty((size, self.n), dtype=self.v0.dtype)
            v[0] = self.v0
        else:
            v = np.broadcast_to(self.v0, (size, self.n)).copy()
        # the points layout keeps each player's opponent in the previous simulated round in a
        # table by slot (-1: none), or None before any (nothing to look up) and after the
        # last (nothing to record); the plain layout keeps it in V itself
        last = None
        alike = True  # every row the same: no game played yet (or only recorded ones)
        for k, plan in enumerate(self.plans):
            if plan.stopping.size:
                hit = np.isin(_slots(v, lay), plan.stopping)
                v[hit] = lay.stopped | (v[hit] & lay.low_mask)
            if plan.known is not None:
                v = _by_slot(v, lay)
                self._play_known(rng, plan, v)
                alike = alike and all(b < 0 or margin is not None for _a, b, margin in plan.known)
                if lay.opp:
                    opp = np.full(self.n, lay.no_opp, dtype=np.int64)
                    for a, b, _margin in plan.known:
                        if b >= 0:
                            opp[a], opp[b] = b, a
                    _set_opponents(v, opp, lay)
                    continue
                met_now = np.full(self.n, -1, dtype=np.int16)
                for a, b, _margin in plan.known:
                    if b >= 0:
                        met_now[a], met_now[b] = b, a
                last = np.broadcast_to(met_now, (size, self.n)).copy()
            else:
                record = k + 1 < len(self.plans)
                if lay.opp:
                    self._play_round(rng, plan, v, None, None, record_opp=record, alike=alike)
                    alike = False
                    continue
                if record and last is None:
                    last = np.full((size, self.n), -1, dtype=np.int16)
                    looked_up = None  # nobody played a simulated round yet
                else:
                    looked_up = last
                last = self._play_round(
                    rng, plan, v, looked_up, last if record else None, alike=alike
                )
                alike = False
        return v

    def _play_round(
        self,
        rng: np.random.Generator,
        plan: _Plan,
        v: np.ndarray,
        last: np.ndarray | None,
        record: np.ndarray | None,
        *,
        record_opp: bool = False,
        alike: bool = False,
    ) -> np.ndarray | None:
        """One approximately paired round, in place: sort, pair, play (see the module doc).
        ``alike``: every simulation (row of ``v``, and of ``last``) holds the same records, as
        before the first simulated round, so one row is sorted and paired and only the games
        are played in every row (a sixth of the work of 100,000 playings of 5 rounds).
        ``last``: each slot's opponent in the previous round (points layout; None: no round
        before, so no rematch to avoid); ``record``: where to write this round's opponents
        (points layout; None: the last round). In the plain layout the opponents are in V:
        ``record_opp`` writes this round's there (not needed after the last round). Returns
        ``record``."""
        r, m, lay = plan.rnd, plan.active, self.lay
        if m < 2:
            if record is not None and last is None:
                record.fill(-1)
            if record_opp:
                v |= lay.no_opp  # nobody met anybody
            return record
        size, n = v.shape
        everyone = v
        if alike and r.system != "random":
            v = v[:1]
            last = last[:1] if last is not None else None
        else:
            alike = False
        v.sort(axis=1)
        shift = lay.shift
        clinched = self._reorder(rng, plan, v, size)
        pairs = m - (m % 2)
        if m % 2:  # the lowest player takes the bye
            bye = (2 << lay.w) + _clip(self.setup.bye_spread, r.cap)
            v[:, m - 1] -= bye << shift
            if record_opp:
                v[:, m - 1] |= lay.no_opp  # the bye's player met nobody
        rowoff = (np.arange(v.shape[0], dtype=np.intp) * n)[:, None]
        va, vb = self._pair_columns(r, v, pairs, clinched)
        # the slots as views into va and vb where the layout allows (no copies): a repeat
        # swap moves whole V, so sb keeps following vb
        sa, sb = _slot_view(va, lay), _slot_view(vb, lay)
        if r.system != "random" and r.avoid_repeats:
            if lay.opp:
                # the first player's previous opponent, from V (no_opp before any round)
                a_opp = _opponents(va, lay)
                self._avoid_repeats(va, vb, sa, sb, a_opp, r.max_meetings)
            elif last is not None or self.any_met:
                a_opp = last.ravel().take(sa + rowoff) if last is not None else None
                self._avoid_repeats(va, vb, sa, sb, a_opp, r.max_meetings)
        da, db = self.deltas(rng, sa, sb, r.cap, sims=size)
        if alike:
            everyone[1:, pairs:] = v[:, pairs:]  # the bye's player and those not playing
            v = everyone
            rowoff = (np.arange(size, dtype=np.intp) * n)[:, None]
        if record_opp:
            # the opponent fields become this round's (da and db leave the low bits alone)
            _set_opponents(va, sb, lay)
            _set_opponents(vb, sa, lay)
        # every paired player is written back, the first players in the first half of the
        # paired columns and the second in the second: any order does, as the next round (or
        # the count) sorts again and no two V are equal; contiguous halves are written at
        # SIMD speed where alternate columns were not
        half = pairs // 2
        np.subtract(va, da, out=v[:, :half])
        np.subtract(vb, db, out=v[:, half:pairs])
        if record is not None:
            if m % 2:  # the bye's player met nobody
                record[np.arange(size), _slots(v[:, m - 1], lay)] = -1
            flat = record.ravel()
            flat[sa + rowoff] = sb
            flat[sb + rowoff] = sa
        return record

    def _reorder(
        self, rng: np.random.Generator, plan: _Plan, v: np.ndarray, size: int
    ) -> np.ndarray | None:
        """``random`` shuffles the sorted players; with Gibson, a leader nobody can catch is
        placed beside the first player out of the money (returns where; None: nowhere)."""
        r, m, lay = plan.rnd, plan.active, self.lay
        n = v.shape[1]
        if r.system == "random":
            perm = np.argsort(rng.random((size, m)), axis=1)
            v[:, :m] = np.take_along_axis(v[:, :m], perm, axis=1)
        elif r.gibson and m > 2:
            ra = lay.base - (v[:, 0] >> lay.shift)
            rb = lay.base - (v[:, 1] >> lay.shift)
            gap = (ra >> lay.w) - (rb >> lay.w)
            low = (1 << lay.low_bits) - 1
            sgap = (ra & low) - (rb & low)
            clinched = (gap > 2 * plan.left) | ((gap == 2 * plan.left) & (sgap > plan.catch))
            if clinched.any():
                perm = np.concatenate([_gibson_perm(m, self.setup.prize_places), np.arange(m, n)])
                v[clinched] = v[clinched][:, perm]
                return clinched
        return None

    def _pair_columns(
        self, r: SimRound, v: np.ndarray, pairs: int, clinched: np.ndarray | None
    ) -> tuple[np.ndarray, np.ndarray]:
        """Each game's first and second players' V, as the round's system pairs them."""
        lay, n = self.lay, v.shape[1]
        if r.system == "factor" and r.factor > 1:
            a_cols, b_cols = _factor_columns(pairs, r.factor)
            return v[:, a_cols], v[:, b_cols]
        if r.system in HALVES_SYSTEMS and pairs > 2:
            a_pos, b_pos = _score_group_halves(v, pairs, lay)
            if clinched is not None:
                # a Gibsonized leader was placed beside their opponent: those simulations
                # pair adjacent players (the score groups no longer line up there)
                rows = np.flatnonzero(clinched)[:, None] * n
                a_pos[clinched] = rows + np.arange(0, pairs, 2)
                b_pos[clinched] = rows + np.arange(1, pairs, 2)
            flat = v.ravel()
            return flat.take(a_pos), flat.take(b_pos)
        return v[:, 0:pairs:2].copy(), v[:, 1:pairs:2].copy()

    def _avoid_repeats(
        self,
        va: np.ndarray,
        vb: np.ndarray,
        sa: np.ndarray,
        sb: np.ndarray,
        a_opp: np.ndarray | None,
        max_meetings: int,
    ) -> None:
        """Swap the second players of two nearby games when one of them is a repeat (met
        ``max_meetings`` times at the event, or in the previous simulated round) and the swap
        means fewer repeat meetings: the engine avoids repeats whenever it can, and without
        this a chaser would meet the leader round after round. Games d = 1..REPEAT_REACH apart
        are tried in turn; in each pass the games looked at are disjoint (blocks of d games
        of one parity meet the next block), so no player moves twice.

        Repeats are few: after one pass over every game to find them, the passes work on the
        list of repeated games only, (simulation, game) pairs kept up to date as swaps fix
        them.

        ``a_opp``: each first player's opponent in the previous round (aligned with ``sa``;
        None: no round before). Only second players move, so it stays aligned.
        """
        size, g = sa.shape
        if g < 2:
            return
        n = self.n
        pen = self.penalty(max_meetings) if self.any_met else None
        if a_opp is not None:
            rep = a_opp == sb
            if pen is not None:
                rep |= pen.take(np.multiply(sa, n, dtype=np.intp) + sb) > 0
        elif pen is not None:
            rep = pen.take(np.multiply(sa, n, dtype=np.intp) + sb) > 0
        else:
            return
        flagged = np.flatnonzero(rep)
        if flagged.size == 0:
            return

        def cost(x: np.ndarray, xo: np.ndarray | None, y: np.ndarray) -> np.ndarray:
            # meetings beyond the allowance, and a rematch of the round before (worst)
            if xo is None:
                return pen.take(np.multiply(x, n, dtype=np.intp) + y)
            c = 10 * (xo == y).astype(np.int32)
            if pen is not None:
                c += pen.take(np.multiply(x, n, dtype=np.intp) + y)
            return c

        if flagged.size * SPARSE_REPEATS > rep.size:
            # late in a small event most games are repeats: whole arrays beat lists
            self._swap_dense(rep, sa, sb, vb, a_opp, cost)
            return
        fs, fg = np.divmod(flagged, g)
        vb_flat = vb.ravel()
        # the slots and previous opponents of the games looked at, picked from sa, sb and
        # a_opp (views into V in the aligned layout) without copying them whole; sb, when a
        # view into vb, follows vb's swaps by itself
        a_at, b_at = _picker(sa), _picker(sb)
        opp_at = _picker(a_opp) if a_opp is not None else None
        b_flat = None if np.may_share_memory(sb, vb) else sb.reshape(-1)
        for d in range(1, min(REPEAT_REACH, g - 1) + 1):
            for parity in (0, 1):
                if fs.size == 0:
                    return
                # each repeated game's partner in this pass: the game d after it when its
                # block has this parity, the game d before it when the block before has
                first = np.where((fg // d) % 2 == parity, fg, fg - d)
                usable = (first >= 0) & ((first // d) % 2 == parity) & (first + d < g)
                if not usable.any():
                    continue
                cand = _distinct(fs[usable] * g + first[usable])
                s_idx, jj = np.divmod(cand, g)
                one, two = cand, cand + d  # flat game indices
                a1, a2, b1, b2 = a_at(one), a_at(two), b_at(one), b_at(two)
                o1 = opp_at(one) if opp_at is not None else None
                o2 = opp_at(two) if opp_at is not None else None
                before = cost(a1, o1, b1) + cost(a2, o2, b2)
                after_1 = cost(a1, o1, b2)
                after_2 = cost(a2, o2, b1)
                ok = after_1 + after_2 < before
                if not ok.any():
                    continue
                one, two = one[ok], two[ok]
                if b_flat is not None:
                    b_flat[one], b_flat[two] = b2[ok], b1[ok]
                held = vb_flat[one]
                vb_flat[one] = vb_flat[two]
                vb_flat[two] = held
                # the repeated games now: those left alone, and the swapped ones still bad
                swapped = np.zeros(size * g, dtype=bool)
                swapped[one] = True
                swapped[two] = True
                keep = ~swapped[fs * g + fg]
                still = np.concatenate([one[after_1[ok] > 0], two[after_2[ok] > 0]])
                fs = np.concatenate([fs[keep], still // g])
                fg = np.concatenate([fg[keep], still % g])

    @staticmethod
    def _swap_dense(
        rep: np.ndarray,
        sa: np.ndarray,
        sb: np.ndarray,
        vb: np.ndarray,
        a_opp: np.ndarray | None,
        cost: Any,
    ) -> None:
        """``_avoid_repeats``' passes over every game of the simulations holding a repeat
        (when repeats are many, as late in a small event)."""
        g = rep.shape[1]
        rows = np.flatnonzero(rep.any(axis=1))
        xb, xvb, rep = sb[rows], vb[rows], rep[rows]
        xo = a_opp[rows] if a_opp is not None else None
        games = np.arange(g)
        sa_rows = sa[rows]
        for d in range(1, min(REPEAT_REACH, g - 1) + 1):
            for parity in (0, 1):
                j = games[((games // d) % 2 == parity) & (games + d < g)]
                if j.size == 0:
                    continue
                bad = rep[:, j] | rep[:, j + d]
                s_idx, k = np.nonzero(bad)
                if s_idx.size == 0:
                    continue
                jj = j[k]
                a1, a2 = sa_rows[s_idx, jj], sa_rows[s_idx, jj + d]
                b1, b2 = xb[s_idx, jj], xb[s_idx, jj + d]
                o1 = xo[s_idx, jj] if xo is not None else None
                o2 = xo[s_idx, jj + d] if xo is not None else None
                before = cost(a1, o1, b1) + cost(a2, o2, b2)
                after_1 = cost(a1, o1, b2)
                after_2 = cost(a2, o2, b1)
                ok = after_1 + after_2 < before
                s_idx, jj = s_idx[ok], jj[ok]
                if s_idx.size == 0:
                    continue
                for arr in (xb, xvb):
                    held = arr[s_idx, jj].copy()
                    arr[s_idx, jj] = arr[s_idx, jj + d]
                    arr[s_idx, jj + d] = held
                rep[s_idx, jj] = after_1[ok] > 0
                rep[s_idx, jj + d] = after_2[ok] > 0
            if not rep.any():
                break
        sb[rows] = xb
        vb[rows] = xvb

    def _play_known(self, rng: np.random.Generator, plan: _Plan, v: np.ndarray) -> None:
        """A round with real pairings (v by slot): results in count as recorded (summed by slot,
        one pass over V: see ``simreference``), the games still to finish are played."""
        lay, cap = self.lay, plan.rnd.cap
        open_a, open_b = [], []
        moved = [0] * v.shape[1]
        for a, b, margin in plan.known or []:
            if b < 0:
                value = self.setup.bye_spread if margin is None else margin
                if value == 0:
                    continue  # neither a win nor a loss
                w = 2 if value > 0 else 0
                moved[a] += ((w << lay.w) - ((2 - w) << lay.l) + _clip(value, cap)) << lay.shift
                continue
            if margin is None:
                open_a.append(a)
                open_b.append(b)
                continue
            wa = 2 if margin > 0 else 1 if margin == 0 else 0
            c = _clip(margin, cap)
            da = (wa << lay.w) - ((2 - wa) << lay.l) + c
            db = ((2 - wa) << lay.w) - (wa << lay.l) - c
            if lay.p is not None:
                da += round((self.model.combined_mean + margin) / 2) << lay.p
                db += round((self.model.combined_mean - margin) / 2) << lay.p
            moved[a] += da << lay.shift
            moved[b] += db << lay.shift
        v -= np.array(moved, dtype=v.dtype)
        if open_a:
            size = v.shape[0]
            sa = np.broadcast_to(np.array(open_a, dtype=np.int64), (size, len(open_a)))
            sb = np.broadcast_to(np.array(open_b, dtype=np.int64), (size, len(open_b)))
            da, db = self.deltas(rng, sa, sb, cap)
            v[:, open_a] -= da
            v[:, open_b] -= db

    def records(self, v: np.ndarray) -> tuple[np.ndarray, ...]:
        """``(wins2, losses2, spread, points)`` per simulation and player index."""
        by_slot = _by_slot(v, self.lay)
        code = self.lay.base - (by_slot >> self.lay.shift)
        out = []
        for part in _unpack(self.lay, code):
            by_player = np.empty_like(part)
            by_player[:, self.player_of] = part
            out.append(by_player)
        return tuple(out)

    def count(self, v: np.ndarray, want: _Want) -> _Counts:
        """Where everyone finished in the simulations of ``v`` (see ``_Counts``).

        Players tied on wins, losses[, points] and spread share their places; ties are few,
        so the places are counted as if nobody tied (one bincount) and the tied groups are
        then worked out from the links between equal neighbours only."""
        n = self.n
        if self.unranked.size:
            hit = np.isin(_slots(v, self.lay), self.unranked)
            v[hit] = self.lay.stopped | (v[hit] & self.lay.low_mask)
        v.sort(axis=1)
        k = self.ranked_count
        v = v[:, :k]
        size = v.shape[0]
        # counted by slot (the players' rows are put in their order once, by ``_merge``)
        slots = _slot_view(v, self.lay)
        flat = np.multiply(slots, n, dtype=np.intp)
        flat += np.arange(k)
        out = _Counts(hist=np.bincount(flat.ravel(), minlength=n * n))
        start = None
        if self.lay.aligned and self.lay.shift == 32 and _aligned_ok(v):
            rec = v.view(np.int32)[:, 1::2]  # the records, V's high halves, read in place
        else:
            rec = v >> self.lay.shift
        links = np.flatnonzero(rec[:, 1:] == rec[:, :-1]) if k > 1 else np.zeros(0, np.intp)
        if links.size:
            row, col = np.divmod(links, k - 1)
            first_el = row * k + col  # each link: elements first_el and first_el + 1 tie
            new = np.ones(first_el.size, dtype=bool)
            new[1:] = np.diff(first_el) != 1
            group_first = first_el[new]
            group_size = np.diff(np.append(np.flatnonzero(new), first_el.size)) + 1
            el_size = np.repeat(group_size, group_size)
            begin = np.repeat(group_first, group_size)
            el = (
                begin
                + np.arange(el_size.size)
                - np.repeat(np.cumsum(group_size) - group_size, group_size)
            )
            place = begin % k  # the group's first place index
            player = slots.ravel()[el].astype(np.intp)
            own = player * n + el % k
            shared = player * n + place
            out.comp_fix = np.bincount(shared, minlength=n * n) - np.bincount(own, minlength=n * n)
            share_fix = -np.bincount(own, minlength=n * n).astype(np.float64)
            weight = 1.0 / el_size
            for j in range(int(group_size.max())):
                ok = j < el_size
                share_fix += np.bincount(shared[ok] + j, weights=weight[ok], minlength=n * n)
            out.share_fix = share_fix
            if want.comp:
                start = np.broadcast_to(np.arange(k), (size, k)).copy()
                start.ravel()[el] = place
        if not want.comp:
            return out
        if start is None:
            start = np.broadcast_to(np.arange(k), (size, k))
        comp = np.zeros((size, n), dtype=np.int32)
        order = self.player_of.take(slots)
        np.put_along_axis(comp, order, (start + 1).astype(np.int32), axis=1)
        if want.classes:
            out.class_share = np.zeros(n, dtype=np.float64)
            for members in want.classes:
                mem = np.asarray(members, dtype=np.intp)
                if mem.size == 0:
                    continue
                cr = comp[:, mem]
                eligible = (cr > want.class_exclusive_places) & (cr > 0)
                cand = np.where(eligible, cr, np.iinfo(np.int32).max)
                top = cand.min(axis=1, keepdims=True)
                win = eligible & (cand == top)
                counts = win.sum(axis=1, keepdims=True)
                out.class_share[mem] += (win / np.maximum(counts, 1)).sum(axis=0)
        if want.keep_ranks:
            out.ranks = comp.astype(np.int16)
        return out


def _clip(value: int, cap: int | None) -> int:
    return value if cap is None else max(-cap, min(cap, value))


def simulate_chunks(
    setup: SimSetup, model: GameModel, sims: int, seed: int, chunk: int = 0
) -> Iterator[tuple[np.ndarray, ...]]:
    """Play the remaining rounds ``sims`` times; yields per chunk the final records by player
    index, ``(wins2, losses2, spread, points)``, each (chunk_sims, players), wins and losses
    doubled. For callers needing whole final records (COP, calibration). A player who stopped
    playing (withdrawn) has no meaningful record there."""
    prep = Prepared(setup, model)
    for v in prep.chunks(sims, seed, chunk):
        yield prep.records(v)


def idle_cores() -> int:
    """Cores no other work is using, by the 1-minute load average (at least one).

    Why: a second thread only helps when a core is free. On a machine already busy (the
    benchmark's 2 shared cores at load 5), two threads took 3.1 s on the clock where one took
    2.0 s: they fight the other work for the same cores and each other for the caches. The
    thread count never changes the figures, only how long they take."""
    cores = os.cpu_count() or 1
    try:
        load = os.getloadavg()[0]
    except (OSError, AttributeError):  # no load average on this platform
        return cores
    return max(1, min(cores, int(cores - load + 0.5)))


def simulate(
    setup: SimSetup,
    model: GameModel,
    sims: int,
    seed: int,
    *,
    keep_ranks: bool = False,
    classes: Sequence[Sequence[int]] = (),
    class_exclusive_places: int = 0,
    chunk: int = 0,
    threads: int = 0,
) -> SimResult:
    """Play the remaining rounds ``sims`` times and count where everyone finishes.

    ``classes``: for each class with a prize, the player indices in it; its prize goes to the
    best-placed member not already in the top ``class_exclusive_places`` (one prize per
    player), tied members sharing it. See ``SimResult`` for what is counted.

    ``threads``: chunks played at once (0: one per idle core, at least one and at most
    MAX_THREADS). numpy lets go of the interpreter lock in its array work, so two idle cores
    play two chunks; each chunk has its own generator (seed, chunk number), so the figures do
    not depend on the count.
    """
    if sims < 1:
        raise ValueError(f"sims must be at least 1, got {sims}")
    prep = Prepared(setup, model)
    sizes = prep.chunk_sizes(sims, chunk)
    want = _Want(classes, class_exclusive_places, keep_ranks)

    def job(k: int) -> _Counts:
        return prep.count(prep.play(np.random.default_rng([seed, k]), sizes[k]), want)

    workers = min(len(sizes), threads or min(idle_cores(), MAX_THREADS))
    if workers <= 1:
        return _merge(prep, map(job, range(len(sizes))), sims, want)
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return _merge(prep, pool.map(job, range(len(sizes))), sims, want)


def tally(
    prep: Prepared,
    chunks: Iterable[np.ndarray],
    sims: int,
    *,
    keep_ranks: bool = False,
    classes: Sequence[Sequence[int]] = (),
    class_exclusive_places: int = 0,
) -> SimResult:
    """Count the final places of simulated events given as V chunks (``Prepared.chunks``,
    or ``pairings.engine.fullsim``'s playings with the real pairing engine)."""
    want = _Want(classes, class_exclusive_places, keep_ranks)
    return _merge(prep, (prep.count(v, want) for v in chunks), sims, want)


def _merge(prep: Prepared, parts: Iterable[_Counts], sims: int, want: _Want) -> SimResult:
    """The chunks' counts summed (in chunk order: the same floats whatever the threads)."""
    setup, n = prep.setup, prep.n
    hist = np.zeros(n * n, dtype=np.int64)
    comp_fix = np.zeros(n * n, dtype=np.int64)
    share = np.zeros(n * n, dtype=np.float64)
    class_share = np.zeros(n, dtype=np.float64) if want.classes else None
    kept: list[np.ndarray] = []
    for part in parts:
        hist += part.hist
        if part.comp_fix is not None:
            comp_fix += part.comp_fix
            share += part.share_fix
        if class_share is not None and part.class_share is not None:
            class_share += part.class_share
        if part.ranks is not None:
            kept.append(part.ranks)
    share += hist
    # the counts were by slot: each player's row is their slot's
    share = share.reshape(n, n)[prep.slot_of]
    comp = (hist + comp_fix).reshape(n, n)[prep.slot_of] > 0
    ranked = np.array([i for i, p in enumerate(setup.players) if p.ranked], dtype=np.intp)
    seen = comp.any(axis=1)
    best = np.where(seen, comp.argmax(axis=1) + 1, 0)
    worst = np.where(seen, n - comp[:, ::-1].argmax(axis=1), 0)
    return SimResult(
        sims=sims,
        place_share=share,
        best=best.astype(np.int64),
        worst=worst.astype(np.int64),
        ranked=ranked,
        ranks=np.concatenate(kept) if want.keep_ranks else None,
        class_share=class_share,
    )
