"""Seeded random tournaments: the engine's sparring partner for property tests and benchmarks.

Scores are plausible rather than exact: each player's score is normal around 400 (sd 60),
shifted by a tenth of the rating difference, which gives the stronger player roughly a 60-75%
win rate at a 200-point gap, close to crossword-game experience. Byes score +50 (a win),
withdrawn players forfeit -50 (a loss) in every later round. Everything is driven by one seed.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field

from .firsts import assign_firsts, round_rng
from .model import Field, FieldPlayer, PairingOptions, RoundPairing

BYE_SPREAD = 50
FORFEIT_SPREAD = -50


@dataclass
class SimPlayer:
    number: int
    rating: int
    name: str
    opponents: list[int] = field(default_factory=list)
    firsts: list[int] = field(default_factory=list)
    scores: list[int | None] = field(default_factory=list)
    opp_scores: list[int | None] = field(default_factory=list)
    active: bool = True
    byes: int = 0


class SimTournament:
    """A division being played: pair a round (``record``), then ``play`` its results."""

    def __init__(
        self,
        n_players: int,
        rounds_total: int,
        seed: int = 0,
        entrants: list[tuple[str, int]] | None = None,
    ):
        """``entrants`` (name, rating) replaces the invented field, numbered in that order."""
        if entrants is not None:
            n_players = len(entrants)
        if n_players < 1:
            raise ValueError("a tournament needs at least one player")
        self.rng = random.Random(f"generator:{seed}")
        self.seed = seed
        self.rounds_total = rounds_total
        if entrants is not None:
            self.players = [
                SimPlayer(k, rating, name) for k, (name, rating) in enumerate(entrants, start=1)
            ]
        else:
            self.players = [
                SimPlayer(n, int(self.rng.gauss(1500, 300)), f"Player {n}")
                for n in range(1, n_players + 1)
            ]
            self.players.sort(key=lambda p: -p.rating)
            for k, p in enumerate(self.players, start=1):
                p.number, p.name = k, f"Player {k}"
        self.forbidden: set[frozenset[int]] = set()
        self.paired = 0
        self.played = 0

    def by_number(self, number: int) -> SimPlayer:
        return self.players[number - 1]

    def field(self, complete: int | None = None) -> Field:
        """The field for pairing round ``paired + 1`` from the first ``complete`` rounds."""
        complete = self.played if complete is None else complete
        recs = []
        for p in self.players:
            wins = losses = 0.0
            spread = 0
            for r in range(complete):
                own, other = p.scores[r], p.opp_scores[r]
                if own is None:
                    continue
                spread += own - other
                if own > other:
                    wins += 1
                elif own < other:
                    losses += 1
                else:
                    wins += 0.5
                    losses += 0.5
            byes = p.byes
            recs.append(
                FieldPlayer(
                    number=p.number,
                    rating=p.rating,
                    name=p.name,
                    wins=wins,
                    losses=losses,
                    spread=spread,
                    opponents=list(p.opponents),
                    firsts=list(p.firsts),
                    byes=byes,
                    active=p.active,
                )
            )
        order = sorted(recs, key=lambda f: (-f.wins, f.losses, -f.spread, -f.rating, f.number))
        for rank, f in enumerate(order, start=1):
            f.rank = rank
        return Field(
            players=recs,
            round=self.paired + 1,
            rounds_total=self.rounds_total,
            forbidden=set(self.forbidden),
            complete_rounds=complete,
        )

    def record(self, pairing: RoundPairing) -> None:
        """Store a round's pairings (scores come with ``play``); withdrawn players forfeit."""
        placed = set()
        for g in pairing.games:
            a = self.by_number(g.first)
            placed.add(a.number)
            if g.second:
                b = self.by_number(g.second)
                placed.add(b.number)
                a.opponents.append(b.number)
                b.opponents.append(a.number)
                a.firsts.append(1)
                b.firsts.append(2)
            else:
                a.opponents.append(0)
                a.firsts.append(0)
                a.byes += 1
        for p in self.players:
            if p.number not in placed:
                p.opponents.append(0)
                p.firsts.append(0)
        self.paired += 1

    def play(self) -> None:
        """Invent scores for the oldest paired round without results."""
        r = self.played
        if r >= self.paired:
            raise ValueError("no paired round is waiting for results")
        done = set()
        for p in self.players:
            if p.number in done:
                continue
            opp = p.opponents[r]
            if opp == 0:
                bye = BYE_SPREAD if p.active else FORFEIT_SPREAD
                p.scores.append(bye)
                p.opp_scores.append(0)
                done.add(p.number)
                continue
            q = self.by_number(opp)
            shift = (p.rating - q.rating) / 10
            sp = max(150, int(self.rng.gauss(400 + shift / 2, 60)))
            sq = max(150, int(self.rng.gauss(400 - shift / 2, 60)))
            p.scores.append(sp)
            p.opp_scores.append(sq)
            q.scores.append(sq)
            q.opp_scores.append(sp)
            done |= {p.number, q.number}
        self.played += 1

    def withdraw(self, number: int) -> None:
        self.by_number(number).active = False


