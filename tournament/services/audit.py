"""The audit trail: who acted, and one event per write, in the same transaction as the write."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..models import (
    AuditEvent,
    Tournament,
)


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

