"""Writes for clubs: the club, its members and organisers, its nights and seasons.

The one door, as tournament.services: every function is one transaction with one audit event
(``audit(None, ...)`` for the club's own records, the night's tournament for a night's), and
refuses with a ServiceError naming what and where before it writes anything. A night's games
are written by the tournament services (pairing, results, corrections) since a night is a
tournament; what is the club's own here is creating, logging a game without a draw, closing
(which rates the night on the club's list) and reopening.

Who may act: a club's organisers (``Club.is_organiser``) run its members, nights and seasons;
any signed-in user may found a club (and becomes its organiser); an actor without a user is a
command run from the shell, trusted as the other commands are. No actor at all is refused.
"""

from __future__ import annotations

import datetime
import hashlib
import secrets
from collections.abc import Iterable, Sequence
from typing import Any

from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone
from django.utils.text import slugify

from pairings.services.rounds import pair_round
from pairings.services.schedule import add_schedule_range
from pairings.services.store import lock_division, set_pairing
from ratings.models import PlayerRating, RatingList
from ratings.services import create_rating_list, known_systems
from tournament.access import allowed, can_found_club
from tournament.checks import as_int, check_text
from tournament.errors import ServiceError
from tournament.services.tournaments import create_division, create_tournament

from ..models import REALM_DEFAULTS, Club, Division, Entry, Game, Membership, Player, Tournament
from ..selectors import last_round_number
from ..services.audit import UNSEEN_ACTIONS, Action, Actor, audit
from ..services.entries import find_or_create_player, register_player
from ..services.results import record_result
from .ladder import DEFAULT_PRESET, PRESETS, Rule
from .models import DRAW_SYSTEMS, Draw, Night, OrganiserInvite, Season
from .records import summarise

MAX_NIGHT_GAMES = 12
# NASPA rates a club event of this many players or more: a smaller night gets no files for it
FEDERATION_MIN_PLAYERS = 4
# /clubs/new/ and /clubs/mine/ are pages: a club with such a slug would be hidden behind them
RESERVED_CLUB_SLUGS = frozenset({"new", "mine", "join"})
NIGHT_DIVISION = "Club"


# --------------------------------------------------------------------------- who may act


def check_organiser(club: Club, actor: Actor | str | Any) -> Actor:
    """Refuse a signed-in user who is not one of the club's organisers."""
    if actor is None:
        raise ServiceError("actor_required", what=f"club {club.name}")
    who = Actor.of(actor)
    if not allowed(who, "organise_club", club):
        raise ServiceError("organiser_required", user=who.name, club=club.name)
    return who


def _date(value: Any, what: str, field: str) -> datetime.date:
    if isinstance(value, datetime.datetime):
        return value.date()
    if isinstance(value, datetime.date):
        return value
    try:
        return datetime.date.fromisoformat(str(value).strip())
    except ValueError:
        raise ServiceError("not_a_date", field=field, what=what, value=value) from None


# --------------------------------------------------------------------------- clubs

CLUB_FIELDS = ("city", "country", "meets", "realm", "newcomer_rating")


def _club_fields(fields: dict[str, Any]) -> dict[str, Any]:
    unknown = set(fields) - set(CLUB_FIELDS)
    if unknown:
        raise ServiceError("unknown_club_setting", names=", ".join(sorted(unknown)))
    clean: dict[str, Any] = {}
    for key, value in fields.items():
        if key == "newcomer_rating":
            value = as_int(value, "the newcomer rating", field=key)
            if not 0 <= value <= 3000:
                raise ServiceError(
                    "number_too_large",
                    field=key,
                    what="the newcomer rating",
                    value=value,
                    minimum=0,
                    maximum=3000,
                )
            clean[key] = value
        elif key == "realm":
            if value not in REALM_DEFAULTS:
                raise ServiceError(
                    "unknown_realm",
                    field="realm",
                    realm=value,
                    choices=", ".join(sorted(REALM_DEFAULTS)),
                )
            clean[key] = value
        else:
            clean[key] = check_text(
                (value or "").strip(), f"the club's {key}", Club, key, field=key
            )
    return clean


def _club_snapshot(club: Club) -> dict[str, Any]:
    return {"name": club.name, **{k: getattr(club, k) for k in CLUB_FIELDS}}


