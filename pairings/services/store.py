"""Stored pairings: a whole round from the engine or a file, one pair by hand, unpairing."""

from __future__ import annotations

from dataclasses import dataclass

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext_noop

from tournament.access import require
from tournament.checks import as_int, check_active, entry_by_number, forfeit_opponent, plays
from tournament.errors import ServiceError
from tournament.models import Division, Entry, First, Game, Round
from tournament.services.audit import Actor, audit
from tournament.services.games import game_snapshot, round_row


@dataclass(frozen=True)
class PlannedGame:
    """A pairing to store: player numbers (second 0 = bye), who goes first, board, why."""

    first: int
    second: int
    board: int | None = None
    explanation: str = ""
    first_known: bool = True


def _checked_pair(
    planned: PlannedGame,
    entries: dict[int, Entry],
    seen: set[int],
    round_number: int,
    where: str,
) -> tuple[Entry, Entry | None]:
    """The two entries of a planned game (second None for a bye), refused when a number is
    not the division's, a player is paired twice in the round (``seen`` collects them), is
    withdrawn, or meets themself."""
    for n in (planned.first, planned.second):
        if n == 0:
            continue
        if n not in entries:
            raise ServiceError("unknown_player", where=where, number=n, count=len(entries))
        if n in seen:
            raise ServiceError("player_paired_twice", where=where, number=n)
        seen.add(n)
        check_active(entries[n], round_number, where)
    a = entries[planned.first]
    b = entries.get(planned.second) if planned.second else None
    if b is not None and a.pk == b.pk:
        raise ServiceError("self_pairing", where=where, number=a.number)
    return a, b


def lock_division(division: Division) -> None:
    """Serialise every writer of this division's pairings until the transaction ends.

    Two directors (or a director and a ``pair`` command) pairing one round at once would each
    see it unpaired and both store games; the loser then met the database's unique indexes
    as an IntegrityError. Locking the division's row first (it exists in every case, unlike
    the round) makes the second writer wait, and everything it reads afterwards is what the
    first one committed, so it refuses cleanly (already paired, has results). On SQLite the
    IMMEDIATE transaction already holds the database's one write lock; this is then a no-op.
    Callers re-read the round's state after this call, never before.
    """
    Division.objects.select_for_update().filter(pk=division.pk).values_list("pk").first()


@transaction.atomic
def set_pairing(
    division: Division,
    round_number: int,
    first: int,
    second: int,
    *,
    board: int | None = None,
    actor: Actor | str | None = None,
    replace: bool = False,
    first_known: bool = True,
) -> Game:
    """Pair two players (second = 0: a bye) by hand in a round.

    With replace=True the players' unscored games of that round are removed first (their other
    opponents are left unpaired for the director to re-pair); scored games are never replaced.
    """
    require(actor, "direct", division.tournament, what=gettext_noop("change pairings"))
    round_number = as_int(round_number, "round", field="round")
    where = f"division {division.name} round {round_number}"
    lock_division(division)
    a = entry_by_number(division, first, f"{where}: ")
    opponent = as_int(second, f"{where}: opponent", field="opponent")
    b = entry_by_number(division, second, f"{where}: ", field="opponent") if opponent != 0 else None
    if b is not None and a.pk == b.pk:
        raise ServiceError("self_pairing", field="opponent", where=where, number=a.number)
    for e in (a, b):
        if e is not None:
            check_active(e, round_number, where)
    rnd = round_row(division, round_number, create=True)
    for e in (a, b):
        if e is None:
            continue
        # locked too: a result being entered for this game is waited for, then seen
        existing = Game.objects.select_for_update().filter(round=rnd).filter(plays(e)).first()
        if existing is None:
            continue
        if existing.has_result:
            raise ServiceError("player_has_result", where=where, number=e.number, name=e.name)
        if not replace:
            raise ServiceError("player_already_paired", where=where, number=e.number, name=e.name)
        audit(
            division.tournament,
            actor,
            "unpair",
            existing,
            f"removed {existing}",
            before=game_snapshot(existing),
        )
        existing.delete()
    game = Game(
        round=rnd,
        board=board,
        player1=a,
        player2=b,
        first=(First.PLAYER1 if first_known else First.UNKNOWN) if b else First.NONE,
        explanation="manual pairing",
    )
    if b is None:
        game.explanation = "bye (manual)"
    try:
        with transaction.atomic():
            game.save()
    except IntegrityError as exc:  # the database's last word on double booking
        raise ServiceError("pairing_refused", where=where, detail=str(exc)) from exc
    audit(division.tournament, actor, "pair", game, str(game), after=game_snapshot(game))
    return game


