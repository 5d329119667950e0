"""Column blocks: one large score-group window solved as a chain of small matchings, and a
certificate that the chain is an optimum of the whole window (else the caller solves it whole).

Why. A score-group window (``windows``) is one matching of about its size squared: at 20,000
players the largest score group (4,734 players) took about half the round's time. The group
whose window has a float in from above (copies) and one out below (a ghost) and an even number
of players is the common big case (both cuts next to it are odd), and its optimum is known in
closed form: a lower bound, proven below by an explicit dual, that the blocks reach.

The geometry. In a group of g = 2h players by position 0..g-1, a game at position distance D
costs |2D - g| in the ``distance`` band; put player p in *column* p mod h (top half: p < h).
A top player at column a against a bottom one at column b costs 2|a - b|: the natural pairing
(p v p + h) is column by column, and a chain of games (bottom of column c v top of column c',
c' > c) carries one player's worth of "float" up the columns at 2 per column crossed. The
float in from above wants the top of the group (its copy's game costs 2·pos), the float down
wants its bottom (2·(g - 1 - pos)): the cheapest pairings cost exactly g - 2 in ``distance``
(float in at column a, out at column b >= a, natural pairs elsewhere and a chain from a to b).

Blocks. The columns are cut into blocks of ``BLOCK_COLUMNS``; each block is one small matching:
block 0 takes the window's copies (and their path of sinks, as in ``windows``), the last block
the window's ghost, and across each inner boundary the block below gets a *port* (a ghost at
the float's share of the distance, 2·(boundary - 1 - column)) and the block above plays the
player its port took, at the day's costs less that share. The union is a perfect matching of
the window, costing the sum of the blocks.

Certificate (weak LP duality, band by band). For any numbers y on the window's nodes with
y_u + y_v <= cost(u, v) on every edge of the window (all its in-group games, copies' games and
ghost edges, not only the blocks'), every perfect matching of the window costs at least the sum
of y. Per band: 0 everywhere for the bands that must be 0 (above ``win_diff``, ``repeats``,
``last_round``); for ``win_diff`` the least copy game on every copy and its negation
on every sink (exactly one copy plays); for ``distance`` y = 2c - (h - 1) on the top of column c
and (h - 1) - 2c on its bottom (checked on every in-group edge of the day), every copy the least
slack of all the copies' games and every sink its negation, the ghost the least slack of its
edges. When the blocks' union costs exactly these sums in every band (``firsts`` has two
bounds of its own: ``_firsts_bound`` and ``_chain_firsts_bound``), no perfect matching of the
window is cheaper (lexicographically, as the packed weights compare), so it is an optimum of
the window, as ``windows`` needs (its proof only uses that each window is solved optimally).
Anything else (a repeat the chain cannot avoid, a block with no port, a missed bound) returns
None and the window is solved whole, as before.
"""

from __future__ import annotations

import numpy as np

from . import matching
from .bands import BANDS

COLUMN_BLOCKS_ABOVE = 600  # score groups of more players are tried in column blocks
BLOCK_COLUMNS = 100  # columns (two players each) per block

WIN, REPEATS, DISTANCE, LAST_ROUND, FIRSTS = (
    BANDS.index(b) for b in ("win_diff", "repeats", "distance", "last_round", "firsts")
)

BlockOptimum = tuple[list[tuple[int, int]], int, int, tuple[int, ...]]


