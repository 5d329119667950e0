"""E-mail notices to entrants who opted in: entry confirmed, waiting list,
moved off the waiting list, each round's pairing, the final results.

Why it is built this way:

- **Nothing is sent for a write that did not happen.** A notice is a ``Notice`` row written
  ``queued`` in the write's own transaction; the mail goes out from a Celery task queued by
  ``transaction.on_commit``, so a rolled-back write leaves neither a row nor a mail.
- **A mail server's trouble never breaks the director's write.** The task runs after the
  commit and catches every failure of the mail server: the notice is marked ``failed`` with the
  server's words (the console's Notices page lists them) and logged; the pairing or entry
  stands. The task runs inline unless ``REDIS_URL`` is set (the project's Celery setting,
  ``CELERY_TASK_ALWAYS_EAGER``), on a worker otherwise.
- **Pairings are caught where every write passes**: an audit hook (``on_audited_write``,
  registered in ``TournamentConfig.ready``) sees a round paired, re-paired or one pair changed
  and, after the commit, writes each subscriber of that division the pairing that is now
  stored, unless it is what they were last told (``Notice.key``): re-pairing a round sends a
  correction to the players whose board, opponent or start changed, and nothing to the rest.
- **Every mail carries its unsubscribe link**: a token derived from the subscription's salt
  and the site's secret key; only its SHA-256 is stored. The link's page unsubscribes with one
  POST (a GET only asks), and the mail's ``List-Unsubscribe`` header names the same address.

- **Mails to an address ride the same path**: an online entry's confirmation link,
  its entrant's page, a weekend's, a sign-up's link are notices of the ``MAIL_KINDS`` with no
  subscription (``queue_mail``), queued in the write's transaction and sent after its commit
  like the rest; the mail server down leaves the entry or the account stored and the mail
  ``failed``, and ``retry_failed`` (the ``tournament.retry_notices`` task every few minutes on
  a worker, ``manage.py notices --retry`` from the shell, and each new mail that finds the
  server answering) sends it when the server is back. Their links carry secrets of which the
  database holds only the SHA-256: the body stores a placeholder with a nonce
  (``secret_placeholder``) and the secret is derived from it with the site's key as the mail
  is sent, so the stored body opens nothing.

Who may: ``subscribe`` is the door the entry services call (the player entering, checked
there: any signed-in player or a trusted name for a published tournament, its staff for a
draft) and the console's ``add_subscriber`` (a director, ``require(actor, "direct")``);
``send_final_results`` and the console's add and remove need the tournament's directors.
``notify_*`` are called from inside those services' writes and check nobody.
"""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import logging
import re
import secrets
import smtplib
from collections.abc import Iterable
from functools import partial
from typing import Any

from celery import shared_task
from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.mail import EmailMessage, get_connection
from django.core.validators import validate_email
from django.db import transaction
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.crypto import salted_hmac
from django.utils.translation import gettext_noop

from ..access import allowed, require
from ..checks import refuse_bidi_controls
from ..errors import ServiceError
from ..models import (
    Division,
    Entry,
    Game,
    Notice,
    NoticeSubscription,
    Player,
    Round,
    Tournament,
    VenueTake,
)
from ..selectors import division_standings, last_scored_round, subscription_by_token
from . import notice_texts as texts
from .audit import Action, Actor, audit

log = logging.getLogger(__name__)

