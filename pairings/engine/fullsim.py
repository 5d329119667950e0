"""The same simulation with the real pairing engine in every round: the yardstick for the
vectorised approximation of ``simulate`` (too slow for 100,000 playings: one ``pair_round``
per simulated round), and a tool for calibration work that needs exact pairings.

Each simulated round builds a ``Field`` from the simulation's records and the real meeting
history (so repeats are avoided as at the event), pairs it with the scheduled system and the
division's options, and plays the games with the same game model (``Prepared.deltas``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Mapping

import numpy as np

from .model import Field, FieldPlayer, PairingOptions
from .simulate import GameModel, Prepared, SimResult, SimRound, SimSetup, tally

__all__ = ["simulate_with_engine"]

PairFn = Callable[[Field, str, PairingOptions], object]


def simulate_with_engine(
    setup: SimSetup,
    model: GameModel,
    sims: int,
    seed: int,
    *,
    history: Mapping[int, list[int]],
    rounds_total: int,
    options: Callable[[SimRound], PairingOptions] | None = None,
) -> SimResult:
    """``simulate`` with every unpaired round paired by ``pair_round`` (see the module doc).

    ``history[number]``: the player's opponents in the rounds already played (0 = bye).
    """
    from . import pair_round  # the package imports this module's siblings first

    prep = Prepared(setup, model)
    opts = options or (lambda r: PairingOptions(gibson=r.gibson, gibson_spread=r.gibson_spread))
    return tally(
        prep,
        _chunks(prep, sims, seed, history, rounds_total, opts, pair_round),
        sims,
    )


def _chunks(
    prep: Prepared,
    sims: int,
    seed: int,
    history: Mapping[int, list[int]],
    rounds_total: int,
    options: Callable[[SimRound], PairingOptions],
    pair_round: Callable,
) -> Iterator[np.ndarray]:
    setup, lay = prep.setup, prep.lay
    batch: list[np.ndarray] = []
    rng = np.random.default_rng(seed)
    slot_of = {p.number: int(prep.slot_of[i]) for i, p in enumerate(setup.players)}
    number_of = {s: num for num, s in slot_of.items()}
    for _ in range(sims):
        v = prep.v0.copy()[None, :]  # by slot
        opponents = {p.number: list(history.get(p.number, [])) for p in setup.players}
        for plan in prep.plans:
            r = plan.rnd
            if plan.known is not None:
                prep._play_known(rng, plan, v)
                for a, b, _m in plan.known:
                    na = number_of[a]
                    nb = number_of[b] if b >= 0 else 0
                    opponents[na].append(nb)
                    if nb:
                        opponents[nb].append(na)
                continue
            field = _field_now(prep, v[0], opponents, r.number, rounds_total)
            base = options(r)
            result = pair_round(
                field,
                r.system,
                dataclasses.replace(base, prize_bands=[setup.prize_places]),
            )
            known = []
            for g in result.games:
                known.append((g.first, g.second))
                opponents[g.first].append(g.second)
                if g.second:
                    opponents[g.second].append(g.first)
            byes = [a for a, b in known if not b]
            games = [(slot_of[a], slot_of[b]) for a, b in known if b]
            for a in byes:
                bye = (2 << lay.w) + _clip(setup.bye_spread, r.cap)
                v[0, slot_of[a]] -= bye << lay.shift
            if games:
                sa = np.array([[a for a, _ in games]], dtype=np.int64)
                sb = np.array([[b for _, b in games]], dtype=np.int64)
                da, db = prep.deltas(rng, sa, sb, r.cap)
                v[0, sa[0]] -= da[0]
                v[0, sb[0]] -= db[0]
        batch.append(v)
        if len(batch) == 256:
            yield np.vstack(batch)
            batch = []
    if batch:
        yield np.vstack(batch)


def _field_now(
    prep: Prepared,
    v: np.ndarray,
    opponents: Mapping[int, list[int]],
    round_number: int,
    rounds_total: int,
) -> Field:
    """The field the real engine pairs round ``round_number`` from: each player's record in
    this simulation (``v``, by slot) and their opponents so far."""
    lay = prep.lay
    code = lay.base - (v >> lay.shift)
    wins2 = code >> lay.w
    losses2 = lay.loss_room - ((code >> lay.l) & lay.loss_room)
    spread = (code & ((1 << lay.low_bits) - 1)) - lay.zero
    players = []
    for i, p in enumerate(prep.setup.players):
        s = int(prep.slot_of[i])
        active = p.plays_until is None or p.plays_until >= round_number
        hist = opponents[p.number][: round_number - 1]
        hist += [0] * (round_number - 1 - len(hist))
        players.append(
            FieldPlayer(
                number=p.number,
                rating=p.rating,
                name=p.name,
                wins=int(wins2[s]) / 2,
                losses=int(losses2[s]) / 2,
                spread=int(spread[s]),
                opponents=hist,
                firsts=[0] * len(hist),
                active=active,
            )
        )
    return Field(
        players=players,
        round=round_number,
        rounds_total=rounds_total,
        complete_rounds=round_number - 1,
    )


def _clip(value: int, cap: int | None) -> int:
    return value if cap is None else max(-cap, min(cap, value))
