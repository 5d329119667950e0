"""Writes for a club's nights: create, log a game, the result box's names, close, reopen."""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Sequence
from typing import Any

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from pairings.services.rounds import pair_round
from pairings.services.schedule import add_schedule_range
from pairings.services.store import lock_division, set_pairing
from ratings.models import PlayerRating
from tournament.checks import as_int
from tournament.errors import ServiceError
from tournament.services.tournaments import create_division, create_tournament

from ...models import Club, Division, Entry, Game, Membership, Player, Tournament
from ...selectors import last_round_number
from ...services.audit import Actor, audit
from ...services.entries import register_player
from ...services.results import record_result
from ..models import DRAW_SYSTEMS, Draw, Night
from ..records import summarise
from .clubs import (
    MAX_NIGHT_GAMES,
    NIGHT_DIVISION,
    _date,
    check_organiser,
)
from .members import (
    _player,
)

# --------------------------------------------------------------------------- nights


def parse_draw(draw: str | Sequence[str], games: int) -> list[str]:
    """The draw of each game from "random,koth" (the last draw repeating), checked."""
    names = [d.strip().lower() for d in (draw.split(",") if isinstance(draw, str) else draw)]
    names = [d for d in names if d] or [Draw.RANDOM.value]
    valid = {d.value for d in Draw}
    for i, name in enumerate(names):
        if name not in valid:
            raise ServiceError(
                "unknown_draw", field="draw", draw=name, draws=", ".join(sorted(valid))
            )
        if name == Draw.RATING and i > 0:
            raise ServiceError("rating_draw_first_only", field="draw", game=i + 1)
    draws = [names[min(i, len(names) - 1)] for i in range(max(games, 1))]
    # "rating" alone: the first game by rating, then winners play winners
    return [Draw.KOTH.value if i and d == Draw.RATING else d for i, d in enumerate(draws)]


def night_name(club: Club, date: datetime.date) -> str:
    """ "Riverside Scrabble Club night 2026-11-24"; "Word Lovers club night 2026-11-24"."""
    word = "night" if club.name.lower().endswith("club") else "club night"
    return f"{club.name} {word} {date.isoformat()}"


def _night_slug(club: Club, date: datetime.date) -> str:
    root = f"{club.slug}-{date.isoformat()}"[:110]
    slug, n = root, 2
    while Tournament.objects.filter(slug=slug).exists():
        slug, n = f"{root}-{n}", n + 1
    return slug


def _present(
    club: Club, players: Iterable[Player | int | str], guests: Iterable[str]
) -> list[tuple[Player, bool]]:
    """The players ticked (members or registry players) and guests by name, each once."""
    seen: dict[int, str] = {}
    out: list[tuple[Player, bool]] = []
    for value, guest in [(p, False) for p in players] + [(g, True) for g in guests]:
        field = "guests" if guest else "players"
        if isinstance(value, str) and not value.strip():
            continue
        p = _player(value, "a player's name", field)
        if p.pk in seen:
            raise ServiceError("player_ticked_twice", field=field, name=p.name)
        seen[p.pk] = p.name
        out.append((p, guest))
    return out


def club_rating(club: Club, player: Player) -> int:
    """The rating a player brings to a night: the club list's, else the latest any other list
    gives them, else the club's newcomer rating (a club list begun with newcomers only would
    have nobody to measure them against, and the estimates run away)."""
    ratings = dict(
        PlayerRating.objects.filter(player=player, rating__gt=0)
        .order_by("last_event_date")
        .values_list("rating_list_id", "rating")
    )
    if club.rating_list_id in ratings:
        return ratings[club.rating_list_id]
    if ratings:
        return list(ratings.values())[-1]
    return club.newcomer_rating


def _same_empty_night(
    club: Club, day: datetime.date, player_ids: list[int], games: int, draw: str
) -> Night | None:
    """An open night of the club on ``day`` with exactly these players, games and draws and
    no game played yet: what a repeated "Start the night" would create again."""
    for night in Night.objects.filter(
        club=club, date=day, games=games, draw=draw, closed_at__isnull=True
    ).select_related("tournament"):
        entries = Entry.objects.filter(division__tournament_id=night.tournament_id)
        if set(entries.values_list("player_id", flat=True)) != set(player_ids):
            continue
        if not night_has_play(night):
            return night
    return None