TOKEN_PURPOSE = "gibson.notices.unsubscribe"
MAIL_PURPOSE = "gibson.mail."
# the mails to an address rather than a subscriber (no unsubscribe link: the person asked)
MAIL_KINDS = frozenset(
    {
        Notice.Kind.ENTRY_LINK,
        Notice.Kind.ENTRY_PAGE,
        Notice.Kind.ENTRY_HELD,
        Notice.Kind.SIGN_UP,
        Notice.Kind.CONTACT,
    }
)
# what a failure is retried for: a pairing is stale once its round is played, so a failed one
# is left to the director's log (the player's page shows the pairing anyway)
RETRIED_KINDS = MAIL_KINDS | {
    Notice.Kind.ENTRY,
    Notice.Kind.WAITING,
    Notice.Kind.PROMOTED,
    Notice.Kind.RESULTS,
}
RETRY_HOURS = 48  # a mail still failing two days on is given up (it stays in the log)
RETRY_BATCH = 200
RIDE_ALONG = 20  # failures a new mail takes along (inline, a director may be waiting)
# a failure no retry mends (the server refused the mailbox, the player unsubscribed)
FINAL = "not retried: "
_ACCOUNT = re.compile(r"\[\[account:([0-9]{1,12})\]\]")
_PLACEHOLDER = re.compile(r"\[\[secret:([a-z_.]{1,40}):([0-9a-f]{32})\]\]")
EMAIL_LENGTH = 254
ERROR_LENGTH = 300
# The audit actions that store a round's pairings (pairings.services.store): the hook's cue.
PAIRING_ACTIONS = frozenset({Action.PAIR_ROUND, Action.REPAIR_UNSCORED, Action.PAIR})


# --------------------------------------------------------------------------- links and words


def unsubscribe_token(subscription: NoticeSubscription) -> str:
    """The subscription's unsubscribe token: derived, never stored (its hash is)."""
    return salted_hmac(TOKEN_PURPOSE, subscription.token_salt, algorithm="sha256").hexdigest()


def _site(path: str) -> str:
    return f"{settings.SITE_URL}{path}"


def unsubscribe_url(subscription: NoticeSubscription) -> str:
    return _site(reverse("notices:unsubscribe", args=[unsubscribe_token(subscription)]))


def _footer(subscription: NoticeSubscription) -> str:
    """Added as the notice is sent (the database keeps no working link), in its language."""
    tournament = subscription.tournament
    with translation.override(texts.player_language(tournament, subscription.player_id)):
        return texts.footer(tournament.name, unsubscribe_url(subscription))


def _tournament_link(tournament: Tournament) -> str:
    if not tournament.published:
        return ""
    return "\n" + _site(reverse("public:tournament", args=[tournament.slug]))


# --------------------------------------------------------------------------- subscriptions


def _check_email(email: Any, name: str) -> str:
    text = "" if email is None else str(email).strip()
    if not text:
        raise ServiceError("notice_email_needed", field="email", name=name)
    refuse_bidi_controls(text, "the e-mail address", field="email")
    if len(text) > EMAIL_LENGTH or "\x00" in text:
        raise ServiceError("notice_bad_email", field="email", value=text[:60])
    try:
        validate_email(text)
    except ValidationError:
        raise ServiceError("notice_bad_email", field="email", value=text[:60]) from None
    return text


def _current_token(subscription: NoticeSubscription) -> None:
    """Keep the stored hash matching the token the mail will carry: after the site's secret
    key changed, new mails carry a new token (the links in older mails stop working)."""
    token_hash = hashlib.sha256(unsubscribe_token(subscription).encode()).hexdigest()
    if subscription.token_hash != token_hash:
        subscription.token_hash = token_hash
        subscription.save(update_fields=["token_hash"])


def _new_token(subscription: NoticeSubscription) -> None:
    subscription.token_salt = secrets.token_hex(16)
    token = unsubscribe_token(subscription)
    subscription.token_hash = hashlib.sha256(token.encode()).hexdigest()


