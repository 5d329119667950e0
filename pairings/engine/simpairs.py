"""The cheap pairings a simulation uses for every future round, over all simulations at once.

Split from ``pairings.engine.simulate`` (whose docstring says what each system becomes):
adjacent pairs (King of the Hill, contention, cop), factor pairing, Swiss's halves of each
score group, and the Gibson permutation that makes a leader nobody can catch meet the first
player out of the money.
"""

from __future__ import annotations

import functools

import numpy as np

from .simrecords import _aligned_ok, _Layout


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


#: systems approximated by "top half v bottom half of each score group" (Swiss); the others
#: pairing on the standings (King of the Hill, contention, cop) pair 1 v 2, 3 v 4
HALVES_SYSTEMS = frozenset({"swiss", "australian", "fontes"})
#: how many games down a repeat looks for an opponent to swap with
REPEAT_REACH = 12
#: repeats are swapped from a list of them while under one game in this many, else by passes
#: over whole arrays
SPARSE_REPEATS = 2


def _score_group_halves(v: np.ndarray, pairs: int, lay: _Layout) -> tuple[np.ndarray, np.ndarray]:
    """Swiss's pairing within score groups, for every simulation: ``v`` sorted (best first),
    ``pairs`` an even number of columns to pair; returns the *flat* indices into ``v`` of each
    game's two players.

    A score group is the players on the same wins. An odd group's last player drops into
    the group below (the boundary moves up one place), so every group is even; within a group
    of 2h the k-th player meets the (k+h)-th. Pair j (positions 2j, 2j+1 when pairing
    adjacent players) then belongs to the group of position 2j+1: a group starting at an odd
    position starts one earlier, one ending at an odd position ends one earlier. So the groups
    are the runs of equal wins among the pairs' second players, counted per simulation with
    one bincount: pair j of a run of h pairs starting at pair t meets, from position j + t,
    the player h places down.
    """
    size, n = v.shape
    half = pairs // 2
    if lay.aligned and lay.shift + lay.w == 56 and _aligned_ok(v) and v.flags.c_contiguous:
        # the top byte of each V (little-endian: its eighth), read without a shift
        wins = v.view(np.uint8)[:, 15 : 8 * pairs : 16]
    else:
        wins = v[:, 1:pairs:2] >> (lay.shift + lay.w)  # a constant less wins (see _Layout)
    # (a Gibsonized row is no longer sorted: its pairs are replaced by the caller). Every row
    # is sorted from its second pair on, so its lowest and highest keys are among its first,
    # second and last: the bounds without a pass over the whole array
    edges = wins[:, [0, 1, -1]] if half > 1 else wins
    low = int(edges.min())
    span = int(edges.max()) - low + 1
    key = np.add(wins, (np.arange(size, dtype=np.int64) * span - low)[:, None], dtype=np.int64)
    counts = np.bincount(key.ravel(), minlength=size * span)
    starts = np.cumsum(counts)
    starts -= counts  # first pair of each run, counted over the whole chunk
    # pair j of simulation s sits at flat pair s * half + j, its first player at s * n + 2j:
    # the run's first player is at s * n + 2 * (start - s * half), pair j's at that + (j - t)
    a_pos = starts.take(key)
    a_pos += _pair_offsets(size, n, half)
    b_pos = counts.take(key)
    b_pos += a_pos
    return a_pos, b_pos


@functools.lru_cache(maxsize=8)
def _pair_offsets(size: int, n: int, half: int) -> np.ndarray:
    """``s * (n - half) + j`` for simulation s and pair j (see ``_score_group_halves``): the
    same for every round of a chunk, so made once."""
    out = (np.arange(size, dtype=np.int64) * (n - half))[:, None] + np.arange(half)
    out.flags.writeable = False
    return out


def _factor_columns(m: int, factor: int) -> tuple[np.ndarray, np.ndarray]:
    """Factor pairing's columns: 1 v 1+F within blocks of 2F (the last block may be short)."""
    pos = np.arange(m)
    block = 2 * factor
    within = pos % block
    start = pos - within
    half = np.minimum(block, m - start) // 2
    firsts = pos[within < half]
    return firsts, firsts + half[firsts]
