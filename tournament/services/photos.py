"""Players' photos: a player sends one, a director approves or refuses it.

One door for every face (the player's self-entry link, their signed-in account's page, the
console). A photo is checked here, not in the views: a JPEG or PNG by its first bytes (the
name and the browser's type say nothing), at most ``MAX_PHOTO_BYTES``, at most
``MAX_PHOTO_SIDE`` pixels a side, then decoded and re-encoded with Pillow, which drops the
camera's metadata (a phone's photo carries where it was taken) and shrinks it to
``STORED_SIDE``. Without Pillow installed nothing is accepted: an image we cannot decode is
one we cannot vouch for.

Who may send: the player, through their own self-entry link or an account that speaks for
them (its confirmed address is the registry's, ``online_entries.speaks_for``). Who may
decide: a director of a tournament the player entered, or a keeper of the registry. A pending
or refused photo is never public (tournament.selectors.photos serves approved ones only).
"""

from __future__ import annotations

import io
from typing import Any

from django.db import transaction
from django.utils import timezone

from ..access import acting_user, can_direct, can_keep_registry, is_signed_in, name_for
from ..errors import ServiceError
from ..models import Entry, Player, PlayerPhoto, Tournament
from .audit import Actor, audit
from .online_entries import speaks_for
from .selfentry import entry_for_token, player_actor

try:  # an optional dependency: without it every photo is refused, cleanly
    from PIL import Image, ImageOps
except ImportError:  # pragma: no cover - Pillow is in the development environment
    Image = ImageOps = None  # type: ignore[assignment]

MAX_PHOTO_BYTES = 5 * 1024 * 1024  # a phone's photo; re-encoded it is a few dozen KB
MAX_PHOTO_SIDE = 6000  # pixels a side, checked before the image is decoded
STORED_SIDE = 600  # the stored copy's longest side: a card, a profile, an overlay
_KINDS = {b"\xff\xd8\xff": ("JPEG", "image/jpeg"), b"\x89PNG\r\n\x1a\n": ("PNG", "image/png")}


def _kind(data: bytes) -> tuple[str, str] | None:
    return next((kind for magic, kind in _KINDS.items() if data.startswith(magic)), None)


def read_photo(data: bytes, file_name: str = "photo") -> tuple[bytes, str, int, int]:
    """The photo as stored: (re-encoded bytes, content type, width, height), or a refusal
    naming the file and what is wrong with it. Nothing is written."""
    name = (file_name or "photo")[:80]
    if len(data) > MAX_PHOTO_BYTES:
        raise ServiceError(
            "photo_too_large", field="photo", file=name, limit=MAX_PHOTO_BYTES // 1024
        )
    kind = _kind(data)
    if kind is None:
        raise ServiceError("photo_wrong_type", field="photo", file=name)
    if Image is None:
        raise ServiceError("photo_unavailable", field="photo")
    try:
        with Image.open(io.BytesIO(data), formats=[kind[0]]) as image:
            width, height = image.size  # read from the header: nothing decoded yet
            if max(width, height) > MAX_PHOTO_SIDE:
                raise ServiceError(
                    "photo_too_many_pixels",
                    field="photo",
                    file=name,
                    width=width,
                    height=height,
                    limit=MAX_PHOTO_SIDE,
                )
            if kind[0] == "JPEG":
                # decode at the smallest of 1/2, 1/4, 1/8 scale still above the stored size: a
                # 12-megapixel phone photo then costs a fraction of its full memory
                image.draft("RGB", (STORED_SIDE, STORED_SIDE))
            image.load()
            upright = ImageOps.exif_transpose(image)
    except ServiceError:
        raise
    except (OSError, ValueError, SyntaxError, Image.DecompressionBombError) as exc:
        reason = str(exc).splitlines()[0][:120] if str(exc) else type(exc).__name__
        raise ServiceError("photo_unreadable", field="photo", file=name, reason=reason) from exc
    upright.thumbnail((STORED_SIDE, STORED_SIDE))
    out = io.BytesIO()
    if kind[0] == "PNG":
        keep = "RGBA" if upright.mode in ("RGBA", "LA", "P") else "RGB"
        upright.convert(keep).save(out, "PNG", optimize=True)
    else:
        upright.convert("RGB").save(out, "JPEG", quality=85)
    return out.getvalue(), kind[1], upright.width, upright.height


