"""The pairing shell's reads: a division as the engine sees it, its schedule and options.

The engine (pairings.engine) sees only dataclasses; these functions turn a division's games and
entries into a ``Field`` and its schedule range into ``PairingOptions``. Nothing here writes;
``pairings.services`` stores what the engine proposes.
"""

from __future__ import annotations

import dataclasses
import hashlib
from typing import Any, NamedTuple

from pairings.engine import (
    Field,
    FieldPlayer,
    PairedGame,
    PairingOptions,
    RoundPairing,
    check_round,
)
from pairings.engine.standing import gibsonized, ordered_active
from pairings.models import ForbiddenPair, ScheduleRange
from tournament.errors import ServiceError
from tournament.models import Division, Entry, First, Game
from tournament.selectors import division_standings, last_scored_round

OPTION_NAMES = {f.name for f in dataclasses.fields(PairingOptions)}


def round_place(division: Division, round_number: int) -> str:
    return f"division {division.name} round {round_number}"


def schedule_entry(division: Division, round_number: int) -> ScheduleRange | None:
    return (
        ScheduleRange.objects.filter(
            division=division, first_round__lte=round_number, last_round__gte=round_number
        )
        .order_by("first_round")
        .first()
    )


def division_seed(division: Division) -> int:
    """A fixed seed per division, so re-pairing a round (dry run, then real) gives the same."""
    key = f"{division.tournament.slug}/{division.name}".encode()
    return int.from_bytes(hashlib.sha256(key).digest()[:4], "big")


def pairing_options(
    division: Division, scheduled: ScheduleRange | None, seed: int | None = None
) -> PairingOptions:
    t = division.tournament
    opts = PairingOptions(
        gibson=t.gibson,
        gibson_spread=t.gibson_spread,
        seed=division_seed(division) if seed is None else seed,
    )
    if scheduled is None:
        return opts
    settings = dict(scheduled.options or {})
    unknown = sorted(set(settings) - OPTION_NAMES)
    if unknown:
        raise ServiceError(
            "unknown_pairing_options",
            division=division.name,
            schedule=str(scheduled),
            names=", ".join(unknown),
        )
    settings.setdefault("system_start_round", scheduled.first_round)
    return dataclasses.replace(opts, **settings)


class _EntryRow(NamedTuple):
    """What ``build_field`` reads of an entry."""

    pk: int
    number: int
    seed_rating: int
    name: str
    player_class: str
    withdrawn_round: int | None


def build_field(division: Division, round_number: int, lag: int = 0) -> Field:
    """The division as the engine must see it to pair ``round_number``.

    Records (wins, spread, ranks) come from rounds up to ``round_number - 1 - lag`` only: with
    a lagged pairing the round in progress counts as not played. Meetings and firsts come from
    every round already paired, so the lagged round's games are not repeated.
    """
    complete = max(0, round_number - 1 - lag)
    standings = division_standings(division, after_round=complete)
    rows = {r.number: r for r in standings}
    # The standings' full order (ties broken by rating and the seeded name value), 1-based.
    position = {r.number: k for k, r in enumerate((r for r in standings if r.rank), start=1)}
    # rows, not model objects: at 500 players building an Entry and a Player for each cost
    # a tenth of the console's pairing page
    entries = [
        _EntryRow(*row)
        for row in division.entries.order_by("number").values_list(
            "pk", "number", "seed_rating", "player__name", "player_class", "withdrawn_round"
        )
    ]
    by_id = {e.pk: e.number for e in entries}
    history = round_number - 1
    opponents = {e.number: [0] * history for e in entries}
    firsts = {e.number: [0] * history for e in entries}
    byes = {e.number: 0 for e in entries}
    games = Game.objects.filter(
        round__division=division, round__number__lt=round_number
    ).values_list("round__number", "player1_id", "player2_id", "score1", "first")
    for rnd, p1_id, p2_id, score1, first in games:
        a = by_id[p1_id]
        k = rnd - 1
        if p2_id is None:
            if score1 is not None and score1 > 0:
                byes[a] += 1
            continue
        b = by_id[p2_id]
        opponents[a][k], opponents[b][k] = b, a
        if first == First.PLAYER1:
            firsts[a][k], firsts[b][k] = 1, 2
        elif first == First.PLAYER2:
            firsts[a][k], firsts[b][k] = 2, 1
    players = []
    for e in entries:
        row = rows.get(e.number)
        active = e.withdrawn_round is None or e.withdrawn_round > round_number
        players.append(
            FieldPlayer(
                number=e.number,
                rating=e.seed_rating,
                name=e.name,
                player_class=e.player_class,
                wins=row.wins if row else 0,
                losses=row.losses if row else 0,
                spread=row.spread if row else 0,
                rank=position.get(e.number, 0) if active else 0,
                opponents=opponents[e.number],
                firsts=firsts[e.number],
                byes=byes[e.number],
                active=active,
            )
        )
    if any(p.active and not p.rank for p in players):
        for p in players:
            p.rank = 0  # let the engine rank by the tally rather than mix ranked and unranked
    forbidden = {
        frozenset((a, b))
        for a, b in ForbiddenPair.objects.filter(division=division).values_list(
            "entry_a__number", "entry_b__number"
        )
    }
    return Field(
        players=players,
        round=round_number,
        rounds_total=max(division.rounds, round_number),
        forbidden=forbidden,
        complete_rounds=complete,
    )


