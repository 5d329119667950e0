"""The token of a sign-up's confirmation link, bound to the account's state.

Apart from ``services.accounts`` because the notices service makes the token as it sends a
queued sign-up mail (the token is never stored): accounts queues through notices, so notices
reading it from accounts would close an import circle.
"""

from __future__ import annotations

from typing import Any

from django.core import signing
from django.utils.crypto import salted_hmac

SALT = "gibson.sign-up"


def account_state(user: Any) -> str:
    """What a confirmation link is bound to; any change (confirming included) spends it."""
    value = f"{user.pk}|{user.password}|{user.is_active}|{user.last_login}|{user.email}"
    return salted_hmac(SALT, value).hexdigest()[:32]


def confirmation_token(user: Any) -> str:
    """The token of the link mailed to a new account (URL-safe)."""
    return signing.dumps({"u": user.pk, "s": account_state(user)}, salt=SALT, compress=True)