def _store(player: Player, data: bytes, file_name: str, actor: Any, entry: Entry | None):
    image, content_type, width, height = read_photo(data, file_name)
    with transaction.atomic():
        player = Player.objects.select_for_update().get(pk=player.pk)
        # a player has at most one photo waiting: a new one takes the old one's place
        PlayerPhoto.objects.filter(player=player, status=PlayerPhoto.Status.PENDING).delete()
        photo = PlayerPhoto.objects.create(
            player=player,
            image=image,
            content_type=content_type,
            width=width,
            height=height,
            via_entry=entry,
        )
        audit(
            entry.division.tournament if entry is not None else None,
            actor,
            "submit_photo",
            photo,
            f"photo of {player.name} sent for approval ({width}×{height})",
            after={"photo": photo.pk, "player": player.pk},
        )
    return photo


def submit_photo_by_token(token: Any, data: bytes, *, file_name: str = "") -> PlayerPhoto:
    """A player sends their photo from their self-entry link."""
    entry = entry_for_token(token)
    if entry is None:
        raise ServiceError("selfentry_unknown_token")
    return _store(entry.player, data, file_name, player_actor(entry), entry)


def submit_photo_for_account(
    user: Any, player: Player, data: bytes, *, file_name: str = ""
) -> PlayerPhoto:
    """A signed-in player sends their photo: only for the player their account speaks for."""
    if not speaks_for(user, player):
        who = user.get_username() if is_signed_in(user) else "an anonymous visitor"
        raise ServiceError("photo_not_your_player", field="photo", user=who, player=player.name)
    return _store(player, data, file_name, Actor.of(user), None)


@transaction.atomic
def decide_photo(
    photo_id: Any,
    approve: bool,
    *,
    actor: Any,
    tournament: Tournament | None = None,
    reason: str = "",
) -> PlayerPhoto:
    """Approve or refuse a waiting photo: from a tournament's console (``tournament``; its
    directors, and only for a player entered in it) or, with no tournament, by a keeper of
    the registry. Approving replaces the player's earlier approved photo; a decided photo is
    not decided again."""
    text = str(photo_id)
    photo = (
        PlayerPhoto.objects.select_for_update()
        .select_related("player")
        .filter(pk=int(text) if text.isascii() and text.isdigit() else -1)
        .first()
    )
    if photo is None or photo.status != PlayerPhoto.Status.PENDING:
        raise ServiceError("photo_not_pending", field="photo", photo=text[:20])
    user = acting_user(actor)
    if user is not None and not (
        can_keep_registry(user)
        if tournament is None
        else (can_direct(user, tournament) or can_keep_registry(user))
    ):
        where = name_for(user, tournament) if tournament is not None else "Gibson"
        raise ServiceError(
            "not_allowed",
            user=user.get_username() if is_signed_in(user) else "an anonymous visitor",
            what=f"decide {photo.player.name}'s photo",
            where=where,
            who="its directors or a keeper of the registry",
        )
    if (
        tournament is not None
        and not Entry.objects.filter(
            division__tournament=tournament, player_id=photo.player_id
        ).exists()
    ):
        raise ServiceError(
            "photo_not_entered", field="photo", player=photo.player.name, where=str(tournament)
        )
    if approve:
        PlayerPhoto.objects.filter(
            player_id=photo.player_id, status=PlayerPhoto.Status.APPROVED
        ).update(status=PlayerPhoto.Status.REPLACED)
    photo.status = PlayerPhoto.Status.APPROVED if approve else PlayerPhoto.Status.REFUSED
    photo.decided = timezone.now()
    photo.decided_by = user if is_signed_in(user) else None
    photo.reason = str(reason or "")[:200]
    photo.save(update_fields=["status", "decided", "decided_by", "reason"])
    verb = "approved" if approve else "refused"
    # audited on the player: every tournament they entered shows the photo (or stops showing
    # the one it replaced), so their cached pages and feeds are made stale in this transaction
    audit(
        tournament,
        actor,
        "approve_photo" if approve else "refuse_photo",
        photo.player,
        f"photo {photo.pk} of {photo.player.name} {verb}",
        after={"photo": photo.pk, "status": photo.status},
        reason=photo.reason,
    )
    _bump_lists(photo.player_id)
    return photo


def _bump_lists(player_id: int) -> None:
    """The rating lists the player is on: their profile is cached under those versions too."""
    from ratings.models import PlayerRating
    from ratings.services import bump_list

    for list_id in set(
        PlayerRating.objects.filter(player_id=player_id).values_list("rating_list_id", flat=True)
    ):
        bump_list(list_id)
