"""Players' photos, read: only an approved photo is ever public (services.photos decides)."""

from __future__ import annotations

from collections.abc import Iterable

from django.urls import reverse

from ..models import PlayerPhoto, Tournament

APPROVED = PlayerPhoto.Status.APPROVED


def photo_path(photo_id: int, content_type: str) -> str:
    """The photo's public address (its id names it, so a newer photo is a new address)."""
    ext = "png" if content_type == "image/png" else "jpg"
    return reverse("players:photo", args=(photo_id, ext))


def approved_photos(player_ids: Iterable[int]) -> dict[int, str]:
    """{player id: public address} of the players with an approved photo. One query."""
    ids = [pid for pid in set(player_ids) if pid is not None]
    if not ids:
        return {}
    rows = PlayerPhoto.objects.filter(player_id__in=ids, status=APPROVED).values_list(
        "player_id", "pk", "content_type"
    )
    return {pid: photo_path(pk, kind) for pid, pk, kind in rows}


def approved_photo(player_id: int | None) -> str:
    """The player's public photo address, or "" (none approved)."""
    return approved_photos([player_id]).get(player_id, "") if player_id else ""


def public_photo(photo_id: int) -> PlayerPhoto | None:
    """An approved photo by its id, with its bytes; None for a pending, refused or replaced
    one (all alike to the public)."""
    return PlayerPhoto.objects.filter(pk=photo_id, status=APPROVED).first()


def waiting_photos(tournament: Tournament) -> list[PlayerPhoto]:
    """The photos awaiting a decision of the players entered in the tournament (no bytes)."""
    entered = tournament.divisions.values("entries__player_id")
    return list(
        PlayerPhoto.objects.filter(player_id__in=entered, status=PlayerPhoto.Status.PENDING)
        .defer("image")
        .select_related("player")
        .order_by("uploaded", "pk")
    )


def waiting_photo(tournament: Tournament, photo_id: int) -> PlayerPhoto | None:
    """One of those photos, with its bytes, for the console's preview."""
    entered = tournament.divisions.values("entries__player_id")
    return PlayerPhoto.objects.filter(
        pk=photo_id, player_id__in=entered, status=PlayerPhoto.Status.PENDING
    ).first()


def photo_state(player_id: int) -> dict[str, object]:
    """What the player's own page says of their photo: the approved one's address, whether
    one waits, and the last refusal's reason when it is newer than the approved photo."""
    rows = list(
        PlayerPhoto.objects.filter(player_id=player_id)
        .exclude(status=PlayerPhoto.Status.REPLACED)
        .order_by("-pk")
        .values("pk", "status", "content_type", "reason")[:3]
    )
    approved = next((r for r in rows if r["status"] == APPROVED), None)
    refused = next((r for r in rows if r["status"] == PlayerPhoto.Status.REFUSED), None)
    return {
        "approved": photo_path(approved["pk"], approved["content_type"]) if approved else "",
        "pending": any(r["status"] == PlayerPhoto.Status.PENDING for r in rows),
        "refused": refused is not None and (approved is None or refused["pk"] > approved["pk"]),
        "reason": refused["reason"] if refused else "",
    }


def tournament_photos(tournament: Tournament) -> dict[int, str]:
    """{player id: public address} of the tournament's entrants with an approved photo, for
    tourney.js's ``photo``. One query, however many divisions."""
    rows = (
        PlayerPhoto.objects.filter(
            status=APPROVED, player__entries__division__tournament=tournament
        )
        .values_list("player_id", "pk", "content_type")
        .distinct()
    )
    return {pid: photo_path(pk, kind) for pid, pk, kind in rows}