def _block_count(h: int) -> int:
    return max(1, h // max(1, BLOCK_COLUMNS))


def column_blocks(
    first: int, day, within, only_copy: int = -1, only_ghost: int = -1, prefer: int = -1
) -> BlockOptimum | None:
    """OPT(W) of the one-level window ``first`` with copies above and a ghost below, as
    (games, copy played, player on the ghost, cost by band), when the column blocks reach the
    certificate's bound; else None. ``only_copy`` / ``only_ghost`` restrict the window as in
    ``windows._window``; ``prefer`` is tried as the copy first (the float the window above
    chose)."""
    level_of, edge_index, eu, ev, lu, lv = within
    members = np.asarray(day.by_level[first], dtype=np.int64)
    g = len(members)
    if g <= max(COLUMN_BLOCKS_ABOVE, 3) or g % 2 or int(day.gsize[members[0]]) != g:
        return None
    if not np.array_equal(day.gpos[members], np.arange(g)):
        return None  # a hole in the group (the bye's player): not the geometry above
    h = g // 2
    column = np.full(len(level_of), -1, dtype=np.int64)
    column[members] = day.gpos[members] % h
    inner = (lu == first) & (lv == first)
    games = (eu[inner], ev[inner], edge_index[inner])
    cross = ((lu == first - 1) & (lv == first)) | ((lu == first) & (lv == first - 1))
    if only_copy >= 0:
        cross &= (eu == only_copy) | (ev == only_copy)
    above = lu[cross] == first - 1
    outer = np.where(above, eu[cross], ev[cross])
    copy_costs = day.costs[edge_index[cross]].copy()
    copy_costs[:, DISTANCE] -= 2 * (day.gsize[outer] - 1 - day.gpos[outer])
    copies = (outer, np.where(above, ev[cross], eu[cross]), copy_costs)
    down = ((lu == first) & (lv == first + 1)) | ((lu == first + 1) & (lv == first))
    who = np.unique(np.where(lu[down] == first, eu[down], ev[down]))
    if only_ghost >= 0:
        who = who[who == only_ghost]
    if not len(outer) or not len(who):
        return None
    ghost_costs = np.zeros((len(who), len(BANDS)), dtype=np.int64)
    ghost_costs[:, DISTANCE] = 2 * (g - 1 - day.gpos[who])
    ghost = (who, ghost_costs)
    tries = [prefer] if prefer >= 0 and np.any(outer == prefer) else []
    for choice in [*tries, -1]:
        found = _chain(h, column, day, games, copies, ghost, choice)
        if found is not None and _certified(h, column, members, day, games, copies, ghost, found):
            return found
    return None


def _chain(h, column, day, games, copies, ghost, choice) -> BlockOptimum | None:
    """The blocks solved bottom column first, each playing the player its lower port took."""
    gu, gv, grows = games
    count = _block_count(h)
    bounds = [round(k * h / count) for k in range(count + 1)]
    block = np.searchsorted(np.array(bounds[1:-1], dtype=np.int64), column, side="right")
    block[column < 0] = -1
    bu, bv = block[gu], block[gv]
    pairs: list[tuple[int, int]] = []
    total = np.zeros(len(BANDS), dtype=np.int64)
    carried, share = -1, 0  # the player the last block's port took, and its share
    copy = partner = -1
    for j in range(count):
        members = np.flatnonzero(block == j)
        local = np.full(len(column), -1, dtype=np.int64)
        local[members] = np.arange(len(members), dtype=np.int64)
        own = (bu == j) & (bv == j)
        parts_u, parts_v = [local[gu[own]]], [local[gv[own]]]
        parts_c, parts_who = [day.costs[grows[own]]], [np.full(int(own.sum()), -1)]
        nodes = len(members)
        if j == 0:
            part = _copies_part(local, nodes, block, copies, choice)
            if part is None:
                return None
            for into, extra in zip((parts_u, parts_v, parts_c, parts_who), part[:4], strict=True):
                into.extend(extra)
            nodes += part[4]
        else:
            mine = ((gu == carried) & (bv == j)) | ((gv == carried) & (bu == j))
            costs = day.costs[grows[mine]].copy()
            costs[:, DISTANCE] -= share
            fits = costs[:, DISTANCE] >= 0
            other = np.where(gu[mine] == carried, gv[mine], gu[mine])[fits]
            if not len(other):
                return None
            parts_u.append(local[other])
            parts_v.append(np.full(len(other), nodes))
            parts_c.append(costs[fits])
            parts_who.append(np.full(len(other), carried))
            nodes += 1
        if j == count - 1:
            who, costs = ghost
            keep = block[who] == j
            port_players, port_costs = who[keep], costs[keep]
        else:
            up = np.concatenate([gu[(bu == j) & (bv == j + 1)], gv[(bv == j) & (bu == j + 1)]])
            port_players = np.unique(up)
            port_costs = np.zeros((len(port_players), len(BANDS)), dtype=np.int64)
            port_costs[:, DISTANCE] = 2 * (bounds[j + 1] - 1 - column[port_players])
        if not len(port_players):
            return None
        parts_u.append(local[port_players])
        parts_v.append(np.full(len(port_players), nodes))
        parts_c.append(port_costs)
        parts_who.append(np.full(len(port_players), -3))
        nodes += 1
        wu, wv, wc = np.concatenate(parts_u), np.concatenate(parts_v), np.concatenate(parts_c)
        tag = np.concatenate(parts_who)
        chosen = _solved_edges(nodes, wu, wv, wc)
        if chosen is None:
            return None
        total += wc[chosen].sum(axis=0)
        for e in chosen.tolist():
            a = int(members[wu[e]]) if wu[e] < len(members) else -1
            if tag[e] == -3:  # the port: this player floats to the next block (or down)
                carried, share = a, int(wc[e, DISTANCE])
                if j == count - 1:
                    partner = a
            elif tag[e] >= 0:  # a copy's game, or the game of the player carried up
                if j == 0:
                    copy = int(tag[e])
                pairs.append((min(a, int(tag[e])), max(a, int(tag[e]))))
            elif tag[e] == -1:
                b = int(members[wv[e]])
                pairs.append((min(a, b), max(a, b)))
    return sorted(pairs), copy, partner, tuple(int(x) for x in total)


def _copies_part(local, nodes, block, copies, choice):
    """Block 0's copies of the window's players above (only ``choice`` if set), each joined by
    its games into block 0, and the path of sinks that lets exactly one of them play: parts of
    (u, v, costs, tag) and the nodes added; None when no copy has a game into block 0."""
    outer, inner, costs = copies
    keep = block[inner] == 0
    if choice >= 0:
        keep &= outer == choice
    outer, inner, costs = outer[keep], inner[keep], costs[keep]
    if not len(outer) or (costs[:, DISTANCE] < 0).any():
        return None
    ids = np.unique(outer)
    k = np.arange(len(ids) - 1, dtype=np.int64)  # all copies but one sit out: copy-sink-copy
    return (
        [local[inner], np.concatenate([nodes + k, nodes + k + 1])],
        [nodes + np.searchsorted(ids, outer), np.concatenate([nodes + len(ids) + k] * 2)],
        [costs, np.zeros((2 * len(k), len(BANDS)), dtype=np.int64)],
        [outer, np.full(2 * len(k), -2)],
        len(ids) + len(k),
    )


def _solved_edges(nodes, wu, wv, wc) -> np.ndarray | None:
    """Indices of the edges of one block's optimum (rustworkx), None without a perfect one."""
    found = matching.solve_packed(nodes, matching.packed_weight_arrays(nodes, wu, wv, wc))
    if found is None:
        return None
    keys = np.minimum(wu, wv) * nodes + np.maximum(wu, wv)
    order = np.argsort(keys)
    want = np.array([x * nodes + y for x, y in found], dtype=np.int64)
    return order[np.searchsorted(keys[order], want)]


def _certified(h, column, members, day, games, copies, ghost, found) -> bool:
    """The blocks' union costs the dual bound of the module docstring in every band."""
    total = found[3]
    if any(total[:WIN]) or total[REPEATS] or total[LAST_ROUND]:
        return False
    outer, inner, copy_costs = copies
    if total[WIN] != int(copy_costs[:, WIN].min()):
        return False
    y = np.zeros(len(column), dtype=np.int64)
    top = day.gpos[members] < h
    c = column[members]
    y[members] = np.where(top, 2 * c - (h - 1), (h - 1) - 2 * c)
    gu, gv, grows = games
    if (y[gu] + y[gv] > day.costs[grows, DISTANCE]).any():
        return False
    who, ghost_costs = ghost
    copy_slack = copy_costs[:, DISTANCE] - y[inner]
    ghost_slack = ghost_costs[:, DISTANCE] - y[who]
    bound = int(y[members].sum()) + int(copy_slack.min()) + int(ghost_slack.min())
    if total[DISTANCE] != bound:
        return False
    if total[FIRSTS] == _firsts_bound(members, day, games, copies, ghost):
        return True
    tight = (y, copy_slack == copy_slack.min(), ghost_slack == ghost_slack.min())
    return total[FIRSTS] == _chain_firsts_bound(h, column, day, games, copies, ghost, tight)


def _firsts_bound(members, day, games, copies, ghost) -> int:
    """The least ``firsts`` any perfect matching of the window can cost, by a dual: with s the
    side (due to start or due to reply) of the majority, y = 1/2 on the players due on side s
    and -1/2 on the others (two players due alike cost 1, any other game 0 or more), every
    copy the least slack of the copies' games and every sink its negation, the ghost the least
    slack of its edges; checked on every in-group game, in halves to stay in integers."""
    gu, gv, grows = games
    outer, inner, copy_costs = copies
    who, ghost_costs = ghost
    best = 0
    for side in (1, -1):
        y2 = np.full(len(day.due), -1, dtype=np.int64)
        y2[day.due == side] = 1
        if (y2[gu] + y2[gv] > 2 * day.costs[grows, FIRSTS]).any():
            continue
        bound2 = int(y2[members].sum())
        bound2 += int((2 * copy_costs[:, FIRSTS] - y2[inner]).min())
        bound2 += int((2 * ghost_costs[:, FIRSTS] - y2[who]).min())
        best = max(best, -(-bound2 // 2))
    return best


def _chain_firsts_bound(h, column, day, games, copies, ghost, tight) -> int | None:
    """The least ``firsts`` of the pairings that tie the blocks' union in every band above it,
    or None when the window is not of the shape below.

    Such a pairing M' reaches the ``distance`` bound, so every game of it is tight for the dual
    y (y_u + y_v = cost). Checked here: the tight in-group games all join a top player at
    column ct to a bottom one at cb <= ct, the tight copies' games reach top players, the tight
    ghost edges bottom ones. Then, over the columns 0..x, the tops left after the copy's game
    and the bottoms left after the ghost's number the same but for one (copy's column <= x <
    ghost's): that many games cross each boundary. So M' is a *chain*: the copy plays the top
    of column a, the bottom of each chain column plays the top of the next, the ghost takes the
    bottom of column b >= a, and every other column plays its natural game. Its ``firsts`` is a
    path cost over the columns, minimised here by a pass left to right (games with a cost in a
    band above ``distance``, or in ``last_round``, are left out: M' ties the union there)."""
    y, copy_tight, ghost_tight = tight
    gu, gv, grows = games
    costs = day.costs[grows]
    zero = ~costs[:, :WIN].any(axis=1) & (costs[:, WIN] == 0) & (costs[:, REPEATS] == 0)
    keep = zero & (costs[:, LAST_ROUND] == 0) & (y[gu] + y[gv] == costs[:, DISTANCE])
    gu, gv, firsts = gu[keep], gv[keep], costs[keep, FIRSTS]
    members = np.flatnonzero(column >= 0)
    top = np.zeros(len(column), dtype=bool)
    top[members] = day.gpos[members] < h
    t = np.where(top[gu], gu, gv)
    b = np.where(top[gu], gv, gu)
    if (top[t] == top[b]).any() or (column[t] < column[b]).any():
        return None  # a tight game within one half: not the chain's shape
    outer, inner, copy_costs = copies
    cc = copy_costs[copy_tight]
    ok = ~cc[:, :WIN].any(axis=1) & (cc[:, WIN] == copy_costs[:, WIN].min())
    ok &= (cc[:, REPEATS] == 0) & (cc[:, LAST_ROUND] == 0)
    cc_inner = inner[copy_tight][ok]
    who, _ = ghost
    ends = who[ghost_tight]
    if not top[cc_inner].all() or top[ends].any():
        return None
    big = 4 * h + 4  # more than any chain's firsts: "no such game"
    natural = np.full(h, big, dtype=np.int64)
    same = column[t] == column[b]
    natural[column[t][same]] = firsts[same]
    start = np.full(h, big, dtype=np.int64)
    np.minimum.at(start, column[cc_inner], cc[ok, FIRSTS])
    finish = np.full(h, big, dtype=np.int64)
    finish[column[ends]] = 0
    before = np.concatenate(([0], np.cumsum(natural)))  # natural games of columns < x
    hops = [[] for _ in range(h)]
    for x, z, f in zip(
        column[b][~same].tolist(), column[t][~same].tolist(), firsts[~same].tolist(), strict=True
    ):
        hops[z].append((x, f))
    # reach[x]: least firsts of columns 0..x with the chain at x (top x played, bottom x open),
    # less the natural games of columns 0..x (so a hop adds only what lies between).
    reach = [0] * h
    best = big * (h + 2)
    for z in range(h):
        here = int(start[z]) + int(before[z]) - int(before[z + 1])
        for x, f in hops[z]:
            here = min(here, reach[x] + f + int(before[z]) - int(before[z + 1]))
        reach[z] = here
        best = min(
            best, here + int(before[z + 1]) + int(finish[z]) + int(before[h] - before[z + 1])
        )
    return best if best < big else None
