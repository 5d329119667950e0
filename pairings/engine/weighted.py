"""Weighted systems (swiss, koth, factor, contention, random): one min-cost perfect matching.

Hard rules are missing edges: forbidden pairs, withdrawn players (never nodes), and meetings
beyond ``max_meetings`` when ``hard_repeat_limit`` is set. Soft rules are bands of one integer
cost (see ``matching``), highest first:

====================  ==========================================================================
``repeat_over``       games beyond ``max_meetings`` (only made when unavoidable)
``bye``               position of the bye player in the bye order (Gibsonized, then by method)
``gibson``            a Gibsonized player should meet a Gibsonized player or a non-contender:
                      fewest meetings first, then the highest-ranked
``contention``        contenders stay inside their prize band's contender group
``win_diff``          squared win difference (two 1-win floats beat one 2-win float)
``repeats``           earlier meetings within the limit (prefer a fresh opponent when it costs
                      no win difference)
``distance``          distance from the system's ideal opponent
``last_round``        rematch of last round's opponent
``firsts``            both players due to start (or both due to reply)
====================  ==========================================================================
"""

from __future__ import annotations

import functools
import itertools
import random

import numpy as np

from . import matching
from .bands import BANDS
from .firsts import assign_firsts, round_rng
from .model import Field, FieldPlayer, PairedGame, PairingError, PairingOptions, RoundPairing
from .standing import (
    BYE_REASONS,
    best_finishes,
    bye_order,
    can_catch,
    catch_spread,
    gibsonized,
    half_wins,
    meeting_counts,
    ordered_active,
    rounds_left,
)
from .windows import ScoreGroupWindows

WEIGHTED_SYSTEMS = ("swiss", "koth", "factor", "contention", "random")
SPARSE_FRESH = 10  # fresh (non-repeat) candidates searched around each player's ideal opponent
SPARSE_NEIGHBOURS = 3  # rank neighbours on each side, for floats between score groups
SPARSE_BYE = 24  # bye candidates kept from the top of the bye order
WINDOWS_ABOVE = 300  # Swiss fields beyond this are solved in score-group windows when proven


def contender_cap(k: int) -> int:
    """Chew-style cap on a prize band's contender group: 2/4/8/12 for 1/2/3/4+ rounds left."""
    return {1: 2, 2: 4, 3: 8}.get(k, 12)


def fmt_wins(half: int) -> str:
    whole, rest = divmod(half, 2)
    return f"{whole}½" if rest else str(whole)


def ordinal(n: int) -> str:
    if 10 <= n % 100 <= 20:
        return f"{n}th"
    return f"{n}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th') }".replace(" ", "")


