"""Writes for clubs: who may act, and the club itself (found, edit, organisers, its list)."""

from __future__ import annotations

import datetime
import hashlib
import secrets
from typing import Any

from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.text import slugify

from ratings.models import RatingList
from ratings.services import create_rating_list, known_systems
from tournament.access import allowed, can_found_club
from tournament.checks import as_int, check_text
from tournament.errors import ServiceError

from ...models import REALM_DEFAULTS, Club
from ...services.audit import Action, Actor, audit
from ..models import OrganiserInvite

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
