"""A tournament's staff: its directors and scorekeepers, and one-time sign-up links for them.

A director adds a co-director or scorekeeper either by creating the account (the director
chooses username and password and hands them over) or by an invite link the person opens to
choose their own. Only the SHA-256 of a link's token is stored, so the database alone never
yields a usable link; a link works once, for seven days.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import secrets
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from tournament.errors import ServiceError

from ..access import require
from ..models import Club, StaffInvite, Tournament
from .audit import Actor, audit

INVITE_DAYS = 7
ROLES = (StaffInvite.Role.DIRECTOR, StaffInvite.Role.SCOREKEEPER)


def is_club_night(tournament: Tournament) -> bool:
    """A club night's tournament (its Night row points at it as ``club_night``; the event core
    asks through the relation, never importing the clubs app)."""
    return Club.objects.filter(nights__tournament=tournament).exists()


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def _role(role: Any) -> str:
    if role not in ROLES:
        raise ServiceError("staff_role", field="role", role=role)
    return str(role)


def _members(tournament: Tournament, role: str) -> Any:
    return tournament.directors if role == StaffInvite.Role.DIRECTOR else tournament.scorekeepers


def new_account(
    username: Any, email: Any, password: Any, *, active: bool = True, unique_email: bool = False
) -> Any:
    """A new account, checked like Django's own sign-up: username rules, email, passwords.

    Never a staff account: directing a tournament or a club night grants nothing site-wide
    (the admin and the right to create tournaments are a site administrator's to give).
    Sign-up asks ``unique_email``: an address it confirms belongs to one account only (two
    would share a password reset)."""
    User = get_user_model()
    username = str(username or "").strip()
    if not username:
        raise ServiceError("setup_required", field="username", what="the username")
    field = User._meta.get_field(User.USERNAME_FIELD)
    try:
        field.run_validators(username)
        if len(username) > (field.max_length or 150):
            raise ValidationError(
                _("use at most {count} characters").format(count=field.max_length)
            )
    except ValidationError as exc:
        raise ServiceError(
            "staff_username", field="username", detail=" ".join(exc.messages)
        ) from None
    if User.objects.filter(**{f"{User.USERNAME_FIELD}__iexact": username}).exists():
        raise ServiceError("staff_username_taken", field="username", username=username)
    email = str(email or "").strip()
    if email:
        try:
            validate_email(email)
        except ValidationError:
            raise ServiceError("staff_email", field="email", value=email) from None
    password = str(password or "")
    user = User(**{User.USERNAME_FIELD: username}, email=email, is_active=active)
    try:
        validate_password(password, user)
    except ValidationError as exc:
        raise ServiceError(
            "staff_password", field="password", detail=" ".join(exc.messages)
        ) from None
    # last, after every other check: sign-up answers a taken address as it answers a new
    # one, so no other refusal may depend on whether the address has an account
    if email and unique_email and User.objects.filter(email__iexact=email).exists():
        raise ServiceError("account_email_taken", field="email", value=email)
    user.set_password(password)
    user.save()
    return user


def _grant(tournament: Tournament, user: Any, role: str) -> None:
    """The role on this tournament only; being a director covers keeping score."""
    _members(tournament, role).add(user)
    if role == StaffInvite.Role.DIRECTOR:
        tournament.scorekeepers.remove(user)


def _night_refuses(tournament: Tournament, role: str, *, created: bool) -> None:
    """A club night is directed by its club's organisers (``Tournament.is_director``); its
    Staff page gives scorekeepers only: a director made there would be a second door around
    the club's organiser list, and a new account made there never gets more than scoring."""
    if role == StaffInvite.Role.DIRECTOR and is_club_night(tournament):
        raise ServiceError("staff_night_director", field="role", new_account=created)


@transaction.atomic
def add_staff(
    tournament: Tournament,
    *,
    role: str,
    actor: Actor | str | None,
    user: Any = None,
    username: str = "",
    email: str = "",
    password: str = "",
) -> Any:
    """Make ``user`` (or a new account from username, email and password) a director or
    scorekeeper of the tournament; returns the user."""
    require(actor, "direct", tournament, what=gettext_noop("change its staff"))
    role = _role(role)
    created = user is None
    _night_refuses(tournament, role, created=created)
    if created:
        user = new_account(username, email, password)
    _grant(tournament, user, role)
    audit(
        tournament,
        actor,
        "add_staff",
        tournament,
        f"{user.get_username()} is now a {role}" + (" (new account)" if created else ""),
        after={"user": user.get_username(), "role": role, "new_account": created},
    )
    return user


@transaction.atomic
def create_invite(
    tournament: Tournament, *, role: str, actor: Actor | str | None, email: str = ""
) -> tuple[StaffInvite, str]:
    """A one-time sign-up link's invite and its token (shown once; only its hash is kept)."""
    require(actor, "direct", tournament, what=gettext_noop("change its staff"))
    role = _role(role)
    _night_refuses(tournament, role, created=True)
    email = str(email or "").strip()
    if email:
        try:
            validate_email(email)
        except ValidationError:
            raise ServiceError("staff_email", field="email", value=email) from None
    token = secrets.token_urlsafe(32)
    who = Actor.of(actor)
    invite = StaffInvite.objects.create(
        tournament=tournament,
        role=role,
        token_hash=token_hash(token),
        email=email,
        created_by=who.user if getattr(who.user, "pk", None) else None,
        expires=timezone.now() + dt.timedelta(days=INVITE_DAYS),
    )
    audit(
        tournament,
        actor,
        "create_invite",
        invite,
        f"invite link for a {role}" + (f" ({email})" if email else ""),
        after={"role": role, "email": email, "expires": invite.expires.isoformat()},
    )
    return invite, token


def open_invite(token: str, *, lock: bool = False) -> StaffInvite | None:
    """The unused, unexpired invite for ``token``, else None (which one is not said)."""
    if not token or len(token) > 200:
        return None
    qs = StaffInvite.objects.select_related("tournament")
    if lock:
        qs = qs.select_for_update()
    return qs.filter(
        token_hash=token_hash(token), used_at__isnull=True, expires__gt=timezone.now()
    ).first()


@transaction.atomic
def accept_invite(
    token: str, *, username: str, password: str, email: str = ""
) -> tuple[Any, StaffInvite]:
    """Open an invite link once: a new account with the chosen username and password joins the
    tournament's staff in the invite's role; the link is then spent."""
    invite = open_invite(token, lock=True)
    if invite is None:
        raise ServiceError("staff_invite_invalid", field="token")
    tournament = invite.tournament
    _night_refuses(tournament, invite.role, created=True)
    user = new_account(username, email or invite.email, password)
    _grant(tournament, user, invite.role)
    invite.used_by = user
    invite.used_at = timezone.now()
    invite.save(update_fields=["used_by", "used_at"])
    audit(
        tournament,
        user,
        "accept_invite",
        invite,
        f"{user.get_username()} joined as a {invite.role} by an invite link",
        after={"user": user.get_username(), "role": invite.role},
    )
    return user, invite


@transaction.atomic
def remove_staff(
    tournament: Tournament, *, user: Any, role: str, actor: Actor | str | None
) -> None:
    """Take a director's or scorekeeper's role away; the last director always stays."""
    require(actor, "direct", tournament, what=gettext_noop("change its staff"))
    role = _role(role)
    tournament = Tournament.objects.select_for_update().get(pk=tournament.pk)
    members = _members(tournament, role)
    name = user.get_username()
    if not members.filter(pk=user.pk).exists():
        raise ServiceError("staff_not_member", field="user", user=name, role=role)
    if role == StaffInvite.Role.DIRECTOR and tournament.directors.count() <= 1:
        raise ServiceError("staff_last_director", field="user", user=name)
    members.remove(user)
    audit(
        tournament,
        actor,
        "remove_staff",
        tournament,
        f"{name} is no longer a {role}",
        before={"user": name, "role": role},
    )


@transaction.atomic
def revoke_invite(tournament: Tournament, invite_id: Any, *, actor: Actor | str | None) -> None:
    """Turn off an unused sign-up link of this tournament before it is used (a link sent to
    the wrong person, or no longer wanted); audited. A used, expired or another tournament's
    invite is refused."""
    require(actor, "direct", tournament, what=gettext_noop("change its staff"))
    raw = str(invite_id)
    pk = int(raw) if raw.isascii() and raw.isdigit() and len(raw) < 12 else None
    invite = (
        StaffInvite.objects.select_for_update()
        .filter(pk=pk, tournament=tournament, used_at__isnull=True)
        .first()
        if pk is not None
        else None
    )
    if invite is None:
        raise ServiceError("staff_invite_gone", field="invite")
    audit(
        tournament,
        actor,
        "revoke_invite",
        invite,
        f"invite link for a {invite.role} turned off"
        + (f" ({invite.email})" if invite.email else ""),
        before={"role": invite.role, "email": invite.email, "expires": invite.expires.isoformat()},
    )
    invite.delete()


def _create_permission() -> Any:
    return Permission.objects.get(
        content_type__app_label="tournament", codename="create_tournament"
    )


@transaction.atomic
def grant_create_tournaments(user: Any, *, actor: Actor | str | None) -> bool:
    """Let ``user`` create tournaments (``tournament.create_tournament``): a site
    administrator's grant, audited; False when the account holds it already (no event)."""
    perm = _create_permission()
    if user.user_permissions.filter(pk=perm.pk).exists():
        return False
    user.user_permissions.add(perm)
    audit(
        None,
        actor,
        "grant_create_tournaments",
        user,
        f"{user.get_username()} may create tournaments",
        after={"user": user.get_username(), "create_tournament": True},
    )
    return True


@transaction.atomic
def revoke_create_tournaments(user: Any, *, actor: Actor | str | None) -> bool:
    """Take the right to create tournaments back (the tournaments made stay theirs);
    audited; False when the account did not hold it."""
    perm = _create_permission()
    if not user.user_permissions.filter(pk=perm.pk).exists():
        return False
    user.user_permissions.remove(perm)
    audit(
        None,
        actor,
        "revoke_create_tournaments",
        user,
        f"{user.get_username()} may no longer create tournaments",
        before={"user": user.get_username(), "create_tournament": True},
    )
    return True