@transaction.atomic
def save_round_pairings(
    division: Division,
    round_number: int,
    games: list[PlannedGame],
    *,
    system: str = "",
    actor: Actor | str | None = None,
    force: bool = False,
) -> Round:
    """Store a whole round's pairings (from the engine or a file) in one go.

    A round with results is never overwritten; one with pairings only with force=True.
    Withdrawn players get their forfeit for the round here, as TSH records it.
    """
    require(actor, "direct", division.tournament, what=gettext_noop("pair rounds"))
    round_number = as_int(round_number, "round", field="round")
    where = f"division {division.name} round {round_number}"
    lock_division(division)
    rnd = round_row(division, round_number, create=True)
    # The games' rows are locked as they are read: a result committed meanwhile (results lock
    # the game, not the division) is seen here, and never deleted by a forced re-pairing.
    existing = list(rnd.games.select_for_update())
    # Byes carry their score from the moment they are paired; a played game's score and a
    # recorded forfeit (one side or both, stored as single games naming the opponent) are
    # results that re-pairing would destroy.
    if any((g.has_result and g.player2_id) or forfeit_opponent(g) for g in existing):
        raise ServiceError("round_has_results", field="round", where=where)
    if existing and not force:
        raise ServiceError("round_already_paired", field="round", where=where)
    if existing:
        audit(
            division.tournament,
            actor,
            "unpair_round",
            rnd,
            f"removed {len(existing)} games",
            before=[game_snapshot(g) for g in existing],
        )
        rnd.games.all().delete()
    entries = {e.number: e for e in division.entries.select_related("player")}
    seen: set[int] = set()
    tournament = division.tournament
    for planned in games:
        a, b = _checked_pair(planned, entries, seen, round_number, where)
        first = (First.PLAYER1 if planned.first_known else First.UNKNOWN) if b else First.NONE
        Game(
            round=rnd,
            board=planned.board,
            player1=a,
            player2=b,
            first=first,
            score1=None if b else tournament.bye_spread,
            explanation=planned.explanation[:200],
        ).save()
    for e in entries.values():
        if (
            e.withdrawn_round is not None
            and round_number >= e.withdrawn_round
            and e.number not in seen
        ):
            score = (
                e.withdrawal_score if e.withdrawal_score is not None else tournament.forfeit_spread
            )
            Game(
                round=rnd, player1=e, score1=score, first=First.NONE, explanation="withdrawn"
            ).save()
    rnd.system = system
    rnd.paired_at = timezone.now()
    rnd.save(update_fields=["system", "paired_at"])
    audit(
        tournament,
        actor,
        "pair_round",
        rnd,
        f"{where}: {len(games)} games ({system or 'manual'})",
        after=[game_snapshot(g) for g in rnd.games.select_related("round", "player1", "player2")],
    )
    return rnd


@transaction.atomic
def delete_round_pairings(
    division: Division, round_number: int, *, actor: Actor | str | None = None
) -> int:
    """Remove a round's pairings; refused once any game of it has a result."""
    require(actor, "direct", division.tournament, what=gettext_noop("delete pairings"))
    round_number = as_int(round_number, "round", field="round")
    where = f"division {division.name} round {round_number}"
    lock_division(division)
    rnd = round_row(division, round_number)
    if rnd is None or not list(rnd.games.select_for_update().values_list("pk")):
        raise ServiceError("no_pairings", field="round", where=where)
    if rnd.games.filter(player2__isnull=False, score1__isnull=False).exists():
        raise ServiceError("results_block_unpairing", field="round", where=where)
    snapshot = [game_snapshot(g) for g in rnd.games.select_related("round", "player1", "player2")]
    count = rnd.games.count()
    rnd.delete()
    audit(
        division.tournament,
        actor,
        "delete_pairings",
        None,
        f"{where}: {count} games",
        before=snapshot,
    )
    return count


def is_scored(game: Game) -> bool:
    """A game a re-pairing keeps exactly: a played game with its scores, a forfeit (one side or
    both), a bye, a withdrawn player's forfeit. Only an unscored game between two players may
    be changed in a round in play."""
    return game.player2_id is None or game.score1 is not None


