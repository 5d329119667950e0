"""The checks every result write makes: the game a player plays in a round, its row locked and
read again (two people entering one game at once), the corrector's view not stale
(``seen_result``), a game that has its result refused, players' own reports superseded."""

from __future__ import annotations

from tournament.checks import forfeit_opponent, plays
from tournament.errors import ServiceError

from ..models import (
    Division,
    Entry,
    Game,
    PendingResult,
)


def find_game(division: Division, round_number: int, entry: Entry, where: str) -> Game:
    game = (
        Game.objects.select_related("round", "player1__player", "player2__player")
        .filter(round__division=division, round__number=round_number)
        .filter(plays(entry))
        .first()
    )
    if game is None:
        raise ServiceError(
            "player_not_paired", field="player", where=where, number=entry.number, name=entry.name
        )
    return game


def lock_scores(game: Game) -> None:
    """Lock the game's row for the rest of the transaction and read its result again.

    Two people entering one game at once: the second waits for the first's transaction and
    then sees its result, so the game is recorded once and nothing is lost. (SQLite's
    IMMEDIATE transactions serialise writers anyway; PostgreSQL needs the row lock.) The row
    is read alone: FOR UPDATE refuses the nullable side of an outer join (player2).
    """
    locked = Game.objects.select_for_update().filter(pk=game.pk).first()
    if locked is None or (locked.player1_id, locked.player2_id) != (
        game.player1_id,
        game.player2_id,
    ):
        raise ServiceError(
            "pairing_changed",
            field="line",
            round=game.round.number,
            player1=game.player1.number,
        )
    game.score1, game.score2 = locked.score1, locked.score2


UNPLAYED = "unplayed"


def seen_result(rows: list[Game], player: Entry | int) -> str:
    """What a game between two players holds, from ``player``'s side: ``"412 389"`` (their
    score first), ``"-50 50"`` for a forfeit (both rows' scores), or ``"unplayed"``.

    It is what a corrector saw: the console keeps it for each game of the round on the page
    and the API's clients send it back, so a correction made from a stale view is refused.
    """
    number = player if isinstance(player, int) else player.number
    if len(rows) == 1 and rows[0].player2_id is not None:
        game = rows[0]
        if not game.has_result:
            return UNPLAYED
        mine, theirs = game.score1, game.score2
        if game.player2.number == number:
            mine, theirs = theirs, mine
        return f"{mine} {theirs}"
    own = [g for g in rows if g.player1.number == number]
    other = [g for g in rows if g.player1.number != number]
    if not own:
        return UNPLAYED
    if not other:  # a bye (or a lone row): its one score
        return UNPLAYED if own[0].score1 is None else str(own[0].score1)
    return f"{own[0].score1} {other[0].score1}"


def round_seen(games: list[Game]) -> dict[int, str]:
    """Every player's ``seen_result`` for a round's games (the forfeit rows paired up)."""
    by_number = {g.player1.number: g for g in games if g.player2_id is None}
    seen: dict[int, str] = {}
    for g in games:
        if g.player2_id is not None:
            seen[g.player1.number] = seen_result([g], g.player1.number)
            seen[g.player2.number] = seen_result([g], g.player2.number)
            continue
        opponent = forfeit_opponent(g)
        other = by_number.get(opponent) if opponent is not None else None
        if other is not None:
            seen[g.player1.number] = seen_result([g, other], g.player1.number)
    return seen


def check_seen(
    rows: list[Game], player: Entry, opponent: Entry | None, seen: str, where: str
) -> None:
    """Refuse a correction whose view of the game is stale (read after the rows are locked)."""
    stored = seen_result(rows, player)
    if " ".join(seen.lower().split()) == stored:
        return
    raise ServiceError(
        "result_changed_meanwhile",
        field="line",
        where=where,
        number=player.number,
        name=player.name,
        opponent=opponent.number if opponent is not None else 0,
        opponent_name=opponent.name if opponent is not None else "(bye)",
        stored=stored,
        seen=seen,
    )


def supersede_self_reports(game: Game) -> None:
    """A recorded result wins over players' own reports still open on the game (self-entry,
    tournament.services.selfentry): they become superseded, so nobody is asked to confirm
    them any more. Reports the recording player just confirmed are already confirmed."""
    PendingResult.objects.filter(
        game=game,
        source=PendingResult.Source.PLAYER,
        status__in=[PendingResult.Status.PENDING, PendingResult.Status.DISPUTED],
    ).update(status=PendingResult.Status.SUPERSEDED)


def already_recorded(game: Game) -> ServiceError:
    """The refusal for a game that has its result, carrying the stored scores."""
    return ServiceError(
        "already_recorded",
        field="line",
        game=game.pk,
        player1=game.player1.number,
        player2=game.player2.number if game.player2_id else 0,
        score1=game.score1,
        score2=game.score2,
    )


def double_entry(division: Division) -> bool:
    """Whether the division takes two cards per game before recording (a director's choice)."""
    return bool((division.config or {}).get("double_entry"))