@transaction.atomic
def create_club(
    *,
    name: str,
    actor: Actor | str | Any,
    slug: str | None = None,
    rating_system: str = "club-third",
    **fields: Any,
) -> Club:
    """Found a club with its own rating list; a signed-in founder becomes its organiser.

    A signed-in founder must be allowed to (``access.can_found_club``: any confirmed account,
    or only superusers when the site requires approval); a command's named actor is trusted."""
    if actor is None:
        raise ServiceError("actor_required", what="a new club")
    who = Actor.of(actor)
    if who.user is not None and not can_found_club(who.user):
        raise ServiceError("club_founding_closed", field="name")
    name = check_text((name or "").strip(), "the club name", Club, "name", field="name")
    if not name:
        raise ServiceError("empty_name", field="name", what="the club name")
    clean = _club_fields(fields)
    if rating_system not in known_systems():
        raise ServiceError(
            "unknown_rating_system",
            field="rating_system",
            system=rating_system,
            systems=", ".join(known_systems()),
        )
    if slug is None:
        root = slugify(name)[:90] or "club"
        slug, n = root, 2
        while slug in RESERVED_CLUB_SLUGS or Club.objects.filter(slug=slug).exists():
            slug, n = f"{root}-{n}", n + 1
    else:
        slug = str(slug).strip()
        if not slug or slugify(slug) != slug or len(slug) > 100:
            raise ServiceError("bad_slug", field="slug", slug=slug)
        if slug in RESERVED_CLUB_SLUGS:
            raise ServiceError("club_slug_taken", field="slug", slug=slug)
        if Club.objects.filter(slug=slug).exists():
            raise ServiceError("club_slug_taken", field="slug", slug=slug)
    # the list's name and slug are unique and at most 100 long: number them until free (the
    # number goes on the shortened root, so it is never cut off again)
    root_name, root_slug = f"{name[:80]} club ratings", f"club-{slug[:80]}"
    list_name, list_slug, n = root_name, root_slug, 2
    while RatingList.objects.filter(Q(slug=list_slug) | Q(name=list_name)).exists():
        list_name, list_slug, n = f"{root_name} ({n})", f"{root_slug}-{n}", n + 1
    lst = create_rating_list(
        list_name,
        slug=list_slug,
        system=rating_system,
        description=f"games of {name}'s club nights",
    )
    club = Club.objects.create(name=name, slug=slug, rating_list=lst, **clean)
    if who.user is not None:
        club.organisers.add(who.user)
        lst.officers.add(who.user)
    audit(None, who, "create_club", club, f"founded club {club.name}", after=_club_snapshot(club))
    return club


@transaction.atomic
def update_club(
    club: Club, *, actor: Actor | str | Any, name: str | None = None, **fields: Any
) -> Club:
    """Change where and when a club meets (and its name, city, country, realm)."""
    who = check_organiser(club, actor)
    club = Club.objects.select_for_update().get(pk=club.pk)
    before = _club_snapshot(club)
    clean = _club_fields(fields)
    if name is not None:
        name = check_text(str(name).strip(), "the club name", Club, "name", field="name")
        if not name:
            raise ServiceError("empty_name", field="name", what="the club name")
        clean["name"] = name
    for key, value in clean.items():
        setattr(club, key, value)
    if _club_snapshot(club) == before:
        return club
    club.save()
    audit(
        None,
        who,
        "update_club",
        club,
        f"club {club.name} changed",
        before=before,
        after=_club_snapshot(club),
    )
    return club


@transaction.atomic
def add_organiser(club: Club, user: Any, *, actor: Actor | str | Any) -> Club:
    """Make a user an organiser of the club (and an officer of its rating list)."""
    who = check_organiser(club, actor)
    if user is None or not getattr(user, "is_active", False):
        raise ServiceError("no_such_user", field="user", value=str(user or ""))
    if club.organisers.filter(pk=user.pk).exists():
        raise ServiceError(
            "already_organiser", field="user", user=user.get_username(), club=club.name
        )
    _grant_organiser(club, user)
    audit(
        None,
        who,
        "add_organiser",
        club,
        f"{user.get_username()} organises {club.name}",
        after={"user": user.get_username()},
    )
    return club


#: how long an organiser invitation link stays open
ORGANISER_INVITE_DAYS = 14


def _invite_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _grant_organiser(club: Club, user: Any) -> None:
    club.organisers.add(user)
    if club.rating_list_id:
        club.rating_list.officers.add(user)