def fast_history_pairing(field_: Field, seed: int = 0) -> RoundPairing:
    """A quick greedy Swiss (no matching) to build mid-event histories for big benchmarks.

    Not a pairing system for directors: it only has to look like a real event's history (score
    groups, few repeats, balanced firsts), in linear-ish time for 5,000 players.
    """
    from .model import PairedGame

    act = sorted(
        (p for p in field_.players if p.active),
        key=lambda p: (-p.wins, p.losses, -p.spread, p.number),
    )
    games: list[tuple[int, int]] = []
    bye = None
    if len(act) % 2:
        pos = {p.number: i for i, p in enumerate(act)}
        bye = min(act, key=lambda p: (p.byes, -pos[p.number]))
        act.remove(bye)
    left = list(act)
    while left:
        a = left.pop(0)
        met = set(a.opponents)
        half = max(1, min(len(left) // 2, 8))
        pick = next((k for k in range(half - 1, len(left)) if left[k].number not in met), None)
        if pick is None:
            pick = next((k for k in range(len(left)) if left[k].number not in met), 0)
        b = left.pop(pick)
        games.append((a.number, b.number))
    rng = round_rng(seed, field_.round, "history")
    out = [
        PairedGame(k, f, s, "history")
        for k, (f, s, _) in enumerate(assign_firsts(games, field_, rng), start=1)
    ]
    if bye is not None:
        out.append(PairedGame(0, bye.number, 0, "bye"))
    return RoundPairing(field_.round, "history", out)


def simulate(
    n_players: int,
    rounds: int,
    pair: Callable[[Field], RoundPairing],
    seed: int = 0,
    withdraw_rate: float = 0.0,
    lag: int | Callable[[int], int] = 0,
    on_round: Callable[[Field, RoundPairing], None] | None = None,
    rounds_total: int | None = None,
    entrants: list[tuple[str, int]] | None = None,
) -> SimTournament:
    """Play ``rounds`` rounds, pairing each with ``pair(field)``; ``on_round`` sees every pairing.

    ``lag`` (a number, or a function of the round) pairs round r from the results of round
    r-1-lag (results of the newer rounds come in afterwards). After each round each active
    player withdraws with ``withdraw_rate``.
    """
    t = SimTournament(n_players, rounds_total or rounds, seed, entrants)
    rng = random.Random(f"withdrawals:{seed}")
    for _ in range(rounds):
        round_lag = lag(t.paired + 1) if callable(lag) else lag
        while t.played < t.paired - round_lag:
            t.play()
        f = t.field()
        pairing = pair(f)
        if on_round is not None:
            on_round(f, pairing)
        t.record(pairing)
        for p in t.players:
            if p.active and rng.random() < withdraw_rate and sum(q.active for q in t.players) > 2:
                t.withdraw(p.number)
    while t.played < t.paired:
        t.play()
    return t


def default_options(seed: int = 0, **kw) -> PairingOptions:
    return PairingOptions(seed=seed, **kw)
