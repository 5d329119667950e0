"""Score-group windows: a Swiss round's optimum solved as independent windows of score groups.

``ScoreGroupWindows`` is the part of ``weighted._Round`` that splits the graph of the day at the
cuts between score groups, solves each window alone and proves (or refutes) that their union is
an optimum of the whole graph; ``solve_windows`` carries the proof. Kept apart from the cost
model (``weighted``) because it only reads the day's edges and costs, never builds them.
"""

from __future__ import annotations

import itertools
from typing import NamedTuple

import numpy as np

from . import matching
from .bands import BANDS
from .columns import column_blocks

WINDOW_SHARE = 0.75  # a window merged beyond this share of the field: solve the whole graph


class _Day(NamedTuple):
    """The graph of the day as ``solve_windows``'s windows read it: odd cuts, players by level
    in group order, edge keys sorted (and where each sits in the day's arrays), band costs,
    group positions and sizes, and who is due to start (-1) or to reply (+1)."""

    odd: np.ndarray
    by_level: list[np.ndarray]
    sorted_keys: np.ndarray
    key_order: np.ndarray
    costs: np.ndarray
    gpos: np.ndarray
    gsize: np.ndarray
    due: np.ndarray


class _WindowOptimum(NamedTuple):
    """OPT(W): the window's games (global indices, the float from above included), the player
    above whose copy it played (-1: none) and the player its ghost below took (-1: none), its
    ``win_diff`` and its cost band by band (copies' games less the share above)."""

    games: list[tuple[int, int]]
    top: int
    bottom: int
    win: int
    cost: tuple[int, ...]


