"""Double entry: each typed result a card, a game recorded when two cards from two people
agree (``report_card``), a dispute settled by a director (``resolve_dispute``), the
division's choice (``set_double_entry``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.utils.translation import gettext_noop

from tournament.checks import as_int
from tournament.errors import ServiceError
from tournament.services.games import game_snapshot

from ..access import require
from ..models import (
    Division,
    Game,
    PendingResult,
)
from ..scoreline import FORFEIT, ScoreLine
from .audit import Actor, audit
from .result_checks import already_recorded, double_entry, lock_scores
from .result_lines import resolve_line
from .result_writes import record_result


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
    require(actor, "keep_score", division.tournament, what=gettext_noop("enter scorecards"))
    round_number = as_int(round_number, "round")
    target = resolve_line(division, round_number, _card_line(line_or_scores))
    if target.line.kind == FORFEIT:
        raise ServiceError("card_needs_scores", field="line")
    game = target.game
    lock_scores(game)
    if game.has_result:
        raise already_recorded(game)
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
    require(
        actor, "direct", game.round.division.tournament, what=gettext_noop("settle disputed cards")
    )
    division = game.round.division
    lock_scores(game)
    if game.has_result:
        raise already_recorded(game)
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
    require(actor, "direct", division.tournament, what=gettext_noop("change double entry"))
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