@transaction.atomic
def subscribe(tournament: Tournament, player: Player, email: str, *, actor: Any) -> None:
    """Opt ``player`` in to ``tournament``'s notices at ``email``.

    Idempotent: the same address again changes nothing (no second audit event); a new address
    replaces the old one; a player who unsubscribed is subscribed again (they asked again, on
    the entry form, or their director added them). A bad address is refused at ``email``.
    """
    # a director subscribes anyone; a player opts in on a public tournament's entry form (the
    # entry service, which checked who they are, passes them on); a draft is its staff's alone
    if not allowed(actor, "direct", tournament):
        require(actor, "view", tournament, what=gettext_noop("subscribe to notices"))
    address = _check_email(email, getattr(player, "name", "the player"))
    if tournament.pk is None or player.pk is None:
        raise ServiceError(
            "notice_unknown_player", field="player", tournament=str(tournament), value=str(player)
        )
    current = (
        NoticeSubscription.objects.select_for_update()
        .filter(tournament=tournament, player=player)
        .first()
    )
    if current is not None and current.active and current.email == address:
        return
    before = {"active": current.active, "email_changed": False} if current is not None else None
    if current is None:
        current = NoticeSubscription(tournament=tournament, player=player, email=address)
        _new_token(current)
    else:
        if before is not None:
            before["email_changed"] = current.email != address
        current.email = address
        current.active = True
        current.unsubscribed_at = None
    current.save()
    # the address stays out of the trail, which outlives the subscription
    audit(
        tournament,
        actor,
        Action.SUBSCRIBE_NOTICES,
        current,
        f"{player.name}: e-mail notices on",
        before=before,
        after={"player": player.pk, "active": True},
    )


@transaction.atomic
def add_subscriber(tournament: Tournament, player_id: Any, *, actor: Any) -> NoticeSubscription:
    """The console's door: subscribe one of the tournament's entrants at the address the
    registry holds for them (``Player.email``)."""
    require(actor, "direct", tournament, what=gettext_noop("add notice subscribers"))
    raw = str(player_id or "").strip()
    player = None
    if raw.isascii() and raw.isdigit() and len(raw) < 12:
        player = (
            Player.objects.filter(pk=int(raw), entries__division__tournament=tournament)
            .distinct()
            .first()
        )
    if player is None:
        raise ServiceError(
            "notice_unknown_player", field="player", tournament=tournament.name, value=raw[:40]
        )
    if not player.email:
        raise ServiceError("notice_no_email", field="player", name=player.name)
    subscribe(tournament, player, player.email, actor=actor)
    return NoticeSubscription.objects.get(tournament=tournament, player=player)


def _unsubscribed(subscription: NoticeSubscription, actor: Any, how: str) -> None:
    if not subscription.active:
        return
    subscription.active = False
    subscription.unsubscribed_at = timezone.now()
    subscription.save(update_fields=["active", "unsubscribed_at"])
    audit(
        subscription.tournament,
        actor,
        Action.UNSUBSCRIBE_NOTICES,
        subscription,
        f"{subscription.player.name}: e-mail notices off ({how})",
        before={"active": True},
        after={"active": False},
    )


@transaction.atomic
def unsubscribe(token: Any) -> NoticeSubscription:
    """The unsubscribe link's POST: the subscription stops (again is harmless). An unknown
    token is refused with one code whatever was wrong with it."""
    found = subscription_by_token(token)
    if found is None:
        raise ServiceError("notice_unknown_link", field="token")
    locked = (
        NoticeSubscription.objects.select_for_update()
        .select_related("tournament", "player")
        .get(pk=found.pk)
    )
    _unsubscribed(locked, Actor("unsubscribe link"), "their unsubscribe link")
    return locked


@transaction.atomic
def remove_subscriber(tournament: Tournament, subscription_id: Any, *, actor: Any) -> None:
    """A director stops a player's notices (the player asked at the desk)."""
    require(actor, "direct", tournament, what=gettext_noop("remove notice subscribers"))
    raw = str(subscription_id or "").strip()
    found = None
    if raw.isascii() and raw.isdigit() and len(raw) < 12:
        found = (
            NoticeSubscription.objects.select_for_update()
            .select_related("tournament", "player")
            .filter(pk=int(raw), tournament=tournament)
            .first()
        )
    if found is None:
        raise ServiceError(
            "notice_unknown_subscriber",
            field="subscription",
            tournament=tournament.name,
            value=raw[:40],
        )
    _unsubscribed(found, actor, "by the director")


# --------------------------------------------------------------------------- queueing