@transaction.atomic
def create_organiser_invite(club: Club, *, actor: Actor | str | Any) -> tuple[OrganiserInvite, str]:
    """A one-time link for another organiser and its token, shown once (only its hash is
    kept). The organiser passes the link on; whoever opens it signed in joins the organisers.
    Unlike adding by username, making one tells nothing about which accounts exist."""
    who = check_organiser(club, actor)
    token = secrets.token_urlsafe(32)
    invite = OrganiserInvite.objects.create(
        club=club,
        token_hash=_invite_hash(token),
        created_by=who.user if getattr(who.user, "pk", None) else None,
        expires=timezone.now() + datetime.timedelta(days=ORGANISER_INVITE_DAYS),
    )
    audit(
        None,
        who,
        Action.CREATE_ORGANISER_INVITE,
        club,
        f"an organiser invitation link for {club.name}",
        after={"invite": invite.pk, "expires": invite.expires.isoformat()},
    )
    return invite, token


def open_organiser_invite(token: Any, *, lock: bool = False) -> OrganiserInvite | None:
    """The unused, unrevoked, unexpired invitation for ``token``, else None (which of those it
    is, is not said: a guessed link learns nothing)."""
    if not isinstance(token, str) or not 20 <= len(token) <= 100:
        return None
    qs = OrganiserInvite.objects.select_related("club", "club__rating_list")
    if lock:
        # the invite's row only: PostgreSQL refuses FOR UPDATE on the outer join's nullable
        # side (a club without a rating list)
        qs = qs.select_for_update(of=("self",))
    return qs.filter(
        token_hash=_invite_hash(token),
        used_at__isnull=True,
        revoked_at__isnull=True,
        expires__gt=timezone.now(),
    ).first()


@transaction.atomic
def accept_organiser_invite(token: Any, user: Any) -> Club:
    """The signed-in account opening the link joins the club's organisers (and its rating
    list's officers); the link is then spent."""
    invite = open_organiser_invite(token, lock=True)
    if invite is None or user is None or not getattr(user, "is_active", False):
        raise ServiceError("organiser_invite_invalid", field="token")
    club = invite.club
    if club.organisers.filter(pk=user.pk).exists():
        raise ServiceError(
            "already_organiser", field="token", user=user.get_username(), club=club.name
        )
    _grant_organiser(club, user)
    invite.used_by = user
    invite.used_at = timezone.now()
    invite.save(update_fields=["used_by", "used_at"])
    audit(
        None,
        user,
        Action.ACCEPT_ORGANISER_INVITE,
        club,
        f"{user.get_username()} organises {club.name} by an invitation link",
        after={"user": user.get_username(), "invite": invite.pk},
    )
    return club


def open_organiser_invites(club: Club) -> list[OrganiserInvite]:
    """The club's links still waiting to be opened, newest first (for its organisers' page)."""
    return list(
        club.organiser_invites.filter(
            used_at__isnull=True, revoked_at__isnull=True, expires__gt=timezone.now()
        ).select_related("created_by")
    )


@transaction.atomic
def revoke_organiser_invite(club: Club, invite_id: Any, *, actor: Actor | str | Any) -> None:
    """Turn off an unused link (sent to the wrong person, or no longer wanted)."""
    who = check_organiser(club, actor)
    raw = str(invite_id or "").strip()
    invite = None
    if raw.isascii() and raw.isdigit() and len(raw) < 12:
        invite = (
            club.organiser_invites.select_for_update()
            .filter(pk=int(raw), used_at__isnull=True, revoked_at__isnull=True)
            .first()
        )
    if invite is None:
        raise ServiceError("organiser_invite_gone", field="invite")
    invite.revoked_at = timezone.now()
    invite.save(update_fields=["revoked_at"])
    audit(
        None,
        who,
        Action.REVOKE_ORGANISER_INVITE,
        club,
        f"an organiser invitation link for {club.name} turned off",
        before={"invite": invite.pk},
    )


@transaction.atomic
def remove_organiser(club: Club, user: Any, *, actor: Actor | str | Any) -> Club:
    """Take a user off the club's organisers; the last organiser stays (someone must run it)."""
    who = check_organiser(club, actor)
    if user is None or not club.organisers.filter(pk=user.pk).exists():
        raise ServiceError("not_organiser", field="user", user=str(user or ""), club=club.name)
    if club.organisers.count() == 1:
        raise ServiceError("last_organiser", field="user", club=club.name)
    club.organisers.remove(user)
    if club.rating_list_id:
        club.rating_list.officers.remove(user)
    audit(
        None,
        who,
        "remove_organiser",
        club,
        f"{user.get_username()} no longer organises {club.name}",
        before={"user": user.get_username()},
    )
    return club


