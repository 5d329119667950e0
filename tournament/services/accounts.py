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
from urllib.parse import urlencode

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from django.core import signing
from django.db import transaction
from django.urls import reverse
from django.utils import timezone
from django.utils.crypto import constant_time_compare
from django.utils.translation import gettext as _

from tournament.errors import ServiceError

from ..models import AuditEvent, Notice
from . import notices
from .account_tokens import SALT, account_state, confirmation_token  # noqa: F401 (re-exported)
from .audit import audit
from .staff import new_account

_state = account_state


def confirm_days() -> int:
    return int(settings.SIGN_UP_CONFIRM_DAYS)


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
    mail: Any = None  # the queued notice (its state tells the page whether the mail went)


@transaction.atomic
def sign_up(
    *,
    username: Any,
    email: Any,
    password: Any,
    site: str | None = None,
    next_page: str = "",
) -> SignUp:
    """A new, inactive account (username, e-mail address, password checked like the staff
    pages': Django's username and password rules; one account per address); audited. An
    address that already has an account makes nothing (see SignUp). Either way a mail is
    queued in this transaction (the link, or the owner's note; links on ``site``, the
    confirmation carrying ``next_page``) and sent after the commit: the mail server down
    loses no sign-up, and the mail follows when it is back (tournament.services.notices)."""
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
        return SignUp(owner, new=False, mail=_mail_owner(owner, email, site))
    audit(
        None,
        user,
        "sign_up",
        user,
        f"{user.get_username()} signed up (address to confirm)",
        after={"user": user.get_username()},
    )
    return SignUp(user, new=True, mail=_mail_confirmation(user, site, next_page))


def _site(site: str | None) -> str:
    return (site or settings.SITE_URL).rstrip("/")


def _mail_confirmation(user: Any, site: str | None, next_page: str) -> Any:
    """The new account's confirmation link, carrying the page the newcomer was headed for (an
    invitation) so confirming lands them there; its token is made as the mail is sent."""
    path = reverse("accounts:signup_confirm", args=["SECRET-PLACEHOLDER"])
    path = path.replace("SECRET-PLACEHOLDER", notices.account_placeholder(user.pk))
    if next_page:
        path += "?" + urlencode({"next": next_page})
    # written in the language of the sign-up's page (the newcomer's), kept for a resend
    body = _(
        "Someone (we hope you) signed up to Gibson as {username}.\nConfirm this address here "
        "within {days} days:\n\n{link}\n\nIf it was not you, ignore this message: the "
        "account stays unusable."
    )
    return notices.queue_mail(
        Notice.Kind.SIGN_UP,
        user.email,
        _("Confirm your Gibson account"),
        body.format(username=user.get_username(), days=confirm_days(), link=_site(site) + path),
        key=f"user:{user.pk}",
    )


def _mail_owner(owner: Any, email: str, site: str | None) -> Any:
    """A sign-up gave an address that already has an account: its owner is told (with how
    to sign in or reset the password), nothing is made, and the page says "check your mail"
    as for a new address, so the form is no way to learn whose address has an account."""
    base = _site(site)
    body = _(
        "Someone (we hope you) tried to sign up to Gibson with this address, which already "
        "has an account: {username}.\n\nSign in: {sign_in}\nForgot the password? "
        "{reset}\n\nIf it was not you, ignore this message: nothing was changed."
    )
    return notices.queue_mail(
        Notice.Kind.SIGN_UP,
        email,
        _("Your Gibson account"),
        body.format(
            username=owner.get_username(),
            sign_in=base + reverse("accounts:login"),
            reset=base + reverse("accounts:password_reset"),
        ),
        key=f"owner:{owner.pk}",  # (never sent again: only a sign-up's link is)
    )


@transaction.atomic
def resend_sign_up(email: Any) -> int:
    """ "Send the link again" on the "check your email" page: an account still awaiting its
    address's confirmation gets its confirmation mail once more (its token made as it is
    sent). Answers how many (0 or 1); the page answers alike either way and throttles."""
    address = str(email or "").strip()
    if not address or len(address) > 254:
        raise ServiceError("setup_required", field="email", what="the e-mail address")
    User = get_user_model()
    user = (
        User.objects.filter(email__iexact=address, is_active=False, last_login__isnull=True)
        .order_by("-pk")
        .first()
    )
    if user is None or notices.send_again(Notice.Kind.SIGN_UP, f"user:{user.pk}") is None:
        return 0
    audit(
        None,
        user,
        "resend_sign_up",
        user,
        f"{user.get_username()}'s confirmation link sent again",
        after={"user": user.get_username()},
    )
    return 1


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
