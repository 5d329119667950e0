"""Game records: attach, replace and remove a game's GCG file; publish a round's records.

One door for every face (a player's self-entry link, the console, the API, ``manage.py gcg``):
the file is read by the pure parser (tournament.formats.gcg), whose running totals must add
up, then held against the game itself. Its two players must be the game's two entrants (full
names compared without accents, case or word order: "Cesar Del Solar" is "del Solar, César"),
and its final totals the game's recorded result. A refusal names the file's line, so a player
fixes the sheet rather than guessing.

Who may: the tournament's directors, or a player of that very game through their own
self-entry link (its token names the entry; see services.selfentry). A tournament that keeps
records private (``Tournament.records_private``) shows them publicly only once the director
publishes the round's records (``Round.records_published``).
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_noop

from ..access import require
from ..errors import Phrase, ServiceError, where_round
from ..formats.gcg import MAX_BYTES, GcgError, GcgGame, decode, parse_gcg
from ..models import Division, Entry, Game, GameRecord, Round, Tournament
from ..selectors.gcg import whole_number as _whole
from .audit import Actor, audit
from .selfentry import entry_for_token, player_actor


@dataclass(frozen=True)
class Attached:
    """What an attach gives back: the stored record and the game as the file tells it."""

    record: GameRecord
    parsed: GcgGame
    replaced: bool


def name_key(name: str) -> tuple[str, ...]:
    """A full name as a comparable key: no accents, no case, no punctuation, any word order
    ("Surname, Given" as federations list it and "Given Surname" as GCG writers do)."""
    plain = unicodedata.normalize("NFKD", name)
    plain = "".join(ch for ch in plain if not unicodedata.combining(ch)).casefold()
    words = "".join(ch if ch.isalnum() else " " for ch in plain).split()
    return tuple(sorted(words))


def _where(game: Game) -> Phrase:
    """The game's place, English in audit summaries, in the reader's language in a refusal."""
    division = game.round.division
    if game.board:
        return Phrase(
            gettext_noop("division {division} round {round} board {board}"),
            division=division.name,
            round=game.round.number,
            board=game.board,
        )
    return where_round(division, game.round.number)


def read_record(data: bytes | str, file_name: str = "game.gcg") -> GcgGame:
    """Parse a GCG file, its refusals as service errors naming the file's line."""
    if isinstance(data, bytes) and len(data) > MAX_BYTES:
        raise ServiceError(
            "gcg_file_too_large", field="file", file=file_name, limit=MAX_BYTES // 1024
        )
    try:
        return parse_gcg(data)
    except GcgError as exc:
        params = {"field": "file", "file": file_name, "line": exc.line, "reason": exc.reason}
        if exc.kind == "total":
            raise ServiceError("gcg_running_total", **params) from exc
        raise ServiceError("gcg_malformed", **params) from exc


def _sides(game: Game, parsed: GcgGame, file_name: str) -> tuple[Entry, Entry]:
    """The game's entries in the file's order (player1's entry first), or a refusal."""
    entries = (game.player1, game.player2)
    keys = [name_key(p.name) for p in parsed.players]
    names = [name_key(e.player.name) for e in entries]
    if keys == names:
        return entries[0], entries[1]
    if keys == names[::-1]:
        return entries[1], entries[0]
    wrong = next(
        (i for i, key in enumerate(keys) if key not in names), 0 if keys[0] == keys[1] else 1
    )
    raise ServiceError(
        "gcg_players_mismatch",
        field="file",
        file=file_name,
        line=parsed.players[wrong].line,
        names=" and ".join(p.name for p in parsed.players),
        players=" and ".join(e.player.name for e in entries),
    )


def check_record(game: Game, parsed: GcgGame, file_name: str) -> None:
    """Refuse a record that is not this game's: a bye, no result yet, other players, or
    final totals other than the recorded scores."""
    if game.player2_id is None:
        raise ServiceError("gcg_bye", field="game", where=_where(game))
    if not game.has_result:
        raise ServiceError("gcg_no_result", field="game", where=_where(game))
    first, second = _sides(game, parsed, file_name)
    for side, entry in enumerate((first, second)):
        score = game.score1 if entry.pk == game.player1_id else game.score2
        total = parsed.final_totals()[side]
        if total != score:
            raise ServiceError(
                "gcg_result_mismatch",
                field="file",
                file=file_name,
                line=parsed.last_line(side),
                name=parsed.players[side].name,
                total=total,
                score=score,
            )


def _locked_game(game: Game) -> Game:
    return (
        Game.objects.select_related(
            "round__division__tournament", "player1__player", "player2__player"
        )
        .select_for_update(of=("self",))
        .get(pk=game.pk)
    )


