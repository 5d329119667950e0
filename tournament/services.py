"""The one door for writes: every change to a tournament goes through these functions.

Views, the admin, the API, management commands and Celery tasks all call them, so the rules of
spec/rules.md are enforced in one place. Each public function is one database transaction and
writes an AuditEvent; on any error it raises ServiceError (or a subclass) and changes nothing.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.text import slugify

from .models import (
    MAX_ABS_SCORE,
    REALM_DEFAULTS,
    AuditEvent,
    Division,
    Entry,
    First,
    Game,
    Player,
    Realm,
    Round,
    Tournament,
)
from .standings import PlayerRound, StandingsPlayer, StandingsRow, compute_standings

# Real games are scored 0..MAX_PLAYED_SCORE; only byes, forfeits and penalties go negative.
MAX_PLAYED_SCORE = MAX_ABS_SCORE


class ServiceError(Exception):
    """A refused change; the message says what is wrong and where, for a director to read."""


@dataclass(frozen=True)
class Actor:
    """Who is acting: a signed-in user, or a named command/task for the audit trail."""

    name: str
    user: Any = None

    @classmethod
    def of(cls, who: Actor | str | Any | None) -> Actor:
        if isinstance(who, Actor):
            return who
        if who is None:
            return cls("system")
        if isinstance(who, str):
            return cls(who)
        return cls(getattr(who, "get_username", lambda: str(who))(), who)


def audit(
    tournament: Tournament | None,
    actor: Actor | str | None,
    action: str,
    obj: Any = None,
    summary: str = "",
    *,
    before: Any = None,
    after: Any = None,
    reason: str = "",
) -> AuditEvent:
    who = Actor.of(actor)
    return AuditEvent.objects.create(
        tournament=tournament,
        user=who.user if getattr(who.user, "pk", None) else None,
        actor=who.name[:100],
        action=action,
        object_type=type(obj).__name__ if obj is not None else "",
        object_id=str(getattr(obj, "pk", "") or ""),
        summary=summary[:300],
        before=before,
        after=after,
        reason=reason[:300],
    )


# --------------------------------------------------------------------------- validation


def _as_int(value: Any, what: str) -> int:
    if isinstance(value, bool):
        raise ServiceError(f"{what}: {value!r} is not a whole number")
    if isinstance(value, int):
        return value
    try:
        text = str(value).strip()
        if text.lstrip("+-").isdigit():
            return int(text)
    except (TypeError, ValueError):
        pass
    raise ServiceError(f"{what}: {value!r} is not a whole number")


def validate_played_scores(score: Any, opp_score: Any, where: str) -> tuple[int, int]:
    """A played game's scores are whole numbers from 0 to 1500 (spec/rules.md)."""
    a = _as_int(score, f"{where}: score")
    b = _as_int(opp_score, f"{where}: opponent's score")
    for value, who in ((a, "score"), (b, "opponent's score")):
        if not 0 <= value <= MAX_PLAYED_SCORE:
            raise ServiceError(
                f"{where}: {who} {value} is outside 0..{MAX_PLAYED_SCORE}; negative scores are "
                "only for byes, forfeits and penalties"
            )
    return a, b


def validate_bye_score(score: Any, where: str) -> int:
    value = _as_int(score, f"{where}: bye/forfeit score")
    if not -MAX_ABS_SCORE <= value <= MAX_ABS_SCORE:
        raise ServiceError(f"{where}: bye/forfeit score {value} is outside +-{MAX_ABS_SCORE}")
    return value


def _unique_slug(base: str) -> str:
    root = slugify(base)[:100] or "tournament"
    slug, n = root, 2
    while Tournament.objects.filter(slug=slug).exists():
        slug = f"{root}-{n}"
        n += 1
    return slug


# --------------------------------------------------------------------------- tournaments


TOURNAMENT_FIELDS = {
    "start_date",
    "end_date",
    "venue",
    "bye_spread",
    "forfeit_spread",
    "spread_cap",
    "standings_spread_cap",
    "sum_before_spread",
    "max_rounds",
    "gibson",
    "gibson_spread",
    "late_entry",
    "paper",
    "config",
}


