"""The pairing shell: load a division's state, call the pure engine, store the round.

The engine (pairings.engine) sees only dataclasses; this module is the one place that turns
games and entries into a ``Field`` and the engine's ``RoundPairing`` back into stored games via
``services.save_round_pairings`` (one transaction, one audit event).
"""

from __future__ import annotations

import dataclasses
import hashlib
from typing import Any

from django.db import transaction
from django.db.models import Q

from pairings.chances import cop_options
from pairings.engine import (
    CheckReport,
    Field,
    FieldPlayer,
    PairedGame,
    PairingError,
    PairingOptions,
    RoundPairing,
    check_round,
    first_by_rule,
    round_quality,
    system_names,
)
from pairings.engine import pair_round as engine_pair_round
from pairings.engine.firsts import round_rng
from pairings.engine.weighted import ordinal
from pairings.selectors import build_field, pairing_options, round_place, schedule_entry
from pairings.services.store import (
    PlannedGame,
    delete_round_pairings,
    is_scored,
    lock_division,
    replace_unscored_pairings,
    save_round_pairings,
    scored_units,
)
from tournament.access import require
from tournament.checks import forfeit_opponent
from tournament.errors import ServiceError
from tournament.models import Division, Game, Round
from tournament.selectors import paired_rounds, round_has_results
from tournament.services.audit import Actor


def _check_within_rounds(division: Division, round_number: int) -> None:
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


def _check_ready(
    division: Division, round_number: int, lag: int, keep_scored: bool = False
) -> None:
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


def pair_round(
    division: Division,
    round_number: int,
    *,
    system: str | None = None,
    dry_run: bool = False,
    force: bool = False,
    seed: int | None = None,
    keep_scored: bool = False,
    actor: Actor | str | None = None,
) -> RoundPairing:
    """Pair ``round_number`` of ``division`` with the engine and store it (unless ``dry_run``).

    With ``keep_scored`` the round may be in play: only the players without a scored game
    (played, forfeit, bye) are re-paired, from the engine's proposal for them alone, checked
    by the checker; every scored game stays exactly as stored (``replace_unscored_pairings``).
    Without a schedule for the round it re-pairs with the system the round was paired with.

    The system (and lag and options) come from the division's schedule; ``system`` overrides
    the system only. Refused with a ServiceError naming the round: an earlier round without
    results (unless lagged), a round that already has results, an unknown system, or an
    impossible set of constraints (the engine's message says which rule and what to relax).
    """
    system, field, options = _prepare(division, round_number, system, seed, keep_scored, actor)
    if keep_scored:
        return _pair_unscored(division, round_number, field, system, options, dry_run, actor)
    result = _run_engine(division, round_number, field, system, options)
    if not dry_run:
        planned = [
            PlannedGame(g.first, g.second, board=g.board or None, explanation=g.explanation)
            for g in result.games
        ]
        save_round_pairings(
            division, round_number, planned, system=system, actor=actor or "pair", force=force
        )
    return result


@dataclasses.dataclass(frozen=True)
class RepairChange:
    """A player whose opponent re-pairing would change: now and after (0: the bye)."""

    number: int
    name: str
    board: int | None
    now: int | None  # None: no game in the round yet
    now_name: str
    after: int
    after_name: str


@dataclasses.dataclass(frozen=True)
class RepairPreview:
    """What re-pairing a round's unscored games would do, before anything is stored: the
    players whose opponent changes, and a digest of the new pairing that the confirmation
    carries back (``repair_round`` refuses when the round would now pair differently)."""

    changes: list[RepairChange]
    games: int  # unscored games after re-pairing
    digest: str


def _repair_digest(division: Division, round_number: int, result: RoundPairing) -> str:
    pairs = sorted(tuple(sorted((g.first, g.second))) for g in result.games)
    raw = repr((division.pk, round_number, pairs))
    return hashlib.sha256(raw.encode()).hexdigest()[:16]