def gibsonized_players(division: Division) -> list[Entry]:
    """Players already sure of first place (or of a top ``gibson_places`` finish) with the
    rounds left, judged as the pairing engine judges them for the next round."""
    tournament = division.tournament
    if not tournament.gibson:
        return []
    scored = last_scored_round(division)
    if scored == 0 or scored >= division.rounds:
        return []
    field = build_field(division, scored + 1)
    options = PairingOptions(gibson=True, gibson_spread=tournament.gibson_spread)
    numbers = gibsonized(field, options, ordered_active(field))
    entries = {e.number: e for e in division.entries.select_related("player")}
    return [entries[n] for n in numbers if n in entries]


def stored_round_check(division: Division, round_number: int) -> tuple[Any, dict[str, Any]]:
    """The independent checker's report on a round as it was paired and stored, against the
    field as it stood before it (``build_field`` reads meetings of earlier rounds only), and
    the round's starts balance: how many players have gone first more often than second, or
    the other way, by two or more after it (the start/reply rule keeps it within one).

    What the public pairing-quality page shows after each round.
    """
    scheduled = schedule_entry(division, round_number)
    lag = scheduled.lag if scheduled is not None else 0
    field_ = build_field(division, round_number, lag)
    options = pairing_options(division, scheduled)
    system = (
        division.round_set.filter(number=round_number).values_list("system", flat=True).first()
        or ""
    )
    number = dict(division.entries.values_list("pk", "number"))
    stored = list(
        Game.objects.filter(round__division=division, round__number=round_number)
        .order_by("board", "pk")
        .values_list("board", "player1_id", "player2_id", "explanation", "first")
    )
    games = []
    for i, (board, p1, p2, explanation, first) in enumerate(stored, start=1):
        a, b = number[p1], number[p2] if p2 else 0
        if b and first == First.PLAYER2:  # the engine's game names the starter first
            a, b = b, a
        games.append(PairedGame(board or i, a, b, explanation))
    report = check_round(field_, RoundPairing(round_number, system or "stored", games), options)
    starts: dict[int, int] = {}
    for p in field_.players:
        starts[p.number] = sum(1 if f == 1 else -1 if f == 2 else 0 for f in p.firsts)
    for _board, p1, p2, _x, first in stored:
        if p2 and first in (First.PLAYER1, First.PLAYER2):
            a, b = number[p1], number[p2]
            starts[a] += 1 if first == First.PLAYER1 else -1
            starts[b] += 1 if first == First.PLAYER2 else -1
    balance = {
        "games": len([g for g in stored if g[2]]),
        "byes": len([g for g in stored if not g[2]]),
        "firsts_known": len([g for g in stored if g[2] and g[4] in (First.PLAYER1, First.PLAYER2)]),
        "unbalanced": sum(1 for v in starts.values() if abs(v) >= 2),
    }
    return report, balance
