"""Before and after play: the round clock and the director's announcement."""

from __future__ import annotations

from django.db import models
from django.db.models import Q

from .core import (
    Division,
    Tournament,
)

# --- before and after play: the round clock and the director's announcement ------------------


class RoundClock(models.Model):
    """The clock of one division's round, kept as server times only (no browser's clock is
    trusted): when it started, how long it was paused, and each extension with its reason.

    Per division round, as rounds are stored (a division may run a round behind the others, or
    pair late); its state is derived: not started (no ``started_at``), paused (``paused_at``),
    running, or over once the end has passed (tournament.clock computes it). Keyed by the
    division and the round's number rather than the Round row, so unpairing and re-pairing a
    round keeps its clock. Every change is a service call with an audit event.
    """

    division = models.ForeignKey(Division, on_delete=models.CASCADE, related_name="clocks")
    round_number = models.PositiveIntegerField()
    minutes = models.PositiveSmallIntegerField(help_text="the round's length as started")
    started_at = models.DateTimeField(null=True, blank=True)
    paused_at = models.DateTimeField(null=True, blank=True)
    paused_seconds = models.PositiveIntegerField(
        default=0, help_text="seconds spent paused by pauses already resumed"
    )
    # [{"minutes": 2, "reason": "fire alarm", "at": ISO time, "by": name}, ...]
    extensions = models.JSONField(default=list, blank=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["division", "round_number"]
        constraints = [
            models.UniqueConstraint(
                fields=["division", "round_number"], name="one_clock_per_division_round"
            ),
            models.CheckConstraint(
                condition=Q(round_number__gte=1), name="clock_round_number_positive"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.division} round {self.round_number} clock"


class Announcement(models.Model):
    """The director's short notice to the room (one per tournament): shown on the tournament
    page, the venue screen and players' pages until it is cleared or its ``until`` passes."""

    tournament = models.OneToOneField(
        Tournament, on_delete=models.CASCADE, related_name="announcement"
    )
    text = models.CharField(max_length=280)
    until = models.DateTimeField(null=True, blank=True, help_text="hidden after this time")
    updated = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"{self.tournament}: {self.text[:40]}"
