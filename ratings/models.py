"""Rating lists: pools of ratings (e.g. NASPA NWL, NASPA CSW, a club's own list).

A list keeps its events' games itself (not only links to divisions), so re-rating a list reads
only these tables and a late submission can re-rate years of events quickly. Players' starting
values (from an imported ratings file) are kept apart from their current values, so a list can
always be replayed from the same start and re-rating is idempotent.
"""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy, pgettext_lazy

from ratings.engine.model import UNKNOWN_CAREER_GAMES


class RatingList(models.Model):
    name = models.CharField(max_length=100, unique=True)
    slug = models.SlugField(max_length=100, unique=True)
    system = models.CharField(max_length=20, default="nsa2008")
    start_date = models.DateField(null=True, blank=True)
    description = models.CharField(max_length=300, blank=True)
    # Events from this date on are not yet (re-)rated; None: every event's results are final.
    dirty_from = models.DateField(
        null=True, blank=True, help_text="events from this date on await re-rating"
    )
    rerated_at = models.DateTimeField(null=True, blank=True)
    # Submitting to a list or re-rating it changes every later rating on it: its officers do
    # that; a director without the role requests a submission and an officer approves it.
    officers = models.ManyToManyField(
        settings.AUTH_USER_MODEL, related_name="rating_lists_kept", blank=True
    )
    # Pages showing the list's ratings (and divisions rated on it) are cached under this
    # number; every write of ratings.services adds 1 (an F() update) in its transaction.
    content_version = models.PositiveBigIntegerField(default=0, editable=False)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    def save(self, *args, **kwargs) -> None:
        """A full save of a stale copy never turns content_version back (see bump_list)."""
        if not (
            self._state.adding
            or args
            or kwargs.get("update_fields") is not None
            or kwargs.get("force_insert")
        ):
            kwargs["update_fields"] = [
                f.name
                for f in self._meta.concrete_fields
                if not f.primary_key and f.name != "content_version"
            ]
        super().save(*args, **kwargs)


class PlayerRating(models.Model):
    """A player's start and current state on one list."""

    rating_list = models.ForeignKey(RatingList, on_delete=models.CASCADE, related_name="ratings")
    player = models.ForeignKey(
        "tournament.Player", on_delete=models.CASCADE, related_name="list_ratings"
    )
    start_rating = models.IntegerField(default=0, help_text="imported rating; 0 = unrated")
    start_career_games = models.PositiveIntegerField(null=True, blank=True)
    rating = models.IntegerField(default=0, help_text="current rating; 0 = unrated")
    career_games = models.PositiveIntegerField(null=True, blank=True)
    deviation = models.FloatField(null=True, blank=True)
    volatility = models.FloatField(null=True, blank=True)
    state = models.JSONField(default=dict, blank=True, help_text="system-specific state")
    last_event_date = models.DateField(null=True, blank=True)

    @property
    def rated_games(self) -> int | None:
        """The games the Games column shows: the player's real count of rated games.

        A player who came onto the list with no known career count (a seed rating from
        elsewhere, a ratings file without games, a newcomer entered without ``lifeg``) is rated
        as if they had played UNKNOWN_CAREER_GAMES games (the K table's rule, TSH's), and
        ``career_games`` carries that assumption forward: a newcomer with 3 games showed 103.
        The assumption is for the K table only; the page shows the games actually rated (None
        when nothing is known).
        """
        if self.career_games is None:
            return self.start_career_games
        if self.start_career_games is None:
            return max(self.career_games - UNKNOWN_CAREER_GAMES, 0)
        return self.career_games

    class Meta:
        ordering = ["rating_list", "-rating"]
        constraints = [
            models.UniqueConstraint(fields=["rating_list", "player"], name="one_rating_per_list"),
        ]
        # the public list page: best first, and ranks counted as "rated higher on this list"
        # (player last: counting and paging a filtered list reads the index alone)
        indexes = [
            models.Index(fields=["rating_list", "-rating", "player"], name="rating_list_rank")
        ]

    def __str__(self) -> str:
        return f"{self.player} {self.rating} ({self.rating_list})"