class ScoreGroupWindows:
    """``solve_windows`` and its windows, mixed into ``weighted._Round`` (which provides the
    players, their score groups and ``_packed``, the graph of the day)."""

    def solve_windows(self, sparse: bool) -> list[tuple[int, int]] | None:
        """The optimum of the graph of the day, solved as independent score-group windows; None
        when the windows cannot be proven to give it (the caller then solves the whole graph).

        The one big matching costs about n² (rustworkx's blossom algorithm does n/2 stages of
        O(n) work); windows of one score group each cost their own size squared. Before issue
        24 only even cuts separated windows, with the field's whole excess checked at every
        cut: at 20,000 players five score groups merged into one window of 12,996 players.

        Windows. The bye (odd field) is pinned to the first of the bye order, ``b0``. The other
        players fall into score groups by half-wins, best first (levels); a cut between two
        neighbouring levels is *odd* when the players above it are an odd number (one of them
        must float down across it) and *even* otherwise. Windows are the runs of levels between
        the *separating* cuts, at first every cut (one window per score group). A window W is
        solved alone, ``OPT(W)``, on the day's edges inside it plus, for an odd separating cut
        on its border:
        - below it, a *ghost* (the floater's opponent): joined to each player of W's bottom
          level who has a day's game into the level below, at the float's *share* of the
          distance band, 2 x (g - 1 - pos), nothing in any other band (the day's float
          distance 2 x ((g_up - 1 - pos_up) + pos_down) is the sum of the two sides' shares);
        - above it, *copies* of the players of the level above who have a day's game into W's
          top level, each joined by those games at their day's costs less the upper player's
          share, and a path of sinks (copy, sink, copy, ..., copy) so that exactly one copy
          plays into W, whichever it is.
        A window's float from above is then one of its games. ``M`` is the union of the
        windows' games, plus ``b0``'s bye. Windows are solved top down, a window's copies
        breaking ties towards the player the ghost above took (one more band, below all the
        others and left out of OPT(W)).

        Checks: every window has a perfect matching costing nothing above ``win_diff`` (no
        repeat beyond the limit, ...), no player is Gibsonized, and across each odd separating
        cut the ghost above and the copy below took the same player (if not, another optimum
        of one of the two windows with only that ghost edge or that copy is sought, kept only
        if it costs exactly OPT of its window). Let E(W) = ``win_diff`` of OPT(W) less LB(W),
        the sum of gap² over the odd cuts inside W and over the odd cut above it if any (each
        crossed at least once by any perfect matching of W with its copies and ghost:
        crossings have the parity of the players above). Then, for each separating cut c with
        half-win gap d between windows A and B: 2d² > E(A) + E(B) when c is even, d > E(A) +
        E(B) when c is odd.

        Proof that ``M`` is an optimum of the whole graph, given the checks (costs compare
        band by band, the packed weights order matchings that way):
        (1) ``M`` costs nothing in the bands above ``win_diff`` and every edge is a plain Swiss
        one (its ``win_diff`` is the squared half-win difference). A matching ``M'`` no dearer
        than ``M`` costs nothing there either, so it gives the bye to ``b0`` (bye cost 0 is the
        first of the bye order only), pairs the same players, and win_diff(M') <= win_diff(M)
        = the sum over windows of LB(W) + E(W).
        (2) A game crossing cuts of gaps d1..dk costs (d1+..+dk)² = sum di² + sum over i != j
        of di·dj, which is >= sum di² + sum di when k >= 2. Call a separating cut *kept* by
        ``M'`` when ``M'`` crosses it as ``M`` does: not at all (even), or once by a game
        between the two levels next to it (odd, a day's game: its upper player has a copy and
        a ghost edge); else *broken*. A window whose border cuts are all kept gets from ``M'``
        a perfect matching of W with its copies and ghost (the float below takes the ghost,
        the float above is played by its copy, the other copies sit on sinks), so its games
        and its float from above cost at least LB(W) + E(W) in ``win_diff``; any other window's
        cost at least LB(W) (parity). A broken even cut is crossed at least twice (2d² beyond
        M); a broken odd cut is crossed three times or more (2d²), or by a game crossing
        another cut too (d, from the second sum above). So win_diff(M') >= win_diff(M) + sum
        over broken cuts of their penalty - sum of E over the windows next to a broken cut; by
        the cut checks this is > win_diff(M) as soon as one cut is broken.
        (3) So ``M'`` keeps every separating cut, and is the union of a perfect matching of
        each window with its copies and ghost, as in (2). Split the cost of each float (a, b)
        into a's share (to the window above, on its ghost edge) and the rest (to the window
        below, on a's copy): band by band these add up to the float's cost, so cost(M') =
        the sum of the windows' matchings' costs >= the sum of OPT(W) = cost(M), because the
        windows agree on every float. ``M`` is an optimum (where the optimum is unique, ``M``
        is it).
        When a check fails the windows concerned are merged (their cut dropped) and solved
        again; with no cut left, or a window holding most of the field (``WINDOW_SHARE``, so
        the merging never costs much more than one whole matching), this gives None and the
        whole graph is solved, as before.
        """
        if self.system != "swiss" or self.gib:
            return None
        n = self.n
        u, v, costs, _ = self._packed(sparse)
        b0 = self.bye_list[0] if n % 2 else -1
        players = np.array([i for i in range(n) if i != b0], dtype=np.int64)
        hw = np.array(self.hw, dtype=np.int64)
        levels, counts = np.unique(hw[players], return_counts=True)
        levels, counts = levels[::-1], counts[::-1]  # best score group first
        if len(levels) < 2:
            return None
        gap = levels[:-1] - levels[1:]  # cut k lies between levels k and k + 1
        odd = np.cumsum(counts)[:-1] % 2 == 1
        level_of = np.full(n + 1, -1, dtype=np.int64)
        level_of[players] = len(levels) - 1 - np.searchsorted(levels[::-1], hw[players])
        # The day's edges that could lie inside a window: players' games (b0 and the bye node
        # sit out; b0's bye is added at the end).
        inside = (v < n) & (u != b0) & (v != b0)
        if n % 2 and not np.any((u == b0) & (v == n)):
            return None
        edge_index = np.flatnonzero(inside)
        eu, ev = u[edge_index], v[edge_index]
        lu, lv = level_of[eu], level_of[ev]
        keys = u * (n + 1) + v
        key_order = np.argsort(keys)
        sorted_keys = keys[key_order]
        gpos = np.array(self.group_pos, dtype=np.int64)
        gsize = np.array(self.group_size, dtype=np.int64)
        by_rank = players[np.lexsort((gpos[players], level_of[players]))]
        by_level = np.split(by_rank, np.cumsum(counts)[:-1])
        due = np.append(np.array(self.due, dtype=np.int64), 0)  # the bye node: due neither way
        day = _Day(odd, by_level, sorted_keys, key_order, costs, gpos, gsize, due)
        within = (level_of, edge_index, eu, ev, lu, lv)
        level_start = np.concatenate(([0], np.cumsum(counts)))
        bottom_level = len(levels) - 1
        solved: dict[tuple[int, int], _WindowOptimum | None] = {}
        cuts = set(range(bottom_level))
        while cuts:
            bounds = [-1, *sorted(cuts), bottom_level]
            spans = [(bounds[k] + 1, bounds[k + 1]) for k in range(len(bounds) - 1)]
            if any(level_start[b + 1] - level_start[a] > WINDOW_SHARE * n for a, b in spans):
                return None  # merged into most of the field: one whole matching is cheaper
            drop: set[int] = set()
            prefer = -1  # the float the window above chose (windows are solved top down)
            for first, last in spans:
                if (first, last) not in solved:
                    top = first > 0 and bool(odd[first - 1])
                    bottom = last < bottom_level and bool(odd[last])
                    solved[first, last] = self._forced_window(
                        first, last, top, bottom, day
                    ) or self._window(first, last, top, bottom, day, *within, prefer=prefer)
                prefer = solved[first, last].bottom if solved[first, last] else -1
                if solved[first, last] is None:  # no perfect matching, or a top-band cost
                    drop |= {first - 1, last} & cuts
            if not drop:
                drop = self._check_cuts(spans, solved, gap, day, within)
                if not drop:
                    pairs = [p for span in spans for p in solved[span].games]
                    # Players per window, for the benchmark's table (and anyone asking why).
                    self.window_sizes = [int(level_start[b + 1] - level_start[a]) for a, b in spans]
                    if b0 >= 0:
                        pairs.append((b0, n))
                    return sorted(pairs)
            cuts -= drop
        return None

    def _check_cuts(self, spans, solved, gap, day, within) -> set[int]:
        """The separating cuts that fail ``solve_windows``'s checks: a float the two windows
        do not agree on (after trying the other optimum of either), or too much excess near."""
        drop: set[int] = set()
        for above, below in itertools.pairwise(spans):
            cut = above[1]
            if day.odd[cut]:
                a, copy = solved[above].bottom, solved[below].top
                if a != copy and not self._agree(above, below, solved, day, within):
                    drop.add(cut)
                    continue
            d = int(gap[cut])
            near = self._excess(above, solved, gap, day) + self._excess(below, solved, gap, day)
            if near >= (d if day.odd[cut] else 2 * d * d):
                drop.add(cut)
        return drop

    def _excess(self, span, solved, gap, day) -> int:
        """E(W): the window's ``win_diff`` beyond its parity bound (its float in included)."""
        first, last = span
        inner = gap[first:last][day.odd[first:last]]
        above = int(gap[first - 1]) ** 2 if first > 0 and day.odd[first - 1] else 0
        return solved[span].win - int((inner**2).sum()) - above

    def _agree(self, above, below, solved, day, within) -> bool:
        """Make the two windows' optima agree on the float across their cut, keeping each an
        optimum of its own window: the window below with only the copy of the player the ghost
        above took, or the window above with its ghost on the copy the window below took.
        Either is kept only if it costs exactly the window's optimum.

        The smaller window is tried first; the larger only when the smaller is at least a
        quarter of its size: else merging the two costs about what re-solving the larger does,
        and is what a failed try leads to anyway."""
        a, copy = solved[above].bottom, solved[below].top
        players = {
            s: sum(len(day.by_level[k]) for k in range(s[0], s[1] + 1)) for s in (above, below)
        }
        tries = sorted((above, below), key=players.get)
        if 4 * players[tries[0]] < players[tries[1]]:
            tries = tries[:1]
        for span in tries:
            top = span[0] > 0 and bool(day.odd[span[0] - 1])
            if span == below:
                bottom = span[1] < len(day.by_level) - 1 and bool(day.odd[span[1]])
                alt = self._window(*span, top, bottom, day, *within, only_copy=a)
            else:
                alt = self._window(*span, top, True, day, *within, only_ghost=copy)
            same = alt is not None and alt.cost == solved[span].cost
            if same and (span == below or alt.top == solved[span].top):
                solved[span] = alt
                return True
        return False

    def _forced_window(self, first, last, top, bottom, day) -> _WindowOptimum | None:
        """OPT(W) without a matching, when it is the window's *natural* pairing; else None.

        The natural pairing: the last of the level above the window plays the first of the
        top level (when W has copies above; that game must cost nothing but its ``win_diff``),
        a ghost below takes the last of the bottom level (share 0); across each odd cut inside
        the window, the last of the group above plays the first of the group below (float
        distance 0); the rest of each group of size g folds, its k-th remaining player against
        its (k + half)-th. It is taken when every game of it is a day's edge costing nothing in
        the bands above ``win_diff`` and in ``repeats``, and each game inside a group costs the
        least distance any game in that group can: 0 for even g, 1 for odd g (|2·gap - g| is
        odd).

        Proof that it is then an optimum of W with its copies and ghost: a perfect matching M'
        of them is never cheaper in the bands above ``win_diff`` or in ``repeats`` (they are 0
        here), nor in ``win_diff`` (the window's own parity bound, see ``solve_windows``, which
        the natural floats meet). If M' ties all of those, it floats exactly one player across
        each odd cut, to the next group, and plays everyone else inside their group; the number
        of games inside each group is then fixed, so its distance is at least the natural
        pairing's (floats, copies' games and ghost shares >= 0, games >= 0 or >= 1 per game as
        above). Equality needs every float, copy's game and ghost share at 0, i.e. the natural
        floats and the first and last of the border levels taken from outside, and every game
        inside a group at the least distance: for even g those games are the antipodal pairs
        (gap g/2), for odd g the gaps (g-1)/2 and (g+1)/2, which join each player to its two
        neighbours on a circle (position q at 2q mod g): on the players left (the circle less
        at least the floats) both graphs have at most one perfect matching, the natural one.
        So M' plays the natural games, its copy's game costs >= 0 in the lower bands (the
        natural one costs 0 there), or M' is dearer in some band above the lower ones.
        """
        groups = {k: list(day.by_level[k]) for k in range(first, last + 1)}
        copy = bottom_player = -1
        games: list[tuple[int, int]] = []
        least: list[int] = []
        if top:
            if not groups[first] or not len(day.by_level[first - 1]):
                return None
            copy = int(day.by_level[first - 1][-1])
            if day.gpos[copy] != day.gsize[copy] - 1:
                return None  # b0 was last: no float at distance 0
            games.append((copy, int(groups[first].pop(0))))
            least.append(0)
        if bottom:
            if not groups[last]:
                return None
            bottom_player = int(groups[last].pop())
            if day.gpos[bottom_player] != day.gsize[bottom_player] - 1:
                return None
        for k in range(first, last):
            if day.odd[k]:
                if not groups[k] or not groups[k + 1]:
                    return None
                games.append((groups[k].pop(), groups[k + 1].pop(0)))
                least.append(0)
        for k in range(first, last + 1):
            left = groups[k]
            if len(left) % 2:
                return None
            half = len(left) // 2
            games.extend(zip(left[:half], left[half:], strict=True))
            if left:
                least.extend([int(day.gsize[left[0]]) % 2] * half)
        if not games or not len(day.sorted_keys):
            return None
        nodes = self.n + 1
        want = np.array([min(a, b) * nodes + max(a, b) for a, b in games], dtype=np.int64)
        at = np.minimum(np.searchsorted(day.sorted_keys, want), len(day.sorted_keys) - 1)
        if not np.array_equal(day.sorted_keys[at], want):
            return None  # a game of the natural pairing is not an edge of the day
        rows = day.key_order[at]
        win, repeats = BANDS.index("win_diff"), BANDS.index("repeats")
        if day.costs[rows, :win].any() or day.costs[rows, repeats].any():
            return None
        if not np.array_equal(day.costs[rows, BANDS.index("distance")], np.array(least)):
            return None
        if top and day.costs[rows[0], win + 1 :].any():
            return None  # the copy's game must cost nothing below win_diff
        pairs = [(int(min(a, b)), int(max(a, b))) for a, b in games]
        total = tuple(int(x) for x in day.costs[rows].sum(axis=0))
        return _WindowOptimum(pairs, copy, bottom_player, total[win], total)

    def _window(
        self,
        first,
        last,
        top,
        bottom,
        day,
        level_of,
        edge_index,
        eu,
        ev,
        lu,
        lv,
        only_copy: int = -1,
        only_ghost: int = -1,
        prefer: int = -1,
    ) -> _WindowOptimum | None:
        """OPT(W) for the window of score levels first..last with its copies above and its
        ghost below (see ``solve_windows``), as global (u, v) games (the float from above
        included) and the float players; None if there is no perfect matching or the optimum
        costs anything above ``win_diff``. ``only_copy`` / ``only_ghost`` keep one copy / one
        ghost edge (to make two windows agree on a float); ``prefer`` breaks ties between copies
        towards that player (one more band, below all the others, left out of the cost)."""
        if first == last and top and bottom:  # the big case: try it in column blocks
            within = (level_of, edge_index, eu, ev, lu, lv)
            blocks = column_blocks(first, day, within, only_copy, only_ghost, prefer)
            if blocks is not None:
                games, copy, partner, cost = blocks
                return _WindowOptimum(games, copy, partner, cost[BANDS.index("win_diff")], cost)
        members = np.flatnonzero((level_of >= first) & (level_of <= last))
        size = len(members)
        local = np.full(len(level_of), -1, dtype=np.int64)
        local[members] = np.arange(size, dtype=np.int64)
        keep = (lu >= first) & (lu <= last) & (lv >= first) & (lv <= last)
        rows = edge_index[keep]
        parts_u, parts_v = [local[eu[keep]]], [local[ev[keep]]]
        parts_c = [day.costs[rows]]
        nodes = size
        distance = BANDS.index("distance")
        copies = np.zeros(0, dtype=np.int64)
        tie = None
        if top:  # copies of the level above's players, each with its games into W's top level
            cross = ((lu == first - 1) & (lv == first)) | ((lu == first) & (lv == first - 1))
            if only_copy >= 0:
                cross &= (eu == only_copy) | (ev == only_copy)
            xu, xv, xrows = eu[cross], ev[cross], edge_index[cross]
            outer = np.where(lu[cross] == first - 1, xu, xv)
            inner = np.where(lu[cross] == first - 1, xv, xu)
            copies = np.unique(outer)
            copy_node = nodes + np.searchsorted(copies, outer)
            c = day.costs[xrows].copy()
            c[:, distance] -= 2 * (day.gsize[outer] - 1 - day.gpos[outer])
            parts_u.append(local[inner])
            parts_v.append(copy_node)
            parts_c.append(c)
            if prefer >= 0:  # ties broken towards the float the window above chose
                tie = np.zeros(sum(len(x) for x in parts_u), dtype=np.int64)
                # the copy edges are the last part (none when no player above has a game
                # into W: tie[-0:] would be the whole array)
                tie[tie.size - len(c) :] = outer != prefer
            nodes += len(copies)
            sinks = len(copies) - 1  # all copies but one sit out: a path copy-sink-copy-...
            if sinks > 0:
                k = np.arange(sinks, dtype=np.int64)
                parts_u.append(np.concatenate([size + k, size + k + 1]))
                parts_v.append(np.concatenate([nodes + k, nodes + k]))
                parts_c.append(np.zeros((2 * sinks, len(BANDS)), dtype=np.int64))
                nodes += sinks
            if not len(copies):
                return None
        ghost = -1
        if bottom:
            # Only players with a day's game into the level below can float there.
            down = ((lu == last) & (lv == last + 1)) | ((lu == last + 1) & (lv == last))
            who = np.unique(np.where(lu[down] == last, eu[down], ev[down]))
            if only_ghost >= 0:
                who = who[who == only_ghost]
            ghost_costs = np.zeros((len(who), len(BANDS)), dtype=np.int64)
            ghost_costs[:, distance] = 2 * (day.gsize[who] - 1 - day.gpos[who])
            parts_u.append(local[who])
            parts_v.append(np.full(len(who), nodes, dtype=np.int64))
            parts_c.append(ghost_costs)
            ghost = nodes
            nodes += 1
        wu, wv = np.concatenate(parts_u), np.concatenate(parts_v)
        wcosts = np.concatenate(parts_c)
        if tie is not None:
            tie = np.concatenate([tie, np.zeros(len(wu) - len(tie), dtype=np.int64)])
            solve_costs = np.concatenate([wcosts, tie[:, None]], axis=1)
        else:
            solve_costs = wcosts
        found = matching.solve_packed(
            nodes, matching.packed_weight_arrays(nodes, wu, wv, solve_costs)
        )
        if found is None:
            return None
        window_keys = np.minimum(wu, wv) * nodes + np.maximum(wu, wv)
        order = np.argsort(window_keys)
        want = np.array([x * nodes + y for x, y in found], dtype=np.int64)
        chosen = order[np.searchsorted(window_keys[order], want)]
        win = BANDS.index("win_diff")
        if wcosts[chosen, :win].any():
            return None
        copy = partner = -1
        pairs: list[tuple[int, int]] = []
        for x, y in found:
            if y == ghost:
                partner = int(members[x])
            elif y >= size + len(copies):
                continue  # a copy on a sink
            elif y >= size:
                copy = int(copies[y - size])
                pairs.append((min(copy, int(members[x])), max(copy, int(members[x]))))
            else:
                pairs.append((int(members[x]), int(members[y])))
        total = tuple(int(x) for x in wcosts[chosen].sum(axis=0))
        return _WindowOptimum(pairs, copy, partner, total[win], total)
