"""The prize-chances simulation's code as it was before it was made faster, kept as the
reference its equality tests compare with (tests/pairings_engine/test_simulate.py): each
replaced function here plays exactly what its successor must play, bit for bit."""

from __future__ import annotations

import numpy as np

from .simulate import Prepared, _clip, _Plan


def play_known_by_column(
    self: Prepared, rng: np.random.Generator, plan: _Plan, v: np.ndarray
) -> None:
    """A round with real pairings (v by slot): results in count as recorded, the games
    still to finish are played: a column of V per recorded game (``Prepared._play_known``
    sums them by slot first)."""
    lay, cap = self.lay, plan.rnd.cap
    open_a, open_b = [], []
    for a, b, margin in plan.known or []:
        if b < 0:
            value = self.setup.bye_spread if margin is None else margin
            if value == 0:
                continue  # neither a win nor a loss
            w = 2 if value > 0 else 0
            v[:, a] -= ((w << lay.w) - ((2 - w) << lay.l) + _clip(value, cap)) << lay.shift
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
        v[:, a] -= da << lay.shift
        v[:, b] -= db << lay.shift
    if open_a:
        size = v.shape[0]
        sa = np.broadcast_to(np.array(open_a, dtype=np.int64), (size, len(open_a)))
        sb = np.broadcast_to(np.array(open_b, dtype=np.int64), (size, len(open_b)))
        da, db = self.deltas(rng, sa, sb, cap)
        v[:, open_a] -= da
        v[:, open_b] -= db