def night_has_play(night: Night) -> bool:
    """Any game of the night with a score (a bye's included): then it is a real night."""
    return Game.objects.filter(
        round__division__tournament_id=night.tournament_id, score1__isnull=False
    ).exists()


@transaction.atomic
def delete_night(night: Night, *, actor: Actor | str | Any) -> None:
    """Delete a night no game was played at (a double start, a wrong date), by its club's
    organisers. Its draws go with it; a night with any score is refused (close it, or
    correct it), so no result is ever lost this way. Audited on the club (the tournament
    the event would name is deleted with the night)."""
    who = check_organiser(night.club, actor)
    night = Night.objects.select_for_update().select_related("club", "tournament").get(pk=night.pk)
    if night.closed_at is not None:
        raise ServiceError("night_closed", date=night.date.isoformat(), club=night.club.name)
    if night_has_play(night):
        raise ServiceError("night_has_play", date=night.date.isoformat())
    players = list(
        Entry.objects.filter(division__tournament_id=night.tournament_id)
        .order_by("number")
        .values_list("player__name", flat=True)
    )
    audit(
        None,
        who,
        "delete_night",
        night,
        f"{night.club.name} night {night.date} deleted (no game played)",
        before={
            "date": night.date.isoformat(),
            "tournament": night.tournament.slug,
            "players": players,
            "games": night.games,
            "draw": night.draw,
        },
    )
    night.tournament.delete()  # the night, its division, entries and draws with it


@transaction.atomic
def create_night(
    club: Club,
    *,
    date: Any,
    players: Iterable[Player | int | str] = (),
    guests: Iterable[str] = (),
    games: Any = 3,
    draw: str | Sequence[str] = "random,koth",
    actor: Actor | str | Any,
) -> Night:
    """A club night: a published one-division tournament of the players present, numbered
    by club rating (then name), with one schedule range per game's draw."""
    who = check_organiser(club, actor)
    day = _date(date, "the night's date", "date")
    games = as_int(games, "games", field="games")
    if not 1 <= games <= MAX_NIGHT_GAMES:
        raise ServiceError(
            "number_too_large",
            field="games",
            what="games",
            value=games,
            minimum=1,
            maximum=MAX_NIGHT_GAMES,
        )
    draws = parse_draw(draw, games)
    present = _present(club, list(players), list(guests))
    if len(present) < 2:
        raise ServiceError("night_needs_players", field="players", count=len(present))
    # a double tap on "Start the night" sends the same night twice: the club row is locked so
    # the second waits for the first, then finds it and returns it instead of a copy
    Club.objects.select_for_update().filter(pk=club.pk).first()
    twin = _same_empty_night(club, day, [p.pk for p, _ in present], games, ",".join(draws))
    if twin is not None:
        return twin
    for p, guest in present:
        if guest and not Membership.objects.filter(club=club, player=p).exists():
            Membership.objects.create(club=club, player=p, guest=True)
    realm = club.realm
    tournament = create_tournament(
        name=night_name(club, day),
        realm=realm,
        actor=who,
        slug=_night_slug(club, day),
        published=True,
        start_date=day,
        end_date=day,
        venue=club.meets[:200],
        late_entry="none",
        gibson=False,
    )
    # the night first: its club's organisers direct the tournament through it, so the
    # division and schedule services below accept them
    night = Night.objects.create(
        club=club, tournament=tournament, date=day, games=games, draw=",".join(draws)
    )
    rated = sorted(present, key=lambda pg: (-club_rating(club, pg[0]), pg[0].name))
    _night_division(club, tournament, [p for p, _ in rated], draws, who)
    audit(
        tournament,
        who,
        "create_night",
        night,
        f"{club.name} night {day}: {len(present)} players, {games} games ({night.draw})",
        after={
            "date": day.isoformat(),
            "players": [p.name for p, _ in rated],
            "guests": [p.name for p, g in rated if g],
            "games": games,
            "draw": night.draw,
        },
    )
    return night


