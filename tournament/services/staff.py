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
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import transaction
from django.utils import timezone

from tournament.errors import ServiceError

from ..access import require
from ..models import StaffInvite, Tournament
from .audit import Actor, audit

INVITE_DAYS = 7
ROLES = (StaffInvite.Role.DIRECTOR, StaffInvite.Role.SCOREKEEPER)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def _role(role: Any) -> str:
    if role not in ROLES:
        raise ServiceError("staff_role", field="role", role=role)
    return str(role)


def _members(tournament: Tournament, role: str) -> Any:
    return tournament.directors if role == StaffInvite.Role.DIRECTOR else tournament.scorekeepers


def _new_user(username: Any, email: Any, password: Any, *, is_staff: bool) -> Any:
    """A new account, checked like Django's own sign-up: username rules, email, passwords."""
    User = get_user_model()
    username = str(username or "").strip()
    if not username:
        raise ServiceError("setup_required", field="username", what="the username")
    field = User._meta.get_field(User.USERNAME_FIELD)
    try:
        field.run_validators(username)
        if len(username) > (field.max_length or 150):
            raise ValidationError(f"use at most {field.max_length} characters")
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
    user = User(**{User.USERNAME_FIELD: username}, email=email, is_staff=is_staff)
    try:
        validate_password(password, user)
    except ValidationError as exc:
        raise ServiceError(
            "staff_password", field="password", detail=" ".join(exc.messages)
        ) from None
    user.set_password(password)
    user.save()
    return user


def _grant(tournament: Tournament, user: Any, role: str) -> None:
    _members(tournament, role).add(user)
    if role == StaffInvite.Role.DIRECTOR:
        # A director also uses the admin for repairs; being a director covers keeping score.
        tournament.scorekeepers.remove(user)
        if not user.is_staff:
            user.is_staff = True
            user.save(update_fields=["is_staff"])


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
    require(actor, "direct", tournament, what="change its staff")
    role = _role(role)
    created = user is None
    if created:
        user = _new_user(username, email, password, is_staff=role == StaffInvite.Role.DIRECTOR)
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
    require(actor, "direct", tournament, what="change its staff")
    role = _role(role)
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
    user = _new_user(
        username, email or invite.email, password, is_staff=invite.role == StaffInvite.Role.DIRECTOR
    )
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
    require(actor, "direct", tournament, what="change its staff")
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
    require(actor, "direct", tournament, what="change its staff")
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
