"""Changing a round in play, as TSH's ``pair`` does at any time: swap two players, pin a pair,
give or take a bye (``swap_in_round``, ``pin_in_round``, ``add_bye``, ``remove_bye``).

Only unscored games, byes and late arrivals' missed rounds move; a played or forfeited game is
refused until its result is corrected or cleared. Each write is one transaction with one audit
event (``replace_unscored_pairings``).
"""

from __future__ import annotations

from django.db import transaction
from django.utils.translation import gettext_noop

from pairings.selectors import build_field, round_place
from pairings.services.store import (
    PlannedGame,
    is_scored,
    lock_division,
    replace_unscored_pairings,
    scored_units,
)
from tournament.access import require
from tournament.checks import forfeit_opponent
from tournament.errors import ServiceError
from tournament.models import Division, Game, Round
from tournament.services.audit import Actor

from .proposals import pin_pair, slot_of, swap_players
from .round_checks import check_round_number


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
    round_number = check_round_number(round_number)
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
    require(actor, "direct", division.tournament, what=gettext_noop("change pairings"))
    round_number = check_round_number(round_number)
    lock_division(division)
    games = _round_in_play(division, round_number)
    pairs = _round_pairs(games)
    _check_not_locked(division, round_number, games, pairs, number, "player")
    late = _late_entries(games)
    try:
        k, side = slot_of(pairs, number)
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
    round_number = check_round_number(round_number)
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