def scored_units(games: list[Game]) -> list[tuple[int | None, int, int]]:
    """The scored games of a round as (board, player, opponent), a bye's opponent 0.

    A forfeit's two single rows are one unit between its two players; a withdrawn player's
    forfeit (naming nobody) is left out: the player is not in any new pairing anyway.
    """
    units: list[tuple[int | None, int, int]] = []
    seen: set[int] = set()
    for g in games:
        if not is_scored(g) or g.player1.number in seen:
            continue
        if g.player2_id is not None:
            a, b = g.player1.number, g.player2.number
        else:
            opponent = forfeit_opponent(g)
            if opponent is None and g.explanation == "withdrawn":
                continue
            a, b = g.player1.number, opponent or 0
        seen.update({a, b})
        units.append((g.board, a, b))
    return units


@transaction.atomic
def replace_unscored_pairings(
    division: Division,
    round_number: int,
    games: list[PlannedGame],
    *,
    system: str = "",
    actor: Actor | str | None = None,
) -> Round:
    """Change a round in play: its unscored games become ``games``, scored ones stay exactly.

    As TSH's ``pair`` at any time: a wrong table, a late arrival given the bye player's game, a
    bye added or removed. ``games`` pair only players without a played or forfeited game this
    round (refused with ``pairing_changes_scored_game``); a bye's player named in ``games``
    gives the bye up. New games take the
    boards the removed games freed, in order, then boards after the last one, so no board
    number names two games. One audit event, with the round before and after.
    """
    require(actor, "direct", division.tournament, what=gettext_noop("change pairings"))
    round_number = as_int(round_number, "round", field="round")
    where = f"division {division.name} round {round_number}"
    lock_division(division)
    rnd = round_row(division, round_number)
    existing = (
        list(rnd.games.select_for_update(of=("self",)).select_related("player1", "player2"))
        if rnd is not None
        else []
    )
    if not existing:
        raise ServiceError("no_pairings", field="round", where=where)
    # A bye (or a late entry's missed round) is a pairing, not a result: a player it names
    # who is paired again here gives it up, as a late arrival takes the bye player's game.
    named = {n for planned in games for n in (planned.first, planned.second) if n}
    released = [
        g
        for g in existing
        if g.player2_id is None
        and forfeit_opponent(g) is None
        and g.explanation != "withdrawn"
        and g.player1.number in named
    ]
    kept = [g for g in existing if is_scored(g) and g not in released]
    locked: dict[int, Game] = {}
    for g in kept:
        for e in (g.player1, g.player2):
            if e is not None:
                locked[e.number] = g
    for planned in games:
        for n in (planned.first, planned.second):
            if n and n in locked:
                g = locked[n]
                raise ServiceError(
                    "pairing_changes_scored_game",
                    field="games",
                    where=where,
                    board=g.board or "-",
                    player1=g.player1.number,
                    player2=g.player2.number if g.player2_id else forfeit_opponent(g) or 0,
                )
    before = [game_snapshot(g) for g in existing]
    # an unscored game the new round has unchanged keeps its row (and its board, its cards)
    same = {
        (g.player1.number, g.player2.number): g
        for g in existing
        if g.player2_id and not is_scored(g)
    }
    unchanged = [same[(p.first, p.second)] for p in games if (p.first, p.second) in same]
    games = [p for p in games if (p.first, p.second) not in same]
    removed = [g for g in existing if (not is_scored(g) or g in released) and g not in unchanged]
    free = sorted(g.board for g in removed if g.board is not None)
    top = max((g.board or 0 for g in existing), default=0)
    Game.objects.filter(pk__in=[g.pk for g in removed]).delete()
    entries = {e.number: e for e in division.entries.select_related("player")}
    tournament = division.tournament
    seen: set[int] = {n for g in unchanged for n in (g.player1.number, g.player2.number)}
    for planned in games:
        a, b = _checked_pair(planned, entries, seen, round_number, where)
        board = None
        if b is not None:
            if free:
                board = free.pop(0)
            else:
                top += 1
                board = top
        first = (First.PLAYER1 if planned.first_known else First.UNKNOWN) if b else First.NONE
        Game(
            round=rnd,
            board=board,
            player1=a,
            player2=b,
            first=first,
            score1=None if b else tournament.bye_spread,
            explanation=planned.explanation[:200],
        ).save()
    if system:
        rnd.system = system
    rnd.paired_at = timezone.now()
    rnd.save(update_fields=["system", "paired_at"])
    after = [game_snapshot(g) for g in rnd.games.select_related("round", "player1", "player2")]
    audit(
        tournament,
        actor,
        "repair_unscored",
        rnd,
        f"{where}: {len(removed)} unscored games replaced by {len(games)}, {len(kept)} scored kept",
        before=before,
        after=after,
    )
    return rnd
