"""Results: recording a game once, and corrections with a reason."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.db.models import Q

from tournament.checks import (
    as_int,
    entry_by_number,
    forfeit_opponent,
    plays,
    validate_bye_score,
    validate_played_scores,
)
from tournament.errors import ServiceError
from tournament.services.games import game_snapshot

from ..access import require
from ..models import (
    Division,
    Entry,
    First,
    Game,
    PendingResult,
)
from ..scoreline import BOARD, FORFEIT, PAIR, ScoreLine, ScoreLineError, parse_score_line
from .audit import Actor, audit


def _find_game(division: Division, round_number: int, entry: Entry, where: str) -> Game:
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


@transaction.atomic
def record_result(
    division: Division,
    round_number: int,
    player_number: int,
    score: Any,
    opp_score: Any = None,
    *,
    actor: Actor | str | None = None,
) -> Game:
    """Record a game's result from one player's side (their score first)."""
    require(actor, "keep_score", division.tournament, what="record results")
    round_number = as_int(round_number, "round", field="round")
    where = f"division {division.name} round {round_number}"
    entry = entry_by_number(division, player_number, f"{where}: ")
    game = _find_game(division, round_number, entry, where)
    return _record_scores(division, game, entry, score, opp_score, actor=actor, where=where)


def _record_scores(
    division: Division,
    game: Game,
    entry: Entry,
    score: Any,
    opp_score: Any,
    *,
    actor: Actor | str | None,
    where: str,
) -> Game:
    """Record ``game``'s result, ``entry``'s score first: the write behind ``record_result``,
    for a caller that has checked ``keep_score`` and found the game already (the console's
    line: its game is found once, not twice). Runs in the caller's transaction."""
    _lock_scores(game)
    if game.player2_id is None:
        value = validate_bye_score(score, where)
        if game.has_result and game.score1 != value:
            raise ServiceError(
                "bye_already_recorded", where=where, number=entry.number, score=game.score1
            )
        game.score1 = value
        game.save(update_fields=["score1"])
    else:
        if game.has_result:
            raise _already_recorded(game)
        if opp_score is None:
            raise ServiceError("both_scores_needed", field="opp_score", where=where)
        mine, theirs = validate_played_scores(score, opp_score, where)
        if game.player1_id == entry.pk:
            game.score1, game.score2 = mine, theirs
        else:
            game.score1, game.score2 = theirs, mine
        game.save(update_fields=["score1", "score2"])
        _supersede_self_reports(game)
    audit(
        division.tournament,
        actor,
        "record_result",
        game,
        f"{where}: {game} {game.score1}-{game.score2}",
        after=game_snapshot(game),
    )
    return game


@transaction.atomic
def correct_result(
    game: Game,
    score1: Any,
    score2: Any = None,
    *,
    reason: str,
    actor: Actor | str | None = None,
    seen: str | None = None,
    seen_by: Entry | None = None,
) -> Game:
    """Change a recorded result; a reason is required so the audit trail explains itself.

    The game's row is locked and read again first: two corrections of one game at once are
    applied one after the other, each audited with the scores it really replaced. ``seen`` is
    the result the corrector was looking at, in the game's order (``"412 389"``, see
    ``seen_result``): when the game holds something else now, someone changed it meanwhile and
    the correction is refused (``result_changed_meanwhile``) instead of silently undoing theirs.
    """
    require(actor, "keep_score", game.round.division.tournament, what="correct results")
    where = f"division {game.round.division.name} round {game.round.number}"
    if not reason or not reason.strip():
        raise ServiceError("reason_needed", field="reason", where=where)
    _lock_scores(game)
    if seen is not None:
        me = seen_by or game.player1
        other = game.player2 if me.pk == game.player1_id else game.player1
        _check_seen([game], me, other, seen, where)
    before = game_snapshot(game)
    if game.player2_id is None:
        game.score1 = validate_bye_score(score1, where)
    else:
        game.score1, game.score2 = validate_played_scores(score1, score2, where)
    game.save(update_fields=["score1", "score2"])
    audit(
        game.round.division.tournament,
        actor,
        "correct_result",
        game,
        f"{where}: {game}",
        before=before,
        after=game_snapshot(game),
        reason=reason.strip(),
    )
    return game


