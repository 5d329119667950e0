"""The director's console proposals: the engine proposes a round, the director swaps two
players or pins a pair, then publishes (``propose_round``, ``edit_proposal``,
``publish_proposal``). The engine's proposal is cached per state of the division.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from django.db import transaction
from django.utils.translation import gettext_noop

from pairings.engine import (
    CheckReport,
    Field,
    FieldPlayer,
    PairedGame,
    PairingOptions,
    RoundPairing,
    check_round,
    first_by_rule,
    round_quality,
)
from pairings.engine.firsts import round_rng
from pairings.engine.weighted import ordinal
from pairings.services.store import (
    PlannedGame,
    lock_division,
    save_round_pairings,
)
from tournament.access import require
from tournament.errors import ServiceError
from tournament.models import Division, Round
from tournament.services.audit import Actor

from .round_checks import (
    check_unpaired,
    prepare_round,
    run_engine,
    validate_pairs,
)

# The director's console pairs a round in three steps: the engine proposes, the director swaps
# two players or pins a pair, then publishes. Nothing is stored before publishing; the page
# carries the edited pairing in its form and every request rebuilds the proposal from it, so
# the checker always judges exactly what would be stored.


@dataclasses.dataclass(frozen=True)
class ProposedGame:
    """One board of a proposed round: player numbers (second 0 = the bye), who goes first, why."""

    board: int
    first: int
    second: int
    explanation: str

    @property
    def is_bye(self) -> bool:
        return self.second == 0


@dataclasses.dataclass
class Proposal:
    """A round as the director sees it before publishing: the games and the checker's report.

    ``players`` holds the field as the engine saw it (names, records) for display;
    ``engine_quality`` is the engine's own proposal measured the same way, so an edit's cost
    (a repeat, a bigger win difference) can be read against it; ``pins`` are the pairs the
    director forced, kept through further edits while they still stand.
    """

    division: Division
    round: int
    system: str
    games: list[ProposedGame]
    report: CheckReport
    players: dict[int, FieldPlayer]
    notes: list[str]
    engine_quality: dict[str, float]
    pins: list[tuple[int, int]]
    edited: bool

    @property
    def pairs(self) -> list[tuple[int, int]]:
        return [(g.first, g.second) for g in self.games]

    def planned(self) -> list[PlannedGame]:
        return [
            PlannedGame(g.first, g.second, board=g.board or None, explanation=g.explanation)
            for g in self.games
        ]


def _engine_proposal(
    division: Division, round_number: Any, system: str | None
) -> tuple[RoundPairing, Field, PairingOptions]:
    """The engine's pairing of the round, with the field and options it was made from.

    The readiness checks and the engine run are ``pair_round(dry_run=True)``'s (its refusals
    name the round); the field they read is the one the checker is given (read once: at 500
    players it is a fifth of the page).
    """
    round_number = check_unpaired(division, round_number)
    key = _proposal_key(division, round_number, system)
    hit = _cached(key)
    if hit is not None:
        return hit
    system, field, options = prepare_round(division, round_number, system, None, False, None)
    made = run_engine(division, round_number, field, system, options), field, options
    _keep(key, made)
    return made


# The engine's proposal for one state of the division ("the pairing proposal page
# <= 150 ms"). A director looks at the proposal, swaps, pins, reloads and tries another system
# before publishing, and every one of those ran the engine again on the same field (at 500
# players COP's whole-field matching and its simulated chances: 0.6 CPU-s each). The engine's
# answer is a function of the division's data and the system, so it is kept under the
# tournament's content version (bumped by every audited write, in its transaction) and the
# versions of the rating list the division reads: a result, a registration or a setting makes
# a new key, never a stale proposal. The shared cache (Redis or files) serves every worker.
PROPOSAL_SECONDS = 30 * 60


def _proposal_key(division: Division, round_number: int, system: str | None) -> str | None:
    """The proposal's cache key for the division's state now (one query); None without one."""
    row = (
        Division.objects.filter(pk=division.pk)
        .values_list(
            "tournament__content_version", "tournament__created", "rating_list__content_version"
        )
        .first()
    )
    if row is None:
        return None
    version, created, list_version = row
    stamp = f"{division.pk}:{round_number}:{system or ''}:{version}:{created.timestamp()}"
    return f"pairing-proposal:{stamp}:{list_version or 0}"


def _cached(key: str | None) -> tuple[RoundPairing, Field, PairingOptions] | None:
    from django.core.cache import cache

    if key is None:
        return None
    try:
        return cache.get(key)
    except Exception:  # a cache that fails (Redis down) is skipped, never an error
        return None


def _keep(key: str | None, made: tuple[RoundPairing, Field, PairingOptions]) -> None:
    from django.core.cache import cache

    if key is None:
        return
    try:
        cache.set(key, made, PROPOSAL_SECONDS)
    except Exception:  # as _cached: the proposal is served, only not kept
        pass


def _proposal(
    division: Division,
    round_number: int,
    engine: RoundPairing,
    field: Field,
    options: PairingOptions,
    games: list[ProposedGame],
    pins: list[tuple[int, int]],
) -> Proposal:
    pairing = RoundPairing(
        round_number,
        engine.system,
        [PairedGame(g.board, g.first, g.second, g.explanation) for g in games],
    )
    edited = sorted(map(frozenset, pairing.pairs())) != sorted(map(frozenset, engine.pairs()))
    report = check_round(field, pairing, options)
    if edited:
        report.warnings.extend(_repeats_the_edit_made(field, engine, pairing, options, pins))
    return Proposal(
        division=division,
        round=round_number,
        system=engine.system,
        games=games,
        report=report,
        players={p.number: p for p in field.players},
        notes=list(engine.notes),
        engine_quality=round_quality(field, engine, options),
        pins=pins,
        edited=edited,
    )


def _repeats_the_edit_made(
    field: Field,
    engine: RoundPairing,
    pairing: RoundPairing,
    options: PairingOptions,
    pins: list[tuple[int, int]],
) -> list[str]:
    """A warning for each repeat the director's edit added to the engine's round.

    Within the repeat limit the checker finds no broken rule, yet a pin realised by one swap
    can make the displaced opponents meet again: the director asked for one game and got a
    second repeat too. The verdict must say so (the engine's pairing is the cost baseline).
    """
    made = {frozenset(p) for p in engine.pairs()}
    pinned = {frozenset(p) for p in pins}
    players = {p.number: p for p in field.players}
    since = options.repeats_since_round
    lines = []
    for g in pairing.games:
        key = frozenset((g.first, g.second))
        if not g.second or key in made or g.first not in players or g.second not in players:
            continue
        if _met_before(players[g.first], g.second, since):
            why = "pinned by the director" if key in pinned else "made by the edit, not asked for"
            lines.append(
                f"board {g.board}: #{g.first} v #{g.second} meet again ({why}); "
                "the engine's pairing avoided it"
            )
    return lines


def _met_before(player: FieldPlayer, other: int, since: int | None) -> int:
    """How often ``player`` met ``other`` in the rounds the repeat rule counts."""
    history = player.opponents
    return (history if since is None else history[max(0, since - 1) :]).count(other)


def propose_round(division: Division, round_number: int, system: str | None = None) -> Proposal:
    """The engine's pairing of a round and the independent checker's report; stores nothing.

    Refused (ServiceError) like ``pair_round``: an earlier round without results unless the
    schedule is lagged, no system, constraints that leave no pairing; and here also a round
    already paired (unpair it first) or with results.
    """
    engine, field, options = _engine_proposal(division, round_number, system)
    games = [ProposedGame(g.board, g.first, g.second, g.explanation) for g in engine.games]
    return _proposal(division, round_number, engine, field, options, games, [])


def slot_of(pairs: list[tuple[int, int]], number: int) -> tuple[int, int]:
    """(index of the pair, 0 or 1) where ``number`` sits; ServiceError if not in the round."""
    for k, pair in enumerate(pairs):
        if number and number in pair:
            return k, pair.index(number)
    raise ServiceError("pairing_not_in_round", field="a", number=number)


def _locate(pairs: list[tuple[int, int]], a: int, b: int) -> tuple[tuple[int, int], ...]:
    if a == b:
        raise ServiceError("pairing_same_player", field="b")
    try:
        where_a = slot_of(pairs, a)
    except ServiceError as exc:
        raise ServiceError(exc.code, field="a", **exc.params) from exc
    try:
        where_b = slot_of(pairs, b)
    except ServiceError as exc:
        raise ServiceError(exc.code, field="b", **exc.params) from exc
    return where_a, where_b


def swap_players(pairs: list[tuple[int, int]], a: int, b: int) -> list[tuple[int, int]]:
    """Exchange two players of different games (or a player and the bye's player)."""
    (i, si), (j, sj) = _locate(pairs, a, b)
    if i == j:
        raise ServiceError("pairing_same_game", field="b", a=a, b=b)
    out = [list(p) for p in pairs]
    out[i][si], out[j][sj] = b, a
    return [_bye_last(p) for p in out]


def pin_pair(pairs: list[tuple[int, int]], a: int, b: int) -> list[tuple[int, int]]:
    """Make ``a`` play ``b`` by one swap: their old opponents then play each other.

    The engine has no fixed pairs, so a pin is realised by the one swap that creates it: ``a``
    keeps their board, ``b``'s old opponent takes ``a``'s old opponent (or the bye).
    """
    (i, si), (j, sj) = _locate(pairs, a, b)
    if i == j:
        raise ServiceError("pairing_pin_exists", field="b", a=a, b=b)
    x = pairs[i][1 - si]
    out = [list(p) for p in pairs]
    out[i][1 - si], out[j][sj] = b, x
    return [_bye_last(p) for p in out]


def _bye_last(pair: list[int]) -> tuple[int, int]:
    a, b = pair
    return (b, a) if a == 0 else (a, b)


def _firsts(field: Field, options: PairingOptions, a: int, b: int) -> tuple[int, int]:
    """First and second of a game the director made: the NASPA rule, else a seeded draw."""
    players = {p.number: p for p in field.players}
    first, _ = first_by_rule(players[a], players[b])
    if first is None:
        lo, hi = sorted((a, b))
        rng = round_rng(options.seed, field.round, f"console:{lo}-{hi}")
        return (lo, hi) if rng.random() < 0.5 else (hi, lo)
    return (a, b) if first.number == a else (b, a)


def _director_games(
    engine: RoundPairing,
    field: Field,
    options: PairingOptions,
    pairs: list[tuple[int, int]],
    pins: list[tuple[int, int]],
) -> list[ProposedGame]:
    """Boards in the given order; the engine's games keep its firsts and explanations."""
    made = {frozenset((g.first, g.second)): g for g in engine.games}
    pinned = {frozenset(p) for p in pins}
    players = {p.number: p for p in field.players}
    since = options.repeats_since_round
    games: list[ProposedGame] = []
    board = 0
    for a, b in pairs:
        key = frozenset((a, b))
        g = made.get(key)
        if not b:
            why = g.explanation if g is not None else "bye: changed by the director"
            games.append(ProposedGame(0, a, 0, why))
            continue
        board += 1
        if g is not None:
            games.append(ProposedGame(board, g.first, g.second, g.explanation))
            continue
        first, second = _firsts(field, options, a, b)
        why = "pinned by the director" if key in pinned else "changed by the director"
        met = _met_before(players[a], b, since)
        if met:
            why += f"; repeat {ordinal(met + 1)} meeting"
        games.append(ProposedGame(board, first, second, why))
    return games


def edit_proposal(
    division: Division,
    round_number: int,
    games: list[tuple[int, int]],
    *,
    swap: tuple[int, int] | None = None,
    pin: tuple[int, int] | None = None,
    pins: list[tuple[int, int]] | tuple = (),
    system: str | None = None,
) -> Proposal:
    """The director's pairing (``games`` as (first, second), second 0 = bye), edited, checked.

    ``games`` comes back from the page, so it is validated like new input: every active
    player exactly once, no withdrawn player, only numbers of this division, the right number
    of byes. ``swap`` exchanges two players of different games; ``pin`` makes two players
    meet (see ``pin_pair``). Games the engine also made keep its explanation and firsts; the
    others get the NASPA start/reply rule and say they were the director's. Stores nothing.
    """
    engine, field, options = _engine_proposal(division, round_number, system)
    pairs = validate_pairs(division, round_number, field, [tuple(p) for p in games])
    if swap is not None:
        pairs = swap_players(pairs, *swap)
    pinned = [tuple(p) for p in pins]
    if pin is not None:
        pairs = pin_pair(pairs, *pin)
        pinned.append(tuple(pin))
    pairs = [p for p in pairs if p[1]] + [p for p in pairs if not p[1]]  # the bye stays last
    standing = {frozenset(p) for p in pairs}
    kept: list[tuple[int, int]] = []
    for p in pinned:
        if frozenset(p) in standing and frozenset(p) not in map(frozenset, kept):
            kept.append((p[0], p[1]))
    made = _director_games(engine, field, options, pairs, kept)
    return _proposal(division, round_number, engine, field, options, made, kept)


@transaction.atomic
def publish_proposal(
    division: Division,
    round_number: int,
    games: list[tuple[int, int]],
    *,
    pins: list[tuple[int, int]] | tuple = (),
    system: str | None = None,
    actor: Actor | str | None = None,
) -> Round:
    """Store the director's pairing of a round (validated again) with one audit event.

    The division is locked before anything is read, so of two directors publishing one round
    at once the second waits and then is refused (already paired), never half-stored.
    """
    require(actor, "direct", division.tournament, what=gettext_noop("pair rounds"))
    lock_division(division)
    proposal = edit_proposal(division, round_number, games, pins=pins, system=system)
    return save_round_pairings(
        division, round_number, proposal.planned(), system=proposal.system, actor=actor
    )
