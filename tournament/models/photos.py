"""Players' photos: uploaded by the player, public only once a director approves them."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from .core import Entry, Player


class PlayerPhoto(models.Model):
    """One photo a player sent (re-encoded by services.photos, so no camera metadata is kept).

    A photo is ``pending`` until a director of an event the player entered (or a keeper of
    the registry) approves or refuses it; only an ``approved`` one is ever served or named on
    a public page, a broadcast overlay or tourney.js. Approving a newer photo makes the older
    one ``replaced``; a new upload takes the place of a pending one (a player has at most one
    waiting). The image lives in the database, as the game records do: one small file per
    player, backed up with everything else.
    """

    class Status(models.TextChoices):
        PENDING = "pending", "awaiting approval"
        APPROVED = "approved", "approved"
        REFUSED = "refused", "refused"
        REPLACED = "replaced", "replaced by a newer photo"

    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="photos")
    image = models.BinaryField(help_text="the re-encoded JPEG or PNG")
    content_type = models.CharField(max_length=20)
    width = models.PositiveIntegerField()
    height = models.PositiveIntegerField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    uploaded = models.DateTimeField(auto_now_add=True)
    # the self-entry link it came through (None: the player's signed-in account)
    via_entry = models.ForeignKey(
        Entry, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    decided = models.DateTimeField(null=True, blank=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    reason = models.CharField(max_length=200, blank=True)

    class Meta:
        indexes = [models.Index(fields=["player", "status"], name="photo_player_status")]

    def __str__(self) -> str:
        return f"photo of {self.player_id} ({self.status})"

    @property
    def extension(self) -> str:
        return "png" if self.content_type == "image/png" else "jpg"
