"""E-mail notices: who subscribed, what was sent, whose address a page may show."""

from __future__ import annotations

from typing import Any

from tournament.access import can_direct, contact_visible

from ..models import (
    OnlineEntry,
    Player,
    Tournament,
)

# --- e-mail notices --------------------------------------------------------------------------


def notice_token_hash(token: str) -> str:
    """What an unsubscribe link's token is looked up by: its SHA-256 (the token itself is
    never stored)."""
    import hashlib

    return hashlib.sha256(str(token).encode("utf-8", "replace")).hexdigest()


def subscription_by_token(token: Any) -> Any:
    """The subscription an unsubscribe link names, or None for any token that is not one (the
    same None whatever was wrong, so the page says nothing about which)."""
    from ..models import NoticeSubscription

    text = str(token or "")
    if not (16 <= len(text) <= 128) or not text.isascii() or not text.isalnum():
        return None
    return (
        NoticeSubscription.objects.select_related("tournament", "player")
        .filter(token_hash=notice_token_hash(text))
        .first()
    )


def notice_subscribers(tournament: Tournament) -> list[Any]:
    """The tournament's subscriptions, active first, by player name (the console's list)."""
    from ..models import NoticeSubscription

    return list(
        NoticeSubscription.objects.filter(tournament=tournament)
        .select_related("player")
        .order_by("-active", "player__name")
    )


def notice_log(tournament: Tournament, limit: int = 200) -> list[Any]:
    """The tournament's latest notices to its subscribers, newest first, with whom each went
    to (an entry's confirmation mails go to an address, not a subscriber: not listed)."""
    from ..models import Notice

    return list(
        Notice.objects.filter(tournament=tournament, subscription__isnull=False)
        .select_related("subscription__player", "division")
        .order_by("-created", "-id")[:limit]
    )


def shown_notice_addresses(
    user: Any, tournament: Tournament, subscribers: list[Any], candidates: list[Player]
) -> tuple[set[int], set[int]]:
    """Whose addresses the Notices page may show ``user``: (subscription pks, player pks).

    A candidate's registry address shows only under the one rule (access.contact_visible);
    a subscription's also, for the tournament's directors, when it is the address the entrant
    typed on this tournament's own entry form (theirs, given to them). Every other address
    stays hidden: the page says the player has one, and the notices still go to it.
    """
    visible = contact_visible(user, {s.player_id for s in subscribers} | {p.pk for p in candidates})
    entrants = OnlineEntry.objects.filter(tournament=tournament).exclude(email="")
    typed = {
        (player_id, email.strip().lower())
        for player_id, email in entrants.values_list("player_id", "email")
        if can_direct(user, tournament)  # given to the tournament's directors, no one else
    }
    shown_subscriptions = {
        s.pk
        for s in subscribers
        if s.player_id in visible or (s.player_id, s.email.strip().lower()) in typed
    }
    return shown_subscriptions, {p.pk for p in candidates if p.pk in visible}


def notice_candidates(tournament: Tournament) -> list[Player]:
    """Entrants of the tournament with an e-mail address in the registry and no active
    subscription yet: whom a director may add from the console."""
    from ..models import NoticeSubscription

    subscribed = NoticeSubscription.objects.filter(tournament=tournament, active=True).values(
        "player"
    )
    return list(
        Player.objects.filter(entries__division__tournament=tournament)
        .exclude(email="")
        .exclude(pk__in=subscribed)
        .distinct()
        .order_by("name")
    )