def preview_repair(
    division: Division, round_number: int, *, actor: Actor | str | None = None
) -> RepairPreview:
    """Re-pair a round in play on paper (``pair_round(keep_scored=True, dry_run=True)``) and
    say whose opponent changes: TSH shows the changes before it re-pairs, and one click used
    to move players already sitting at their boards with no warning."""
    result = pair_round(division, round_number, keep_scored=True, dry_run=True, actor=actor)
    games = list(
        Game.objects.filter(round__division=division, round__number=round_number).select_related(
            "player1__player", "player2__player"
        )
    )
    names = {e.number: e.name for e in division.entries.select_related("player")}
    now: dict[int, tuple[int, int | None]] = {}  # player -> (opponent or 0, board)
    for g in games:
        a, b = g.player1.number, g.player2.number if g.player2_id else 0
        now[a] = (b, g.board)
        if b:
            now[b] = (a, g.board)
    after = result.opponent_of()
    changes = []
    for number in sorted(after):
        opponent = after[number]
        before, board = now.get(number, (None, None))
        if before != opponent:
            changes.append(
                RepairChange(
                    number,
                    names.get(number, ""),
                    board,
                    before,
                    names.get(before, "") if before else "",
                    opponent,
                    names.get(opponent, "") if opponent else "",
                )
            )
    digest = _repair_digest(division, round_number, result)
    return RepairPreview(changes, len(result.games), digest)


def repair_round(
    division: Division, round_number: int, expect: str, *, actor: Actor | str | None = None
) -> RoundPairing:
    """Re-pair the round's unscored games as the preview the director confirmed showed
    (``expect``, its digest); refused, nothing changed, when the round would now pair
    differently (a result or an edit came in meanwhile): the director looks again."""
    result = pair_round(division, round_number, keep_scored=True, dry_run=True, actor=actor)
    if _repair_digest(division, round_number, result) != expect:
        raise ServiceError(
            "repair_changed", field="action", where=round_place(division, round_number)
        )
    return pair_round(division, round_number, keep_scored=True, actor=actor)


