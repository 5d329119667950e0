"""Venue mode, down: what players send to the hosted site while the venue holds the
tournament is queued for the venue (the venue settles it, tournament.sync.inbox)."""

from __future__ import annotations

from typing import Any

from ...models import (
    Entry,
    OnlineEntry,
    Tournament,
    VenueInbox,
    VenueLink,
)
from ..audit import Action, audit

# --- down: what players send to the hosted site while the venue holds the tournament --------


def held_by_venue(tournament: Tournament) -> VenueLink | None:
    """The live link of a venue holding ``tournament`` (this copy is its replica), or None."""
    return VenueLink.objects.filter(
        tournament=tournament, taken__isnull=False, revoked__isnull=True
    ).first()


def queue_self_report(
    link: VenueLink, entry: Entry, round_number: int, mine: int, theirs: int, actor: Any
) -> VenueInbox:
    """A player's report made on the replica: queued for the venue, which enters it through
    its own services (a director's entry there still wins) and answers with the outcome."""
    item = VenueInbox.objects.create(
        link=link, entry=entry, round_number=round_number, score=mine, opp_score=theirs
    )
    audit(
        link.tournament,
        actor,
        Action.SELF_REPORT,
        link,
        f"#{entry.number} {entry.name} round {round_number}: {mine}-{theirs}, sent to the venue",
    )
    return item


def queue_online_entry(link: VenueLink, online: OnlineEntry, actor: Any) -> VenueInbox:
    """An online entry that counts (signed in, or its e-mail confirmed) on the replica: sent
    to the venue, which enters it under its own rules (cap, waiting list, duplicates) and
    answers; until then the entrant's page says it is with the venue."""
    online.status = OnlineEntry.Status.SENT
    online.save(update_fields=["status"])
    item = VenueInbox.objects.create(link=link, kind=VenueInbox.Kind.ENTRY, online=online)
    audit(
        link.tournament,
        actor,
        Action.VENUE_QUEUE,
        item,
        f"{online.player.name} entered {online.division.name} online, sent to the venue",
    )
    return item


def queue_check_in(link: VenueLink, entry: Entry, actor: Any) -> VenueInbox:
    """A player checking in from their link on the replica: sent to the venue (once; a second
    tap while the first waits changes nothing)."""
    waiting = VenueInbox.objects.filter(
        link=link, kind=VenueInbox.Kind.CHECK_IN, entry=entry, status=VenueInbox.Status.QUEUED
    ).first()
    if waiting is not None:
        return waiting
    online = OnlineEntry.objects.filter(entry=entry).first()
    item = VenueInbox.objects.create(
        link=link, kind=VenueInbox.Kind.CHECK_IN, entry=entry, online=online
    )
    audit(
        link.tournament,
        actor,
        Action.VENUE_QUEUE,
        item,
        f"{entry.division.name} #{entry.number} {entry.name} checked in, sent to the venue",
    )
    return item


def queue_withdrawal(link: VenueLink, online: OnlineEntry, actor: Any) -> VenueInbox:
    """An entrant withdrawing from their link on the replica: sent to the venue, which
    withdraws them through its own service (or refuses: round 1 paired there); once (a second
    tap while the first waits changes nothing). Their record here is unchanged until the
    venue answers."""
    waiting = VenueInbox.objects.filter(
        link=link, kind=VenueInbox.Kind.WITHDRAW, online=online, status=VenueInbox.Status.QUEUED
    ).first()
    if waiting is not None:
        return waiting
    item = VenueInbox.objects.create(link=link, kind=VenueInbox.Kind.WITHDRAW, online=online)
    audit(
        link.tournament,
        actor,
        Action.VENUE_QUEUE,
        item,
        f"{online.player.name} withdrew from {online.division.name}, sent to the venue",
    )
    return item