def _active(tournament: Tournament, player: Player) -> NoticeSubscription | None:
    return (
        NoticeSubscription.objects.select_related("tournament", "player")
        .filter(tournament=tournament, player=player, active=True)
        .first()
    )


def _queued(
    subscription: NoticeSubscription,
    kind: str,
    subject: str,
    text: str,
    *,
    division: Division | None = None,
    round_number: int | None = None,
    key: str = "",
) -> Notice:
    return Notice.objects.create(
        subscription=subscription,
        tournament=subscription.tournament,
        kind=kind,
        division=division,
        round_number=round_number,
        key=key[:200],
        subject=subject[:200],
        body=text,  # the footer with the unsubscribe link is added as it is sent: the
        # database keeps no working link
    )


def derived_secret(purpose: str, nonce: str) -> str:
    """The secret a mail's link carries (192 bits, URL-safe, 32 characters like the random
    ones it replaces): derived from a stored nonce with the site's secret key, so the mail can
    be written now and sent (or sent again) later while the database keeps no working link."""
    digest = salted_hmac(MAIL_PURPOSE + purpose, nonce, algorithm="sha256").digest()[:24]
    return base64.urlsafe_b64encode(digest).decode("ascii")


def new_mail_secret(purpose: str) -> tuple[str, str]:
    """A fresh (nonce, secret) pair: store the secret's hash, mail the placeholder."""
    nonce = secrets.token_hex(16)
    return nonce, derived_secret(purpose, nonce)


def secret_placeholder(purpose: str, nonce: str) -> str:
    """What a queued mail's body holds where the link's secret goes."""
    return f"[[secret:{purpose}:{nonce}]]"


def account_placeholder(user_id: int) -> str:
    """Where a sign-up mail's body holds the account's confirmation token: made as it is sent
    (``account_tokens.confirmation_token``, from the account's state then)."""
    return f"[[account:{int(user_id)}]]"


def _account_token(match: re.Match[str]) -> str:
    from django.contrib.auth import get_user_model

    from .account_tokens import confirmation_token  # (no import of accounts: it mails through here)

    user = get_user_model().objects.filter(pk=int(match.group(1))).first()
    return confirmation_token(user) if user is not None else "gone"


def _with_secrets(body: str) -> str:
    body = _PLACEHOLDER.sub(lambda m: derived_secret(m.group(1), m.group(2)), body)
    return _ACCOUNT.sub(_account_token, body)


def queue_mail(
    kind: str,
    email: str,
    subject: str,
    body: str,
    *,
    tournament: Tournament | None = None,
    key: str = "",
) -> Notice:
    """Queue one mail to an address (an entry's or a sign-up's: ``MAIL_KINDS``) in the
    caller's transaction; it is sent once that commits, never for a write rolled back. The
    body's secrets are placeholders (``secret_placeholder``)."""
    if kind not in MAIL_KINDS:  # a caller's mistake, never the visitor's
        raise ValueError(f"not a mail kind: {kind}")
    notice = Notice.objects.create(
        tournament=tournament,
        kind=kind,
        email=email,
        key=key[:200],
        subject=subject[:200],
        body=body,
    )
    _send_after_commit([notice])
    return notice


def mail_state(kind: str, key: str) -> str | None:
    """The state of the latest mail of ``kind`` under ``key`` (None when there is none): the
    page after an entry says whether its mail went or will follow."""
    return (
        Notice.objects.filter(kind=kind, key=key[:200])
        .order_by("-id")
        .values_list("state", flat=True)
        .first()
    )


def send_again(kind: str, key: str) -> Notice | None:
    """Queue the latest mail of ``kind`` under ``key`` once more, the same words and the same
    links (its secrets derive from the same nonces); None when there was none. The caller
    throttles and audits."""
    last = Notice.objects.filter(kind=kind, key=key[:200]).order_by("-id").first()
    if last is None:
        return None
    return queue_mail(
        kind, last.email, last.subject, last.body, tournament=last.tournament, key=last.key
    )