class RatedEvent(models.Model):
    """One event of a list, with its games (player primary keys) stored here."""

    rating_list = models.ForeignKey(RatingList, on_delete=models.CASCADE, related_name="events")
    date = models.DateField()
    name = models.CharField(max_length=200)
    configured_rounds = models.PositiveIntegerField()
    system = models.CharField(max_length=20, blank=True, help_text="blank: the list's system")
    division = models.ForeignKey(
        "tournament.Division",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="rated_events",
    )
    # [[round, player_a_pk, player_b_pk, score_a, score_b], ...]: real games only.
    games = models.JSONField(default=list)
    submitted = models.DateTimeField(auto_now=True)
    # The event's place among the list's events of the same date: a weekend's events of one
    # day are rated in the weekend's order (docs/weekends.md), not in the order they were
    # submitted. 0 for an event outside a weekend. Every ordering of events reads it.
    sequence = models.PositiveIntegerField(
        default=0, help_text="order among events of the same date (a weekend's place)"
    )

    class Meta:
        ordering = ["rating_list", "date", "sequence", "id"]
        # a player's last event on a list is found by its date (PlayerRating.last_event_date)
        indexes = [models.Index(fields=["rating_list", "date"], name="rated_event_list_date")]
        constraints = [
            models.UniqueConstraint(
                fields=["rating_list", "division"],
                condition=models.Q(division__isnull=False),
                name="division_rated_once_per_list",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.date} {self.name}"


class RatingHistory(models.Model):
    """A player's rating before and after one event, with the explanation players read."""

    event = models.ForeignKey(RatedEvent, on_delete=models.CASCADE, related_name="results")
    player = models.ForeignKey(
        "tournament.Player", on_delete=models.CASCADE, related_name="rating_history"
    )
    before = models.IntegerField(null=True, blank=True)
    after = models.IntegerField()
    games = models.PositiveIntegerField(default=0)
    expected = models.FloatField(default=0.0)
    actual = models.FloatField(default=0.0)
    #: Empty after a federation re-rate: built when read (ratings.selectors.history_explanation)
    #: from the event's games and the participants' state before it (the columns below).
    explanation = models.JSONField(default=dict, blank=True)
    # The player's state entering the event, beyond ``before``: what the rating system needs
    # to rate the event again and so explain it. Plain columns, cheap to COPY (null when the
    # system keeps no such value, or on rows written with their explanation).
    games_before = models.PositiveIntegerField(null=True, blank=True)
    deviation_before = models.FloatField(null=True, blank=True)
    volatility_before = models.FloatField(null=True, blank=True)
    last_played_before = models.DateField(null=True, blank=True)
    #: absp only: the recent game values, "h" then the floats' repr, space-separated ("": none).
    history_before = models.TextField(blank=True, default="")

    class Meta:
        ordering = ["event", "player"]
        verbose_name_plural = "rating history"
        constraints = [
            models.UniqueConstraint(fields=["event", "player"], name="one_result_per_event"),
        ]

    def __str__(self) -> str:
        return f"{self.player}: {self.before} -> {self.after} ({self.event})"


class SubmissionRequest(models.Model):
    """A director asks for a division to go on a rating list; one of the list's officers decides."""

    class Status(models.TextChoices):
        PENDING = "pending", gettext_lazy("awaiting an officer")
        APPROVED = "approved", gettext_lazy("approved and submitted")
        REJECTED = "rejected", pgettext_lazy("a rating submission's status", "rejected")

    division = models.ForeignKey(
        "tournament.Division", on_delete=models.CASCADE, related_name="submission_requests"
    )
    rating_list = models.ForeignKey(
        RatingList, on_delete=models.CASCADE, related_name="submission_requests"
    )
    date = models.DateField(null=True, blank=True, help_text="the event's date on the list")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    requested_at = models.DateTimeField(auto_now_add=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    note = models.CharField(max_length=300, blank=True)

    class Meta:
        ordering = ["-requested_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["division", "rating_list"],
                condition=models.Q(status="pending"),
                name="one_pending_request_per_division_list",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.division} -> {self.rating_list} ({self.status})"
