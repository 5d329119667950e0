"""Venue mode: what a hosted copy run from a venue says about itself."""

from __future__ import annotations

from typing import Any

from django.utils import timezone

from ..models import (
    AuditEvent,
    Tournament,
    VenueLink,
)

# minutes without a word from the venue before its copy says so (a push every few seconds is
# the rule; a few minutes is a laptop asleep or a link down)
SILENT_MINUTES = 3


def replica_note(tournament: Tournament) -> dict[str, Any] | None:
    """What a hosted copy run from a venue says about itself (venue mode): the
    venue, the last change received and when, and the last time the venue's state replaced
    this copy's (one side restored from a backup; the venue's wins). None when no venue
    holds it."""
    link = VenueLink.objects.filter(
        tournament=tournament, taken__isnull=False, revoked__isnull=True
    ).first()
    if link is None:
        return None
    rebase = (
        AuditEvent.objects.filter(tournament=tournament, action="venue_rebase", at__gte=link.taken)
        .order_by("-at")
        .values("at", "summary")
        .first()
    )
    heard = link.last_contact or link.last_push or link.taken
    silent = int((timezone.now() - heard).total_seconds() // 60) if heard else 0
    return {
        "venue": link.venue_name,
        # the venue has asked nothing for this long (its laptop off, or its link down)
        "silent_minutes": silent if silent >= SILENT_MINUTES else 0,
        "since": link.taken,
        "last_seq": link.last_seq_applied,
        "last_push": link.last_push,
        "rebased_at": rebase["at"] if rebase else None,
        "rebased": rebase["summary"] if rebase else "",
    }