@transaction.atomic
def create_tournament(
    *,
    name: str,
    realm: str = Realm.NASPA,
    actor: Actor | str | None = None,
    directors: Iterable[Any] = (),
    slug: str | None = None,
    **fields: Any,
) -> Tournament:
    """Create a tournament with its realm's defaults; explicit fields override the preset."""
    if not name or not name.strip():
        raise ServiceError("tournament name: must not be empty")
    if realm not in REALM_DEFAULTS:
        raise ServiceError(
            f"realm {realm!r}: unknown; choose one of {', '.join(sorted(REALM_DEFAULTS))}"
        )
    unknown = set(fields) - TOURNAMENT_FIELDS
    if unknown:
        raise ServiceError(f"tournament: unknown setting(s) {', '.join(sorted(unknown))}")
    preset = {k: v for k, v in REALM_DEFAULTS[realm].items() if k in TOURNAMENT_FIELDS}
    preset.update(fields)
    if slug is None:
        slug = _unique_slug(name)
    elif Tournament.objects.filter(slug=slug).exists():
        raise ServiceError(f"tournament slug {slug!r} is already taken")
    tournament = Tournament.objects.create(name=name.strip(), slug=slug, realm=realm, **preset)
    if directors:
        tournament.directors.set(list(directors))
    audit(tournament, actor, "create_tournament", tournament, f"created {tournament.name}")
    return tournament


@transaction.atomic
def create_division(
    tournament: Tournament,
    *,
    name: str,
    rounds: int = 7,
    rating_system: str | None = None,
    actor: Actor | str | None = None,
    file_name: str = "",
    config: dict | None = None,
) -> Division:
    if not name or not name.strip():
        raise ServiceError(f"{tournament.slug}: division name must not be empty")
    if tournament.divisions.filter(name=name).exists():
        raise ServiceError(f"{tournament.slug}: division {name!r} already exists")
    rounds = _as_int(rounds, f"division {name}: rounds")
    if rounds < 1:
        raise ServiceError(f"division {name}: rounds must be at least 1, not {rounds}")
    division = Division.objects.create(
        tournament=tournament,
        name=name.strip(),
        rounds=rounds,
        position=tournament.divisions.count(),
        rating_system=rating_system or str(REALM_DEFAULTS[tournament.realm]["rating_system"]),
        file_name=file_name or f"{name.strip().lower()}.t",
        config=config or {},
    )
    audit(tournament, actor, "create_division", division, f"division {division.name}")
    return division


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


def _round(division: Division, number: int, *, create: bool = False) -> Round | None:
    if create:
        rnd, _ = Round.objects.get_or_create(division=division, number=number)
        return rnd
    return Round.objects.filter(division=division, number=number).first()


def _entry(division: Division, number: Any, where: str = "") -> Entry:
    n = _as_int(number, f"{where}player number" if where else "player number")
    entry = division.entries.select_related("player").filter(number=n).first()
    if entry is None:
        raise ServiceError(
            f"division {division.name}: there is no player number {n} "
            f"(players are 1..{division.entries.count()})"
        )
    return entry


def _game_snapshot(game: Game) -> dict[str, Any]:
    return {
        "round": game.round.number,
        "board": game.board,
        "player1": game.player1.number,
        "player2": game.player2.number if game.player2_id else None,
        "score1": game.score1,
        "score2": game.score2,
        "first": game.first,
    }


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


def _plays(entry: Entry) -> Q:
    return Q(player1=entry) | Q(player2=entry)


# --------------------------------------------------------------------------- pairings


@dataclass(frozen=True)
class PlannedGame:
    """A pairing to store: player numbers (second 0 = bye), who goes first, board, why."""

    first: int
    second: int
    board: int | None = None
    explanation: str = ""
    first_known: bool = True


