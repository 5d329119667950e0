"""The checks before a round is paired or stored, shared by the shell's three doors (the
engine's ``pair_round``, the console's proposals, the director's own pairs): the round's
number, its place in the division, earlier rounds' results, the system, field and options the
engine runs on, and a director's pairs pairing every active player exactly once.

Reads only; the writes that call them are in ``rounds``, ``proposals`` and ``in_play``.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from django.db.models import Q
from django.utils.translation import gettext_noop

from pairings.chances import cop_options
from pairings.engine import (
    Field,
    PairingError,
    PairingOptions,
    RoundPairing,
    system_names,
)
from pairings.engine import pair_round as engine_pair_round
from pairings.selectors import build_field, pairing_options, round_place, schedule_entry
from tournament.access import require
from tournament.errors import ServiceError
from tournament.models import Division, Game, Round
from tournament.selectors import round_has_results
from tournament.services.audit import Actor


def check_within_rounds(division: Division, round_number: int) -> None:
    """Refuse a round past the division's configured rounds: round 8 of a 7-round division is
    a slip (a double submit, a wrong number), not a plan; the director raises the rounds in
    the division's settings first when the event really runs longer."""
    if round_number > division.rounds:
        raise ServiceError(
            "round_beyond_division",
            field="round",
            where=round_place(division, round_number),
            rounds=division.rounds,
        )


def check_ready(division: Division, round_number: int, lag: int, keep_scored: bool = False) -> None:
    """Refuse a round the director cannot pair yet, or may no longer pair."""
    where = round_place(division, round_number)
    played = Q(player2__isnull=False, score1__isnull=False)
    if not keep_scored and (
        Game.objects.filter(round__division=division, round__number=round_number)
        .filter(played)
        .exists()
    ):
        raise ServiceError("round_has_results", field="round", where=where)
    for r in range(1, round_number):
        games = Game.objects.filter(round__division=division, round__number=r)
        if not games.exists():
            raise ServiceError("earlier_round_unpaired", field="round", where=where, round=r)
        if r <= round_number - 1 - lag:
            missing = games.filter(player2__isnull=False, score1__isnull=True).count()
            if missing:
                hint = "" if lag else " (or pair it lagged: a schedule range with lag 1)"
                raise ServiceError(
                    "earlier_round_incomplete",
                    field="round",
                    where=where,
                    round=r,
                    missing=missing,
                    hint=hint,
                )


def prepare_round(
    division: Division,
    round_number: int,
    system: str | None,
    seed: int | None,
    keep_scored: bool,
    actor: Actor | str | None,
) -> tuple[str, Field, PairingOptions]:
    """The checks before pairing a round, and the system, field and options to pair it with:
    what ``pair_round`` runs the engine on, and the console's proposal too (its checker needs
    the same field, read once)."""
    require(actor, "direct", division.tournament, what=gettext_noop("pair rounds"))
    what = f"division {division.name}: round"
    if isinstance(round_number, bool) or not isinstance(round_number, int):
        raise ServiceError("not_a_number", field="round", what=what, value=round_number)
    if round_number < 1:
        raise ServiceError("below_minimum", field="round", what=what, minimum=1, value=round_number)
    check_within_rounds(division, round_number)
    where = round_place(division, round_number)
    scheduled = schedule_entry(division, round_number)
    if system is None and scheduled is None and keep_scored:
        # a round in play re-pairs with the system it was paired with (the console's choice
        # when no schedule names one), not a refusal for want of a schedule
        stored = (
            Round.objects.filter(division=division, number=round_number)
            .values_list("system", flat=True)
            .first()
        )
        system = stored if stored in system_names() else None
    if system is None:
        if scheduled is None:
            raise ServiceError(
                "no_system_scheduled",
                field="system",
                where=where,
                systems=", ".join(system_names()),
            )
        system = scheduled.system
    if system not in system_names():
        raise ServiceError(
            "unknown_system",
            field="system",
            where=where,
            system=system,
            systems=", ".join(system_names()),
        )
    lag = scheduled.lag if scheduled is not None else 0
    check_ready(division, round_number, lag, keep_scored)
    field = build_field(division, round_number, lag)
    options = pairing_options(division, scheduled, seed)
    if scheduled is None or scheduled.system != system:
        options = dataclasses.replace(options, system_start_round=1)
    if system == "cop":  # the pure system takes the division's simulated prize chances
        options = cop_options(division, field, options)
    return system, field, options


def run_engine(
    division: Division, round_number: int, field: Field, system: str, options: PairingOptions
) -> RoundPairing:
    """The engine's pairing of the field; its refusals as ServiceErrors naming the round."""
    try:
        return engine_pair_round(field, system, options)
    except PairingError as exc:
        where = round_place(division, round_number)
        raise ServiceError("pairing_impossible", where=where, detail=str(exc)) from exc
    except ValueError as exc:
        where = round_place(division, round_number)
        raise ServiceError("pairing_options_invalid", where=where, detail=str(exc)) from exc


def where_params(division: Division, round_number: int) -> dict[str, Any]:
    return {"division": division.name, "round": round_number}


MAX_ROUND = 9999  # beyond any event; keeps a forged number out of the database's integers


def check_round_number(round_number: Any) -> int:
    if (
        isinstance(round_number, bool)
        or not isinstance(round_number, int)
        or not 1 <= round_number <= MAX_ROUND
    ):
        raise ServiceError(
            "pairing_round_number", field="round", round=round_number, maximum=MAX_ROUND
        )
    return round_number


def check_unpaired(division: Division, round_number: Any) -> int:
    """The round number, if the round may be proposed: not paired yet, no results."""
    round_number = check_round_number(round_number)
    check_within_rounds(division, round_number)
    params = where_params(division, round_number)
    if round_has_results(division, round_number):
        raise ServiceError("pairing_has_results", **params)
    if Game.objects.filter(round__division=division, round__number=round_number).exists():
        raise ServiceError("pairing_already_paired", **params)
    return round_number


def validate_pairs(
    division: Division, round_number: int, field: Field, pairs: list[tuple[int, int]]
) -> list[tuple[int, int]]:
    """The director's pairs, if they pair every active player exactly once (byes last)."""
    params = where_params(division, round_number)
    players = {p.number: p for p in field.players}
    seen: set[int] = set()
    out: list[tuple[int, int]] = []
    for a, b in pairs:
        if a == 0:
            a, b = b, a
        if a == 0:
            raise ServiceError("pairing_malformed", field="games", detail="a bye without a player")
        if a == b:
            raise ServiceError("pairing_self", field="games", number=a, **params)
        for n in (a, b):
            if n == 0:
                continue
            if n not in players:
                raise ServiceError("pairing_unknown_player", field="games", number=n, **params)
            if not players[n].active:
                raise ServiceError(
                    "pairing_withdrawn", field="games", number=n, name=players[n].name, **params
                )
            if n in seen:
                raise ServiceError("pairing_twice", field="games", number=n, **params)
            seen.add(n)
        out.append((a, b))
    active = [n for n, p in players.items() if p.active]
    missing = sorted(set(active) - seen)
    if missing:
        raise ServiceError(
            "pairing_missing", field="games", numbers=", ".join(map(str, missing)), **params
        )
    byes = sum(1 for _, b in out if b == 0)
    if byes != len(active) % 2:
        raise ServiceError(
            "pairing_byes",
            field="games",
            byes=byes,
            players=len(active),
            expected=len(active) % 2,
            **params,
        )
    return [p for p in out if p[1]] + [p for p in out if not p[1]]