def _send_after_commit(notices: Iterable[Notice]) -> None:
    """Hand the notices to the mail task once the write that made them is committed (at once
    outside a transaction); a rolled-back write drops this with everything else."""
    ids = [n.pk for n in notices]
    if ids:
        transaction.on_commit(partial(_queue, ids), robust=True)


def held_at_venue(ids: list[int]) -> bool:
    """Whether these notices are a venue's (a tournament taken here from a hosted
    site, run on a laptop that often has no internet)."""
    return VenueTake.objects.filter(
        released__isnull=True,
        tournament_id__in=Notice.objects.filter(pk__in=ids).values("tournament_id"),
    ).exists()


def _queue(ids: list[int]) -> None:
    """Queue the delivery task (inline by default); a broker that cannot take it marks the
    notices failed, as a mail server that refused them would.

    On a venue (venue mode) the notices stay queued: delivery runs inline without a broker, and
    a mail server the laptop cannot reach costs up to ``EMAIL_TIMEOUT`` (a name that does not
    resolve, more) on every write that makes a notice, the director's pairing or entry waiting
    on it. They go out after the venue's next successful push instead (``send_held``: the
    link is up, so is the internet), off the director's writes; the console's Notices page
    lists them as queued until then, and as failed with the server's words if sending fails."""
    if held_at_venue(ids):
        return
    _hand_over(ids)


def send_held(tournament_id: int) -> int:
    """On a venue, after a successful push: hand the tournament's queued notices to the mail
    task (a failure marks them failed, never raises); returns how many were handed over."""
    ids = list(
        Notice.objects.filter(tournament_id=tournament_id, state=Notice.State.QUEUED)
        .order_by("id")
        .values_list("pk", flat=True)
    )
    if ids:
        _hand_over(ids)
    return len(ids)


def _hand_over(ids: list[int]) -> None:
    try:
        deliver_notices.delay(ids)
    except Exception as exc:  # noqa: BLE001  (a queue down must not reach the director)
        log.warning("notices %s not queued: %s", ids, exc)
        Notice.objects.filter(pk__in=ids, state=Notice.State.QUEUED).update(
            state=Notice.State.FAILED, error=f"could not queue: {exc}"[:ERROR_LENGTH]
        )


@shared_task(name="tournament.deliver_notices")
def deliver_notices(ids: list[int]) -> dict[str, int]:
    """The Celery task: send the queued notices ``ids`` through Django's mail framework."""
    return deliver(ids)


def deliver(ids: list[int]) -> dict[str, int]:
    """Send each queued notice over one connection to the mail server; each is marked sent or
    failed (with the server's words, logged). Nothing raised here reaches the write that
    queued them. A subscriber who unsubscribed meanwhile gets nothing (marked failed)."""
    notices = list(
        Notice.objects.filter(pk__in=ids, state=Notice.State.QUEUED)
        .select_related("subscription__player", "subscription__tournament", "tournament")
        .order_by("id")
    )
    if notices:
        # the server answering again is the moment to send what failed before it: the
        # earliest failures ride along on the same connection (``retry_failed``)
        notices += _due(exclude=ids, limit=RIDE_ALONG)
    counts = {"sent": 0, "failed": 0}
    if not notices:
        return counts

    def failed(notice: Notice, why: str) -> None:
        notice.state = Notice.State.FAILED
        notice.error = why[:ERROR_LENGTH]
        notice.save(update_fields=["state", "error"])
        counts["failed"] += 1

    connection = get_connection(fail_silently=False)
    try:
        connection.open()
    except Exception as exc:  # noqa: BLE001  (any failure of the server: refused, timeout, TLS)
        log.warning("mail server unreachable, %d notices failed: %s", len(notices), exc)
        for notice in notices:
            failed(notice, f"mail server unreachable: {exc}")
        return counts
    try:
        for notice in notices:
            sub = notice.subscription
            if sub is None:  # a mail to an address: its links' secrets are derived now
                message = EmailMessage(
                    subject=notice.subject,
                    body=_with_secrets(notice.body),
                    from_email=settings.DEFAULT_FROM_EMAIL,
                    to=[notice.email],
                    connection=connection,
                )
            else:
                if not sub.active:
                    failed(notice, FINAL + "unsubscribed before it was sent")
                    continue
                _current_token(sub)
                url = unsubscribe_url(sub)
                message = EmailMessage(
                    subject=notice.subject,
                    body=notice.body + _footer(sub),
                    from_email=settings.DEFAULT_FROM_EMAIL,
                    to=[sub.email],
                    headers={
                        "List-Unsubscribe": f"<{url}>",
                        "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
                    },
                    connection=connection,
                )
            try:
                message.send()
            except Exception as exc:  # noqa: BLE001
                log.warning("notice %s (%s) failed: %s", notice.pk, notice.kind, exc)
                final = _refused(exc)
                failed(notice, (FINAL if final else "") + (str(exc) or type(exc).__name__))
                continue
            notice.state = Notice.State.SENT
            notice.sent_at = timezone.now()
            notice.error = ""
            notice.save(update_fields=["state", "sent_at", "error"])
            counts["sent"] += 1
    finally:
        try:
            connection.close()
        except Exception:  # noqa: BLE001  (closing a connection that broke mid-way)
            pass
    return counts