def _check_active(entry: Entry, round_number: int, where: str) -> None:
    if entry.withdrawn_round is not None and round_number >= entry.withdrawn_round:
        raise ServiceError(
            f"{where}: #{entry.number} {entry.name} withdrew from round {entry.withdrawn_round}"
        )


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
    round_number = _as_int(round_number, "round")
    where = f"division {division.name} round {round_number}"
    a = _entry(division, first, f"{where}: ")
    b = _entry(division, second, f"{where}: ") if _as_int(second, "opponent") != 0 else None
    if b is not None and a.pk == b.pk:
        raise ServiceError(f"{where}: #{a.number} cannot play against themselves")
    for e in (a, b):
        if e is not None:
            _check_active(e, round_number, where)
    rnd = _round(division, round_number, create=True)
    for e in (a, b):
        if e is None:
            continue
        existing = Game.objects.filter(round=rnd).filter(_plays(e)).first()
        if existing is None:
            continue
        if existing.has_result:
            raise ServiceError(f"{where}: #{e.number} {e.name} already has a result this round")
        if not replace:
            raise ServiceError(
                f"{where}: #{e.number} {e.name} is already paired this round; "
                "use replace to re-pair"
            )
        audit(
            division.tournament,
            actor,
            "unpair",
            existing,
            f"removed {existing}",
            before=_game_snapshot(existing),
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
        raise ServiceError(f"{where}: pairing refused by the database: {exc}") from exc
    audit(division.tournament, actor, "pair", game, str(game), after=_game_snapshot(game))
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
    round_number = _as_int(round_number, "round")
    where = f"division {division.name} round {round_number}"
    rnd = _round(division, round_number, create=True)
    existing = list(rnd.games.all())
    # Byes and forfeits carry their score from the moment they are paired; only a played
    # game's score is a result that re-pairing would destroy.
    if any(g.has_result and g.player2_id for g in existing):
        raise ServiceError(f"{where} already has results; it cannot be re-paired")
    if existing and not force:
        raise ServiceError(f"{where} is already paired; use --force to replace its pairings")
    if existing:
        audit(
            division.tournament,
            actor,
            "unpair_round",
            rnd,
            f"removed {len(existing)} games",
            before=[_game_snapshot(g) for g in existing],
        )
        rnd.games.all().delete()
    entries = {e.number: e for e in division.entries.select_related("player")}
    seen: set[int] = set()
    tournament = division.tournament
    for planned in games:
        for n in (planned.first, planned.second):
            if n == 0:
                continue
            if n not in entries:
                raise ServiceError(f"{where}: there is no player number {n}")
            if n in seen:
                raise ServiceError(f"{where}: player #{n} is paired twice")
            seen.add(n)
            _check_active(entries[n], round_number, where)
        a = entries[planned.first]
        b = entries.get(planned.second) if planned.second else None
        if b is not None and a.pk == b.pk:
            raise ServiceError(f"{where}: #{a.number} cannot play against themselves")
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
        after=[_game_snapshot(g) for g in rnd.games.select_related("round", "player1", "player2")],
    )
    return rnd


@transaction.atomic
def delete_round_pairings(
    division: Division, round_number: int, *, actor: Actor | str | None = None
) -> int:
    """Remove a round's pairings; refused once any game of it has a result."""
    round_number = _as_int(round_number, "round")
    where = f"division {division.name} round {round_number}"
    rnd = _round(division, round_number)
    if rnd is None or not rnd.games.exists():
        raise ServiceError(f"{where} has no pairings to delete")
    if rnd.games.filter(player2__isnull=False, score1__isnull=False).exists():
        raise ServiceError(f"{where} already has results; correct them instead of deleting")
    snapshot = [_game_snapshot(g) for g in rnd.games.select_related("round", "player1", "player2")]
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


# --------------------------------------------------------------------------- results