def correct_player_result(
    division: Division,
    round_number: int,
    player_number: int,
    score: Any,
    opp_score: Any = None,
    *,
    reason: str,
    actor: Actor | str | None = None,
    seen: str | None = None,
) -> Game:
    """Correct a recorded result named the way a scorecard reads: this player's score first.

    ``seen`` is the result the caller last read, this player's score first (``seen_result``).

    Directors at a venue fix a mistyped score from the same command they entered it with;
    the game is found and the scores turned to its own order, then ``correct_result`` checks
    and audits the change with its reason.
    """
    require(actor, "keep_score", division.tournament, what="correct results")
    round_number = as_int(round_number, "round", field="round")
    where = f"division {division.name} round {round_number}"
    entry = entry_by_number(division, player_number, f"{where}: ")
    game = _find_game(division, round_number, entry, where)
    if game.player2_id is None and forfeit_opponent(game) is not None:
        # a forfeit (one side or both) is stored as two single games: scores make them one
        # played game between the same two players again, never a bye with a score
        games = change_result(
            division,
            round_number,
            player_number,
            SCORES,
            score,
            opp_score,
            reason=reason,
            actor=actor,
            seen=seen,
        )
        return games[0]
    if not game.has_result:
        raise ServiceError("no_result_to_correct", where=where, number=entry.number)
    if game.player2_id is None or game.player1_id == entry.pk:
        return correct_result(
            game, score, opp_score, reason=reason, actor=actor, seen=seen, seen_by=entry
        )
    if opp_score is None:
        raise ServiceError("both_scores_needed", field="opp_score", where=where)
    return correct_result(
        game, opp_score, score, reason=reason, actor=actor, seen=seen, seen_by=entry
    )


# --------------------------------------------------------------------------- console entry
# The director's console types one line a game (tournament.scoreline); these turn a line into
# its game, record it (or, with double entry, keep it as a card until a second card agrees),
# and record forfeits of paired games.


def _lock_scores(game: Game) -> None:
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