def _refused(exc: Exception) -> bool:
    """Whether the server refused the mail for good (a 5xx answer: no such mailbox, a
    rejected message): retrying would only be refused again."""
    if isinstance(exc, smtplib.SMTPRecipientsRefused):
        return all(code >= 500 for code, _ in exc.recipients.values())
    if isinstance(exc, smtplib.SMTPResponseException):
        return exc.smtp_code >= 500
    return False


def _due(*, exclude: Iterable[int] = (), limit: int = RETRY_BATCH) -> list[Notice]:
    """The failed notices worth another try, oldest first, claimed (marked queued again, by
    a conditional update so two retries never send one twice): a kind that is retried, failed
    within ``RETRY_HOURS`` for a reason a retry may mend, not held at a venue."""
    since = timezone.now() - dt.timedelta(hours=RETRY_HOURS)
    candidates = list(
        Notice.objects.filter(state=Notice.State.FAILED, kind__in=RETRIED_KINDS, created__gte=since)
        .exclude(pk__in=list(exclude))
        .exclude(error__startswith=FINAL)
        .exclude(
            tournament__in=VenueTake.objects.filter(released__isnull=True).values("tournament_id")
        )
        .order_by("id")
        .values_list("pk", flat=True)[:limit]
    )
    claimed = [
        pk
        for pk in candidates
        if Notice.objects.filter(pk=pk, state=Notice.State.FAILED).update(state=Notice.State.QUEUED)
    ]
    return list(
        Notice.objects.filter(pk__in=claimed)
        .select_related("subscription__player", "subscription__tournament", "tournament")
        .order_by("id")
    )


def retry_failed(limit: int = RETRY_BATCH) -> dict[str, int]:
    """Send once more the notices that failed for a reason a retry may mend (the mail server
    down or busy) within the last ``RETRY_HOURS``: the periodic task's and ``manage.py
    notices --retry``'s work. Answers how many were sent and how many failed again."""
    due = _due(limit=limit)
    if not due:
        return {"sent": 0, "failed": 0}
    return deliver([n.pk for n in due])


@shared_task(name="tournament.retry_notices")
def retry_notices() -> dict[str, int]:
    """The Celery task a worker's beat runs every few minutes (``CELERY_BEAT_SCHEDULE``)."""
    return retry_failed()


# --------------------------------------------------------------------------- entries


