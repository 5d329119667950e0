"""Entries online and check-in: the public entry list, registry ratings, who is here."""

from __future__ import annotations

from dataclasses import dataclass

from ratings.models import PlayerRating

from ..models import (
    Division,
    Entry,
    Player,
    Tournament,
)

# ------------------------------------------------------------------- entries online and check-in


def registry_rating(player: Player, division: Division) -> int:
    """The rating an online entrant is seeded with: theirs on the division's rating list (the
    one registration's type-ahead shows first), else 0 (unrated). Never typed by the entrant."""
    if not division.rating_list_id or player.pk is None:
        return 0
    rating = (
        PlayerRating.objects.filter(player=player, rating_list_id=division.rating_list_id)
        .values_list("rating", flat=True)
        .first()
    )
    return max(int(rating or 0), 0)


@dataclass(frozen=True)
class PublicEntrant:
    """One line of a public entry list: never an e-mail address or phone number."""

    number: int | None  # the division's player number; None while waiting
    name: str
    rating: int
    club: str
    checked_in: bool = False
    position: int | None = None  # on the waiting list


def _clubs_of(player_ids: list[int]) -> dict[int, str]:
    from ..models import Membership

    clubs: dict[int, str] = {}
    for pid, club in (
        Membership.objects.filter(player_id__in=player_ids, active=True, guest=False)
        .order_by("club__name")
        .values_list("player_id", "club__name")
    ):
        clubs.setdefault(pid, club)
    return clubs


def public_entry_list(division: Division) -> tuple[list[PublicEntrant], list[PublicEntrant]]:
    """A division's entrants (by number) and its waiting list (in order): name, rating, club."""
    from ..models import OnlineEntry

    entries = list(division.entries.select_related("player").order_by("number"))
    waiting = list(
        OnlineEntry.objects.filter(division=division, status=OnlineEntry.Status.WAITING)
        .select_related("player")
        .order_by("waiting_since", "pk")
    )
    clubs = _clubs_of([e.player_id for e in entries] + [w.player_id for w in waiting])
    placed = [
        PublicEntrant(
            e.number,
            e.player.name,
            e.seed_rating,
            clubs.get(e.player_id, ""),
            e.checked_in_at is not None,
        )
        for e in entries
    ]
    queue = [
        PublicEntrant(None, w.player.name, w.rating, clubs.get(w.player_id, ""), position=k)
        for k, w in enumerate(waiting, 1)
    ]
    return placed, queue


def checked_in_count(tournament: Tournament) -> tuple[int, int]:
    """(checked in, entered) over the tournament's players still playing: "who is here"."""
    entries = Entry.objects.filter(division__tournament=tournament, withdrawn_round__isnull=True)
    return entries.filter(checked_in_at__isnull=False).count(), entries.count()