def _night_division(
    club: Club, tournament: Tournament, players: list[Player], draws: list[str], who: Any
) -> Division:
    """The night's one division: rated on the club's list (club-third without one), its
    players numbered in the given order with their club ratings, one schedule range per run
    of games drawn alike."""
    games = len(draws)
    division = create_division(
        tournament,
        name=NIGHT_DIVISION,
        rounds=games,
        rating_system=club.rating_list.system if club.rating_list_id else "club-third",
        actor=who,
    )
    if club.rating_list_id:
        division.rating_list = club.rating_list
        division.save(update_fields=["rating_list"])
    for p in players:
        register_player(division, player=p, rating=club_rating(club, p), actor=who)
    first = 1
    for i in range(1, games + 1):
        if i == games or draws[i] != draws[first - 1]:
            add_schedule_range(
                division,
                actor=who,
                first_round=first,
                last_round=i,
                system=DRAW_SYSTEMS[draws[first - 1]],
            )
            first = i + 1
    return division


def _division(night: Night) -> Division:
    return night.tournament.divisions.get()


def _check_open(night: Night) -> None:
    """Refuse a closed night, as the database has it: the caller's copy may predate a close
    (another organiser's, or an earlier request's), and a closed night counts already."""
    night.closed_at = Night.objects.filter(pk=night.pk).values_list("closed_at", flat=True).get()
    if night.closed_at is not None:
        raise ServiceError("night_closed", date=night.date.isoformat(), club=night.club.name)


@transaction.atomic
def add_night_player(
    night: Night, player: Player | int | str, *, actor: Actor | str | Any, guest: bool = False
) -> Entry:
    """A latecomer: the next number of the night, with no record for games already drawn."""
    who = check_organiser(night.club, actor)
    _check_open(night)
    p = _player(player, "the player's name", "name")
    if guest and not Membership.objects.filter(club=night.club, player=p).exists():
        Membership.objects.create(club=night.club, player=p, guest=True)
    return register_player(
        _division(night),
        player=p,
        rating=club_rating(night.club, p),
        actor=who,
        after_last_round=True,  # a latecomer's game is logged without a draw
    )


def current_round(division: Division) -> int:
    """The night's current game: the last round with any game (0 before the first draw)."""
    return last_round_number(division)


def pair_next_game(night: Night, *, actor: Actor | str | Any) -> int:
    """Draw the night's next game with its scheduled draw; returns the round drawn."""
    who = check_organiser(night.club, actor)
    _check_open(night)
    division = _division(night)
    number = current_round(division) + 1
    if number > MAX_NIGHT_GAMES:
        raise ServiceError(
            "number_too_large",
            field="round",
            what="games",
            value=number,
            minimum=1,
            maximum=MAX_NIGHT_GAMES,
        )
    draws = night.draws()
    system = DRAW_SYSTEMS[draws[min(number, len(draws)) - 1]]
    with transaction.atomic():
        if number > division.rounds:
            # a night may run past its planned games (up to MAX_NIGHT_GAMES); the division's
            # rounds follow, since pairing refuses a round beyond them
            division.rounds = number
            division.save(update_fields=["rounds"])
        pair_round(division, number, system=system, actor=who)
    return number


@transaction.atomic
def log_game(
    night: Night,
    *,
    player: Any,
    opponent: Any,
    score: Any,
    opp_score: Any,
    actor: Actor | str | Any,
) -> Game:
    """A game played without a draw ("Ann beat Bob 412-389"), logged into the night's current
    round for those two: both must be at the night and free in that round (or already drawn
    against each other there, when it is their result)."""
    who = check_organiser(night.club, actor)
    _check_open(night)
    division = _division(night)
    lock_division(division)
    a = _night_entry(division, player, "player")
    b = _night_entry(division, opponent, "opponent")
    if a.pk == b.pk:
        raise ServiceError("self_pairing", field="opponent", where="the night", number=a.number)
    number = current_round(division) or 1
    where = f"game {number}"
    busy = {}
    for e in (a, b):
        game = (
            Game.objects.filter(round__division=division, round__number=number)
            .filter(Q(player1=e) | Q(player2=e))
            .first()
        )
        if game is not None:
            busy[e.pk] = game
    if busy:
        game = busy.get(a.pk)
        if game is not None and {game.player1_id, game.player2_id} == {a.pk, b.pk}:
            return record_result(division, number, a.number, score, opp_score, actor=who)
        e = a if a.pk in busy else b
        game = busy[e.pk]
        other = game.player2 if game.player1_id == e.pk else game.player1
        raise ServiceError(
            "already_playing",
            field="player" if e is a else "opponent",
            where=where,
            name=e.player.name,
            opponent=other.player.name if other else "a bye",
        )
    set_pairing(division, number, a.number, b.number, actor=who, first_known=False)
    return record_result(division, number, a.number, score, opp_score, actor=who)