# --------------------------------------------------------------------------- members


def _player(value: Player | int | str, what: str, field: str) -> Player:
    """A registry player by object or id, or by name (found once or created)."""
    if isinstance(value, Player):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        player = Player.objects.filter(pk=value).first()
        if player is None:
            raise ServiceError("no_such_player", field=field, what=what, value=value)
        return player
    # a name typed by an organiser: stray spaces are slips (a file's names are kept byte for
    # byte by the importers; a person's typing is not)
    name = check_text(" ".join(str(value or "").split()), what, Player, "name", field=field)
    if not name:
        raise ServiceError("empty_name", field=field, what=what)
    return find_or_create_player(name)


def _membership_snapshot(m: Membership) -> dict[str, Any]:
    return {
        "player": m.player.name,
        "since": m.since.isoformat() if m.since else None,
        "active": m.active,
        "guest": m.guest,
    }


@transaction.atomic
def add_member(
    club: Club,
    player: Player | int | str,
    *,
    actor: Actor | str | Any,
    since: Any = None,
    guest: bool = False,
) -> Membership:
    """Add a member (or a guest) to the club; a guest who joins becomes a member."""
    who = check_organiser(club, actor)
    p = _player(player, "the member's name", "name")
    joined = _date(since, "joined", "since") if since not in (None, "") else None
    existing = Membership.objects.select_for_update().filter(club=club, player=p).first()
    if existing is not None:
        if existing.guest and not guest:
            before = _membership_snapshot(existing)
            existing.guest, existing.active = False, True
            existing.since = joined or existing.since or timezone.localdate()
            existing.save()
            audit(
                None,
                who,
                "update_member",
                club,
                f"{p.name} joined {club.name}",
                before=before,
                after=_membership_snapshot(existing),
            )
            return existing
        raise ServiceError("already_member", field="name", name=p.name, club=club.name)
    m = Membership.objects.create(
        club=club, player=p, guest=guest, since=None if guest else joined or timezone.localdate()
    )
    audit(
        None,
        who,
        "add_member",
        club,
        f"{p.name} {'visits' if guest else 'joined'} {club.name}",
        after=_membership_snapshot(m),
    )
    return m


@transaction.atomic
def update_member(membership: Membership, *, actor: Actor | str | Any, **fields: Any) -> Membership:
    """Mark a member lapsed or active again, a guest or a member, or change when they joined."""
    club = membership.club
    who = check_organiser(club, actor)
    m = Membership.objects.select_for_update().select_related("player").get(pk=membership.pk)
    unknown = set(fields) - {"active", "guest", "since"}
    if unknown:
        raise ServiceError("unknown_member_setting", names=", ".join(sorted(unknown)))
    before = _membership_snapshot(m)
    for key in ("active", "guest"):
        if key in fields:
            if not isinstance(fields[key], bool):
                raise ServiceError("not_yes_no", field=key, what=key, value=fields[key])
            setattr(m, key, fields[key])
    if "since" in fields:
        m.since = _date(fields["since"], "joined", "since") if fields["since"] else None
    if _membership_snapshot(m) == before:
        return m
    m.save()
    audit(
        None,
        who,
        "update_member",
        club,
        f"{m.player.name} in {club.name} changed",
        before=before,
        after=_membership_snapshot(m),
    )
    return m


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
    rated = sorted(present, key=lambda pg: (-club_rating(club, pg[0]), pg[0].name))
    for p, _guest in rated:
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


# --------------------------------------------------------------------------- seasons