def _find_game(division: Division, round_number: int, entry: Entry, where: str) -> Game:
    game = (
        Game.objects.select_related("round", "player1__player", "player2__player")
        .filter(round__division=division, round__number=round_number)
        .filter(_plays(entry))
        .first()
    )
    if game is None:
        raise ServiceError(f"{where}: #{entry.number} {entry.name} is not paired in this round")
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
    round_number = _as_int(round_number, "round")
    where = f"division {division.name} round {round_number}"
    entry = _entry(division, player_number, f"{where}: ")
    game = _find_game(division, round_number, entry, where)
    if game.player2_id is None:
        value = validate_bye_score(score, where)
        if game.has_result and game.score1 != value:
            raise ServiceError(
                f"{where}: #{entry.number}'s bye/forfeit is already recorded ({game.score1}); "
                "correct it with --correct \"reason\" or in the admin (Games)"
            )
        game.score1 = value
        game.save(update_fields=["score1"])
    else:
        if game.has_result:
            raise ServiceError(
                f"{where}: the game #{game.player1.number} v #{game.player2.number} already has "
                f"a result ({game.score1}-{game.score2}); correct it with --correct \"reason\" "
                "or in the admin (Games); either way the change is audited"
            )
        if opp_score is None:
            raise ServiceError(f"{where}: a played game needs both scores")
        mine, theirs = validate_played_scores(score, opp_score, where)
        if game.player1_id == entry.pk:
            game.score1, game.score2 = mine, theirs
        else:
            game.score1, game.score2 = theirs, mine
        game.save(update_fields=["score1", "score2"])
    audit(
        division.tournament,
        actor,
        "record_result",
        game,
        f"{where}: {game} {game.score1}-{game.score2}",
        after=_game_snapshot(game),
    )
    return game


@transaction.atomic
def correct_result(
    game: Game, score1: Any, score2: Any = None, *, reason: str, actor: Actor | str | None = None
) -> Game:
    """Change a recorded result; a reason is required so the audit trail explains itself."""
    where = f"division {game.round.division.name} round {game.round.number}"
    if not reason or not reason.strip():
        raise ServiceError(f"{where}: a correction needs a reason")
    before = _game_snapshot(game)
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
        after=_game_snapshot(game),
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
) -> Game:
    """Correct a recorded result named the way a scorecard reads: this player's score first.

    Directors at a venue fix a mistyped score from the same command they entered it with;
    the game is found and the scores turned to its own order, then ``correct_result`` checks
    and audits the change with its reason.
    """
    round_number = _as_int(round_number, "round")
    where = f"division {division.name} round {round_number}"
    entry = _entry(division, player_number, f"{where}: ")
    game = _find_game(division, round_number, entry, where)
    if not game.has_result:
        raise ServiceError(
            f"{where}: #{entry.number} has no result yet to correct; record it without --correct"
        )
    if game.player2_id is None or game.player1_id == entry.pk:
        return correct_result(game, score, opp_score, reason=reason, actor=actor)
    if opp_score is None:
        raise ServiceError(f"{where}: a played game needs both scores")
    return correct_result(game, opp_score, score, reason=reason, actor=actor)


# --------------------------------------------------------------------------- reading


def division_by_name(tournament: Tournament, name: str | None) -> Division:
    """The named division, or the only one; errors list the names there are."""
    divisions = list(tournament.divisions.all())
    if name is None:
        if len(divisions) == 1:
            return divisions[0]
        raise ServiceError(
            f"{tournament.slug} has {len(divisions)} divisions; name one with --division "
            f"({', '.join(d.name for d in divisions)})"
        )
    for d in divisions:
        if d.name == name:
            return d
    for d in divisions:
        if d.name.lower() == name.lower():
            return d
    names = ", ".join(d.name for d in divisions) or "none"
    raise ServiceError(f"{tournament.slug}: no division {name!r}; it has {names}")


def tournament_by_slug(slug: str) -> Tournament:
    t = Tournament.objects.filter(slug=slug).first()
    if t is None:
        raise ServiceError(f"no tournament with slug {slug!r}")
    return t


def player_rounds(division: Division) -> tuple[list[StandingsPlayer], list[PlayerRound]]:
    """The division's entries and games in the pure standings core's terms."""
    entries = list(division.entries.select_related("player").order_by("number"))
    by_id = {e.pk: e for e in entries}
    players = [
        StandingsPlayer(
            number=e.number,
            name=e.player.name,
            rating=e.seed_rating,
            withdrawn_round=e.withdrawn_round,
        )
        for e in entries
    ]
    rounds: list[PlayerRound] = []
    for g in (
        Game.objects.filter(round__division=division)
        .select_related("round")
        .only("round__number", "player1_id", "player2_id", "score1", "score2")
    ):
        r = g.round.number
        p1 = by_id[g.player1_id].number
        if g.player2_id is None:
            rounds.append(
                PlayerRound(round=r, player=p1, opponent=None, score=g.score1, opponent_score=None)
            )
            continue
        p2 = by_id[g.player2_id].number
        rounds.append(
            PlayerRound(round=r, player=p1, opponent=p2, score=g.score1, opponent_score=g.score2)
        )
        rounds.append(
            PlayerRound(round=r, player=p2, opponent=p1, score=g.score2, opponent_score=g.score1)
        )
    return players, rounds


