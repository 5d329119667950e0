"""Entries online, the window: open and close it, each division's rule as the form shows it;
the statuses and secrets the other parts share."""

from __future__ import annotations

import datetime as dt
import hashlib
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_noop

from tournament.checks import as_int
from tournament.errors import ServiceError

from ...access import is_signed_in, require
from ...models import (
    DivisionEntryRule,
    EntryWindow,
    OnlineEntry,
    Player,
    Tournament,
)
from .. import notices
from ..audit import Actor, audit
from ..entries import MAX_SEED_RATING

Status = OnlineEntry.Status
TOKEN_BYTES = 24  # 192 bits, as the self-entry links
# pending entries one player may have in a tournament: each mails the registry's address,
# so a stranger cannot fill the player's mailbox through the form (from many addresses)
PENDING_PER_PLAYER = 3
LIVE = (Status.ENTERED, Status.WAITING, Status.UNCONFIRMED, Status.PENDING)
# the entries that bar the same player from entering again (a pending one bars no one: its
# maker may not be the player)
BARRING = (Status.ENTERED, Status.WAITING, Status.UNCONFIRMED, Status.REFUSED, Status.SENT)


def link_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def _new_secret(purpose: str = "entry.link") -> tuple[str, str, str]:
    """(nonce, secret, its hash): the secret derives from the nonce with the site's key
    (``notices.derived_secret``), so its mail can be queued now and sent, or sent again,
    later while the database holds only the hash and the nonce."""
    nonce, token = notices.new_mail_secret(purpose)
    return nonce, token, link_hash(token)


def speaks_for(user: Any, player: Player) -> bool:
    """Whether a signed-in account is this registry player's own: its address (confirmed when
    the account was made) is the one the registry holds for the player."""
    if not is_signed_in(user):
        return False
    mine = str(getattr(user, "email", "") or "").strip().lower()
    return bool(mine) and mine == str(player.email or "").strip().lower()


def entries_actor(online: OnlineEntry) -> Actor:
    """How an entrant acting through their own link is named in the audit trail."""
    return Actor(f"entrant {online.player.name}")


# --------------------------------------------------------------------------- the director's side


def _moment(value: Any, field: str, what: str) -> dt.datetime:
    if isinstance(value, dt.datetime):
        return value if timezone.is_aware(value) else timezone.make_aware(value)
    text = str(value or "").strip()
    if not text:
        raise ServiceError("setup_required", field=field, what=what)
    try:
        moment = dt.datetime.fromisoformat(text.replace(" ", "T", 1))
    except ValueError:
        raise ServiceError("not_a_date", field=field, what=what, value=text[:40]) from None
    return timezone.make_aware(moment) if timezone.is_naive(moment) else moment


@transaction.atomic
def open_entries(
    tournament: Tournament, opens: Any, closes: Any, *, actor: Actor | str | Any | None = None
) -> EntryWindow:
    """Take entries online from ``opens`` to ``closes`` (reopens entries a director closed).

    Only a published tournament: its public entry page is where players enter."""
    require(actor, "direct", tournament, what=gettext_noop("open entries"))
    if not tournament.published:
        raise ServiceError("entries_draft", field="opens", tournament=tournament.name)
    opens_at = _moment(opens, "opens", "entries open")
    closes_at = _moment(closes, "closes", "entries close")
    if closes_at <= opens_at:
        raise ServiceError(
            "entries_window_order", field="closes", opens=_shown(opens_at), closes=_shown(closes_at)
        )
    window = EntryWindow.objects.filter(tournament=tournament).first()
    before = _window_data(window) if window else None
    if window is None:
        window = EntryWindow(tournament=tournament)
    window.opens_at, window.closes_at, window.closed_at = opens_at, closes_at, None
    window.save()
    audit(
        tournament,
        actor,
        "open_entries",
        window,
        f"entries open {_shown(opens_at)} to {_shown(closes_at)}",
        before=before,
        after=_window_data(window),
    )
    return window


@transaction.atomic
def close_entries(tournament: Tournament, *, actor: Actor | str | Any | None = None) -> None:
    """Stop taking entries now (entrants already in or waiting keep their places)."""
    require(actor, "direct", tournament, what=gettext_noop("close entries"))
    window = EntryWindow.objects.filter(tournament=tournament).first()
    if window is None:
        raise ServiceError("entries_not_open", tournament=tournament.name)
    if window.closed_at is not None:
        raise ServiceError(
            "entries_closed", tournament=tournament.name, closed=_shown(window.closed_at)
        )
    window.closed_at = timezone.now()
    window.save(update_fields=["closed_at", "updated"])
    audit(tournament, actor, "close_entries", window, "entries closed", after=_window_data(window))


def _window_data(window: EntryWindow) -> dict[str, Any]:
    return {
        "opens": window.opens_at.isoformat(),
        "closes": window.closes_at.isoformat(),
        "closed": window.closed_at.isoformat() if window.closed_at else None,
    }


def _shown(moment: dt.datetime) -> str:
    return timezone.localtime(moment).strftime("%Y-%m-%d %H:%M")


def _optional_number(value: Any, what: str, field: str, maximum: int) -> int | None:
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    number = as_int(value, what, field=field)
    if number < 0:
        raise ServiceError("setup_too_small", field=field, what=what, minimum=0, value=number)
    if number > maximum:
        raise ServiceError("setup_too_large", field=field, what=what, maximum=maximum, value=number)
    return number


def _rule_data(rule: DivisionEntryRule) -> dict[str, Any]:
    return {
        "cap": rule.cap,
        "rating_min": rule.rating_min,
        "rating_max": rule.rating_max,
        "fee": f"{rule.fee_amount} {rule.fee_currency}".strip(),
    }


def band_text(rule: DivisionEntryRule) -> str:
    if rule.player_picks:
        return "any rating"
    if rule.rating_min is None:
        return f"up to {rule.rating_max}"
    if rule.rating_max is None:
        return f"{rule.rating_min} and up"
    return f"{rule.rating_min}-{rule.rating_max}"


def describe_rule(rule: DivisionEntryRule) -> str:
    cap = f"cap {rule.cap}" if rule.cap is not None else "no cap"
    fee = f"{rule.fee_amount} {rule.fee_currency}".strip() or "no fee"
    return f"{cap}; {band_text(rule)}; fee {fee}"


def in_band(rule: DivisionEntryRule, rating: int) -> bool:
    low = rule.rating_min if rule.rating_min is not None else 0
    high = rule.rating_max if rule.rating_max is not None else MAX_SEED_RATING
    return low <= rating <= high
