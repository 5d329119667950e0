"""Sign-up: an account for anyone (players, club organisers), confirmed by e-mail.

A new account is inactive until the link mailed to its address is opened, so an unconfirmed
account cannot sign in, found a club or be anything else. The link is signed (Django's
signing with the site's secret), expires after GIBSON_SIGN_UP_CONFIRM_DAYS, and names the
account's state (password, active flag, last sign-in, address): confirming signs the person
in, which changes that state, so the link works once, and an account an administrator later
disables is never woken by an old link. Sign-up grants nothing beyond an account: creating
tournaments and the admin are a site administrator's to give.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from django.core import signing
from django.db import transaction
from django.utils import timezone
from django.utils.crypto import constant_time_compare, salted_hmac

from tournament.errors import ServiceError

from ..models import AuditEvent
from .audit import audit
from .staff import new_account

SALT = "gibson.sign-up"


def _state(user: Any) -> str:
    """What a confirmation link is bound to; any change (confirming included) spends it."""
    value = f"{user.pk}|{user.password}|{user.is_active}|{user.last_login}|{user.email}"
    return salted_hmac(SALT, value).hexdigest()[:32]


def confirm_days() -> int:
    return int(settings.SIGN_UP_CONFIRM_DAYS)


def confirmation_token(user: Any) -> str:
    """The token of the link mailed to a new account (URL-safe)."""
    return signing.dumps({"u": user.pk, "s": _state(user)}, salt=SALT, compress=True)


def _stale_sign_ups(username: str, email: str) -> None:
    """Unconfirmed sign-ups whose link has expired give their username and address back, so
    the person (or anyone whose address it really is) can sign up again. Only accounts made
    by sign-up, never signed in, still inactive and holding no role are removed."""
    User = get_user_model()
    cutoff = timezone.now() - dt.timedelta(days=confirm_days())
    stale = User.objects.filter(
        is_active=False,
        last_login__isnull=True,
        date_joined__lt=cutoff,
        directed_tournaments__isnull=True,
        scorekept_tournaments__isnull=True,
        organised_clubs__isnull=True,
    ).filter(**{f"{User.USERNAME_FIELD}__iexact": username}) | User.objects.filter(
        is_active=False,
        last_login__isnull=True,
        date_joined__lt=cutoff,
        email__iexact=email,
        directed_tournaments__isnull=True,
        scorekept_tournaments__isnull=True,
        organised_clubs__isnull=True,
    )
    signed_up = AuditEvent.objects.filter(action="sign_up").values("user")
    for user in User.objects.filter(pk__in=stale.filter(pk__in=signed_up).values("pk")):
        name = user.get_username()
        audit(
            None,
            "sign_up",
            "expire_sign_up",
            user,
            f"{name}'s unconfirmed sign-up expired; its username and address are free again",
            before={"user": name, "email": user.email},
        )
        user.delete()


@dataclass(frozen=True)
class SignUp:
    """What a sign-up made: a new inactive account (``new``), or nothing, because the address
    already belongs to ``user``. The page answers both alike ("check your mail"): the caller
    mails the new account ``confirmation_token(user)``, or the address's owner a note that
    they already have an account, so the form never tells a stranger whose address has one."""

    user: Any
    new: bool


@transaction.atomic
def sign_up(*, username: Any, email: Any, password: Any) -> SignUp:
    """A new, inactive account (username, e-mail address, password checked like the staff
    pages': Django's username and password rules; one account per address); audited. An
    address that already has an account makes nothing (see SignUp)."""
    email = str(email or "").strip()
    if not email:
        raise ServiceError("setup_required", field="email", what="the e-mail address")
    _stale_sign_ups(str(username or "").strip(), email)
    try:
        user = new_account(username, email, password, active=False, unique_email=True)
    except ServiceError as exc:
        if exc.code != "account_email_taken":
            raise
        make_password(str(password or ""))  # the same hashing time as a new account's
        User = get_user_model()
        owner = User.objects.filter(email__iexact=email).order_by("pk").first()
        return SignUp(owner, new=False)
    audit(
        None,
        user,
        "sign_up",
        user,
        f"{user.get_username()} signed up (address to confirm)",
        after={"user": user.get_username()},
    )
    return SignUp(user, new=True)


@transaction.atomic
def confirm_sign_up(token: Any) -> Any:
    """Activate the account the link names; refused if the link is altered, expired or
    spent (an error code for each, nothing changed)."""
    token = str(token or "")
    if not token or len(token) > 400:
        raise ServiceError("sign_up_link_bad", field="token")
    try:
        data = signing.loads(token, salt=SALT, max_age=dt.timedelta(days=confirm_days()))
    except signing.SignatureExpired:
        raise ServiceError("sign_up_link_expired", field="token") from None
    except signing.BadSignature:
        raise ServiceError("sign_up_link_bad", field="token") from None
    if not isinstance(data, dict) or not isinstance(data.get("u"), int):
        raise ServiceError("sign_up_link_bad", field="token")
    User = get_user_model()
    user = User.objects.select_for_update().filter(pk=data["u"]).first()
    if user is None or not constant_time_compare(str(data.get("s", "")), _state(user)):
        raise ServiceError("sign_up_link_used", field="token")
    user.is_active = True
    user.save(update_fields=["is_active"])
    audit(
        None,
        user,
        "confirm_sign_up",
        user,
        f"{user.get_username()} confirmed their e-mail address",
        after={"user": user.get_username()},
    )
    return user