def _prepare(
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
    require(actor, "direct", division.tournament, what="pair rounds")
    what = f"division {division.name}: round"
    if isinstance(round_number, bool) or not isinstance(round_number, int):
        raise ServiceError("not_a_number", field="round", what=what, value=round_number)
    if round_number < 1:
        raise ServiceError("below_minimum", field="round", what=what, minimum=1, value=round_number)
    _check_within_rounds(division, round_number)
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
    _check_ready(division, round_number, lag, keep_scored)
    field = build_field(division, round_number, lag)
    options = pairing_options(division, scheduled, seed)
    if scheduled is None or scheduled.system != system:
        options = dataclasses.replace(options, system_start_round=1)
    if system == "cop":  # the pure system takes the division's simulated prize chances
        options = cop_options(division, field, options)
    return system, field, options


def _run_engine(
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


def _pair_unscored(
    division: Division,
    round_number: int,
    field: Field,
    system: str,
    options: PairingOptions,
    dry_run: bool,
    actor: Actor | str | None,
) -> RoundPairing:
    """The engine's pairing of the players still unscored in a round in play, stored in place
    of the round's unscored games (scored ones kept exactly). The engine sees the scored
    games' players as inactive, so it neither pairs them nor gives them a bye."""
    where = round_place(division, round_number)
    games = list(
        Game.objects.filter(round__division=division, round__number=round_number).select_related(
            "player1", "player2"
        )
    )
    locked = {n for _, a, b in scored_units(games) for n in (a, b) if n}
    locked |= {g.player1.number for g in games if is_scored(g)}
    open_field = dataclasses.replace(
        field,
        players=[
            dataclasses.replace(p, active=False) if p.number in locked else p for p in field.players
        ],
    )
    if not any(p.active for p in open_field.players):
        result = RoundPairing(round_number, system, [])
    else:
        try:
            result = engine_pair_round(open_field, system, options)
        except PairingError as exc:
            raise ServiceError("pairing_impossible", where=where, detail=str(exc)) from exc
        except ValueError as exc:
            raise ServiceError("pairing_options_invalid", where=where, detail=str(exc)) from exc
        report = check_round(open_field, result, options)
        if not report.ok:
            raise ServiceError("pairing_impossible", where=where, detail="; ".join(report.errors))
    if not dry_run and games:
        planned = [PlannedGame(g.first, g.second, explanation=g.explanation) for g in result.games]
        replace_unscored_pairings(
            division, round_number, planned, system=system, actor=actor or "pair"
        )
    elif not dry_run:
        save_round_pairings(
            division,
            round_number,
            [PlannedGame(g.first, g.second, board=g.board or None) for g in result.games],
            system=system,
            actor=actor or "pair",
        )
    return result


# --------------------------------------------------------------------------- console proposals
#
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


def _where_params(division: Division, round_number: int) -> dict[str, Any]:
    return {"division": division.name, "round": round_number}


MAX_ROUND = 9999  # beyond any event; keeps a forged number out of the database's integers


def _check_round_number(round_number: Any) -> int:
    if (
        isinstance(round_number, bool)
        or not isinstance(round_number, int)
        or not 1 <= round_number <= MAX_ROUND
    ):
        raise ServiceError(
            "pairing_round_number", field="round", round=round_number, maximum=MAX_ROUND
        )
    return round_number


def _check_unpaired(division: Division, round_number: Any) -> int:
    """The round number, if the round may be proposed: not paired yet, no results."""
    round_number = _check_round_number(round_number)
    _check_within_rounds(division, round_number)
    params = _where_params(division, round_number)
    if round_has_results(division, round_number):
        raise ServiceError("pairing_has_results", **params)
    if Game.objects.filter(round__division=division, round__number=round_number).exists():
        raise ServiceError("pairing_already_paired", **params)
    return round_number


def _engine_proposal(
    division: Division, round_number: Any, system: str | None
) -> tuple[RoundPairing, Field, PairingOptions]:
    """The engine's pairing of the round, with the field and options it was made from.

    The readiness checks and the engine run are ``pair_round(dry_run=True)``'s (its refusals
    name the round); the field they read is the one the checker is given (read once: at 500
    players it is a fifth of the page).
    """
    round_number = _check_unpaired(division, round_number)
    key = _proposal_key(division, round_number, system)
    hit = _cached(key)
    if hit is not None:
        return hit
    system, field, options = _prepare(division, round_number, system, None, False, None)
    made = _run_engine(division, round_number, field, system, options), field, options
    _keep(key, made)
    return made


# The engine's proposal for one state of the division (issue 40: "the pairing proposal page
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


def _validate_pairs(
    division: Division, round_number: int, field: Field, pairs: list[tuple[int, int]]
) -> list[tuple[int, int]]:
    """The director's pairs, if they pair every active player exactly once (byes last)."""
    params = _where_params(division, round_number)
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


def _slot(pairs: list[tuple[int, int]], number: int) -> tuple[int, int]:
    """(index of the pair, 0 or 1) where ``number`` sits; ServiceError if not in the round."""
    for k, pair in enumerate(pairs):
        if number and number in pair:
            return k, pair.index(number)
    raise ServiceError("pairing_not_in_round", field="a", number=number)


def _locate(pairs: list[tuple[int, int]], a: int, b: int) -> tuple[tuple[int, int], ...]:
    if a == b:
        raise ServiceError("pairing_same_player", field="b")
    try:
        where_a = _slot(pairs, a)
    except ServiceError as exc:
        raise ServiceError(exc.code, field="a", **exc.params) from exc
    try:
        where_b = _slot(pairs, b)
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
    pairs = _validate_pairs(division, round_number, field, [tuple(p) for p in games])
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
    require(actor, "direct", division.tournament, what="pair rounds")
    lock_division(division)
    proposal = edit_proposal(division, round_number, games, pins=pins, system=system)
    return save_round_pairings(
        division, round_number, proposal.planned(), system=proposal.system, actor=actor
    )


@transaction.atomic
def unpair_round(division: Division, round_number: int, *, actor: Actor | str | None = None) -> int:
    """Remove a round's pairings while it has no results (byes' scores do not count).

    Only the last paired round: unpairing one in the middle would leave a gap that no later
    round could be paired across. The division is locked first, so a later round paired at
    the same moment is seen.
    """
    require(actor, "direct", division.tournament, what="unpair rounds")
    round_number = _check_round_number(round_number)
    lock_division(division)
    later = (
        Game.objects.filter(round__division=division, round__number__gt=round_number)
        .order_by("-round__number")
        .values_list("round__number", flat=True)
        .first()
    )
    if later is not None:
        raise ServiceError(
            "pairing_later_paired", later=later, **_where_params(division, round_number)
        )
    return delete_round_pairings(division, round_number, actor=actor)


@transaction.atomic
def publish_pairs(
    division: Division,
    round_number: int,
    games: list[tuple[int, int, int | None]],
    *,
    actor: Actor | str | None = None,
) -> Round:
    """Store a round the director paired without the engine (``(first, second, board)``,
    second 0 = the bye; the first number goes first), with one audit event.

    A round already paired (with or without results) is replaced by ``games`` when every
    scored game (played, forfeit, double forfeit, bye) is in it with the same two players
    (``_replace_pairs``); otherwise refused with ``pairing_changes_scored_game``.

    For pairings made elsewhere (another program's draw sent through the API): publishing a
    proposal's checks without running the engine, so a round the engine could not pair (a
    schedule without a system, constraints it cannot meet) can still be stored as drawn. The
    round must be unpaired and every earlier round paired; every active player plays exactly
    once, with a bye only for an odd field; boards, where given, are not used twice (a bye's
    board is not stored). Earlier rounds may still lack results, as with a lagged schedule.
    """
    require(actor, "direct", division.tournament, what="pair rounds")
    lock_division(division)
    round_number = _check_round_number(round_number)
    stored = list(
        Game.objects.filter(round__division=division, round__number=round_number).select_related(
            "player1", "player2"
        )
    )
    if stored:
        return _replace_pairs(division, round_number, stored, games, actor)
    round_number = _check_unpaired(division, round_number)
    params = _where_params(division, round_number)
    paired = set(paired_rounds(division))
    for r in range(1, round_number):
        if r not in paired:
            raise ServiceError(
                "earlier_round_unpaired",
                field="round",
                where=round_place(division, round_number),
                round=r,
            )
    boards: dict[frozenset[int], int | None] = {}
    used: set[int] = set()
    for a, b, board in games:
        if board is not None and b:
            if board in used:
                raise ServiceError("pairing_board_twice", field="games", board=board, **params)
            used.add(board)
        boards[frozenset((a, b))] = board if b else None
    field = build_field(division, round_number)
    pairs = _validate_pairs(division, round_number, field, [(a, b) for a, b, _ in games])
    planned = [
        PlannedGame(
            a,
            b,
            board=boards.get(frozenset((a, b))),
            explanation="paired by the director" if b else "bye: the director's",
        )
        for a, b in pairs
    ]
    return save_round_pairings(division, round_number, planned, system="", actor=actor)


def _replace_pairs(
    division: Division,
    round_number: int,
    stored: list[Game],
    games: list[tuple[int, int, int | None]],
    actor: Actor | str | None,
) -> Round:
    """A paired round replaced by the director's whole round: its scored games must all be in
    ``games`` with the same two players, the rest is stored in place of the unscored games
    and byes (a bye kept as it is keeps its score). The first scored game missing is named in
    the refusal."""
    where = round_place(division, round_number)
    given = {frozenset((a, b)) for a, b, _ in games}
    units = scored_units(stored)
    # A bye (or a late arrival's missed round) is a pairing, not a result: the new round may
    # give it up, as the console's bye controls do (replace_unscored_pairings releases it).
    movable = {
        g.player1.number
        for g in stored
        if g.player2_id is None and forfeit_opponent(g) is None and g.explanation != "withdrawn"
    }
    for board, a, b in units:
        if b == 0 and a in movable:
            continue
        if frozenset((a, b)) not in given:
            raise ServiceError(
                "pairing_changes_scored_game",
                field="games",
                where=where,
                board=board or "-",
                player1=a,
                player2=b,
            )
    field = build_field(division, round_number)
    pairs = _validate_pairs(division, round_number, field, [(a, b) for a, b, _ in games])
    keep = {frozenset((a, b)) for _, a, b in units if frozenset((a, b)) in given}
    planned = [
        PlannedGame(a, b, explanation="paired by the director" if b else "bye: the director's")
        for a, b in pairs
        if frozenset((a, b)) not in keep
    ]
    return replace_unscored_pairings(division, round_number, planned, actor=actor)


def _round_pairs(games: list[Game]) -> list[tuple[int, int]]:
    """A stored round's games that may still change as (first, second): unscored games, byes
    and a late arrival's missed-round record (a pairing, not a result, while its round is in
    play); a withdrawn player's record and forfeits stay."""
    open_games = [
        g
        for g in sorted(games, key=lambda g: (g.board is None, g.board or 0, g.pk))
        if not is_scored(g)
        or (g.player2_id is None and forfeit_opponent(g) is None and g.explanation != "withdrawn")
    ]
    return [(g.player1.number, g.player2.number if g.player2_id else 0) for g in open_games]


def _open_pairs(
    division: Division, round_number: int, a: int, b: int
) -> tuple[int, list[tuple[int, int]]]:
    """The round (checked, division locked) and its pairs that may change, after refusing a
    player ``a`` or ``b`` whose game this round is played or forfeited."""
    round_number = _check_round_number(round_number)
    lock_division(division)
    games = _round_in_play(division, round_number)
    pairs = _round_pairs(games)
    for n, name in ((a, "a"), (b, "b")):
        _check_not_locked(division, round_number, games, pairs, n, name)
    return round_number, pairs


def _round_in_play(division: Division, round_number: int) -> list[Game]:
    games = list(
        Game.objects.filter(round__division=division, round__number=round_number).select_related(
            "player1", "player2"
        )
    )
    if not games:
        raise ServiceError("no_pairings", field="round", where=round_place(division, round_number))
    return games


def _check_not_locked(
    division: Division,
    round_number: int,
    games: list[Game],
    pairs: list[tuple[int, int]],
    number: int,
    field: str,
) -> None:
    """Refuse a player whose game this round is scored (played or forfeited): the result
    must be corrected or cleared before the player can move."""
    free = {n for pair in pairs for n in pair if n}
    for _, x, y in scored_units(games):
        if number in (x, y) and number not in free:
            board = next((g.board for g in games if g.player1.number in (x, y)), None)
            raise ServiceError(
                "pairing_changes_scored_game",
                field=field,
                where=round_place(division, round_number),
                board=board or "-",
                player1=x,
                player2=y,
            )


def _late_entries(games: list[Game]) -> set[int]:
    """Players whose record this round is a late arrival's missed round (alone, not a bye)."""
    return {g.player1.number for g in games if not g.player2_id and g.explanation == "late entry"}


def _store_changed(
    division: Division,
    round_number: int,
    before: list[tuple[int, int]],
    after: list[tuple[int, int]],
    actor: Actor | str | None,
) -> Round:
    """Store a changed round in play: every game between two players, and only the players
    alone who were not alone before (a player left alone keeps their bye or missed-round
    record exactly as it was: re-storing it would turn a late arrival's forfeit into a bye)."""
    alone = {p for p in before if not p[1]}
    planned = [
        PlannedGame(x, y, explanation="changed by the director" if y else "bye: the director's")
        for x, y in after
        if x and (y or (x, y) not in alone)
    ]
    return replace_unscored_pairings(division, round_number, planned, actor=actor)


@transaction.atomic
def swap_in_round(
    division: Division, round_number: int, a: int, b: int, *, actor: Actor | str | None = None
) -> Round:
    """Exchange two players of a round in play, as TSH's ``pair`` does at any time.

    Between two unscored games (a wrong table), or a player and the bye's player. A player
    with a played or forfeited game is refused (``pairing_changes_scored_game``): correct or
    clear that result first. Two players who both play nobody (a bye, a late arrival's missed
    round) are refused: swapping them changes nothing but the record; pair them instead
    (``pin_in_round``).
    """
    round_number, pairs = _open_pairs(division, round_number, a, b)
    alone = {x for x, y in pairs if not y}
    if a in alone and b in alone:
        raise ServiceError("pairing_both_alone", field="b", a=a, b=b)
    return _store_changed(division, round_number, pairs, swap_players(pairs, a, b), actor)


@transaction.atomic
def pin_in_round(
    division: Division, round_number: int, a: int, b: int, *, actor: Actor | str | None = None
) -> Round:
    """Make ``a`` play ``b`` in a round in play; their old opponents play each other (one
    left alone has the bye).

    The late arrival's case: a player registered while the round is in play has only a
    missed-round record for it; paired with the player who has the bye, the two play each
    other and both the bye and the missed-round record go. Played or forfeited games are
    refused as in ``swap_in_round``. One audit event (``repair_unscored``).
    """
    round_number, pairs = _open_pairs(division, round_number, a, b)
    pinned = [p for p in pin_pair(pairs, a, b) if p[0] or p[1]]
    return _store_changed(division, round_number, pairs, pinned, actor)


@transaction.atomic
def add_bye(
    division: Division, round_number: int, number: int, *, actor: Actor | str | None = None
) -> Round:
    """Give ``number`` a bye in a round in play, taking them out of their unscored game.

    Their opponent is left without a game, so the round stays whole (every active player in
    exactly one game or bye): the opponent takes over the game of the round's bye player if
    there is one (that bye is given up), else gets a bye too. A played or forfeited game is
    refused (``pairing_changes_scored_game``), as is a player who already has the bye.
    """
    require(actor, "direct", division.tournament, what="change pairings")
    round_number = _check_round_number(round_number)
    lock_division(division)
    games = _round_in_play(division, round_number)
    pairs = _round_pairs(games)
    _check_not_locked(division, round_number, games, pairs, number, "player")
    late = _late_entries(games)
    try:
        k, side = _slot(pairs, number)
    except ServiceError as exc:
        raise ServiceError(exc.code, field="player", **exc.params) from exc
    where = round_place(division, round_number)
    if pairs[k][1] == 0 or number in late:
        raise ServiceError("pairing_has_bye", field="player", where=where, number=number)
    opponent = pairs[k][1 - side]
    rest = [p for i, p in enumerate(pairs) if i != k]
    byes = [a for a, b in rest if b == 0 and a not in late]
    if byes:
        rest.remove((byes[0], 0))
        rest.append((opponent, byes[0]))
    else:
        rest.append((opponent, 0))
    return _store_changed(division, round_number, pairs, [*rest, (number, 0)], actor)


def _unpaired(division: Division, round_number: int, games: list[Game]) -> list[int]:
    """Active players with no game, bye or forfeit at all in this round (entered after it was
    paired, or left out of a director's round)."""
    named = {g.player1.number for g in games} | {g.player2.number for g in games if g.player2_id}
    named |= {n for g in games if (n := forfeit_opponent(g))}
    field = build_field(division, round_number)
    return sorted(p.number for p in field.players if p.active and p.number not in named)


@transaction.atomic
def remove_bye(
    division: Division,
    round_number: int,
    number: int,
    opponent: int | None = None,
    *,
    actor: Actor | str | None = None,
) -> Round:
    """Take ``number``'s bye away by pairing them in a round in play.

    The opponent is another player with a bye this round (both byes become one game), a late
    arrival whose missed round is this one (they take the bye player's game) or an active
    player without any game this round; ``opponent`` names them, and may be left out
    when only one player could be it. A round whose only bye is this one keeps it: an odd
    field needs one (``pairing_bye_no_opponent``).
    """
    round_number = _check_round_number(round_number)
    lock_division(division)
    games = _round_in_play(division, round_number)
    pairs = _round_pairs(games)
    where = round_place(division, round_number)
    late = _late_entries(games)
    if (number, 0) not in pairs or number in late:
        raise ServiceError("pairing_no_bye", field="player", where=where, number=number)
    byes = [a for a, b in pairs if b == 0 and a != number and a not in late]
    free = byes + sorted(late) + _unpaired(division, round_number, games)
    if opponent is None:
        if not free:
            raise ServiceError(
                "pairing_bye_no_opponent", field="player", where=where, number=number
            )
        if len(free) > 1:
            raise ServiceError(
                "pairing_bye_choose",
                field="opponent",
                where=where,
                number=number,
                numbers=", ".join(f"#{n}" for n in sorted(free)),
            )
        opponent = free[0]
    if opponent == number:
        raise ServiceError("pairing_same_player", field="opponent")
    if opponent not in free:
        _check_not_locked(division, round_number, games, pairs, opponent, "opponent")
        raise ServiceError(
            "pairing_opponent_not_free", field="opponent", where=where, number=opponent
        )
    rest = [p for p in pairs if p not in ((number, 0), (opponent, 0))]
    # a late arrival's missed round is released by naming them (replace_unscored_pairings)
    return _store_changed(division, round_number, pairs, [(number, opponent), *rest], actor)