def notify_entry(
    tournament: Tournament,
    player: Player,
    division: Division,
    *,
    waiting_position: int | None,
) -> None:
    """Tell a subscribed player their entry is confirmed (``waiting_position`` None) or that
    the division is full and they are at that place on its waiting list. Called inside the
    entry's write: sent only if it commits. A player not subscribed gets nothing."""
    if waiting_position is not None:
        if (
            isinstance(waiting_position, bool)
            or not isinstance(waiting_position, int)
            or waiting_position < 1
        ):
            raise ServiceError(
                "notice_bad_position", field="waiting_position", value=str(waiting_position)[:20]
            )
    sub = _active(tournament, player)
    if sub is None:
        return
    with translation.override(texts.player_language(tournament, player.pk)):
        if waiting_position is None:
            subject, text = texts.entry_confirmed(tournament, division)
        else:
            subject, text = texts.waiting(tournament, division, waiting_position)
    kind = Notice.Kind.ENTRY if waiting_position is None else Notice.Kind.WAITING
    text += _tournament_link(tournament)
    _send_after_commit(
        [_queued(sub, kind, subject, text, division=division, key=str(waiting_position or ""))]
    )


def notify_promoted(tournament: Tournament, player: Player, division: Division) -> None:
    """Tell a subscribed player a place opened: they moved off the waiting list into
    ``division``. Called inside the promotion's write: sent only if it commits."""
    sub = _active(tournament, player)
    if sub is None:
        return
    with translation.override(texts.player_language(tournament, player.pk)):
        subject, text = texts.promoted(tournament, division)
    text += _tournament_link(tournament)
    _send_after_commit([_queued(sub, Notice.Kind.PROMOTED, subject, text, division=division)])


# --------------------------------------------------------------------------- pairings


def on_audited_write(tournament: Tournament | None, action: Action, obj: Any) -> None:
    """The audit hook: a round's pairings were stored or changed; once the write commits,
    tell its subscribers. No query here: the write's own cost (and the query counts its tests
    hold) stays as it was; everything is read after the commit."""
    if tournament is None:
        return
    if action == Action.PUBLISH_TOURNAMENT:
        transaction.on_commit(partial(published_notices, tournament.pk), robust=True)
        return
    if action not in PAIRING_ACTIONS:
        return
    round_id = obj.pk if isinstance(obj, Round) else getattr(obj, "round_id", None)
    if round_id:
        transaction.on_commit(partial(pairing_notices, round_id), robust=True)


def pairing_notices(round_id: int) -> int:
    """After a pairing write committed in a published tournament: write each subscriber of
    the round's division their pairing as now stored, when it differs from the last they were
    told for that round (a correction then says so), and send. Answers how many notices were
    queued."""
    rnd = Round.objects.select_related("division__tournament").filter(pk=round_id).first()
    if rnd is None:
        return 0
    division = rnd.division
    tournament = division.tournament
    if not tournament.published:
        return 0  # a draft's pairings are the director's trials: the players see nothing yet
    subs = {
        s.player_id: s
        for s in NoticeSubscription.objects.select_related("tournament", "player").filter(
            tournament=tournament, active=True, player__entries__division=division
        )
    }
    if not subs:
        return 0
    made: list[Notice] = []
    with transaction.atomic():
        games: dict[int, Game] = {}
        for g in rnd.games.select_related("player1__player", "player2__player"):
            games.setdefault(g.player1_id, g)
            if g.player2_id:
                games.setdefault(g.player2_id, g)
        entries = division.entries.select_related("player").filter(player_id__in=subs)
        # what each subscriber was last told of this round (one query, oldest first: the
        # newest wins)
        told: dict[int, Notice] = {}
        for notice in Notice.objects.filter(
            kind=Notice.Kind.PAIRING,
            division=division,
            round_number=rnd.number,
            subscription__in=subs.values(),
        ).order_by("created", "id"):
            told[notice.subscription_id] = notice
        languages = texts.entry_languages(tournament, subs)
        for entry in entries:
            sub = subs[entry.player_id]
            game = games.get(entry.pk)
            language = languages.get(entry.player_id, texts.tournament_language(tournament))
            with translation.override(language):
                now = texts.pairing(rnd, entry, game)
            if now is None:
                continue
            key, line = now
            last = told.get(sub.pk)
            if last is not None and last.key == key:
                continue
            if last is None and key == "unpaired":
                continue
            page = _site(
                reverse("public:player", args=[tournament.slug, division.slug, entry.number])
            )
            with translation.override(language):
                subject, text = texts.pairing_mail(
                    rnd, game, line, corrected=last is not None, page=page
                )
            made.append(
                _queued(
                    sub,
                    Notice.Kind.PAIRING,
                    subject,
                    text,
                    division=division,
                    round_number=rnd.number,
                    key=key,
                )
            )
        _send_after_commit(made)
    return len(made)


