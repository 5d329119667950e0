"""Before play: entries online, each division's rule and the waiting lists."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy, pgettext_lazy

from .core import (
    Division,
    Entry,
    Player,
    Tournament,
)

# --- before play: entries online and their waiting lists --------------------------------------


class EntryWindow(models.Model):
    """A tournament's entries online: when the public entry form takes entries (``opens_at``
    to ``closes_at``, unless a director closed it early). Each division's own rule (cap, rating
    band, fee) is its ``DivisionEntryRule``; a division without one takes no online entries."""

    tournament = models.OneToOneField(
        Tournament, on_delete=models.CASCADE, related_name="entry_window"
    )
    opens_at = models.DateTimeField()
    closes_at = models.DateTimeField()
    closed_at = models.DateTimeField(
        null=True, blank=True, help_text="closed by a director before closes_at"
    )
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(closes_at__gt=models.F("opens_at")), name="entry_window_order"
            ),
        ]

    def __str__(self) -> str:
        return f"entries to {self.tournament}"


class DivisionEntryRule(models.Model):
    """Who may enter a division online and how many: a cap (None: no limit), a rating band
    (``rating_min``..``rating_max``, either end open; both None: the player picks), and the
    fee as the director words it (no payment is taken here: a director marks it paid)."""

    division = models.OneToOneField(Division, on_delete=models.CASCADE, related_name="entry_rule")
    cap = models.PositiveIntegerField(null=True, blank=True)
    rating_min = models.PositiveIntegerField(null=True, blank=True)
    rating_max = models.PositiveIntegerField(null=True, blank=True)
    fee_amount = models.CharField(max_length=20, blank=True)
    fee_currency = models.CharField(max_length=10, blank=True)

    def __str__(self) -> str:
        return f"entry rule of {self.division}"

    @property
    def player_picks(self) -> bool:
        return self.rating_min is None and self.rating_max is None


class OnlineEntry(models.Model):
    """One person's entry through the public form: awaiting their e-mail confirmation, in the
    division (``entry`` is their Entry there), on its waiting list (ordered by
    ``waiting_since``), withdrawn or refused. Only hashes of the personal link's and the
    confirmation link's secrets are kept: a read of the database yields no usable link.
    ``email`` is contact data: it never appears on a public list or in the API's reads."""

    class Status(models.TextChoices):
        UNCONFIRMED = "unconfirmed", gettext_lazy("awaiting e-mail confirmation")
        # an entry naming a registry player, made by someone not known to be them: it holds no
        # place and blocks no one until the player confirms it or a director approves it
        PENDING = (
            "pending",
            gettext_lazy("awaiting the player's confirmation or the director's approval"),
        )
        ENTERED = "entered", pgettext_lazy("an online entry's status", "entered")
        WAITING = "waiting", gettext_lazy("on the waiting list")
        # a venue holds the tournament (venue mode): the entry is queued for it to settle
        SENT = "sent", gettext_lazy("sent to the venue")
        WITHDRAWN = "withdrawn", pgettext_lazy("an online entry's status", "withdrawn")
        REFUSED = "refused", pgettext_lazy("an online entry's status", "refused")
        # a pending entry the director refused, or one left over when the player's own counted
        # (unlike "refused", it never bars the player from entering)
        DECLINED = "declined", "not confirmed for the player"

    tournament = models.ForeignKey(
        Tournament, on_delete=models.CASCADE, related_name="online_entries"
    )
    division = models.ForeignKey(Division, on_delete=models.CASCADE, related_name="online_entries")
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="online_entries")
    entry = models.OneToOneField(
        Entry, on_delete=models.SET_NULL, null=True, blank=True, related_name="online"
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="online_entries",
    )
    email = models.EmailField(blank=True)
    rating = models.PositiveIntegerField(default=0, help_text="seed rating entered with")
    status = models.CharField(max_length=12, choices=Status.choices)
    waiting_since = models.DateTimeField(null=True, blank=True)
    promoted_at = models.DateTimeField(null=True, blank=True)
    paid = models.BooleanField(default=False)
    notices = models.BooleanField(default=False, help_text="opted in to e-mail notices")
    # the language the entrant entered in (its code, "" when unknown, as for a venue's copy):
    # their mails and notices are written in it (tournament.services.notice_texts)
    language = models.CharField(max_length=10, blank=True, default="", editable=False)
    # Whether the entrant gave this tournament's directors the registry player's contact
    # details (tournament.access.can_see_contact): the entry made the player (every detail on
    # the record is the entrant's own), or the address it was confirmed from (the mailed link,
    # or the hosted site's) is the one the registry holds. A signed-in entrant's typed address
    # is not checked by mail, so it proves nothing about an existing player's record.
    contact_shared = models.BooleanField(default=False, editable=False)
    link_hash = models.CharField(max_length=64, unique=True)
    confirm_hash = models.CharField(max_length=64, unique=True, null=True, blank=True)
    note = models.CharField(max_length=200, blank=True)
    # a waiting entrant here on the day, "if a place frees": removing the absent promotes them
    checked_in_at = models.DateTimeField(null=True, blank=True, editable=False)
    # on a copy a venue holds (venue mode): the entrant's place on the venue's waiting list, as
    # its last push said (the venue's list is the one that counts, not this copy's order)
    venue_position = models.PositiveIntegerField(null=True, blank=True)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["tournament", "division", "waiting_since", "pk"]
        verbose_name_plural = "online entries"

    def __str__(self) -> str:
        return f"{self.player} in {self.division} ({self.status})"
