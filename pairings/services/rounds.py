"""The pairing shell: load a division's state, call the pure engine, store the round.

The engine (pairings.engine) sees only dataclasses; this module is the one place that turns
games and entries into a ``Field`` and the engine's ``RoundPairing`` back into stored games via
``services.save_round_pairings`` (one transaction, one audit event).
"""

from __future__ import annotations

import dataclasses
import hashlib

from django.db import transaction
from django.utils.translation import gettext_noop

from pairings.engine import (
    Field,
    PairingError,
    PairingOptions,
    RoundPairing,
    check_round,
)
from pairings.engine import pair_round as engine_pair_round
from pairings.selectors import build_field, round_place
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
from tournament.selectors import paired_rounds
from tournament.services.audit import Actor

# The console's proposals and the changes to a round in play live in modules of their own;
# their names are kept here too, so callers read every round write from one module.
from .in_play import add_bye, pin_in_round, remove_bye, swap_in_round
from .proposals import (
    Proposal,
    ProposedGame,
    edit_proposal,
    pin_pair,
    propose_round,
    publish_proposal,
    swap_players,
)
from .round_checks import (
    MAX_ROUND,
    check_round_number,
    check_unpaired,
    prepare_round,
    run_engine,
    validate_pairs,
    where_params,
)

__all__ = [
    "MAX_ROUND",
    "Proposal",
    "ProposedGame",
    "RepairChange",
    "RepairPreview",
    "add_bye",
    "edit_proposal",
    "pair_round",
    "pin_in_round",
    "pin_pair",
    "preview_repair",
    "propose_round",
    "publish_pairs",
    "publish_proposal",
    "remove_bye",
    "repair_round",
    "swap_in_round",
    "swap_players",
    "unpair_round",
]


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
    system, field, options = prepare_round(division, round_number, system, seed, keep_scored, actor)
    if keep_scored:
        return _pair_unscored(division, round_number, field, system, options, dry_run, actor)
    result = run_engine(division, round_number, field, system, options)
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


@transaction.atomic
def unpair_round(division: Division, round_number: int, *, actor: Actor | str | None = None) -> int:
    """Remove a round's pairings while it has no results (byes' scores do not count).

    Only the last paired round: unpairing one in the middle would leave a gap that no later
    round could be paired across. The division is locked first, so a later round paired at
    the same moment is seen.
    """
    require(actor, "direct", division.tournament, what=gettext_noop("unpair rounds"))
    round_number = check_round_number(round_number)
    lock_division(division)
    later = (
        Game.objects.filter(round__division=division, round__number__gt=round_number)
        .order_by("-round__number")
        .values_list("round__number", flat=True)
        .first()
    )
    if later is not None:
        raise ServiceError(
            "pairing_later_paired", later=later, **where_params(division, round_number)
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
    require(actor, "direct", division.tournament, what=gettext_noop("pair rounds"))
    lock_division(division)
    round_number = check_round_number(round_number)
    stored = list(
        Game.objects.filter(round__division=division, round__number=round_number).select_related(
            "player1", "player2"
        )
    )
    if stored:
        return _replace_pairs(division, round_number, stored, games, actor)
    round_number = check_unpaired(division, round_number)
    params = where_params(division, round_number)
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
    pairs = validate_pairs(division, round_number, field, [(a, b) for a, b, _ in games])
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
    pairs = validate_pairs(division, round_number, field, [(a, b) for a, b, _ in games])
    keep = {frozenset((a, b)) for _, a, b in units if frozenset((a, b)) in given}
    planned = [
        PlannedGame(a, b, explanation="paired by the director" if b else "bye: the director's")
        for a, b in pairs
        if frozenset((a, b)) not in keep
    ]
    return replace_unscored_pairings(division, round_number, planned, actor=actor)
