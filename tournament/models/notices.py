"""Notices: e-mail to entrants who opted in, queued in the write's transaction and sent
after commit."""

from __future__ import annotations

from django.db import models

from .core import (
    Division,
    Player,
    Tournament,
)

# --- notices: e-mail to entrants who opted in ------------------------------------------------


class NoticeSubscription(models.Model):
    """One player's opt-in to one tournament's e-mail notices (entry, waiting list, pairings,
    final results), to one address.

    The unsubscribe link in every mail carries a token derived from ``token_salt`` with the
    site's secret key (tournament.services.notices); only the token's SHA-256 is looked up, so
    the database alone gives no working link. Unsubscribing keeps the row (``active`` off) so
    the log of what was sent still names whom it went to.
    """

    tournament = models.ForeignKey(
        Tournament, on_delete=models.CASCADE, related_name="notice_subscriptions"
    )
    player = models.ForeignKey(
        Player, on_delete=models.CASCADE, related_name="notice_subscriptions"
    )
    email = models.EmailField()
    token_salt = models.CharField(max_length=32, editable=False)
    token_hash = models.CharField(max_length=64, unique=True, editable=False)
    active = models.BooleanField(default=True)
    created = models.DateTimeField(auto_now_add=True)
    unsubscribed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["tournament", "player__name"]
        constraints = [
            models.UniqueConstraint(
                fields=["tournament", "player"], name="one_notice_subscription_per_player"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.player} notices of {self.tournament}"


class Notice(models.Model):
    """One e-mail to one subscriber, and what became of it: the director's log of notices.

    Written ``queued`` in the transaction that decided to send it (or, for pairings, right
    after the pairing's own transaction committed), then ``sent`` or ``failed`` (with the
    mail server's words) by the task that hands it to the mail server. ``key`` is what the
    notice said in short (a pairing's board, opponent and start), so a re-paired round sends
    a correction only to the players whose pairing changed.

    An entry's or a sign-up's mail is a notice to ``email`` with no subscription
    (a sign-up's, no tournament either); its body holds each link's nonce, never the link: the
    secret is derived from it with the site's key as it is sent (tournament.services.notices).
    """

    class Kind(models.TextChoices):
        ENTRY = "entry", "entry confirmed"
        WAITING = "waiting", "on the waiting list"
        PROMOTED = "promoted", "off the waiting list"
        PAIRING = "pairing", "pairing"
        RESULTS = "results", "final results"
        # mails to an address, not to a subscriber (one mail path)
        ENTRY_LINK = "entry_link", "entry confirmation link"
        ENTRY_PAGE = "entry_page", "entrant's page"
        ENTRY_HELD = "entry_held", "entry awaiting the player"
        SIGN_UP = "sign_up", "sign-up confirmation"
        # a visitor's message to an event's directors (the calendar's contact form)
        CONTACT = "contact", "message to the directors"

    class State(models.TextChoices):
        QUEUED = "queued", "queued"
        SENT = "sent", "sent"
        FAILED = "failed", "failed"

    # None for a mail to an address (an entry's or a sign-up's link): ``email`` says where
    subscription = models.ForeignKey(
        NoticeSubscription, on_delete=models.CASCADE, related_name="notices", null=True, blank=True
    )
    tournament = models.ForeignKey(
        Tournament, on_delete=models.CASCADE, related_name="notices", null=True, blank=True
    )
    email = models.EmailField(blank=True)
    kind = models.CharField(max_length=10, choices=Kind.choices)
    division = models.ForeignKey(
        Division, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    round_number = models.PositiveIntegerField(null=True, blank=True)
    key = models.CharField(max_length=200, blank=True)
    subject = models.CharField(max_length=200)
    body = models.TextField()
    state = models.CharField(max_length=10, choices=State.choices, default=State.QUEUED)
    error = models.CharField(max_length=300, blank=True)
    created = models.DateTimeField(auto_now_add=True)
    sent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created", "-id"]
        indexes = [models.Index(fields=["subscription", "kind", "round_number"])]

    def __str__(self) -> str:
        to = self.subscription.player if self.subscription else "an address"
        return f"{self.get_kind_display()} to {to}: {self.state}"
