"""The pairing shell: load a division's state, call the pure engine, store the round.

The engine (pairings.engine) sees only dataclasses; this module is the one place that turns
games and entries into a ``Field`` and the engine's ``RoundPairing`` back into stored games via
``services.save_round_pairings`` (one transaction, one audit event).
"""

from __future__ import annotations

import dataclasses
import hashlib
from typing import Any

from django.db.models import Q

from pairings.engine import (
    Field,
    FieldPlayer,
    PairingError,
    PairingOptions,
    RoundPairing,
    Schedule,
    ScheduleEntry,
)
from pairings.engine import pair_round as engine_pair_round
from pairings.engine.schedule import KNOWN_SYSTEMS
from pairings.models import ForbiddenPair, ScheduleRange

from .models import Division, First, Game
from .services import (
    Actor,
    PlannedGame,
    ServiceError,
    division_standings,
    save_round_pairings,
)

OPTION_NAMES = {f.name for f in dataclasses.fields(PairingOptions)}


def _where(division: Division, round_number: int) -> str:
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
            f"division {division.name} schedule {scheduled}: unknown pairing options "
            f"{', '.join(unknown)}"
        )
    settings.setdefault("system_start_round", scheduled.first_round)
    return dataclasses.replace(opts, **settings)


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
    entries = list(division.entries.select_related("player").order_by("number"))
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
                name=e.player.name,
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


def _check_ready(division: Division, round_number: int, lag: int) -> None:
    """Refuse a round the director cannot pair yet, or may no longer pair."""
    where = _where(division, round_number)
    played = Q(player2__isnull=False, score1__isnull=False)
    if Game.objects.filter(round__division=division, round__number=round_number).filter(
        played
    ).exists():
        raise ServiceError(f"{where} already has results; it cannot be re-paired")
    for r in range(1, round_number):
        games = Game.objects.filter(round__division=division, round__number=r)
        if not games.exists():
            raise ServiceError(f"{where}: round {r} has not been paired yet")
        if r <= round_number - 1 - lag:
            missing = games.filter(player2__isnull=False, score1__isnull=True).count()
            if missing:
                hint = "" if lag else " (or pair it lagged: a schedule range with lag 1)"
                raise ServiceError(
                    f"{where}: round {r} is incomplete ({missing} games without a result); "
                    f"enter its results first{hint}"
                )


def pair_round(
    division: Division,
    round_number: int,
    *,
    system: str | None = None,
    dry_run: bool = False,
    force: bool = False,
    seed: int | None = None,
    actor: Actor | str | None = None,
) -> RoundPairing:
    """Pair ``round_number`` of ``division`` with the engine and store it (unless ``dry_run``).

    The system (and lag and options) come from the division's schedule; ``system`` overrides
    the system only. Refused with a ServiceError naming the round: an earlier round without
    results (unless lagged), a round that already has results, an unknown system, or an
    impossible set of constraints (the engine's message says which rule and what to relax).
    """
    if not isinstance(round_number, int) or round_number < 1:
        raise ServiceError(f"division {division.name}: round {round_number!r} must be 1 or more")
    where = _where(division, round_number)
    scheduled = schedule_entry(division, round_number)
    if system is None:
        if scheduled is None:
            raise ServiceError(
                f"{where}: no pairing system scheduled for this round; give one "
                f"({', '.join(KNOWN_SYSTEMS)}) or add a schedule range"
            )
        system = scheduled.system
    if system not in KNOWN_SYSTEMS:
        raise ServiceError(
            f"{where}: unknown pairing system {system!r}; use one of {', '.join(KNOWN_SYSTEMS)}"
        )
    lag = scheduled.lag if scheduled is not None else 0
    _check_ready(division, round_number, lag)
    field = build_field(division, round_number, lag)
    options = pairing_options(division, scheduled, seed)
    if scheduled is None or scheduled.system != system:
        options = dataclasses.replace(options, system_start_round=1)
    try:
        result = engine_pair_round(field, system, options)
    except PairingError as exc:
        raise ServiceError(f"{where}: {exc}") from exc
    except ValueError as exc:
        raise ServiceError(f"{where}: {exc}") from exc
    if not dry_run:
        planned = [
            PlannedGame(g.first, g.second, board=g.board or None, explanation=g.explanation)
            for g in result.games
        ]
        save_round_pairings(
            division, round_number, planned, system=system, actor=actor or "pair", force=force
        )
    return result


def schedule_from_autopair(division: Division, rows: list[Any]) -> list[str]:
    """Create the division's ScheduleRange rows from kept config.tsh ``autopair`` rows.

    Rows are ``[division, source_round, target_round, command, [args]]``. A row for another
    division is ignored; a TSH command the engine does not offer, or a row overlapping an
    earlier one, is skipped with a warning (returned) so an import never fails on it.
    """
    warnings: list[str] = []
    made: list[ScheduleEntry] = []
    for row in rows:
        div, source, target, command, args = row
        if str(div).lower() != division.name.lower():
            continue
        line = " ".join(["autopair", str(div), str(source), str(target), str(command),
                         *map(str, args)])
        try:
            [entry] = Schedule.from_autopair([line]).entries
        except ValueError as exc:
            warnings.append(f"division {division.name}: {exc} ({line})")
            continue
        if any(e.first <= entry.last and entry.first <= e.last for e in made):
            warnings.append(f"division {division.name}: overlapping autopair skipped ({line})")
            continue
        made.append(entry)
    ScheduleRange.objects.bulk_create(
        ScheduleRange(
            division=division,
            first_round=e.first,
            last_round=e.last,
            system=e.system,
            lag=e.lag,
            options=dict(e.params),
        )
        for e in made
    )
    return warnings
