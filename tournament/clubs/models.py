"""Club nights and seasons (the clubs themselves are tournament.models.Club)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy, pgettext_lazy

from tournament.models import Club, Tournament


class Draw(models.TextChoices):
    """How a night's games are drawn; a night lists one per game, the last one repeating."""

    RANDOM = "random", pgettext_lazy("a night's draw", "random")
    KOTH = "koth", gettext_lazy("winners play winners (King of the Hill)")
    SWISS = "swiss", pgettext_lazy("a night's draw", "Swiss")
    RR = "rr", gettext_lazy("round robin")
    # The engine's King of the Hill ranks by rating before any game is played, so "by
    # rating" is a first game's draw (later games by rating alone would repeat the same
    # pairs; they are drawn winners-play-winners instead).
    RATING = "rating", gettext_lazy("by rating (first game: strongest play each other)")


# the engine's system for each draw
DRAW_SYSTEMS = {"random": "random", "koth": "koth", "swiss": "swiss", "rr": "rr", "rating": "koth"}


class Night(models.Model):
    """One evening of club play, stored as a one-division tournament owned by the club.

    The players present get numbers in that division; pairing, results, standings, PDFs and
    TSH export are the tournament's. A night counts for the club's seasons and ratings once
    it is closed (``closed_at``); reopening it takes it out again until it is closed anew.
    """

    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="nights")
    tournament = models.OneToOneField(
        Tournament, on_delete=models.CASCADE, related_name="club_night"
    )
    date = models.DateField(db_index=True)
    games = models.PositiveSmallIntegerField(default=3, help_text="games planned for the night")
    draw = models.CharField(
        max_length=100,
        default="random,koth",
        help_text="the draw of each game, comma-separated; the last repeats",
    )
    closed_at = models.DateTimeField(null=True, blank=True)
    # The night's part of the club's records (tournament.clubs.records.summarise), kept when
    # it closes: a closed night cannot change, so the club page folds ~500 of these instead
    # of reading 50,000 games. Cleared on reopening.
    summary = models.JSONField(null=True, blank=True, editable=False)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-date", "-id"]
        indexes = [models.Index(fields=["club", "date"], name="night_club_date")]

    def __str__(self) -> str:
        return f"{self.club} night {self.date}"

    @property
    def closed(self) -> bool:
        return self.closed_at is not None

    def draws(self) -> list[str]:
        """The draw of each planned game (``random,koth`` over 3 games: random, koth, koth)."""
        names = [d.strip() for d in self.draw.split(",") if d.strip()] or [Draw.RANDOM]
        count = max(self.games, len(names))
        return [names[min(i, len(names) - 1)] for i in range(count)]


class Season(models.Model):
    """A date range of a club's nights and the rule that turns their games into a ladder.

    ``rule`` holds the scoring (see tournament.clubs.ladder.Rule); ``preset`` names the preset
    it came from ("" when configured by hand). ``awards`` is filled when the season is closed
    and archived (``archived_at``); until then the ladder is computed live from the games.
    """

    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="seasons")
    name = models.CharField(max_length=100)
    start_date = models.DateField()
    end_date = models.DateField()
    preset = models.CharField(max_length=30, blank=True)
    rule = models.JSONField(default=dict)
    awards = models.JSONField(default=list, blank=True)
    archived_at = models.DateTimeField(null=True, blank=True)
    archived_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    class Meta:
        ordering = ["-start_date"]
        constraints = [
            models.UniqueConstraint(fields=["club", "name"], name="season_name_unique_in_club"),
            models.CheckConstraint(
                condition=Q(end_date__gte=models.F("start_date")), name="season_ends_after_start"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.club} {self.name}"


class OrganiserInvite(models.Model):
    """A one-time link that makes the signed-in account opening it an organiser of one club.

    Organisers invite instead of naming an account: adding by username answered whether that
    account exists, to anyone who had founded a club. Only the SHA-256 of the token is kept,
    so a leaked database leaks no usable link.
    """

    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="organiser_invites")
    token_hash = models.CharField(max_length=64, unique=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    created = models.DateTimeField(auto_now_add=True)
    expires = models.DateTimeField()
    used_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created", "-id"]

    def __str__(self) -> str:
        return f"organiser invite to {self.club}"
