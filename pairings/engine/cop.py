"""``cop``: contention pairing driven by simulated prize chances (COP's ideas, our own code).

Classic contention pairing (``contention``, TSH's ``cp``) decides who is still "in the prizes"
from what is mathematically possible. ``cop`` decides it from how *likely* it is: a player is a
contender for a prize place when a Monte Carlo of the rest of the event (``simulate``) puts
them there in at least ``options.cop_threshold`` of the simulations (1% by default). Woogles'
COP (liwords ``pkg/pair/cop``) taught the constraints; the code and the weights are ours and
live in the engine's priority bands, one min-cost perfect matching as the weighted systems.

Probabilities are an *input*: ``options.cop_chances`` maps each player number to
``(P(each paid place)..., )`` and the shell fills it from the division's own simulation (its
rating system, caps, schedule). Without it the system simulates the field itself (ratings'
normal expectancy, every later round King of the Hill), seeded, so the same field always
pairs the same way from every door (``pair --system cop``, the console, tests).

Bands, highest first (``BANDS``):

====================  ==========================================================================
``repeat_over``       games beyond ``max_meetings`` (missing edges under ``hard_repeat_limit``)
``bye``               position in the bye order (Gibsonized first, then the bye method)
``gibson``            a Gibsonized player meets a Gibsonized player or one who cannot cash:
                      +2 if the rules still let the opponent reach a paid place, +1 if the
                      simulations cash them in at least the threshold share
``koth``              last round: cash contenders play King of the Hill among themselves,
                      1 v 2, 3 v 4 by standings (a contender against a non-contender costs the
                      most; then the squared distance from the KOTH opponent)
``control``           control of first, in the last ``CONTROL_ROUNDS`` rounds: while someone
                      other than the leader wins the event in at least the threshold share,
                      the leader plays the nearest contender for first (highest P(1st) of
                      the others the leader may still meet)
``contention``        otherwise: players of different contention classes (the best place each
                      reaches in the threshold share; "out" below the money) apart
``win_diff``          squared win difference (Swiss within the class)
``repeats``           earlier meetings within the limit
``distance``          rank distance from the Swiss opponent (top half v bottom half)
``last_round``        rematch of last round's opponent
``firsts``            both players due to start (or both due to reply)
====================  ==========================================================================

Inside a simulation (``simulate.approximate_pairs``) a ``cop`` round is paired King of the
Hill, 1 v 2, 3 v 4 on each simulation's standings: the system's last round is KOTH among the
contenders and its control keeps the leader on the nearest chaser, and nesting simulations in
simulations would cost minutes per page.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from . import matching
from .model import Field, FieldPlayer, PairingError, PairingOptions, RoundPairing
from .standing import (
    BYE_REASONS,
    best_finishes,
    bye_order,
    gibsonized,
    half_wins,
    meeting_counts,
    ordered_active,
    rounds_left,
)
from .weighted import build_pairing, fmt_wins, ordinal

BANDS = (
    "repeat_over",
    "bye",
    "gibson",
    "koth",
    "control",
    "contention",
    "win_diff",
    "repeats",
    "distance",
    "last_round",
    "firsts",
)
DEFAULT_THRESHOLD = 0.01
#: control of first applies in the event's last rounds only (earlier, a top-seed clash in
#: round 1 would be "control"): with this many rounds left or fewer
CONTROL_ROUNDS = 3
#: simulations when the caller passes no chances: about a second for a 100-player field
DEFAULT_SIMS = 10_000

Chances = Mapping[int, Sequence[float]]


def pct(p: float) -> str:
    """A probability as the explanations print it: 61%, 0.4%, <0.1%."""
    if p <= 0:
        return "0%"
    if p < 0.001:
        return "<0.1%"
    if p < 0.1:
        return f"{100 * p:.1f}%".replace(".0%", "%")
    return f"{round(100 * p)}%"


def field_chances(field: Field, options: PairingOptions, sims: int = DEFAULT_SIMS) -> dict:
    """P(each paid place) per player number, simulated from the field alone (no caller data).

    Win chances from the rating difference (normal, 200·√2 per standard deviation, the usual
    Scrabble expectancy); every round left played King of the Hill; seeded by the options'
    seed and the round, so a pairing is reproducible.
    """
    from .chances import chances as run_chances
    from .simulate import SimPlayer, SimRound, SimSetup, load_game_model

    players = sorted(field.players, key=lambda p: p.number)
    places = max(options.prize_bands or [1])
    sim_players = [
        SimPlayer(
            number=p.number,
            rating=p.rating,
            wins=p.wins,
            losses=p.losses,
            spread=p.spread,
            name=p.name,
            plays_until=None if p.active else field.rounds_complete,
            ranked=p.active,
        )
        for p in players
    ]
    ratings = np.array([p.rating or 1500 for p in players], dtype=float)
    diff = (ratings[:, None] - ratings[None, :]) / (200 * math.sqrt(2))
    erf = np.vectorize(math.erf)
    win_prob = 0.5 * (1 + erf(diff / math.sqrt(2)))
    np.fill_diagonal(win_prob, 0.5)
    rounds = [
        SimRound(
            number=r,
            system="koth",
            gibson=options.gibson,
            gibson_spread=options.spread_for_round(r),
            max_meetings=max(1, options.max_meetings),
        )
        for r in range(field.rounds_complete + 1, field.rounds_total + 1)
    ]
    met = [
        (p.number, o)
        for p in players
        for o in p.opponents[: field.rounds_complete]
        if o and p.number < o
    ]
    setup = SimSetup(
        players=sim_players,
        rounds=rounds,
        win_prob=win_prob,
        prize_places=places,
        tiebreak=sorted(range(len(players)), key=lambda i: (-players[i].rating, i)),
        met=met,
    )
    seed = options.seed * 1000 + field.round
    found = run_chances(setup, load_game_model(), sims, seed, prize_places=places)
    return {c.number: tuple(c.p_places) for c in found}


class _CopRound:
    """One ``cop`` pairing: the field, its chances and every cost, computed once."""

    def __init__(self, field: Field, options: PairingOptions, chances: Chances):
        self.field, self.options = field, options
        self.threshold = options.cop_threshold
        self.ordered = ordered_active(field)
        self.n = n = len(self.ordered)
        self.pos = {p.number: i for i, p in enumerate(self.ordered)}
        self.places = max(options.prize_bands or [1])
        self.p_place = [list(chances.get(p.number, ()))[: self.places] for p in self.ordered]
        for row in self.p_place:
            row.extend([0.0] * (self.places - len(row)))
        self.p_first = [row[0] for row in self.p_place]
        self.p_cash = [sum(row) for row in self.p_place]
        self.hw = [half_wins(p) for p in self.ordered]
        self.met = [meeting_counts(p, options.repeats_since_round) for p in self.ordered]
        self.last = [p.opponents[-1] if p.opponents else 0 for p in self.ordered]
        self.due = [_due(p) for p in self.ordered]
        self.last_round = rounds_left(field) <= 1
        self.gib = gibsonized(field, options, self.ordered)
        self.gib_idx = {self.pos[g] for g in self.gib}
        finish = best_finishes(field, options, self.ordered)
        self.can_reach = [finish[p.number] <= self.places for p in self.ordered]
        thr = self.threshold
        self.contender = [i not in self.gib_idx and self.p_cash[i] >= thr for i in range(n)]
        # contention class: the best paid place reached in the threshold share, places+1 = out
        self.klass = [
            next((k for k in range(self.places) if self.p_place[i][k] >= thr), self.places)
            for i in range(n)
        ]
        self.cash_order = [i for i in range(n) if self.contender[i]]
        self.cash_index = {i: q for q, i in enumerate(self.cash_order)}
        self.leader, self.rival = self._control()
        self.bye_list: list[int] = []
        if n % 2:
            order = bye_order(self.ordered, options.bye_method, self.gib)
            self.bye_list = [self.pos[p.number] for p in order]
        self.bye_cost = {i: r for r, i in enumerate(self.bye_list)}
        self._groups()

    def _control(self) -> tuple[int | None, int | None]:
        """The leader (best ranked, not Gibsonized) and the nearest contender for first, when
        control matters: someone else wins the event in at least the threshold share."""
        if not self.n or 0 in self.gib_idx or rounds_left(self.field) > CONTROL_ROUNDS:
            return None, None
        others = [i for i in range(1, self.n) if i not in self.gib_idx]
        if not others:
            return None, None
        # the nearest contender the leader may still meet (repeats by the rules), else anyone
        limit = self.options.max_meetings
        fresh = [i for i in others if self.met[0].get(self.ordered[i].number, 0) < limit]
        rival = max(fresh or others, key=lambda i: (self.p_first[i], -i))
        if self.p_first[rival] < self.threshold:
            return None, None
        return 0, rival

    def _groups(self) -> None:
        """Score groups within each contention class: size and position of each player."""
        members: dict[tuple[int, int], list[int]] = {}
        for i in range(self.n):
            members.setdefault((self.klass[i], self.hw[i]), []).append(i)
        self.group_pos = [0] * self.n
        self.group_size = [0] * self.n
        for idx in members.values():
            for q, i in enumerate(idx):
                self.group_pos[i], self.group_size[i] = q, len(idx)

    def costs(self, i: int, j: int) -> tuple[int, ...] | None:
        """Band costs of the game i v j (i < j); None when a hard rule forbids it."""
        pi, pj = self.ordered[i], self.ordered[j]
        if frozenset((pi.number, pj.number)) in self.field.forbidden:
            return None
        m = self.met[i].get(pj.number, 0)
        over = 1 if m + 1 > self.options.max_meetings else 0
        if over and self.options.hard_repeat_limit:
            return None
        gib = koth = control = contention = win = dist = 0
        gi, gj = i in self.gib_idx, j in self.gib_idx
        if gi != gj:
            other = j if gi else i
            gib = 2 * self.can_reach[other] + (self.p_cash[other] >= self.threshold)
            # then the highest-ranked of those allowed, as the rules' Gibson pairing
            dist = other
        elif not gi:
            ci, cj = self.contender[i], self.contender[j]
            if self.last_round and (ci or cj):
                if ci and cj:
                    qi, qj = self.cash_index[i], self.cash_index[j]
                    koth = (abs(qj - _koth_mate(qi)) + abs(qi - _koth_mate(qj))) ** 2
                else:
                    # one contender floats out of an odd group: the lowest-ranked one
                    floater = self.cash_index[i if ci else j]
                    koth = 4 * (len(self.cash_order) + 1) ** 2 + len(self.cash_order) - floater
            if self.leader is not None and (i == self.leader or j == self.leader):
                control = 0 if {i, j} == {self.leader, self.rival} else 1
            contention = 1 if self.klass[i] != self.klass[j] else 0
            win = (self.hw[i] - self.hw[j]) ** 2
            if not dist:
                dist = self._swiss_distance(i, j)
        last = 1 if (self.options.avoid_last_opponent and self.last[i] == pj.number) else 0
        firsts = 1 if self.due[i] and self.due[i] == self.due[j] else 0
        return (over, 0, gib, koth, control, contention, win, m, dist, last, firsts)

    def _swiss_distance(self, i: int, j: int) -> int:
        """Within a score group |2·gap - size|; across groups the float's distance."""
        if (self.klass[i], self.hw[i]) == (self.klass[j], self.hw[j]):
            return abs(2 * abs(self.group_pos[j] - self.group_pos[i]) - self.group_size[i])
        return 2 * (self.group_size[i] - 1 - self.group_pos[i] + self.group_pos[j])

    def edges(self) -> list[matching.Edge]:
        out: list[matching.Edge] = []
        for i in range(self.n):
            for j in range(i + 1, self.n):
                c = self.costs(i, j)
                if c is not None:
                    out.append((i, j, c))
        zero = [0] * len(BANDS)
        for i in self.bye_list:
            c = list(zero)
            c[1] = self.bye_cost[i]
            out.append((i, self.n, tuple(c)))
        return out

    def edge_arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``edges`` as numpy columns u, v (E,) and costs (E, len(BANDS)), same order and
        numbers (``costs`` is the specification; this is what pairs: at 500 players the
        per-game Python took most of a second)."""
        n, opts, thr = self.n, self.options, self.threshold
        u, v = (a.astype(np.int64) for a in np.triu_indices(n, 1))
        number = np.array([p.number for p in self.ordered], dtype=np.int64)
        if self.field.forbidden:
            banned = np.array(
                [
                    frozenset((a, b)) in self.field.forbidden
                    for a, b in zip(number[u].tolist(), number[v].tolist(), strict=True)
                ],
                dtype=bool,
            )
            u, v = u[~banned], v[~banned]
        m = self._met_matrix()[u, v]
        over = (m + 1 > opts.max_meetings).astype(np.int64)
        if opts.hard_repeat_limit:
            keep = over == 0
            u, v, m, over = u[keep], v[keep], m[keep], over[keep]
        costs = np.zeros((len(u), len(BANDS)), dtype=np.int64)
        costs[:, 0] = over
        costs[:, 7] = m
        gib = np.zeros(n, dtype=bool)
        gib[list(self.gib_idx)] = True
        gi, gj = gib[u], gib[v]
        one = gi != gj
        other = np.where(gi, v, u)[one]
        reach = np.array(self.can_reach, dtype=np.int64)
        cash = np.array(self.p_cash, dtype=float)
        costs[one, 2] = 2 * reach[other] + (cash[other] >= thr)
        costs[one, 8] = other
        plain = ~(gi | gj)
        i, j = u[plain], v[plain]
        contender = np.array(self.contender, dtype=bool)
        ci, cj = contender[i], contender[j]
        if self.last_round:
            costs[plain, 3] = self._koth_band(i, j, ci, cj)
        if self.leader is not None:
            lead = (i == self.leader) | (j == self.leader)
            duel = ((i == self.leader) & (j == self.rival)) | (
                (j == self.leader) & (i == self.rival)
            )
            costs[plain, 4] = lead & ~duel
        klass = np.array(self.klass, dtype=np.int64)
        costs[plain, 5] = klass[i] != klass[j]
        hw = np.array(self.hw, dtype=np.int64)
        costs[plain, 6] = (hw[i] - hw[j]) ** 2
        gpos = np.array(self.group_pos, dtype=np.int64)
        gsize = np.array(self.group_size, dtype=np.int64)
        same = (klass[i] == klass[j]) & (hw[i] == hw[j])
        costs[plain, 8] = np.where(
            same,
            np.abs(2 * np.abs(gpos[j] - gpos[i]) - gsize[i]),
            2 * (gsize[i] - 1 - gpos[i] + gpos[j]),
        )
        if opts.avoid_last_opponent:
            last = np.array(self.last, dtype=np.int64)
            costs[:, 9] = last[u] == number[v]
        due = np.array(self.due, dtype=np.int64)
        costs[:, 10] = (due[u] != 0) & (due[u] == due[v])
        if self.bye_list:
            keep = np.array(self.bye_list, dtype=np.int64)
            bye = np.zeros((len(keep), len(BANDS)), dtype=np.int64)
            bye[:, 1] = [self.bye_cost[x] for x in self.bye_list]
            u = np.concatenate([u, keep])
            v = np.concatenate([v, np.full(len(keep), n, dtype=np.int64)])
            costs = np.concatenate([costs, bye])
        return u, v, costs

    def _met_matrix(self) -> np.ndarray:
        """How often each two players (by place in ``ordered``) have met."""
        met = np.zeros((self.n, self.n), dtype=np.int64)
        for i, counts in enumerate(self.met):
            for other, c in counts.items():
                if other in self.pos:
                    met[i, self.pos[other]] = c
        return met

    def _koth_band(
        self, i: np.ndarray, j: np.ndarray, ci: np.ndarray, cj: np.ndarray
    ) -> np.ndarray:
        """The last round's King of the Hill band among the contenders: two contenders cost
        how far each is from the other's KOTH mate (squared); a contender with a
        non-contender costs more, the more the higher the contender stands."""
        q = np.full(self.n, -1, dtype=np.int64)
        q[self.cash_order] = np.arange(len(self.cash_order), dtype=np.int64)
        mate = np.where(q % 2 == 0, q + 1, q - 1)
        qi, qj = q[i], q[j]
        koth = np.where(ci & cj, (np.abs(qj - mate[i]) + np.abs(qi - mate[j])) ** 2, 0)
        floater = np.where(ci, qi, qj)
        size = len(self.cash_order)
        return np.where(ci ^ cj, 4 * (size + 1) ** 2 + size - floater, koth)

    # -- explanations: the numbers that decided each board -----------------------------------
    def tag(self, i: int, first: bool = False) -> str:
        p = self.ordered[i]
        bits = [f"P(1st) {pct(self.p_first[i])}"] if first or self.places == 1 else []
        if self.places > 1:
            bits.append(f"P(cash) {pct(self.p_cash[i])}")
        return f"#{i + 1} {p.number} ({', '.join(bits)})"

    def explain(self, i: int, j: int) -> str:
        parts = []
        m = self.met[i].get(self.ordered[j].number, 0)
        if m:
            tag = ": unavoidable" if m + 1 > self.options.max_meetings else ""
            parts.append(f"repeat {ordinal(m + 1)} meeting{tag}")
        gi, gj = i in self.gib_idx, j in self.gib_idx
        thr = pct(self.threshold)
        if gi and gj:
            parts.append(f"Gibsonized v Gibsonized: {self.tag(i, True)} v {self.tag(j, True)}")
        elif gi or gj:
            g, o = (i, j) if gi else (j, i)
            cash = f"P(cash) {pct(self.p_cash[o])}"
            out = self.p_cash[o] < self.threshold
            why = "cannot cash" if out else "contender: unavoidable"
            cmp = "<" if out else ">="
            parts.append(
                f"Gibsonized #{g + 1} {self.ordered[g].number} (P(1st) {pct(self.p_first[g])}) "
                f"v #{o + 1} {self.ordered[o].number} ({cash} {cmp} {thr}): {why}"
            )
        elif self.last_round and self.contender[i] and self.contender[j]:
            parts.append(
                f"last round KOTH among cash contenders (P(cash) >= {thr}): "
                f"{self.tag(i, True)} v {self.tag(j, True)}"
            )
            if self.leader is not None and {i, j} == {self.leader, self.rival}:
                parts.append("control of first place")
        elif self.leader is not None and {i, j} == {self.leader, self.rival}:
            parts.append(
                f"{self.tag(self.rival, True)} plays {self.tag(self.leader, True)}: "
                f"control of first place (P(1st) >= {thr})"
            )
        else:
            ki, kj = self.klass[i], self.klass[j]
            label = "out of the money" if ki == self.places else f"contention for {ordinal(ki + 1)}"
            if ki == kj:
                if ki < self.places:
                    a, b = pct(self.p_place[i][ki]), pct(self.p_place[j][kj])
                    label += f" (P({ordinal(ki + 1)}) {a} v {b})"
                else:
                    label += f" (P(cash) {pct(self.p_cash[i])} v {pct(self.p_cash[j])} < {thr})"
            else:
                label = f"{self.tag(i, True)} v {self.tag(j, True)}: across contention classes"
            d = abs(self.hw[i] - self.hw[j])
            group = (
                f"{fmt_wins(d)}-win float down" if d else f"score group {fmt_wins(self.hw[i])} wins"
            )
            parts.append(f"{label}; {group}")
        if self.options.avoid_last_opponent and self.last[i] == self.ordered[j].number:
            parts.append("rematch of last round's opponent")
        return "; ".join(parts)

    def explain_bye(self, i: int) -> str:
        if i in self.gib_idx:
            text = f"bye: Gibsonized (P(1st) {pct(self.p_first[i])})"
        else:
            text = f"{BYE_REASONS[self.options.bye_method]} (P(cash) {pct(self.p_cash[i])})"
        if self.bye_list and self.bye_list[0] != i:
            text += " (players before in the bye order would force a repeat)"
        return text


def _koth_mate(q: int) -> int:
    return q + 1 if q % 2 == 0 else q - 1


def _due(p: FieldPlayer) -> int:
    diff = p.starts - p.replies
    return (diff > 0) - (diff < 0)


def pair_cop(field: Field, options: PairingOptions) -> RoundPairing:
    """Pair ``field.round`` by simulated contention (see the module docstring)."""
    if not 0 < options.cop_threshold < 1:
        raise ValueError(
            f"cop_threshold must be a share above 0 and below 1, got {options.cop_threshold!r}"
        )
    chances = options.cop_chances
    if chances is not None and not isinstance(chances, Mapping):
        raise ValueError("cop_chances must map player numbers to their chances of each paid place")
    if chances is None:
        chances = field_chances(field, options)
    rnd = _CopRound(field, options, chances)
    nodes = rnd.n + (rnd.n % 2)
    found: list[tuple[int, int]] | None = []
    if rnd.n:
        u, v, costs = rnd.edge_arrays()
        found = matching.solve_packed(nodes, matching.packed_weight_arrays(nodes, u, v, costs))
    if found is None:
        from .weighted import _Round, infeasible

        raise infeasible(_Round(field, "swiss", options), nodes)
    pairs = []
    for u, v in found:
        a = rnd.ordered[u].number
        pairs.append((a, rnd.ordered[v].number if v < rnd.n else 0))
    notes = [f"cop: contenders are players reaching a place in >= {pct(rnd.threshold)}"]
    if chances is not options.cop_chances:
        notes.append(f"chances simulated from the field ({DEFAULT_SIMS:,} simulations)")
    if rnd.gib:
        notes.append("Gibsonized: " + ", ".join(str(g) for g in rnd.gib))
    if rnd.leader is not None:
        notes.append(
            f"control: leader {rnd.ordered[rnd.leader].number} v nearest contender "
            f"{rnd.ordered[rnd.rival].number} (P(1st) {pct(rnd.p_first[rnd.rival])})"
        )

    def explain(a: int, b: int) -> str:
        i, j = sorted((rnd.pos[a], rnd.pos[b]))
        return rnd.explain(i, j)

    return build_pairing(
        field,
        "cop",
        options,
        pairs,
        explain,
        lambda b: rnd.explain_bye(rnd.pos[b]),
        notes,
        lambda x: rnd.pos[x],
    )


__all__ = [
    "BANDS",
    "CONTROL_ROUNDS",
    "DEFAULT_SIMS",
    "DEFAULT_THRESHOLD",
    "PairingError",
    "field_chances",
    "pair_cop",
    "pct",
]