def _check_seen(
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


def _supersede_self_reports(game: Game) -> None:
    """A recorded result wins over players' own reports still open on the game (self-entry,
    tournament.services.selfentry): they become superseded, so nobody is asked to confirm
    them any more. Reports the recording player just confirmed are already confirmed."""
    PendingResult.objects.filter(
        game=game,
        source=PendingResult.Source.PLAYER,
        status__in=[PendingResult.Status.PENDING, PendingResult.Status.DISPUTED],
    ).update(status=PendingResult.Status.SUPERSEDED)


def _already_recorded(game: Game) -> ServiceError:
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


@dataclass(frozen=True)
class LineTarget:
    """The game a typed line names, with the line's scores turned to the game's own order."""

    game: Game
    line: ScoreLine
    score1: int | None
    score2: int | None
    entry: Entry | None  # the player named on the line; None for a board line


def _read_line(line: str | ScoreLine, where: str) -> ScoreLine:
    if isinstance(line, ScoreLine):
        return line
    try:
        return parse_score_line(line)
    except ScoreLineError as exc:
        if exc.code == "score_out_of_range":
            raise ServiceError(
                "score_out_of_range",
                exc.message,
                field="line",
                where=where,
                who="score",
                value=exc.params.get("score"),
                maximum=1500,
            ) from exc
        raise ServiceError("bad_line", field="line", message=exc.message) from exc


def _line_entry(division: Division, number: int, where: str) -> Entry:
    entry = division.entries.select_related("player").filter(number=number).first()
    if entry is None:
        raise ServiceError(
            "unknown_player",
            field="line",
            where=where,
            number=number,
            count=division.entries.count(),
        )
    return entry


def _single_what(game: Game) -> str:
    if game.score1 is not None and game.score1 < 0:
        return f"forfeit ({game.score1})"
    if game.score1:
        return f"bye (+{game.score1})"
    return "bye"


def _boards(numbers: list[int]) -> str:
    if not numbers:
        return "none numbered"
    if numbers == list(range(numbers[0], numbers[-1] + 1)):
        return f"{numbers[0]}-{numbers[-1]}"
    return ", ".join(map(str, numbers))


def _board_target(games: Any, line: ScoreLine, round_number: int, paired: Any) -> LineTarget:
    """The game on the line's board (``board 5: 412 389``), or the refusal: a bye or forfeit
    on that board, or no such board this round (``paired`` refuses an unpaired round)."""
    on_board = list(games.filter(board=line.board))
    if not on_board:
        paired()
    game = next((g for g in on_board if g.player2_id), None)
    if game is None and on_board:
        single = on_board[0]
        raise ServiceError(
            "not_a_game",
            field="line",
            round=round_number,
            number=single.player1.number,
            name=single.player1.name,
            what=_single_what(single),
        )
    if game is None:
        numbers = sorted({b for b in games.values_list("board", flat=True) if b is not None})
        raise ServiceError(
            "unknown_board",
            field="line",
            round=round_number,
            board=line.board,
            boards=_boards(numbers),
        )
    # The first score is the listed-first player's: the one who starts (as printed on
    # the pairings sheet and scorecards), else player1 when who starts is not settled.
    if game.starts_reversed:
        return LineTarget(game, line, line.opp_score, line.score, None)
    return LineTarget(game, line, line.score, line.opp_score, None)


def resolve_line(division: Division, round_number: int, line: str | ScoreLine) -> LineTarget:
    """Find the game a typed line names in this round, or refuse saying what does not fit.

    Refusals (each a ServiceError at field ``line``): the line cannot be read (bad_line,
    score_out_of_range), the round is not paired, no such player or board, the player is not
    paired this round or has a bye/forfeit, or ``3 412 17 389`` names two players who do not
    play each other (the usual sign of a mistyped number). Nothing is written.
    """
    round_number = as_int(round_number, "round")
    where = f"division {division.name} round {round_number}"
    line = _read_line(line, where)
    games = Game.objects.select_related("round", "player1__player", "player2__player").filter(
        round__division=division, round__number=round_number
    )

    def paired() -> None:
        # asked only when the line's game is not found: a found game answers it
        if not games.exists():
            raise ServiceError(
                "round_not_paired", field="line", division=division.name, round=round_number
            )

    if line.kind == "board":
        return _board_target(games, line, round_number, paired)
    # the player's game of the round, and the player with it: one query (a player sits once
    # a round); the refusals' order is kept when it is not found
    game = games.filter(Q(player1__number=line.player) | Q(player2__number=line.player)).first()
    if game is None:
        paired()
        entry = _line_entry(division, line.player, where)
        raise ServiceError(
            "not_paired", field="line", round=round_number, number=entry.number, name=entry.name
        )
    entry = game.player1 if game.player1.number == line.player else game.player2
    if game.player2_id is None:
        raise ServiceError(
            "not_a_game",
            field="line",
            round=round_number,
            number=entry.number,
            name=entry.name,
            what=_single_what(game),
        )
    if line.kind == "pair":
        actual = game.player2 if game.player1_id == entry.pk else game.player1
        if actual.number != line.opponent:
            opponent = _line_entry(division, line.opponent, where)  # unknown_player first
            raise ServiceError(
                "not_opponents",
                field="line",
                round=round_number,
                number=entry.number,
                name=entry.name,
                actual=f"#{actual.number} {actual.name}",
                opponent=opponent.number,
            )
    if line.kind == FORFEIT:
        return LineTarget(game, line, None, None, entry)
    if game.player1_id == entry.pk:
        return LineTarget(game, line, line.score, line.opp_score, entry)
    return LineTarget(game, line, line.opp_score, line.score, entry)


@transaction.atomic
def record_forfeit(
    division: Division,
    round_number: int,
    player_number: Any,
    *,
    actor: Actor | str | None = None,
) -> tuple[Game, Game]:
    """Player ``player_number`` forfeits their paired game: the opponent wins by the forfeit.

    How it is stored (docs/rules.md: "a forfeit loss is a bye with a negative score", and
    "byes and forfeits are never rated"; TSH records a forfeit of a paired game the same way,
    both players re-paired against 0): the game becomes the forfeiting player's forfeit,
    scored the tournament's forfeit spread (-50 in NASPA), and the opponent gets a game of
    their own scored +abs(forfeit spread), a win. Both keep the board number. So the
    standings are right (a loss at -50, a win at +50), while the ratings, starts/replies and
    score-based prizes (high loss, average score) never see a 50-0 "game" that was not
    played, which storing it as a played game with scores 0 and 50 would make them do.
    Returns (the forfeit, the opponent's win).
    """
    require(actor, "keep_score", division.tournament, what="record forfeits")
    round_number = as_int(round_number, "round")
    target = resolve_line(
        division, round_number, ScoreLine(FORFEIT, player=as_int(player_number, "player"))
    )
    return _record_forfeit(division, target, actor=actor)


def _record_forfeit(
    division: Division, target: LineTarget, *, actor: Actor | str | None
) -> tuple[Game, Game]:
    """The write behind ``record_forfeit`` for a caller that has checked ``keep_score`` and
    resolved the line already (the console's line). Runs in the caller's transaction."""
    game, entry = target.game, target.entry
    assert entry is not None
    where = f"division {division.name} round {game.round.number}"
    _lock_scores(game)
    if game.has_result:
        raise _already_recorded(game)
    spread = abs(division.tournament.forfeit_spread)
    if spread == 0:
        raise ServiceError("forfeit_spread_zero", field="line")
    opponent = game.player2 if game.player1_id == entry.pk else game.player1
    before = game_snapshot(game)
    game.player1, game.player2 = entry, None
    game.score1, game.score2 = -spread, None
    game.first = First.NONE
    game.explanation = f"forfeit: did not play #{opponent.number}"
    game.save()
    _supersede_self_reports(game)
    win = Game(
        round=game.round,
        board=game.board,
        player1=opponent,
        score1=spread,
        first=First.NONE,
        explanation=f"forfeit win: #{entry.number} did not play",
    )
    win.save()
    audit(
        division.tournament,
        actor,
        "record_forfeit",
        game,
        f"{where}: #{entry.number} {entry.name} forfeits to #{opponent.number} "
        f"{opponent.name} ({spread})",
        before=before,
        after=[game_snapshot(game), game_snapshot(win)],
    )
    return game, win


@dataclass(frozen=True)
class CardOutcome:
    """One double-entry card: ``status`` is the card's (pending, confirmed or disputed), or
    ``held`` for a card kept pending because the same person typed the game's other card."""

    status: str
    game: Game
    card: PendingResult
    cards: list[PendingResult]  # the game's cards this one was compared with


def _card_line(line_or_scores: tuple[Any, ...]) -> str | ScoreLine:
    if len(line_or_scores) == 1 and isinstance(line_or_scores[0], (str, ScoreLine)):
        return line_or_scores[0]
    return " ".join(str(part) for part in line_or_scores)


@transaction.atomic
def report_card(
    division: Division,
    round_number: int,
    *line_or_scores: Any,
    actor: Actor | str | None = None,
) -> CardOutcome:
    """Double entry: keep one typed card (a line, or player, score, opponent's score).

    Each card is a PendingResult in the game's own score order. The first card of a game
    waits; when the second agrees the game is recorded through ``record_result`` and both
    cards are confirmed; when it disagrees both are disputed, nothing is recorded, and a
    director settles it with ``resolve_dispute``. Any further card of a disputed game joins
    the dispute. A forfeit is not a card (refused): a director records it directly.

    Two cards check each other only when two different people typed them: a card from the
    person who typed the game's waiting card is held (kept pending, nothing recorded, nothing
    compared), since one person copying one scorecard twice repeats their own misreading. A
    director overrides by recording the game from the held cards (``resolve_dispute``).
    """
    require(actor, "keep_score", division.tournament, what="enter scorecards")
    round_number = as_int(round_number, "round")
    target = resolve_line(division, round_number, _card_line(line_or_scores))
    if target.line.kind == FORFEIT:
        raise ServiceError("card_needs_scores", field="line")
    game = target.game
    _lock_scores(game)
    if game.has_result:
        raise _already_recorded(game)
    who = Actor.of(actor)
    scores = (target.score1, target.score2)
    Status = PendingResult.Status
    open_cards = list(
        PendingResult.objects.select_for_update().filter(
            game=game,
            source=PendingResult.Source.CONSOLE,
            status__in=[Status.PENDING, Status.DISPUTED],
        )
    )
    card = PendingResult(
        game=game,
        score1=target.score1,
        score2=target.score2,
        source=PendingResult.Source.CONSOLE,
        user=who.user if getattr(who.user, "pk", None) else None,
        actor=who.name[:100],
    )
    held = bool(open_cards) and any(_same_person(c, card) for c in open_cards)
    if not open_cards or held:
        card.status = Status.PENDING
    elif all(c.status == Status.PENDING for c in open_cards) and all(
        (c.score1, c.score2) == scores for c in open_cards
    ):
        card.status = Status.CONFIRMED
        record_result(division, round_number, game.player1.number, *scores, actor=actor)
        game.score1, game.score2 = scores
    else:
        card.status = Status.DISPUTED
    card.save()
    for other in open_cards:
        if other.status != card.status:
            other.status = card.status
            other.save(update_fields=["status"])
    audit(
        division.tournament,
        actor,
        "report_card",
        card,
        f"division {division.name} round {round_number}: card {scores[0]}-{scores[1]} for "
        f"{game} ({'held: the same person typed it twice' if held else card.status})",
        after={
            "game": game.pk,
            "score1": scores[0],
            "score2": scores[1],
            "status": card.status,
            "held": held,
        },
    )
    return CardOutcome("held" if held else card.status, game, card, open_cards)


def _same_person(one: PendingResult, other: PendingResult) -> bool:
    """Whether two cards were typed by one person: the same account, else the same name."""
    if one.user_id is not None or other.user_id is not None:
        return one.user_id == other.user_id
    return bool(one.actor) and one.actor == other.actor


@transaction.atomic
def resolve_dispute(
    game: Game, score1: Any, score2: Any, *, actor: Actor | str | None = None
) -> Game:
    """A director records a game whose double-entry cards disagree (scores in game order).

    The game is recorded through ``record_result``; the cards that agree with it become
    confirmed, the others superseded, so the dispute list empties and the trail keeps both.
    """
    require(actor, "direct", game.round.division.tournament, what="settle disputed cards")
    division = game.round.division
    _lock_scores(game)
    if game.has_result:
        raise _already_recorded(game)
    Status = PendingResult.Status
    cards = list(
        PendingResult.objects.select_for_update().filter(
            game=game, status__in=[Status.PENDING, Status.DISPUTED]
        )
    )
    if not cards:
        raise ServiceError(
            "no_dispute",
            player1=game.player1.number,
            player2=game.player2.number if game.player2_id else 0,
        )
    before = [
        {"id": c.pk, "score1": c.score1, "score2": c.score2, "status": c.status} for c in cards
    ]
    game = record_result(
        division, game.round.number, game.player1.number, score1, score2, actor=actor
    )
    for c in cards:
        agrees = (c.score1, c.score2) == (game.score1, game.score2)
        c.status = Status.CONFIRMED if agrees else Status.SUPERSEDED
        c.save(update_fields=["status"])
    audit(
        division.tournament,
        actor,
        "resolve_dispute",
        game,
        f"division {division.name} round {game.round.number}: {game} recorded "
        f"{game.score1}-{game.score2} over {len(cards)} disputed card(s)",
        before=before,
        after=game_snapshot(game),
    )
    return game


@transaction.atomic
def set_double_entry(division: Division, on: bool, actor: Actor | str | None = None) -> Division:
    """Turn double entry on or off for a division (``division.config["double_entry"]``).

    With it on, each result typed in the console is a card and a game is recorded only when
    two cards agree. Cards already typed stay as they are when it is turned off.
    """
    require(actor, "direct", division.tournament, what="change double entry")
    before = double_entry(division)
    config = dict(division.config or {})
    config["double_entry"] = bool(on)
    division.config = config
    division.save(update_fields=["config"])
    audit(
        division.tournament,
        actor,
        "set_double_entry",
        division,
        f"division {division.name}: double entry {'on' if on else 'off'}",
        before={"double_entry": before},
        after={"double_entry": bool(on)},
    )
    return division


@dataclass(frozen=True)
class Entered:
    """What one typed line did: ``kind`` is recorded, forfeit, pending, confirmed or disputed.

    ``correction``: the line carried a reason (``LINE: REASON``), so it changed a game's result
    whatever it held; the console then names the rounds paired from the old result."""

    line: ScoreLine
    kind: str
    games: tuple[Game, ...]
    correction: bool = False


def enter_line(
    division: Division,
    round_number: int,
    text: str | ScoreLine,
    *,
    actor: Actor | str | None = None,
    seen: dict[int, str] | None = None,
) -> Entered:
    """The console's Enter: read the line, find its game and record it (or keep it as a card).

    ``seen`` is the round as the page showed it (``round_seen``): a correction line is
    refused when its game holds something else now.

    Everything is checked before anything is written (resolve_line), so a refused line leaves
    no trace. A played game is recorded through ``record_result`` (which locks the game and
    checks again, for two people typing at once); ``3 f`` through ``record_forfeit``, also
    with double entry on (a forfeit is a director's call, not a score to compare); with double
    entry on, a played game's line becomes a card (``report_card``).
    """
    require(actor, "keep_score", division.tournament, what="record results")
    stated = _state_line(division, round_number, text, actor, seen)
    if stated is not None:
        return stated
    target = resolve_line(division, round_number, text)
    line, game = target.line, target.game
    if game.has_result:
        raise _already_recorded(game)
    if line.kind == FORFEIT:
        with transaction.atomic():
            games = _record_forfeit(division, target, actor=actor)
        return Entered(line, "forfeit", games)
    if double_entry(division):
        outcome = report_card(division, round_number, line, actor=actor)
        return Entered(line, outcome.status, (outcome.game,))
    # the game the line found is recorded as it is (its scores in the game's order, player1's
    # first): keep_score was checked above, the game is locked and read again in the write
    where = f"division {division.name} round {game.round.number}"
    with transaction.atomic():
        game = _record_scores(
            division, game, game.player1, target.score1, target.score2, actor=actor, where=where
        )
    return Entered(line, "recorded", (game,))


# --------------------------------------------------------------------------- result states
# A game between two players is in one of four states: unplayed, played (two scores), a
# forfeit by one side, or a double forfeit. A forfeit is stored as two single games (see
# record_forfeit), each naming the other player in its explanation; that is how the pair is
# found again, so any state can be turned into any other without changing who the game is
# between. A bye is a pairing, not a result: it changes only by re-pairing the round.

SCORES = "scores"
FORFEIT_STATE = "forfeit"
DOUBLE_FORFEIT = "double_forfeit"
CLEAR = "clear"
RESULT_STATES = (SCORES, FORFEIT_STATE, DOUBLE_FORFEIT, CLEAR)

_FORFEIT_LOSS = "forfeit: did not play #{}"
_FORFEIT_WIN = "forfeit win: #{} did not play"
_DOUBLE = "double forfeit: did not play #{}"


@dataclass
class _Between:
    """A game between two players as stored: one row, or the two single rows of a forfeit."""

    rows: list[Game]
    player: Entry
    opponent: Entry
    state: str  # unplayed, scores, forfeit, double_forfeit


def _between(division: Division, round_number: int, entry: Entry, where: str) -> _Between:
    game = _find_game(division, round_number, entry, where)
    if game.player2_id is not None:
        opponent = game.player2 if game.player1_id == entry.pk else game.player1
        state = SCORES if game.has_result else "unplayed"
        return _Between([game], entry, opponent, state)
    number = forfeit_opponent(game)
    other = None
    if number is not None:
        other = (
            Game.objects.select_related("round", "player1__player")
            .filter(round=game.round, player1__number=number, player2__isnull=True)
            .first()
        )
    if other is None or forfeit_opponent(other) != entry.number:
        raise ServiceError(
            "not_a_game",
            field="player",
            round=round_number,
            number=entry.number,
            name=entry.name,
            what=_single_what(game),
        )
    rows = sorted([game, other], key=lambda g: g.pk)
    both_lose = all((g.score1 or 0) < 0 for g in rows)
    return _Between(rows, entry, other.player1, DOUBLE_FORFEIT if both_lose else FORFEIT_STATE)


@transaction.atomic
def change_result(
    division: Division,
    round_number: int,
    player_number: Any,
    state: str,
    score: Any = None,
    opp_score: Any = None,
    *,
    reason: str = "",
    opponent: int | None = None,
    actor: Actor | str | None = None,
    seen: str | None = None,
) -> list[Game]:
    """Put a game between two players into any result state, from any state, audited once.

    ``state``: ``scores`` (this player's score first), ``forfeit`` (this player forfeits),
    ``double_forfeit`` (both lose by the forfeit spread) or ``clear`` (back to unplayed).
    A game that already has a result changes only with a reason (a correction); the two
    players stay the same whatever is stored. Returns the game's rows afterwards: one
    two-player game, or the two single games of a forfeit. ``seen`` (``seen_result``, this
    player's side) is what the caller looked at: a game changed since is refused, unchanged.
    """
    require(actor, "keep_score", division.tournament, what="change results")
    round_number = as_int(round_number, "round", field="round")
    where = f"division {division.name} round {round_number}"
    if state not in RESULT_STATES:
        raise ServiceError("unknown_result_state", field="state", where=where, state=state)
    entry = entry_by_number(division, player_number, f"{where}: ")
    between = _between(division, round_number, entry, where)
    if opponent is not None and between.opponent.number != opponent:
        actual = between.opponent
        raise ServiceError(
            "not_opponents",
            field="line",
            round=round_number,
            number=entry.number,
            name=entry.name,
            actual=f"#{actual.number} {actual.name}",
            opponent=opponent,
        )
    for row in between.rows:
        _lock_scores(row)
    if seen is not None:
        _check_seen(between.rows, between.player, between.opponent, seen, where)
    was_unplayed = between.state == "unplayed"
    reason = (reason or "").strip()
    if was_unplayed and state == CLEAR:
        raise ServiceError("no_result_to_correct", where=where, number=entry.number)
    if not was_unplayed and not reason:
        raise ServiceError("reason_needed", field="reason", where=where)
    player, opponent = between.player, between.opponent
    spread = abs(division.tournament.forfeit_spread)
    if state in (FORFEIT_STATE, DOUBLE_FORFEIT) and spread == 0:
        raise ServiceError("forfeit_spread_zero", field="state")
    mine = theirs = None
    if state == SCORES:
        if opp_score is None:
            raise ServiceError("both_scores_needed", field="opp_score", where=where)
        mine, theirs = validate_played_scores(score, opp_score, where)
    before = [game_snapshot(g) for g in between.rows]
    game, extra = between.rows[0], between.rows[1:]
    for row in extra:
        row.delete()
    if len(between.rows) == 2:
        # the forfeit's first row becomes the game between the two players again
        game.player1, game.player2 = player, opponent
        game.first = First.UNKNOWN
    game.score1 = game.score2 = None
    game.explanation = "" if len(between.rows) == 2 else game.explanation
    rows = [game]
    if state == SCORES:
        if game.player1_id == player.pk:
            game.score1, game.score2 = mine, theirs
        else:
            game.score1, game.score2 = theirs, mine
        game.save()
    elif state in (FORFEIT_STATE, DOUBLE_FORFEIT):
        if state == FORFEIT_STATE:
            loss, win = _FORFEIT_LOSS.format(opponent.number), _FORFEIT_WIN.format(player.number)
            other_score = spread
        else:
            loss, win = _DOUBLE.format(opponent.number), _DOUBLE.format(player.number)
            other_score = -spread
        game.player1, game.player2 = player, None
        game.score1, game.first, game.explanation = -spread, First.NONE, loss
        game.save()
        other = Game(
            round=game.round,
            board=game.board,
            player1=opponent,
            score1=other_score,
            first=First.NONE,
            explanation=win,
        )
        other.save()
        rows.append(other)
    else:
        game.save()
    if state != CLEAR:
        _supersede_self_reports(game)
    words = {
        SCORES: f"{player.number} {mine} - #{opponent.number} {theirs}",
        FORFEIT_STATE: f"{player.number} {player.name} forfeits to #{opponent.number} "
        f"{opponent.name} ({spread})",
        DOUBLE_FORFEIT: f"{player.number} {player.name} and #{opponent.number} {opponent.name}"
        f" both forfeit ({spread})",
        CLEAR: f"{player.number} v #{opponent.number} cleared back to unplayed",
    }
    if was_unplayed:
        action = {
            SCORES: "record_result",
            FORFEIT_STATE: "record_forfeit",
            DOUBLE_FORFEIT: "record_double_forfeit",
        }[state]
    else:
        action = "clear_result" if state == CLEAR else "correct_result"
    audit(
        division.tournament,
        actor,
        action,
        game,
        f"{where}: #{words[state]}",
        before=before,
        after=[game_snapshot(g) for g in rows],
        reason=reason,
    )
    return rows


_STATE_WORDS = {"f": FORFEIT_STATE, "forfeit": FORFEIT_STATE, "ff": DOUBLE_FORFEIT, "clear": CLEAR}


def _state_line(
    division: Division,
    round_number: int,
    text: str | ScoreLine,
    actor: Actor | str | None,
    seen: dict[int, str] | None = None,
) -> Entered | None:
    """The console's lines that set a game's state or correct it, else None (an ordinary line).

    ``3 ff``: a double forfeit. ``3 clear: REASON``: back to unplayed. Any line followed by
    ``: REASON`` is a correction to what the line says (``3 400 380: misread card``,
    ``3 f: wrong player``, ``3 ff: neither came``), from whatever the game holds now: a
    director types the fix the way the result was typed, with the reason after a colon.
    """
    if not isinstance(text, str):
        return None
    raw, colon, reason = text.partition(":")
    tokens = raw.lower().split()
    word = tokens[1] if len(tokens) == 2 and tokens[1] in _STATE_WORDS else None
    if not colon and word not in ("ff", "clear"):
        return None
    round_number = as_int(round_number, "round")
    where = f"division {division.name} round {round_number}"
    score = opp_score = opponent = None
    if word is not None:
        player = _line_entry(division, _read_number(tokens[0]), where).number
        state = _STATE_WORDS[word]
        line = ScoreLine(state, player=player, text=" ".join(raw.split()))
    else:
        line = _read_line(raw, where)
        if line.kind == FORFEIT:
            state, player = FORFEIT_STATE, line.player
        elif line.kind == BOARD:
            target = resolve_line(division, round_number, line)
            state, player = SCORES, target.game.player1.number
            score, opp_score = target.score1, target.score2
        else:
            state, player = SCORES, line.player
            score, opp_score = line.score, line.opp_score
            opponent = line.opponent if line.kind == PAIR else None
    rows = change_result(
        division,
        round_number,
        player,
        state,
        score,
        opp_score,
        reason=reason,
        opponent=opponent,
        actor=actor,
        seen=seen.get(player) if seen else None,
    )
    kind = {SCORES: "recorded", CLEAR: "cleared"}.get(state, state)
    if colon and state != CLEAR and reason.strip():
        kind = "corrected" if kind == "recorded" else kind
    return Entered(line, kind, tuple(rows), correction=bool(colon and reason.strip()))


def _read_number(token: str) -> int:
    if not (token.isascii() and token.isdigit()) or int(token) < 1:
        raise ServiceError(
            "bad_line", field="line", message=f"player number {token!r}: give a number from 1 up"
        )
    return int(token)
