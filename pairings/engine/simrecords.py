"""A simulated player's record as one int64 value, and the layouts that pack it.

Split from ``pairings.engine.simulate``: each simulation holds its players' records (wins,
losses, spread, points and the slot's opponent) in one integer per player, whose order is the
standings' order, so a round's re-ranking is one sort. The layouts (``_PLAIN``, ``_ALIGNED``,
``_POINTS``) say where each field sits; ``_plain_layout`` picks the fastest one every record
the simulation can reach fits.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any

import numpy as np

from .simdata import GameModel, SimRound, SimSetup

# --- the records as one int64 value per player --------------------------------------------
#
# A player's record is one linear code R = wins2 << W + (LOSS_ROOM - losses2) << L
# [+ points << P] + spread + ZERO (wins and losses doubled so a tie stays whole), whose order is
# the standings' order. Each simulation holds, per player,
# V = (BASE - R) << SHIFT | slot << OPP | previous opponent's slot, where slot is the player's
# place in the standings' fixed tiebreak order (rating, name value, number). Sorting V
# ascending (numpy's SIMD sort, ten times faster than an argsort) is then ranking by wins,
# losses[, points], spread and the tiebreak, and the slot and last round's opponent ride along
# in the low bits (slots are distinct, so the opponent never decides an order): no argsort, no
# gather, and a rematch of the previous round is seen by comparing two aligned arrays instead
# of looking up a table by slot. A game subtracts one number from each player's V.
# The points layout (``sum_before_spread``) has no room for the opponent (OPP = 0): there the
# previous round's opponents are kept in a table by slot, as before.

ID_BITS = 11  # bits of a slot (and of an opponent)
MAX_PLAYERS = (1 << ID_BITS) - 1
_ID_MASK = (1 << ID_BITS) - 1
_LOSS_ROOM = 255


@dataclass(frozen=True)
class _Layout:
    w: int
    l: int  # noqa: E741  (the losses' shift)
    p: int | None
    zero: int
    top: int  # bits of R
    opp: int = 0  # bits of the previous opponent's slot below the slot (0: not held in V)
    slot_bits: int = ID_BITS
    loss_room: int = _LOSS_ROOM  # losses2 are kept as loss_room - losses2 (a field of all ones)
    #: 16-bit slot and opponent fields under a 32-bit record: read and written as uint16
    #: views of V, without shifting and masking whole arrays
    aligned: bool = False

    @property
    def shift(self) -> int:
        """Bits below the record: the slot and the previous opponent."""
        return self.opp + self.slot_bits

    @property
    def slot_mask(self) -> int:
        return (1 << self.slot_bits) - 1

    @property
    def no_opp(self) -> int:
        """The opponent field of a player who met nobody yet (no slot has this value)."""
        return (1 << self.opp) - 1

    @property
    def low_mask(self) -> int:
        return (1 << self.shift) - 1

    @property
    def low_bits(self) -> int:
        return self.p if self.p is not None else self.l

    @property
    def base(self) -> int:
        return (1 << self.top) - 2

    @property
    def stopped(self) -> int:
        """V of a player no longer playing (withdrawn): after every real record."""
        return ((1 << self.top) - 1) << self.shift


#: wins2 and losses2 8 bits each, spread 25 bits (+-16 million), slot, opponent: 63 bits
_PLAIN = _Layout(w=33, l=25, p=None, zero=1 << 24, top=41, opp=ID_BITS)
#: the usual case, when the records fit: wins2 and losses2 7 bits each (up to 63 games),
#: spread 17 bits (+-65,536), then a 16-bit slot and a 16-bit opponent
_ALIGNED = _Layout(
    w=24, l=17, p=None, zero=1 << 16, top=31, opp=16, slot_bits=16, loss_room=127, aligned=True
)
_POINTS = _Layout(w=44, l=36, p=20, zero=1 << 19, top=52)


def _u16(v: np.ndarray, field: int) -> np.ndarray:
    """A uint16 view of field 0 (the opponent) or 1 (the slot) of each V (little-endian)."""
    return v.view(np.uint16)[..., field::4]


def _aligned_ok(v: np.ndarray) -> bool:
    return v.ndim >= 1 and v.strides[-1] == v.itemsize and sys.byteorder == "little"


def _slots(v: np.ndarray, lay: _Layout) -> np.ndarray:
    """The slot of each V (a new contiguous array)."""
    if lay.aligned and _aligned_ok(v):
        return np.ascontiguousarray(_u16(v, 1))
    out = v >> lay.opp if lay.opp else v.copy()
    out &= lay.slot_mask
    return out


def _picker(x: np.ndarray) -> Any:
    """A function picking ``x.flat[i]`` for index arrays i, without copying a strided x."""
    if x.flags.c_contiguous:
        return x.reshape(-1).take
    g = x.shape[-1]
    return lambda i: x[np.divmod(i, g)]


def _slot_view(v: np.ndarray, lay: _Layout) -> np.ndarray:
    """The slot of each V: a view into ``v`` in the aligned layout, else a new array."""
    if lay.aligned and _aligned_ok(v):
        return _u16(v, 1)
    return _slots(v, lay)


def _opponents(v: np.ndarray, lay: _Layout) -> np.ndarray:
    """The previous opponent's slot held in each V (plain layouts)."""
    if lay.aligned and _aligned_ok(v):
        return _u16(v, 0)
    return v & lay.no_opp