def season_rule(preset: str = "", rule: dict[str, Any] | None = None) -> tuple[str, Rule]:
    """A preset's rule, or a configured one (checked field by field)."""
    if rule is None:
        preset = preset or DEFAULT_PRESET
        if preset not in PRESETS:
            raise ServiceError(
                "unknown_preset", field="preset", preset=preset, presets=", ".join(PRESETS)
            )
        return preset, PRESETS[preset][1]
    if preset and preset not in PRESETS:
        raise ServiceError(
            "unknown_preset", field="preset", preset=preset, presets=", ".join(PRESETS)
        )
    base = PRESETS[preset][1].as_dict() if preset else Rule().as_dict()
    unknown = set(rule) - set(base)
    if unknown:
        raise ServiceError(
            "unknown_rule_setting", field=sorted(unknown)[0], names=", ".join(sorted(unknown))
        )
    for key, value in rule.items():
        if key in ("margin", "best_nights", "min_nights"):
            value = as_int(value, key.replace("_", " "), field=key)
            if not 0 <= value <= 10_000:
                raise ServiceError(
                    "number_too_large",
                    field=key,
                    what=key.replace("_", " "),
                    value=value,
                    minimum=0,
                    maximum=10_000,
                )
        else:
            try:
                value = float(value)
            except (TypeError, ValueError):
                raise ServiceError(
                    "not_a_points_value", field=key, what=key.replace("_", " "), value=value
                ) from None
            if not -100 <= value <= 100 or value != value:
                raise ServiceError(
                    "number_too_large",
                    field=key,
                    what=key.replace("_", " "),
                    value=value,
                    minimum=-100,
                    maximum=100,
                )
        base[key] = value
    chosen = Rule.from_dict(base)
    named = preset if preset and PRESETS[preset][1] == chosen else ""
    return named, chosen


def _check_season_dates(
    club: Club, start: datetime.date, end: datetime.date, pk: int | None
) -> None:
    if end < start:
        raise ServiceError(
            "season_ends_before_start",
            field="end_date",
            start=start.isoformat(),
            end=end.isoformat(),
        )
    clash = (
        Season.objects.filter(club=club, start_date__lte=end, end_date__gte=start)
        .exclude(pk=pk)
        .first()
    )
    if clash is not None:
        raise ServiceError(
            "season_overlaps",
            field="start_date",
            name=clash.name,
            start=clash.start_date.isoformat(),
            end=clash.end_date.isoformat(),
        )


def _season_snapshot(s: Season) -> dict[str, Any]:
    return {
        "name": s.name,
        "start_date": s.start_date.isoformat(),
        "end_date": s.end_date.isoformat(),
        "preset": s.preset,
        "rule": s.rule,
    }


@transaction.atomic
def create_season(
    club: Club,
    *,
    name: str,
    start_date: Any,
    end_date: Any,
    actor: Actor | str | Any,
    preset: str = "",
    rule: dict[str, Any] | None = None,
) -> Season:
    """A season: its dates may not overlap another season of the club."""
    who = check_organiser(club, actor)
    name = check_text(str(name or "").strip(), "the season name", Season, "name", field="name")
    if not name:
        raise ServiceError("empty_name", field="name", what="the season name")
    if Season.objects.filter(club=club, name=name).exists():
        raise ServiceError("season_name_taken", field="name", name=name, club=club.name)
    start = _date(start_date, "the season's first day", "start_date")
    end = _date(end_date, "the season's last day", "end_date")
    _check_season_dates(club, start, end, None)
    preset, chosen = season_rule(preset, rule)
    Club.objects.select_for_update().filter(pk=club.pk).first()  # one season write at a time
    _check_season_dates(club, start, end, None)
    season = Season.objects.create(
        club=club, name=name, start_date=start, end_date=end, preset=preset, rule=chosen.as_dict()
    )
    audit(
        None,
        who,
        "create_season",
        club,
        f"{club.name}: season {name} ({start} to {end})",
        after=_season_snapshot(season),
    )
    return season


@transaction.atomic
def update_season(season: Season, *, actor: Actor | str | Any, **fields: Any) -> Season:
    """Change a season's name, dates or scoring; an archived season is fixed."""
    club = season.club
    who = check_organiser(club, actor)
    s = Season.objects.select_for_update().get(pk=season.pk)
    if s.archived_at is not None:
        raise ServiceError("season_archived", name=s.name)
    unknown = set(fields) - {"name", "start_date", "end_date", "preset", "rule"}
    if unknown:
        raise ServiceError(
            "unknown_rule_setting", field=sorted(unknown)[0], names=", ".join(sorted(unknown))
        )
    before = _season_snapshot(s)
    if "name" in fields:
        name = check_text(
            str(fields["name"] or "").strip(), "the season name", Season, "name", field="name"
        )
        if not name:
            raise ServiceError("empty_name", field="name", what="the season name")
        if Season.objects.filter(club=club, name=name).exclude(pk=s.pk).exists():
            raise ServiceError("season_name_taken", field="name", name=name, club=club.name)
        s.name = name
    if "start_date" in fields:
        s.start_date = _date(fields["start_date"], "the season's first day", "start_date")
    if "end_date" in fields:
        s.end_date = _date(fields["end_date"], "the season's last day", "end_date")
    _check_season_dates(club, s.start_date, s.end_date, s.pk)
    if "preset" in fields or "rule" in fields:
        preset, chosen = season_rule(fields.get("preset", ""), fields.get("rule"))
        s.preset, s.rule = preset, chosen.as_dict()
    if _season_snapshot(s) == before:
        return s
    s.save()
    audit(
        None,
        who,
        "update_season",
        club,
        f"{club.name}: season {s.name} changed",
        before=before,
        after=_season_snapshot(s),
    )
    return s


