"""Venue mode: the link, the take, the change log and the inbox that keep one
writer per tournament while the hosted copy follows the venue."""

from __future__ import annotations

import secrets

from django.conf import settings
from django.db import models
from django.db.models import Q

from .core import Entry, Tournament
from .online_entries import OnlineEntry

# --- venue mode: one writer per tournament, the hosted copy follows the venue -----------------


def new_key() -> str:
    """A random name for a change or an inbox item: a site restored from a backup
    numbers its rows again from where the backup was, and a number alone then names two
    different things; the number with this key never does."""
    return secrets.token_hex(6)


class VenueLink(models.Model):
    """On the hosted site: a tournament handed to a venue instance (a laptop at the venue).

    Its token (shown once; only its SHA-256 is kept) lets that venue download the tournament
    once and push its changes to it, and nothing else. From the moment the venue takes it
    (``taken``) until the link is revoked (a hand-back), the hosted tournament is a read
    replica: every service refuses a write naming the venue (tournament.access), except the
    apply-changes service acting as this link.
    """

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="venue_links")
    token_hash = models.CharField(max_length=64, unique=True)
    venue_name = models.CharField(max_length=100, help_text="what the venue is called")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created = models.DateTimeField(auto_now_add=True)
    taken = models.DateTimeField(null=True, blank=True, help_text="when the venue downloaded it")
    revoked = models.DateTimeField(null=True, blank=True)
    revoked_by = models.CharField(max_length=100, blank=True)
    # the venue's change log as far as the hosted copy has applied it (exactly once, in order)
    last_seq_applied = models.PositiveBigIntegerField(default=0)
    # the key of that change: the venue checks it is its own change, so a laptop
    # restored from an older backup is told the copy holds changes it never had
    last_key = models.CharField(max_length=16, blank=True)
    last_push = models.DateTimeField(null=True, blank=True)
    # the last time the venue asked anything (a push, even an empty one): "silent for N min"
    last_contact = models.DateTimeField(null=True, blank=True)
    # the laptop the link is bound to: one laptop per link; a director moves it
    laptop_id = models.CharField(max_length=64, blank=True)
    laptop_name = models.CharField(max_length=100, blank=True)
    laptop_since = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created"]
        constraints = [
            models.UniqueConstraint(
                fields=["tournament"], condition=Q(revoked__isnull=True), name="one_live_venue_link"
            ),
        ]

    def __str__(self) -> str:
        return f"venue link of {self.tournament} to {self.venue_name}"

    @property
    def holds_authority(self) -> bool:
        return self.taken is not None and self.revoked is None


class VenueTake(models.Model):
    """On the venue instance: a tournament taken from a hosted site, with the link to push to.

    The token is kept as given (the venue must send it): it is the laptop's key to that one
    tournament on the hosted site and nothing more. ``next_seq`` numbers the change log;
    ``last_pushed_seq`` is what the hosted copy confirmed. Released (handed back), the local
    copy refuses writes: the hosted site is the authority again.
    """

    tournament = models.OneToOneField(
        Tournament, on_delete=models.CASCADE, related_name="venue_take"
    )
    hosted_url = models.URLField(max_length=300)
    token = models.CharField(max_length=100)
    taken = models.DateTimeField(auto_now_add=True)
    next_seq = models.PositiveBigIntegerField(default=1)
    last_pushed_seq = models.PositiveBigIntegerField(default=0)
    last_push = models.DateTimeField(null=True, blank=True)
    last_error = models.CharField(max_length=500, blank=True)
    last_error_at = models.DateTimeField(null=True, blank=True)
    # {venue player pk: hosted player pk}, so a pushed entry names the hosted site's player
    player_refs = models.JSONField(default=dict, blank=True)
    released = models.DateTimeField(null=True, blank=True)
    # {hosted inbox id: [status, outcome]}: players' reports pulled from the hosted site and
    # settled here, each written with its settling, so a report is never entered twice
    inbox_done = models.JSONField(default=dict, blank=True)
    # the key of the last change the hosted copy confirmed
    hosted_key = models.CharField(max_length=16, blank=True)
    # what the last push found that the director should know (the copy was behind, ...)
    notice = models.CharField(max_length=500, blank=True)
    # the hosted copy holds changes this laptop never had (it was restored from an older
    # backup): pushes wait for the director's choice; {"hosted_seq", "found", "hosted_only",
    # "venue_only"} (empty: none)
    diverged = models.JSONField(default=dict, blank=True)

    def __str__(self) -> str:
        return f"{self.tournament} taken from {self.hosted_url}"


class VenueChange(models.Model):
    """One write of a venue-held tournament, logged in the write's own transaction: what it
    touched (the whole tournament, a division, or one round of a division).

    The push sends the after-state of what the changes touched, read when it is sent (full
    rows keyed by natural keys: division slug, entry number, round number, game seats), so a
    resent batch is idempotent and a later state supersedes an earlier one; see
    tournament.services.venue.
    """

    class Scope(models.TextChoices):
        TOURNAMENT = "tournament"
        DIVISION = "division"
        ROUND = "round"

    tournament = models.ForeignKey(
        Tournament, on_delete=models.CASCADE, related_name="venue_changes"
    )
    seq = models.PositiveBigIntegerField()
    kind = models.CharField(max_length=50, help_text="the audit action")
    scope = models.CharField(max_length=10, choices=Scope.choices)
    division_id_ref = models.PositiveBigIntegerField(null=True, blank=True)
    round_number = models.PositiveIntegerField(null=True, blank=True)
    key = models.CharField(max_length=16, default=new_key)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["tournament", "seq"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "seq"], name="one_venue_change_per_seq"),
        ]


class VenueInbox(models.Model):
    """On the hosted site: what a player sent while a venue holds the tournament (a result
    self-reported from their phone, an online entry, a check-in), queued for the venue to pull
    and settle through its own services; the player's page shows the outcome once the venue
    has answered."""

    class Kind(models.TextChoices):
        REPORT = "report", "a result reported"
        ENTRY = "entry", "an online entry"
        CHECK_IN = "check_in", "a check-in"
        WITHDRAW = "withdraw", "a withdrawal"

    class Status(models.TextChoices):
        QUEUED = "queued", "waiting for the venue"
        ACCEPTED = "accepted", "entered at the venue"
        REFUSED = "refused", "refused at the venue"

    link = models.ForeignKey(VenueLink, on_delete=models.CASCADE, related_name="inbox")
    kind = models.CharField(max_length=10, choices=Kind.choices, default=Kind.REPORT)
    # a report's or a check-in's player (an online entry has no Entry here until the venue's
    # push brings the one it made; the venue's push may remove one: its answers stay)
    entry = models.ForeignKey(
        Entry, on_delete=models.SET_NULL, null=True, blank=True, related_name="venue_reports"
    )
    online = models.ForeignKey(
        OnlineEntry, on_delete=models.CASCADE, null=True, blank=True, related_name="venue_inbox"
    )
    round_number = models.PositiveIntegerField(default=0)
    score = models.IntegerField(default=0, help_text="the player's own score")
    opp_score = models.IntegerField(default=0)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    outcome = models.CharField(max_length=300, blank=True)
    # sent with the id: the venue remembers what it settled by both, so an id a
    # restored hosted site gives again to a new report is not answered from that memory
    key = models.CharField(max_length=16, default=new_key)
    created = models.DateTimeField(auto_now_add=True)
    settled = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return f"{self.entry} round {self.round_number}: {self.score}-{self.opp_score}"