def _set_opponents(v: np.ndarray, opp: np.ndarray | int, lay: _Layout) -> None:
    """Write each V's opponent field, in place."""
    if lay.aligned and _aligned_ok(v):
        _u16(v, 0)[...] = opp
        return
    v &= ~np.int64(lay.no_opp)
    v |= opp


def _pack(lay: _Layout, wins2, losses2, spread, points) -> np.ndarray:
    code = (np.asarray(wins2, dtype=np.int64) << lay.w) + (
        (lay.loss_room - np.asarray(losses2, dtype=np.int64)) << lay.l
    )
    if lay.p is not None:
        code = code + (np.asarray(points, dtype=np.int64) << lay.p)
    return code + np.asarray(spread, dtype=np.int64) + lay.zero


def _unpack(lay: _Layout, code: np.ndarray) -> tuple[np.ndarray, ...]:
    wins2 = code >> lay.w
    losses2 = lay.loss_room - ((code >> lay.l) & lay.loss_room)
    spread = (code & ((1 << lay.low_bits) - 1)) - lay.zero
    if lay.p is not None:
        points = (code >> lay.p) & ((1 << (lay.l - lay.p)) - 1)
    else:
        points = np.zeros_like(code)
    return wins2, losses2, spread, points


@dataclass
class _Plan:
    rnd: SimRound
    active: int  # players paired this round
    stopping: np.ndarray  # slots of the players who no longer play from this round on
    known: list[tuple[int, int, int | None]] | None  # (slot, slot or -1, margin)
    left: int  # rounds left including this one (Gibson)
    catch: int  # spread a chaser can still gain (Gibson)


def _distinct(x: np.ndarray) -> np.ndarray:
    """``np.unique`` of a short integer array, by a sort: numpy's hash-based unique costs
    half a millisecond a call here, more than the rest of a repeat pass."""
    x = np.sort(x)
    if x.size > 1:
        x = x[np.concatenate(([True], x[1:] != x[:-1]))]
    return x


def _plain_layout(setup: SimSetup, model: GameModel) -> _Layout:
    """``_ALIGNED`` when every record the simulation can reach fits it (7-bit wins and
    losses, 17-bit spread), else ``_PLAIN``."""
    rounds = len(setup.rounds)
    wins2 = max((round(2 * p.wins) for p in setup.players), default=0)
    losses2 = max((round(2 * p.losses) for p in setup.players), default=0)
    spread = max((abs(p.spread) for p in setup.players), default=0)
    # a game moves a spread by at most its margin table's reach; a bye or a recorded result
    # by at most a score's range
    per_round = max(int(10.5 * model.sigma) + 2, abs(setup.bye_spread), 1500)
    fits = (
        len(setup.players) < (1 << 16) - 1
        and wins2 + 2 * rounds <= _ALIGNED.loss_room
        and losses2 + 2 * rounds <= _ALIGNED.loss_room
        and spread + per_round * rounds < _ALIGNED.zero - 1
    )
    return _ALIGNED if fits and sys.byteorder == "little" else _PLAIN


def _by_slot(v: np.ndarray, lay: _Layout) -> np.ndarray:
    """V with column s holding slot s (the known pairings' and the records' columns)."""
    out = np.empty_like(v)
    out[np.arange(v.shape[0])[:, None], _slots(v, lay)] = v
    return out


#: glibc's mallopt parameters (malloc.h)
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
_MALLOC_TUNED = False


def _reuse_freed_memory() -> None:
    """Let the C allocator keep freed arrays for the next ones (glibc only; once a process).

    Why: a simulated round makes a score of arrays of a megabyte or two and frees them. By
    default glibc gives such blocks back to the kernel at once (mmap, then trimming the heap),
    so every new array is fresh pages that the kernel must fault in and zero: on this machine
    that was over half the simulation's time (5.3 s of 100,000 playings, 2.0 s without).
    Blocks up to 32 MB then come from the heap, and up to 64 MB of free heap is kept.
    """
    global _MALLOC_TUNED
    if _MALLOC_TUNED:
        return
    _MALLOC_TUNED = True
    try:
        import ctypes

        libc = ctypes.CDLL("libc.so.6")
        libc.mallopt(_M_MMAP_THRESHOLD, 32 << 20)
        libc.mallopt(_M_TRIM_THRESHOLD, 64 << 20)
    except (OSError, AttributeError):  # not glibc: its allocator, its defaults
        pass