class _Round(ScoreGroupWindows):
    """Everything one weighted pairing needs, computed once."""

    def __init__(self, field: Field, system: str, options: PairingOptions):
        self.field = field
        self.system = system
        self.options = options
        self.ordered = ordered_active(field)
        self.n = len(self.ordered)
        self.pos = {p.number: i for i, p in enumerate(self.ordered)}
        self.hw = [half_wins(p) for p in self.ordered]
        self.met = [meeting_counts(p, options.repeats_since_round) for p in self.ordered]
        self.last = [p.opponents[-1] if p.opponents else 0 for p in self.ordered]
        self.due = [_due(p) for p in self.ordered]
        self.most_rounds = max((len(p.opponents) for p in self.ordered), default=0)
        self.k_left = rounds_left(field)
        self.catch = catch_spread(field, options)
        uses_gibson = system in ("swiss", "koth", "factor", "contention", "australian")
        self.gib = gibsonized(field, options, self.ordered) if uses_gibson else []
        self.gib_idx = {self.pos[g] for g in self.gib}
        self.noncontender_rank: dict[int, int] = {}
        if self.gib:
            finish = best_finishes(field, options, self.ordered)
            paid = max(options.prize_bands) if options.prize_bands else 1
            nc = [i for i, p in enumerate(self.ordered) if finish[p.number] > paid]
            self.noncontender_rank = {i: r for r, i in enumerate(nc)}
        self._groups()
        self.contention_group: dict[int, int] = {}
        self.contention_label: dict[int, str] = {}
        if system == "contention":
            self._contention_groups()
        self.bye_list: list[int] = []
        if self.n % 2:
            order = bye_order(self.ordered, options.bye_method, self.gib)
            self.bye_list = [self.pos[p.number] for p in order]
        self.bye_cost = {i: r for r, i in enumerate(self.bye_list)}
        self.random_costs = random.Random(f"random-pairing:{options.seed}:{field.round}")

    # -- structure --------------------------------------------------------------------------
    def _groups(self) -> None:
        """Score groups (equal wins) in rank order: start index, size and position of each."""
        members: dict[int, list[int]] = {}
        for i, h in enumerate(self.hw):
            members.setdefault(h, []).append(i)
        self.group_pos = [0] * self.n
        self.group_size = [0] * self.n
        self.group_members = members
        for idx in members.values():
            for q, i in enumerate(idx):
                self.group_pos[i] = q
                self.group_size[i] = len(idx)

    def _contention_groups(self) -> None:
        finish = best_finishes(self.field, self.options, self.ordered)
        cap = contender_cap(self.k_left)
        taken = set(self.gib_idx)
        lower = 1
        for band_no, upper in enumerate(sorted(set(self.options.prize_bands))):
            group = [
                i
                for i, p in enumerate(self.ordered)
                if i not in taken and finish[p.number] <= upper
            ][:cap]
            if len(group) % 2:
                group = group[:-1]
            if len(group) >= 2:
                label = f"{ordinal(lower)}" if lower == upper else f"places {lower}-{upper}"
                for i in group:
                    self.contention_group[i] = band_no
                    self.contention_label[i] = label
                    taken.add(i)
            lower = upper + 1
        self.contention_order: dict[int, list[int]] = {}
        for i, g in sorted(self.contention_group.items()):
            self.contention_order.setdefault(g, []).append(i)
        self.contention_index = {
            i: q for members in self.contention_order.values() for q, i in enumerate(members)
        }

    def ideal(self, i: int) -> int:
        """Index of the system's ideal opponent for player ``i`` (centre of the sparse search)."""
        if self.system in ("koth", "factor"):
            d = 1 if self.system == "koth" else max(1, self.options.factor_distance)
            return i + d if (i % (2 * d)) < d else i - d
        g, q = self.group_size[i], self.group_pos[i]
        half = g // 2
        if half == 0:
            return i + 1
        return i + half if q + half < g else i - half

    # -- costs ------------------------------------------------------------------------------
    def edge_costs(self, i: int, j: int) -> tuple[int, ...] | None:
        """Band costs for the game i v j (i < j), or None if a hard rule forbids it."""
        pi, pj = self.ordered[i], self.ordered[j]
        if frozenset((pi.number, pj.number)) in self.field.forbidden:
            return None
        m = self.met[i].get(pj.number, 0)
        over = 1 if m + 1 > self.options.max_meetings else 0
        if over and self.options.hard_repeat_limit:
            return None
        gib_cost = contention = win = dist = 0
        gi, gj = i in self.gib_idx, j in self.gib_idx
        if gi or gj:
            if not (gi and gj):
                other = j if gi else i
                nc = self.noncontender_rank.get(other)
                per_meeting = self.n + 1
                if nc is not None:
                    gib_cost = 1 + m * per_meeting + nc
                else:
                    gib_cost = 1 + (self.most_rounds + 1) * per_meeting + self.n + other
        else:
            win, dist, contention = self._system_costs(i, j)
        last = 1 if (self.options.avoid_last_opponent and self.last[i] == pj.number) else 0
        firsts = 1 if self.due[i] and self.due[i] == self.due[j] else 0
        return (over, 0, gib_cost, contention, win, m, dist, last, firsts)

    def _system_costs(self, i: int, j: int) -> tuple[int, int, int]:
        system = self.system
        if system == "random":
            return 0, self.random_costs.randrange(1000), 0
        if system in ("koth", "factor"):
            d = abs(j - self.ideal(i)) + abs(i - self.ideal(j))
            return 0, d * d, 0
        win = (self.hw[i] - self.hw[j]) ** 2
        if system == "contention" and (i in self.contention_group or j in self.contention_group):
            gi, gj = self.contention_group.get(i), self.contention_group.get(j)
            if gi is None or gi != gj:
                return win, self._swiss_distance(i, j), 3
            qi, qj = self.contention_index[i], self.contention_index[j]
            pi, pj = self.ordered[i], self.ordered[j]
            k, spread = self.k_left, self.catch
            mutual = can_catch(pi, pj, k, spread) and can_catch(pj, pi, k, spread)
            ideal_j = qi + 1 if qi % 2 == 0 else qi - 1
            return 0, abs(qj - ideal_j), 0 if mutual else 1
        return win, self._swiss_distance(i, j), 0

    def _swiss_distance(self, i: int, j: int) -> int:
        """Same group: |gap - g/2| (doubled, integer); across groups: how far each player is
        from the boundary the float crosses."""
        if self.hw[i] == self.hw[j]:
            g = self.group_size[i]
            return abs(2 * abs(self.group_pos[j] - self.group_pos[i]) - g)
        hi, lo = (i, j) if self.hw[i] > self.hw[j] else (j, i)
        return 2 * ((self.group_size[hi] - 1 - self.group_pos[hi]) + self.group_pos[lo])

    # -- candidate edges: the plain version (the specification) ----------------------------
    def candidate_pairs(self, sparse: bool) -> set[tuple[int, int]]:
        """Games worth a matching edge: all of them, or (sparse) each player's rank
        neighbours, every game of a Gibsonized player or contender group, and the
        nearest ``SPARSE_FRESH`` fresh opponents around the ideal one."""
        n = self.n
        if not sparse:
            return {(i, j) for i in range(n) for j in range(i + 1, n)}
        pairs: set[tuple[int, int]] = set()
        limit = max(1, self.options.max_meetings)
        for i in range(n):
            for d in range(1, SPARSE_NEIGHBOURS + 1):
                if i + d < n:
                    pairs.add((i, i + d))
            if i in self.gib_idx:
                pairs.update((min(i, j), max(i, j)) for j in range(n) if j != i)
                continue
            if i in self.contention_group:
                for j in self.contention_order[self.contention_group[i]]:
                    if j != i:
                        pairs.add((min(i, j), max(i, j)))
            centre = min(max(self.ideal(i), 0), n - 1)
            fresh = scanned = 0
            met = self.met[i]
            for step in range(2 * n):
                j = centre + (step + 1) // 2 * (1 if step % 2 else -1)
                if not 0 <= j < n or j == i:
                    continue
                pairs.add((min(i, j), max(i, j)))
                scanned += 1
                if met.get(self.ordered[j].number, 0) < limit:
                    fresh += 1
                if fresh >= SPARSE_FRESH or scanned >= 40 * SPARSE_FRESH:
                    break
        return pairs

    def reference_edges(self, sparse: bool) -> list[matching.Edge]:
        """The candidate edges with their costs, one ``edge_costs`` call each."""
        out: list[matching.Edge] = []
        for i, j in sorted(self.candidate_pairs(sparse)):
            costs = self.edge_costs(i, j)
            if costs is not None:
                out.append((i, j, costs))
        if self.n % 2:
            keep = self.bye_list[:SPARSE_BYE] if sparse else self.bye_list
            for i in keep:
                out.append((i, self.n, (0, self.bye_cost[i], 0, 0, 0, 0, 0, 0, 0)))
        return out

    # -- candidate edges: the bulk version ---------------------------------------------------
    # ``edge_costs``, ``candidate_pairs`` and ``reference_edges`` above state the cost model one
    # edge at a time, and stay the specification. At 1,000 players that per-edge Python (a cost
    # tuple per edge, then packing band by band) took more time than rustworkx's solve, so the
    # engine builds the same edges in bulk: one Python step per player for the candidates, then
    # numpy columns for the costs. tests/pairings_engine/test_fast_edges.py holds ``edges`` equal
    # to ``reference_edges`` (same edges, same order, same costs) on random fields and systems.

    def edges(self, sparse: bool) -> list[matching.Edge]:
        """``reference_edges``, built by ``edge_arrays``: [(i, j, cost tuple)], same order."""
        u, v, costs = self.edge_arrays(sparse)
        return list(zip(u.tolist(), v.tolist(), map(tuple, costs.tolist()), strict=True))

    def candidate_keys(self, sparse: bool) -> np.ndarray:
        """``candidate_pairs`` as sorted keys ``i * n + j`` (i < j).

        Integer keys hash and sort faster than tuples, and sorting them gives exactly the sorted
        (i, j) order that ``reference_edges`` uses (ties in the matching depend on edge order).
        """
        n = self.n
        if not sparse:
            i, j = np.triu_indices(n, 1)
            return (i * n + j).astype(np.int64)
        extra: list[int] = []  # every game of a Gibsonized player or within a contender group
        searchers: list[int] = []  # the others search around their ideal opponent
        for i in range(n):
            row = i * n
            if i in self.gib_idx:
                extra.extend(range(i, row, n))  # (j, i) for every j < i
                extra.extend(range(row + i + 1, row + n))
                continue
            if i in self.contention_group:
                for j in self.contention_order[self.contention_group[i]]:
                    if j != i:
                        extra.append(row + j if i < j else j * n + i)
            searchers.append(i)
        who = np.array(searchers, dtype=np.int64)
        centre = np.clip(np.array([self.ideal(i) for i in searchers], dtype=np.int64), 0, n - 1)
        last = self._search_steps(who, centre)
        # Steps 0..s of the search cover centre - s//2 .. centre + (s+1)//2.
        low = np.maximum(centre - last // 2, 0)
        high = np.minimum(centre + (last + 1) // 2, n - 1)
        rank = np.arange(n, dtype=np.int64)
        neighbours = [rank[:-d] * n + rank[:-d] + d for d in range(1, SPARSE_NEIGHBOURS + 1)]
        searched = _interval_keys(n, who, low, high)
        return _sorted_unique(
            np.concatenate([np.array(extra, dtype=np.int64), *neighbours, searched])
        )

    def _search_steps(self, who: np.ndarray, centre: np.ndarray) -> np.ndarray:
        """The step at which each player's sparse search stops (``candidate_pairs``).

        The search walks centre, centre+1, centre-1, centre+2, ... (step s is offset
        (s+1)//2, alternately up and down) and stops at the first valid step with
        ``SPARSE_FRESH`` fresh opponents or ``40 * SPARSE_FRESH`` scanned. Here all players walk
        at once over a window of steps wide enough for any player whose stale opponents are no
        more than the most any player has (so, in practice, everyone); a player still searching
        at the window's end is walked step by step.
        """
        n = self.n
        if not len(who):
            return np.zeros(0, dtype=np.int64)
        met_keys, met_counts = self._meetings
        stale = met_keys[met_counts >= max(1, self.options.max_meetings)]
        owner, opponent = np.divmod(stale, max(n, 1))
        most_stale = int(np.bincount(owner).max()) if len(stale) else 0
        width = min(2 * n, 2 * (SPARSE_FRESH + most_stale + 1) + 1)
        steps = np.arange(width, dtype=np.int64)
        offsets = (steps + 1) // 2 * np.where(steps % 2, 1, -1)
        j = centre[:, None] + offsets[None, :]
        valid = (j >= 0) & (j < n) & (j != who[:, None])
        # Mark each stale opponent at the step where its player's search reaches it.
        row_of = np.full(n, -1, dtype=np.int64)
        row_of[who] = np.arange(len(who), dtype=np.int64)
        row = row_of[owner]
        searching = row >= 0
        row, d = row[searching], opponent[searching] - centre[row[searching]]
        step = np.where(d > 0, 2 * d - 1, -2 * d)
        reached = step < width
        met = np.zeros_like(valid)
        met[row[reached], step[reached]] = True
        scanned = np.cumsum(valid, axis=1)
        fresh = np.cumsum(valid & ~met, axis=1)
        stop = valid & ((fresh >= SPARSE_FRESH) | (scanned >= 40 * SPARSE_FRESH))
        stopped = stop.any(axis=1)
        last = np.where(stopped, stop.argmax(axis=1), 2 * n - 1)
        if not stopped.all():
            stale_set = set(stale.tolist())
            for r in np.flatnonzero(~stopped).tolist():
                last[r] = self._walk(int(who[r]), int(centre[r]), stale_set)
        return last

    def _walk(self, i: int, centre: int, stale: set[int]) -> int:
        """``_search_steps`` for one player, one step at a time, as ``candidate_pairs`` does."""
        n = self.n
        fresh = scanned = 0
        for s in range(2 * n):
            j = centre + (s + 1) // 2 * (1 if s % 2 else -1)
            if j < 0 or j >= n or j == i:
                continue
            scanned += 1
            if i * n + j not in stale:
                fresh += 1
            if fresh >= SPARSE_FRESH or scanned >= 40 * SPARSE_FRESH:
                return s
        return 2 * n - 1

    @functools.cached_property
    def _meetings(self) -> tuple[np.ndarray, np.ndarray]:
        """Earlier meetings between players being paired: sorted keys ``i * n + j`` from i's
        own record (so both directions), and how often. Built from all opponent lists at once;
        the sparse candidates (stale opponents) and the repeat costs both read it."""
        n = self.n
        start = self.options.repeats_since_round
        start = 0 if start is None else max(0, start - 1)
        records = [p.opponents[start:] if start else p.opponents for p in self.ordered]
        lengths = np.fromiter(map(len, records), dtype=np.int64, count=n)
        opponents = np.fromiter(
            itertools.chain.from_iterable(records), dtype=np.int64, count=int(lengths.sum())
        )
        owner = np.repeat(np.arange(n, dtype=np.int64), lengths)
        j = _ranks_of(self.ordered, opponents)
        paired = j >= 0  # not a bye, forfeit or withdrawn player
        keys = np.sort(owner[paired] * n + j[paired])
        if not len(keys):
            return keys, keys.copy()
        starts = np.flatnonzero(np.concatenate(([True], keys[1:] != keys[:-1])))
        return keys[starts], np.diff(np.append(starts, len(keys)))

    def edge_arrays(self, sparse: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The edges of ``reference_edges`` as columns: u, v (E,) and costs (E, len(BANDS))."""
        n, opts = self.n, self.options
        keys = self.candidate_keys(sparse)
        forbidden = self._position_keys(self.field.forbidden)
        if forbidden:
            keys = keys[~np.isin(keys, forbidden)]
        m = self._meetings_of(keys)
        over = m >= opts.max_meetings
        if opts.hard_repeat_limit:
            keys, m, over = keys[~over], m[~over], over[~over]
        i, j = np.divmod(keys, max(n, 1))
        costs = np.zeros((len(keys), len(BANDS)), dtype=np.int64)
        costs[:, 0] = over
        costs[:, 5] = m
        gib = np.zeros(n, dtype=bool)
        gib[list(self.gib_idx)] = True
        gi, gj = gib[i], gib[j]
        one = gi ^ gj
        if one.any():
            other = np.where(gi, j, i)[one]
            nc_rank = np.full(n, -1, dtype=np.int64)
            for x, r in self.noncontender_rank.items():
                nc_rank[x] = r
            nc, per_meeting = nc_rank[other], n + 1
            costs[one, 2] = np.where(
                nc >= 0,
                1 + m[one] * per_meeting + nc,
                1 + (self.most_rounds + 1) * per_meeting + n + other,
            )
        plain = ~(gi | gj)
        contention, win, dist = self._system_cost_columns(i[plain], j[plain])
        costs[plain, 3], costs[plain, 4], costs[plain, 6] = contention, win, dist
        if opts.avoid_last_opponent:
            last = np.array([self.pos.get(x, -1) for x in self.last], dtype=np.int64)
            costs[:, 7] = last[i] == j
        due = np.array(self.due, dtype=np.int64)
        costs[:, 8] = (due[i] != 0) & (due[i] == due[j])
        if self.n % 2:
            keep = self.bye_list[:SPARSE_BYE] if sparse else self.bye_list
            bye = np.zeros((len(keep), len(BANDS)), dtype=np.int64)
            bye[:, 1] = [self.bye_cost[x] for x in keep]
            i = np.concatenate([i, np.array(keep, dtype=np.int64)])
            j = np.concatenate([j, np.full(len(keep), n, dtype=np.int64)])
            costs = np.concatenate([costs, bye])
        return i, j, costs

    def _position_keys(self, pairs) -> list[int]:
        """Pairs of player numbers as edge keys, leaving out players not being paired."""
        out = []
        for pair in pairs:
            at = sorted(self.pos[x] for x in pair if x in self.pos)
            if len(at) == 2:
                out.append(at[0] * self.n + at[1])
        return out

    def _meetings_of(self, keys: np.ndarray) -> np.ndarray:
        """Earlier meetings for each edge key i * n + j (i < j), from i's record (as
        ``edge_costs`` counts them)."""
        met_keys, counts = self._meetings
        m = np.zeros(len(keys), dtype=np.int64)
        if len(met_keys) and len(keys):
            at = np.minimum(np.searchsorted(keys, met_keys), len(keys) - 1)
            hit = keys[at] == met_keys
            m[at[hit]] = counts[hit]
        return m

    def _system_cost_columns(
        self, i: np.ndarray, j: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``_system_costs`` (contention, win, distance) for many games with no Gibsonized
        player, in edge order (the random system draws its numbers in that order)."""
        zero = np.zeros(len(i), dtype=np.int64)
        if self.system == "random":
            draw = self.random_costs.randrange
            return zero, zero.copy(), np.array([draw(1000) for _ in range(len(i))], np.int64)
        if self.system in ("koth", "factor"):
            ideal = np.array([self.ideal(x) for x in range(self.n)], dtype=np.int64)
            d = np.abs(j - ideal[i]) + np.abs(i - ideal[j])
            return zero, zero.copy(), d * d
        hw = np.array(self.hw, dtype=np.int64)
        size = np.array(self.group_size, dtype=np.int64)
        gpos = np.array(self.group_pos, dtype=np.int64)
        hi_, hj = hw[i], hw[j]
        win = (hi_ - hj) ** 2
        upper = np.where(hi_ > hj, i, j)
        lower = np.where(hi_ > hj, j, i)
        dist = np.where(
            hi_ == hj,
            np.abs(2 * np.abs(gpos[j] - gpos[i]) - size[i]),
            2 * ((size[upper] - 1 - gpos[upper]) + gpos[lower]),
        )
        contention = zero
        if self.system == "contention" and self.contention_group:
            contention = zero.copy()
            grouped = np.zeros(self.n, dtype=bool)
            grouped[list(self.contention_group)] = True
            for e in np.flatnonzero(grouped[i] | grouped[j]).tolist():
                win[e], dist[e], contention[e] = self._system_costs(int(i[e]), int(j[e]))
        return contention, win, dist

    # -- solving and explaining -------------------------------------------------------------
    def solve(self) -> list[tuple[int, int]]:
        """The round's optimum: in score-group windows when they are proven to give it (Swiss
        fields above ``WINDOWS_ABOVE``), else one matching of the whole graph."""
        nodes = self.n + (self.n % 2)
        sparse = self.n > self.options.sparse_above
        result = self.solve_windows(sparse) if self.n > WINDOWS_ABOVE else None
        if result is None:
            result = self._solve_edges(nodes, sparse)
        if result is None and sparse:
            result = self._solve_edges(nodes, False)
        if result is None:
            raise infeasible(self, nodes)
        return result

    def solve_full(self) -> list[tuple[int, int]] | None:
        """The whole graph of the day in one matching (the pre-window path): what
        ``solve_windows`` must equal, and the benchmark's anchor."""
        nodes = self.n + (self.n % 2)
        sparse = self.n > self.options.sparse_above
        result = self._solve_edges(nodes, sparse)
        if result is None and sparse:
            result = self._solve_edges(nodes, False)
        return result

    def _solve_edges(self, nodes: int, sparse: bool) -> list[tuple[int, int]] | None:
        """``matching.solve`` on ``edges``, without going through a tuple per edge."""
        return matching.solve_packed(nodes, self._packed(sparse)[3])

    def _packed(self, sparse: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray, list]:
        """The graph of the day once per round: u, v, band costs and the packed weights (the
        windows and the whole-graph fall-back share them, so both solve the same numbers)."""
        cache = self.__dict__.setdefault("_packed_cache", {})
        if sparse not in cache:
            u, v, costs = self.edge_arrays(sparse)
            nodes = self.n + (self.n % 2)
            cache[sparse] = (u, v, costs, matching.packed_weight_arrays(nodes, u, v, costs))
        return cache[sparse]

    def explain(self, i: int, j: int) -> str:
        pj = self.ordered[j]
        parts = []
        m = self.met[i].get(pj.number, 0)
        if m:
            tag = ": unavoidable" if m + 1 > self.options.max_meetings else ""
            parts.append(f"repeat {ordinal(m + 1)} meeting{tag}")
        if i in self.gib_idx or j in self.gib_idx:
            both = i in self.gib_idx and j in self.gib_idx
            parts.append("Gibsonized v Gibsonized" if both else "Gibsonized")
        elif self.system == "contention" and self.contention_group.get(i, -1) == (
            self.contention_group.get(j, -2)
        ):
            parts.append(f"contention for {self.contention_label[i]}")
        elif self.system in ("swiss", "contention"):
            d = abs(self.hw[i] - self.hw[j])
            if d:
                parts.append(f"{fmt_wins(d)}-win float down")
            else:
                parts.append(f"score group {fmt_wins(self.hw[i])} wins")
        elif self.system == "koth":
            parts.append(f"KOTH {i + 1} v {j + 1}")
        elif self.system == "factor":
            parts.append(f"factor {self.options.factor_distance}: {i + 1} v {j + 1}")
        elif self.system == "random":
            parts.append("random draw")
        if self.options.avoid_last_opponent and self.last[i] == pj.number:
            parts.append("rematch of last round's opponent")
        return "; ".join(parts)

    def explain_bye(self, i: int) -> str:
        if i in self.gib_idx:
            text = "bye: Gibsonized"
        else:
            text = BYE_REASONS[self.options.bye_method]
        if self.bye_list and self.bye_list[0] != i:
            text += " (players before in the bye order would force a repeat)"
        return text


def _ranks_of(ordered: list[FieldPlayer], numbers: np.ndarray) -> np.ndarray:
    """Index in ``ordered`` of each player number, -1 for 0 (bye) or a player not in it.

    A table indexed by number when numbers are compact (the usual 1..N), else a binary search.
    """
    own = np.array([p.number for p in ordered], dtype=np.int64)
    if not len(own) or not len(numbers):
        return np.full(len(numbers), -1, dtype=np.int64)
    top = max(int(own.max()), int(numbers.max()))
    if top <= 8 * len(own) + 1024 and int(numbers.min()) >= 0:
        table = np.full(top + 1, -1, dtype=np.int64)
        table[own] = np.arange(len(own), dtype=np.int64)
        return table[numbers]
    order = np.argsort(own)
    at = np.minimum(np.searchsorted(own[order], numbers), len(own) - 1)
    return np.where(own[order][at] == numbers, order[at], -1)


def _interval_keys(n: int, who: np.ndarray, low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """Keys of the games (i, j) for each player i = who[k] and every j in low[k]..high[k]
    except i itself."""
    size = high - low + 1
    i = np.repeat(who, size)
    first = np.cumsum(size) - size  # where each player's run starts in the flat arrays
    j = np.repeat(low - first, size) + np.arange(int(size.sum()), dtype=np.int64)
    keep = i != j
    i, j = i[keep], j[keep]
    return np.minimum(i, j) * n + np.maximum(i, j)


def _sorted_unique(keys: np.ndarray) -> np.ndarray:
    """``np.unique`` for int keys by sort and compare: several times faster here (numpy 2's
    unique hashes first), same result."""
    keys = np.sort(keys)
    if len(keys) < 2:
        return keys
    return keys[np.concatenate(([True], keys[1:] != keys[:-1]))]


def _due(p: FieldPlayer) -> int:
    """+1 if due to reply (more starts), -1 if due to start, 0 if balanced."""
    diff = p.starts - p.replies
    return (diff > 0) - (diff < 0)


def infeasible(rnd: _Round, nodes: int) -> PairingError:
    """Name the hard rule that leaves no pairing, and what the director can relax."""
    opts = rnd.options
    ordered = rnd.ordered
    if nodes < 2:
        return PairingError("no players to pair", rule="field")
    repeat_only = []
    for i in range(rnd.n):
        for j in range(i + 1, rnd.n):
            m = rnd.met[i].get(ordered[j].number, 0)
            if not (opts.hard_repeat_limit and m + 1 > opts.max_meetings):
                repeat_only.append((i, j))
    if rnd.n % 2:
        repeat_only += [(i, rnd.n) for i in range(rnd.n)]
    stuck = matching.max_cardinality_unmatched(nodes, repeat_only)
    if stuck:
        names = {i for i in stuck if i < rnd.n}
        for i in list(names):
            names |= {
                rnd.pos[o] for o, c in rnd.met[i].items() if c >= opts.max_meetings and o in rnd.pos
            }
        numbers = sorted(ordered[i].number for i in names)
        who = ", ".join(map(str, numbers))
        allow = opts.max_meetings + 1
        return PairingError(
            f"repeats forbidden: players {who} have all met; allow {allow} meetings "
            f"(max_meetings={allow}) or turn off hard_repeat_limit",
            rule="max_meetings",
            players=tuple(numbers),
        )
    full = [(u, v) for u, v, _ in rnd.edges(False)]
    stuck = [i for i in matching.max_cardinality_unmatched(nodes, full) if i < rnd.n]
    who = ", ".join(str(ordered[i].number) for i in stuck)
    return PairingError(
        f"forbidden pairs leave players {who} without an opponent; remove a forbidden pair",
        rule="forbidden",
        players=tuple(ordered[i].number for i in stuck),
    )


def build_pairing(
    field: Field,
    system: str,
    options: PairingOptions,
    pairs: list[tuple[int, int]],
    explain,
    explain_bye,
    notes: list[str],
    order_key,
    fallback: dict[tuple[int, int], int] | None = None,
    assigned: dict[tuple[int, int], int] | None = None,
) -> RoundPairing:
    """Turn matched player pairs (second 0 = bye) into boards with firsts and explanations."""
    rng = round_rng(options.seed, field.round, system)
    games = [(a, b) for a, b in pairs if a and b]
    byes = [a or b for a, b in pairs if not (a and b)]
    games.sort(key=lambda ab: min(order_key(ab[0]), order_key(ab[1])))
    ordered_firsts = assign_firsts(games, field, rng, fallback, assigned)
    out = [
        PairedGame(board, first, second, explain(first, second))
        for board, (first, second, _) in enumerate(ordered_firsts, start=1)
    ]
    for b in sorted(byes, key=order_key):
        out.append(PairedGame(0, b, 0, explain_bye(b)))
    return RoundPairing(field.round, system, out, notes)


def pair_weighted(field: Field, system: str, options: PairingOptions) -> RoundPairing:
    rnd = _Round(field, system, options)
    matched = rnd.solve()
    pairs = []
    for u, v in matched:
        a = rnd.ordered[u].number
        b = rnd.ordered[v].number if v < rnd.n else 0
        pairs.append((a, b))
    notes = []
    if rnd.gib:
        notes.append("Gibsonized: " + ", ".join(str(g) for g in rnd.gib))
    if rnd.n > options.sparse_above:
        notes.append(f"candidate edges limited for {rnd.n} players")

    def explain(a: int, b: int) -> str:
        i, j = sorted((rnd.pos[a], rnd.pos[b]))
        return rnd.explain(i, j)

    return build_pairing(
        field,
        system,
        options,
        pairs,
        explain,
        lambda b: rnd.explain_bye(rnd.pos[b]),
        notes,
        lambda x: rnd.pos[x],
    )
