"""API tokens: a signed-in user's key for the machine interface at /api/v1/.

A token is the user's own: it carries exactly their permissions (a director's token records
results in their tournaments only), and a user has at most one. Issuing replaces the old one,
so a key shown once and lost is simply issued again; revoking deletes it at once. Not
audited in a tournament's trail: a token belongs to no tournament, and every write made
with it is audited under the user's name by the service it calls.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from rest_framework.authtoken.models import Token


@transaction.atomic
def issue_api_token(user: Any) -> str:
    """A new token for ``user`` (any earlier one stops working); returns the key to show once."""
    Token.objects.filter(user=user).delete()
    return Token.objects.create(user=user).key


@transaction.atomic
def revoke_api_token(user: Any) -> bool:
    """Delete ``user``'s token; True if there was one."""
    deleted, _ = Token.objects.filter(user=user).delete()
    return deleted > 0


def api_token_created(user: Any) -> Any:
    """When ``user``'s current token was issued, or None (the key itself is never shown again)."""
    return Token.objects.filter(user=user).values_list("created", flat=True).first()


def revoke_on_new_password(sender: Any, instance: Any, **kwargs: Any) -> None:
    """A ``pre_save`` receiver on the user model (connected in TournamentConfig.ready): a new
    password, by the user's own change, a reset link or an administrator, ends the API token
    too. Whoever learnt the old password may have issued themselves a token with it; a token
    that outlived the password would keep their access."""
    if instance.pk is None or kwargs.get("raw"):
        return
    old = type(instance).objects.filter(pk=instance.pk).values_list("password", flat=True).first()
    if old is not None and old != instance.password:
        Token.objects.filter(user_id=instance.pk).delete()