@transaction.atomic
def archive_season(season: Season, *, actor: Actor | str | Any) -> Season:
    """End a season: its awards are computed from the ladder and kept, and it is fixed."""
    from .selectors import season_awards

    club = season.club
    who = check_organiser(club, actor)
    s = Season.objects.select_for_update().get(pk=season.pk)
    if s.archived_at is not None:
        raise ServiceError("season_archived", name=s.name)
    s.awards = season_awards(s)
    s.archived_at = timezone.now()
    s.archived_by = who.user if getattr(who.user, "pk", None) else None
    s.save()
    audit(
        None,
        who,
        "archive_season",
        club,
        f"{club.name}: season {s.name} archived",
        after={"awards": s.awards},
    )
    return s


# What may still happen to a closed club night: it is counted in its club's seasons and rated
# on its list, so anything else waits until it is reopened.
AFTER_CLOSING = frozenset(
    {
        Action.CLOSE_NIGHT,
        Action.REOPEN_NIGHT,
        Action.SUBMIT_RATINGS,
        Action.RERATE,
        Action.DOWNLOAD_FEDERATION_FILE,  # a record of a file sent, not a change to the night
        Action.ISSUE_ENTRY_TOKEN,
        Action.ISSUE_ENTRY_TOKENS,
        Action.REVOKE_ENTRY_TOKEN,
    }
)


def refuse_closed_night(tournament: Tournament | None, action: Action, obj: Any) -> None:
    """An audit hook (registered in ``ClubsConfig.ready``). Every write to a tournament records
    its audit event inside its transaction, so refusing here rolls the whole write back: one
    check covers results, corrections, pairings, registrations, settings and the admin alike
    for a closed club night."""
    if tournament is None or action in AFTER_CLOSING:
        return
    night = (
        Night.objects.filter(tournament_id=tournament.pk, closed_at__isnull=False)
        .select_related("club")
        .first()
    )
    if night is not None:
        raise ServiceError("night_closed", date=night.date.isoformat(), club=night.club.name)


def bump_club_versions(tournament: Tournament | None, action: Action, obj: Any) -> None:
    """An audit hook: a club's pages show its nights' games, members and seasons, so any write
    to those, or to a night's tournament, makes them stale in the write's transaction."""
    if action in UNSEEN_ACTIONS:
        return
    if isinstance(obj, Player) and obj.pk:  # a rename or merge shows on their clubs' pages
        Club.objects.filter(memberships__player=obj).update(
            content_version=F("content_version") + 1
        )
    club_id = getattr(obj, "club_id", None) if not isinstance(obj, Club) else obj.pk
    if isinstance(obj, Membership | Club) or (club_id and hasattr(obj, "club")):
        Club.objects.filter(pk=club_id).update(content_version=F("content_version") + 1)
    elif tournament is not None and tournament.pk:
        Club.objects.filter(nights__tournament=tournament).update(
            content_version=F("content_version") + 1
        )


def refuse_small_night_files(tournament: Tournament, fmt: str, facts: list[dict]) -> None:
    """An export check (registered in ``ClubsConfig.ready``): a club night of fewer than
    FEDERATION_MIN_PLAYERS gets no federation files, wherever they are asked for."""
    if fmt not in ("all.tsh", "tou") or not hasattr(tournament, "club_night"):
        return
    players = sum(f["players"] for f in facts)
    if players < FEDERATION_MIN_PLAYERS:
        raise ServiceError(
            "night_too_small_to_submit",
            field="format",
            format=fmt,
            players=players,
            minimum=FEDERATION_MIN_PLAYERS,
        )