def _night_entry(division: Division, value: Any, field: str) -> Entry:
    """A night's player by number, or by (the start of) a name that fits one player."""
    if isinstance(value, Entry):
        if value.division_id == division.pk:
            return value
        # another night's player: their number here would be somebody else
        raise ServiceError("not_at_night", field=field, name=value.player.name)
    text = str(value if value is not None else "").strip()
    if text.isdigit():
        entry = division.entries.select_related("player").filter(number=int(text)).first()
        if entry is not None:
            return entry
        raise ServiceError(
            "unknown_player",
            field=field,
            where="the night",
            number=text,
            count=division.entries.count(),
        )
    if not text:
        raise ServiceError("empty_name", field=field, what="the player's name")
    found = list(division.entries.select_related("player").filter(player__name__iexact=text))
    if not found:
        lowered = text.lower()
        found = [
            e
            for e in division.entries.select_related("player")
            if any(
                part.strip().lower().startswith(lowered)
                for part in [e.player.name, *e.player.name.split(",")]
            )
        ]
    if len(found) == 1:
        return found[0]
    if not found:
        raise ServiceError("not_at_night", field=field, name=text)
    raise ServiceError(
        "ambiguous_name", field=field, name=text, names="; ".join(e.player.name for e in found[:5])
    )


# The night's result box types names as well as numbers ("ann 412 bob 389"): it resolves each
# name the way log_game does, so both doors find the same player (tournament.clubs.web.nights).
night_entry = _night_entry


def night_record_summary(division: Division) -> dict[str, Any]:
    """The night's part of the club records, from its games in round order."""
    rows = (
        Game.objects.filter(round__division=division, score1__isnull=False)
        .filter(Q(player2__isnull=True) | Q(score2__isnull=False))
        .order_by("round__number", "id")
        .values_list("player1__player_id", "player2__player_id", "score1", "score2")
    )
    return summarise(rows)


@transaction.atomic
def close_night(night: Night, *, actor: Actor | str | Any) -> Night:
    """Close the night: every drawn game needs its result; the night then counts for the
    club's seasons and is rated on the club's list (its date, the list's system)."""
    from ratings.division import rate_division

    who = check_organiser(night.club, actor)
    night = Night.objects.select_for_update().select_related("club", "tournament").get(pk=night.pk)
    _check_open(night)
    division = _division(night)
    missing = (
        Game.objects.filter(round__division=division, player2__isnull=False)
        .filter(Q(score1__isnull=True) | Q(score2__isnull=True))
        .count()
        + Game.objects.filter(
            round__division=division, player2__isnull=True, score1__isnull=True
        ).count()
    )
    if missing:
        raise ServiceError("night_games_missing", date=night.date.isoformat(), count=missing)
    played = Game.objects.filter(round__division=division).exists()
    if not played:
        raise ServiceError("night_without_games", date=night.date.isoformat())
    rated = None
    if night.club.rating_list_id:
        from ratings.division import division_rating_input

        if division_rating_input(division)[2]:
            rated = rate_division(division, night.club.rating_list, date=night.date)
    night.closed_at = timezone.now()
    night.summary = night_record_summary(division)
    night.save(update_fields=["closed_at", "summary"])
    audit(
        night.tournament,
        who,
        "close_night",
        night,
        f"{night.club.name} night {night.date} closed"
        + (f"; rated on {night.club.rating_list.name}" if rated else ""),
        after={"closed": True, "rated_event": rated.pk if rated else None},
    )
    return night


@transaction.atomic
def reopen_night(night: Night, *, actor: Actor | str | Any, reason: str = "") -> Night:
    """Take a closed night out of the seasons to correct it; closing it again re-rates it."""
    who = check_organiser(night.club, actor)
    night = Night.objects.select_for_update().get(pk=night.pk)
    if night.closed_at is None:
        raise ServiceError("night_open", date=night.date.isoformat())
    night.closed_at = None
    night.summary = None
    night.save(update_fields=["closed_at", "summary"])
    audit(
        night.tournament,
        who,
        "reopen_night",
        night,
        f"{night.club.name} night {night.date} reopened",
        before={"closed": True},
        after={"closed": False},
        reason=reason,
    )
    return night
