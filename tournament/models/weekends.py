"""Weekends of tournaments played one after another, and the federation files downloaded
for them."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from .core import (
    Tournament,
)

# --- weekends and federation files -----------------------------------------------------------


class Weekend(models.Model):
    """Tournaments played by the same players one after another (early bird, main, late event).

    Each event's place is explicit (``WeekendEvent.position``): two events of one day are not
    ordered by their dates, yet NASPA rates them in the order they start (docs/weekends.md), so
    the rating lists take the order from here.
    """

    name = models.CharField(max_length=200)
    slug = models.SlugField(max_length=120, unique=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created", "name"]

    def __str__(self) -> str:
        return self.name


class WeekendEvent(models.Model):
    """One tournament's place in its weekend (1 = first to start). A tournament is in at most
    one weekend. ``seed_from_earlier``: the event's entries are seeded from the ratings the
    earlier events of the weekend gave them when the weekend is submitted."""

    weekend = models.ForeignKey(Weekend, on_delete=models.CASCADE, related_name="events")
    tournament = models.OneToOneField(
        Tournament, on_delete=models.CASCADE, related_name="weekend_place"
    )
    position = models.PositiveIntegerField()
    seed_from_earlier = models.BooleanField(
        default=False,
        help_text="seed entries from the ratings after the weekend's earlier events",
    )

    class Meta:
        ordering = ["weekend", "position"]
        constraints = [
            models.UniqueConstraint(
                fields=["weekend", "position"], name="one_event_per_weekend_place"
            ),
            models.CheckConstraint(condition=Q(position__gte=1), name="weekend_position_positive"),
        ]

    def __str__(self) -> str:
        return f"{self.weekend} #{self.position}: {self.tournament}"


class FederationDownload(models.Model):
    """A federation file (NASPA, WESPA, ABSP) a director downloaded from the Federation files
    page: who, when, which file and its SHA-256, so a rating body's question "which file did
    you send?" has an answer. Not a submission to one of Gibson's own rating lists."""

    tournament = models.ForeignKey(
        Tournament, on_delete=models.CASCADE, related_name="federation_downloads"
    )
    federation = models.CharField(max_length=10)
    format = models.CharField(max_length=20)
    file_name = models.CharField(max_length=200)
    sha256 = models.CharField(max_length=64)
    size = models.PositiveIntegerField()
    forced = models.BooleanField(default=False, help_text="downloaded despite problems found")
    problems = models.JSONField(default=list, blank=True, help_text="the problems shown then")
    downloaded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    downloaded_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-downloaded_at", "-id"]

    def __str__(self) -> str:
        return f"{self.tournament}: {self.file_name} ({self.sha256[:12]})"
