"""Venue mode (issue 23): what a hosted copy run from a venue says about itself."""

from __future__ import annotations

from typing import Any

from ..models import (
    AuditEvent,
    Tournament,
    VenueLink,
)


def replica_note(tournament: Tournament) -> dict[str, Any] | None:
    """What a hosted copy run from a venue says about itself (venue mode, issue 23): the
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
    return {
        "venue": link.venue_name,
        "since": link.taken,
        "last_seq": link.last_seq_applied,
        "last_push": link.last_push,
        "rebased_at": rebase["at"] if rebase else None,
        "rebased": rebase["summary"] if rebase else "",
    }
