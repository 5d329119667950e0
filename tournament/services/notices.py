"""E-mail notices to entrants who opted in: a minimal stand-in.

The h22n branch replaces this whole file (subscriptions, unsubscribe links, a Celery task);
this one only keeps the three functions the entries services call, so this branch runs.
"""

from __future__ import annotations

from typing import Any

from django.core.mail import send_mail

from ..models import Division, Player, Tournament


def subscribe(tournament: Tournament, player: Player, email: str, *, actor: Any) -> None:
    """Opt ``player`` in to ``tournament``'s notices (the h22n branch replaces this file)."""


def notify_entry(
    tournament: Tournament, player: Player, division: Division, *, waiting_position: int | None
) -> None:
    """Entry confirmed, or waiting at ``waiting_position`` (the h22n branch replaces this)."""
    send_mail(
        f"{tournament}: entry", f"{player} {division.name} {waiting_position}", None, _to(player)
    )


def notify_promoted(tournament: Tournament, player: Player, division: Division) -> None:
    """Moved off the waiting list into the division (the h22n branch replaces this file)."""
    send_mail(f"{tournament}: off the waiting list", f"{player} {division.name}", None, _to(player))


def _to(player: Player) -> list[str]:
    return [player.email] if player.email else []