def division_standings(division: Division, after_round: int | None = None) -> list[StandingsRow]:
    """Standings derived from the games (never stored), after any round, partly scored or not."""
    if after_round is not None:
        after_round = _as_int(after_round, "after round")
        if after_round < 0:
            raise ServiceError(f"after round {after_round}: must not be negative")
    players, rounds = player_rounds(division)
    return _standings(division.tournament, players, rounds, after_round)


def _standings(
    t: Tournament,
    players: list[StandingsPlayer],
    rounds: list[PlayerRound],
    after_round: int | None,
) -> list[StandingsRow]:
    """The standings core under the tournament's spread-cap rules, for every caller alike."""
    return compute_standings(
        players,
        rounds,
        after_round=after_round,
        spread_cap=t.spread_cap,
        standings_spread_cap=t.standings_spread_cap,
        sum_before_spread=t.sum_before_spread,
    )


def last_round_number(division: Division) -> int:
    return (
        division.round_set.filter(games__isnull=False)
        .order_by("-number")
        .values_list("number", flat=True)
        .first()
        or 0
    )


def last_scored_round(division: Division) -> int:
    """The last round up to which every game has its result (0 when none is complete).

    Pairings run ahead of results, so "rounds played" must not be read off the last paired
    round; a round counts as scored only when it and every earlier round are complete.
    """
    last = last_round_number(division)
    first_open = (
        Game.objects.filter(round__division=division, score1__isnull=True)
        .order_by("round__number")
        .values_list("round__number", flat=True)
        .first()
    )
    return last if first_open is None else first_open - 1


@dataclass(frozen=True)
class PlayerGame:
    """One round from one player's side, with the board and who went first (a scorecard row)."""

    round: int
    board: int | None
    opponent: Entry | None  # None: a bye or forfeit
    first: bool | None  # True: this player went first; None: unknown, to draw, or no opponent
    must_draw: bool
    score: int | None  # None: not scored yet
    opponent_score: int | None
    explanation: str


def entry_games(division: Division, number: Any) -> tuple[Entry, list[PlayerGame]]:
    """A player's entry and every game of theirs so far, in round order, seen from their side.

    The public player page (the scorecard's QR code) needs board and first/second, which the
    standings' PlayerRound leaves out.
    """
    entry = _entry(division, number)
    games = []
    for g in (
        Game.objects.filter(round__division=division)
        .filter(_plays(entry))
        .select_related("round", "player1__player", "player2__player")
        .order_by("round__number", "id")
    ):
        mine_is_1 = g.player1_id == entry.pk
        opponent = (g.player2 if mine_is_1 else g.player1) if g.player2_id else None
        went_first = {First.PLAYER1: mine_is_1, First.PLAYER2: not mine_is_1}.get(g.first)
        games.append(
            PlayerGame(
                round=g.round.number,
                board=g.board,
                opponent=opponent,
                first=went_first if opponent is not None else None,
                must_draw=g.first == First.DRAW,
                score=g.score1 if mine_is_1 else g.score2,
                opponent_score=(g.score2 if mine_is_1 else g.score1) if opponent else None,
                explanation=g.explanation,
            )
        )
    return entry, games


def running_records(division: Division, number: int) -> dict[int, StandingsRow]:
    """A player's record and spread after each round in which they have a result.

    Computed by the standings core with the tournament's spread-cap settings, so the last row
    always agrees with the standings page; only the player and their opponents are ranked,
    since a player's own tally depends on nothing else.
    """
    players, rounds = player_rounds(division)
    own = [r for r in rounds if r.player == number]
    involved = {number} | {r.opponent for r in own if r.opponent is not None}
    field = [p for p in players if p.number in involved]
    out: dict[int, StandingsRow] = {}
    for r in sorted({r.round for r in own if r.score is not None}):
        rows = _standings(division.tournament, field, own, r)
        out[r] = next(row for row in rows if row.number == number)
    return out