def _store(game: Game, data: bytes | str, file_name: str, actor: Any) -> Attached:
    file_name = (file_name or "game.gcg").rsplit("/", 1)[-1][:200]
    parsed = read_record(data, file_name)
    check_record(game, parsed, file_name)
    text = decode(data) if isinstance(data, bytes) else data
    existing = GameRecord.objects.filter(game=game).first()
    record = existing or GameRecord(game=game)
    record.text = text.lstrip("\ufeff")
    record.file_name = file_name
    record.lexicon = parsed.lexicon[:40]
    record.turns = len(parsed.turns)
    record.attached_by = Actor.of(actor).name[:100]
    record.save()
    tournament = game.round.division.tournament
    names = " v ".join(p.name for p in parsed.players)
    audit(
        tournament,
        actor,
        "replace_game_record" if existing else "attach_game_record",
        game,
        f"{_where(game)}: game record {file_name} ({names}, {len(parsed.turns)} turns)",
        before={"turns": existing.turns, "file": existing.file_name} if existing else None,
        after={"turns": record.turns, "file": file_name, "totals": parsed.totals()},
    )
    return Attached(record, parsed, existing is not None)


@transaction.atomic
def attach_record(
    game: Game, data: bytes | str, *, actor: Actor | str | Any | None, file_name: str = ""
) -> Attached:
    """Attach (or replace) a game's record as a director, the console's and API's door."""
    game = _locked_game(game)
    require(
        actor, "direct", game.round.division.tournament, what=gettext_noop("attach game records")
    )
    return _store(game, data, file_name, actor)


def _player_game(token: Any, game_id: Any) -> tuple[Entry, Game]:
    entry = entry_for_token(token)
    if entry is None:
        raise ServiceError("selfentry_unknown_token")
    game = (
        Game.objects.select_related(
            "round__division__tournament", "player1__player", "player2__player"
        )
        .select_for_update(of=("self",))
        .filter(pk=game_id if _whole(game_id) else -1)
        .first()
    )
    if game is None or entry.pk not in (game.player1_id, game.player2_id):
        where = _where(game) if game is not None else f"game {str(game_id)[:20]}"
        raise ServiceError("gcg_not_your_game", field="game", where=where)
    return entry, game


@transaction.atomic
def attach_record_by_token(
    token: Any, game_id: Any, data: bytes | str, *, file_name: str = ""
) -> Attached:
    """A player attaches their own game's record from their self-entry link."""
    entry, game = _player_game(token, game_id)
    return _store(game, data, file_name, player_actor(entry))


def _remove(game: Game, actor: Any) -> None:
    record = GameRecord.objects.filter(game=game).first()
    if record is None:
        raise ServiceError("gcg_no_record", field="game", where=_where(game))
    before = {"turns": record.turns, "file": record.file_name}
    record.delete()
    audit(
        game.round.division.tournament,
        actor,
        "remove_game_record",
        game,
        f"{_where(game)}: game record {before['file']} removed",
        before=before,
        after=None,
    )


@transaction.atomic
def remove_record(game: Game, *, actor: Actor | str | Any | None) -> None:
    """Take a game's record off (a director)."""
    game = _locked_game(game)
    require(
        actor, "direct", game.round.division.tournament, what=gettext_noop("remove game records")
    )
    _remove(game, actor)


@transaction.atomic
def remove_record_by_token(token: Any, game_id: Any) -> None:
    """A player takes their own game's record off from their link."""
    entry, game = _player_game(token, game_id)
    _remove(game, player_actor(entry))


@transaction.atomic
def publish_round_records(
    division: Division, round_number: Any, *, actor: Actor | str | Any | None
) -> Round:
    """Make a round's game records public in a tournament that keeps them private."""
    tournament = division.tournament
    require(actor, "direct", tournament, what=gettext_noop("publish game records"))
    game_round = (
        Round.objects.select_for_update()
        .filter(division=division, number=round_number if _whole(round_number) else -1)
        .first()
    )
    if game_round is None:
        raise ServiceError(
            "round_not_paired", field="round", division=division.name, round=round_number
        )
    if game_round.records_published is None:
        game_round.records_published = timezone.now()
        game_round.save(update_fields=["records_published"])
        audit(
            tournament,
            actor,
            "publish_game_records",
            game_round,
            f"division {division.name} round {game_round.number}: game records published",
            before={"published": False},
            after={"published": True},
        )
    return game_round


@transaction.atomic
def set_records_private(
    tournament: Tournament, private: bool, *, actor: Actor | str | Any | None
) -> Tournament:
    """Keep game records private until their round is published (or show them at once)."""
    require(actor, "direct", tournament, what=gettext_noop("change settings"))
    private = bool(private)
    if tournament.records_private != private:
        tournament.records_private = private
        tournament.save(update_fields=["records_private"])
        audit(
            tournament,
            actor,
            "records_private",
            tournament,
            "game records private until each round is published"
            if private
            else "game records public once attached",
            before={"records_private": not private},
            after={"records_private": private},
        )
    return tournament