def published_notices(tournament_id: int) -> int:
    """When a draft is published: the pairings made while it was a draft (a director pairs
    round 1, then publishes) were never sent. Tell each subscriber the pairing of each
    division's round in play (its last paired round, while a game of it waits for a score);
    rounds already played are not news. Answers how many notices were queued."""
    sent = 0
    for division in Division.objects.filter(tournament_id=tournament_id):
        rnd = (
            Round.objects.filter(division=division, games__isnull=False).order_by("-number").first()
        )
        if rnd is None:
            continue
        waiting = rnd.games.filter(player2__isnull=False, score1__isnull=True).exists()
        if waiting:
            sent += pairing_notices(rnd.pk)
    return sent


# --------------------------------------------------------------------------- final results


@transaction.atomic
def send_final_results(tournament: Tournament, *, actor: Any, again: bool = False) -> int:
    """E-mail each active subscriber their place, record and spread in each division they
    played, with a link to the public standings. Refused until every such division is scored
    through its last round, and refused once sent unless ``again`` says the director means
    it. One audit event; answers how many notices were queued."""
    require(actor, "direct", tournament, what=gettext_noop("e-mail the final results"))
    subs = list(
        NoticeSubscription.objects.select_related("tournament", "player").filter(
            tournament=tournament, active=True
        )
    )
    if not subs:
        raise ServiceError("notices_no_subscribers", field="action", tournament=tournament.name)
    earlier = Notice.objects.filter(tournament=tournament, kind=Notice.Kind.RESULTS)
    last = earlier.order_by("-created", "-id").first()
    if last is not None and not again:
        raise ServiceError(
            "final_results_already_sent",
            field="again",
            when=timezone.localtime(last.created).strftime("%Y-%m-%d %H:%M"),
            count=earlier.count(),
        )
    entries = list(
        Entry.objects.filter(
            division__tournament=tournament, player_id__in=[s.player_id for s in subs]
        )
        .select_related("division", "player")
        .order_by("division__position", "division__name", "number")
    )
    divisions = {e.division_id: e.division for e in entries}
    rows: dict[int, dict[int, Any]] = {}
    for division in divisions.values():
        division.tournament = tournament
        scored = last_scored_round(division)
        if scored < division.rounds:
            raise ServiceError(
                "final_results_not_final",
                field="action",
                division=division.name,
                scored=scored,
                rounds=division.rounds,
            )
        rows[division.pk] = {r.number: r for r in division_standings(division)}
    made: list[Notice] = []
    languages = texts.entry_languages(tournament, [s.player_id for s in subs])
    for sub in subs:
        lines = []
        language = languages.get(sub.player_id, texts.tournament_language(tournament))
        for entry in (e for e in entries if e.player_id == sub.player_id):
            division = entry.division
            row = rows[division.pk].get(entry.number)
            if row is None:
                continue
            ranked = sum(1 for r in rows[division.pk].values() if r.rank)
            url = _site(reverse("public:standings", args=[tournament.slug, division.slug]))
            with translation.override(language):
                lines.append(texts.result_line(division, row, ranked, url))
        if lines:
            with translation.override(language):
                subject, text = texts.final_results(tournament, lines)
            made.append(_queued(sub, Notice.Kind.RESULTS, subject, text))
    audit(
        tournament,
        actor,
        Action.SEND_FINAL_RESULTS,
        tournament,
        f"final results e-mailed to {len(made)} subscribers" + (" again" if last else ""),
        after={"notices": len(made), "again": last is not None},
    )
    _send_after_commit(made)
    return len(made)
