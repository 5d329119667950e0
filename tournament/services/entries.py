"""Players and entries: registration, late entry, withdrawal."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from ..models import (
    Division,
    Entry,
    First,
    Game,
    Player,
)
from ._common import (
    _as_int,
    _plays,
    validate_bye_score,
)
from .audit import Actor, audit
from .errors import ServiceError


def find_or_create_player(name: str, *, naspa_id: str = "", **fields: Any) -> Player:
    """Reuse a player by federation id, else by exact name when exactly one has it.

    Ratings follow people across events, so the same person must be the same Player; an id is
    certain, a unique exact name is the best guess without one (and is what TSH files carry).
    """
    name = " ".join(name.split())
    if not name:
        raise ServiceError("player name must not be empty")
    if naspa_id:
        player = Player.objects.filter(naspa_id=naspa_id).first()
        if player:
            return player
        return Player.objects.create(name=name, naspa_id=naspa_id, **fields)
    same = list(Player.objects.filter(name=name)[:2])
    if len(same) == 1:
        return same[0]
    return Player.objects.create(name=name, **fields)



@transaction.atomic
def register_player(
    division: Division,
    *,
    name: str | None = None,
    player: Player | None = None,
    rating: int = 0,
    career_games: int | None = None,
    player_class: str = "",
    naspa_id: str = "",
    actor: Actor | str | None = None,
) -> Entry:
    """Add a player to a division, giving late entries the configured record for missed rounds."""
    if player is None:
        if not name:
            raise ServiceError(f"division {division.name}: a new entry needs a player or a name")
        player = find_or_create_player(name, naspa_id=naspa_id)
    if division.entries.filter(player=player).exists():
        raise ServiceError(f"division {division.name}: {player.name} is already registered")
    rating = _as_int(rating, f"{player.name}: rating")
    if rating < 0:
        raise ServiceError(f"{player.name}: rating {rating} must not be negative")
    number = (
        division.entries.order_by("-number").values_list("number", flat=True).first() or 0
    ) + 1
    entry = Entry.objects.create(
        division=division,
        player=player,
        number=number,
        seed_rating=rating,
        career_games=career_games,
        player_class=player_class,
    )
    tournament = division.tournament
    missed = list(division.round_set.filter(games__isnull=False).distinct().order_by("number"))
    if missed and tournament.late_entry != "none":
        score = tournament.forfeit_spread if tournament.late_entry == "forfeit" else 0
        for rnd in missed:
            Game.objects.create(
                round=rnd, player1=entry, score1=score, first=First.NONE, explanation="late entry"
            )
    audit(
        tournament,
        actor,
        "register",
        entry,
        f"{division.name} #{number} {player.name} ({rating})"
        + (
            f"; {len(missed)} missed round(s) recorded as {tournament.late_entry}" if missed else ""
        ),
        after={"number": number, "name": player.name, "rating": rating},
    )
    return entry


@transaction.atomic
def withdraw_player(
    entry: Entry,
    *,
    from_round: int,
    actor: Actor | str | None = None,
    score: int | None = None,
) -> Entry:
    """Withdraw a player from `from_round` on: later games become forfeits, opponents get byes.

    Directors asked for this (Woogles' "auto-forfeit when a player is removed mid-round"): the
    opponent of an unplayed pairing is not left stranded but scores a forfeit win.
    """
    division = entry.division
    tournament = division.tournament
    from_round = _as_int(from_round, f"withdraw {entry.name}: round")
    if from_round < 1:
        raise ServiceError(f"withdraw {entry.name}: round must be at least 1")
    forfeit = tournament.forfeit_spread if score is None else validate_bye_score(score, "withdraw")
    scored = (
        Game.objects.filter(
            round__division=division, round__number__gte=from_round, score1__isnull=False
        )
        .filter(_plays(entry))
        .exclude(player2__isnull=True)
        .select_related("round")
    )
    if scored.exists():
        r = scored.first().round.number
        raise ServiceError(
            f"withdraw {entry.name} from round {from_round}: round {r} already has a result for "
            "this player; correct or remove it first"
        )
    before = {"withdrawn_round": entry.withdrawn_round}
    for game in (
        Game.objects.filter(round__division=division, round__number__gte=from_round)
        .filter(_plays(entry))
        .select_related("round", "player1", "player2")
    ):
        if game.player2_id is None:
            game.score1 = forfeit
            game.explanation = "withdrawn"
            game.save()
            continue
        other = game.player2 if game.player1_id == entry.pk else game.player1
        game.player1, game.player2 = entry, None
        game.score1, game.score2, game.first = forfeit, None, First.NONE
        game.explanation = "withdrawn"
        game.save()
        Game.objects.create(
            round=game.round,
            board=game.board,
            player1=other,
            score1=tournament.bye_spread,
            first=First.NONE,
            explanation=f"forfeit win: #{entry.number} withdrew",
        )
    entry.withdrawn_round = from_round
    entry.withdrawal_score = forfeit
    entry.save(update_fields=["withdrawn_round", "withdrawal_score"])
    audit(
        tournament,
        actor,
        "withdraw",
        entry,
        f"{entry.name} withdrawn from round {from_round}",
        before=before,
        after={"withdrawn_round": from_round},
    )
    return entry


