"""A registry player who entered a tournament themselves and shared their contact details.

What ``tournament.services.online_entries`` leaves behind when a player enters online from
the address the registry holds and follows the mailed link (tests/security/test_contact.py
walks that path itself, through the served site): their OnlineEntry, confirmed, sharing.
Tests that only need such a player, next to hand-made entries, make one here.
"""

from __future__ import annotations

import secrets

from tournament.models import Entry, OnlineEntry


def entered_themselves(entry: Entry) -> OnlineEntry:
    """Mark ``entry`` as the player's own online entry, confirmed from the registry's address."""
    return OnlineEntry.objects.create(
        tournament=entry.division.tournament,
        division=entry.division,
        player=entry.player,
        entry=entry,
        email=entry.player.email,
        rating=entry.seed_rating,
        status=OnlineEntry.Status.ENTERED,
        link_hash=secrets.token_hex(32),
        confirm_hash=secrets.token_hex(32),
        contact_shared=True,
    )
