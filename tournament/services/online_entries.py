"""Entries online: a published tournament takes entries from a public form, fills each
division up to its cap and keeps the rest on that division's waiting list, in order.

A director opens entries (``open_entries``: from/until) and gives each division that takes
them a rule (``set_division_rule``: a cap, a rating band or "player picks", the fee as text).
A player enters (``submit_entry``) signed in with an account, or with an e-mail address whose
mailed link they must follow (``confirm_entry``) before the entry counts. Either way they are
found in the registry as the console's registration finds them: a registry player picked by
id, else a name, and a name nearly the same as a registry player's (the console's
``near_duplicates``) is that player, never a second one.

A counted entry becomes an ``Entry`` through ``register_player`` (the console's service:
numbers, late-entry rules and the audit trail follow) when its division has room, else it
waits. An entrant withdrawing before round 1 is paired frees their place (``remove_entry``:
numbers close up) and the first waiting entrant takes it (``promote``). The entrant's personal
link carries a 192-bit secret of which only the SHA-256 is stored.

No one enters in another player's name: an entry naming a player already in the registry
counts only once that player confirms it (signed in with the account whose address is the one
the registry holds for them, or by the link mailed to that address, never to the address the
entrant typed) or a director approves it (``approve_entry``). Until then it is ``pending``: it
holds no place, is not counted against the cap and bars no one, so a prankster cannot fill a
capped division nor lock the real player out. The player's confirmation gives the entry a new
personal link (the maker's stops working). An entry making a new player counts as before.

Every write here is one transaction with its audit event; the director's actions require
``direct`` on the tournament; the entrant's own actions are checked by their link's secret.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import transaction
from django.db.models import Min
from django.utils import timezone

from tournament.checks import as_int, check_text
from tournament.errors import ServiceError

from ..access import acting_user, allowed, is_signed_in, require
from ..models import (
    Division,
    DivisionEntryRule,
    EntryWindow,
    OnlineEntry,
    Player,
    Tournament,
    Weekend,
)
from ..selectors import fold, near_duplicates, paired_rounds, registry_rating
from . import entry_mail, notices
from .audit import Actor, audit
from .entries import MAX_SEED_RATING, check_player_name, move_entry, register_player, remove_entry
from .venue import held_by_venue, queue_online_entry, queue_withdrawal

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
    require(actor, "direct", tournament, what="open entries")
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
    require(actor, "direct", tournament, what="close entries")
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


@transaction.atomic
def set_division_rule(
    division: Division,
    *,
    cap: Any = None,
    rating_min: Any = None,
    rating_max: Any = None,
    fee_amount: Any = "",
    fee_currency: Any = "",
    actor: Actor | str | Any | None = None,
) -> DivisionEntryRule:
    """A division's entry rule: its cap (blank: no limit), its rating band (both ends blank:
    the player picks), its fee as text ("40", "USD"). Saving one makes the division take
    entries online; the cap counts every Entry, those the director registered by hand too."""
    tournament = division.tournament
    require(actor, "direct", tournament, what="set entry rules")
    where = f"division {division.name}"
    cap_n = _optional_number(cap, f"{where}: cap", "cap", 10000)
    low = _optional_number(rating_min, f"{where}: lowest rating", "rating_min", MAX_SEED_RATING)
    high = _optional_number(rating_max, f"{where}: highest rating", "rating_max", MAX_SEED_RATING)
    if low is not None and high is not None and low > high:
        raise ServiceError(
            "entries_band_order",
            field="rating_max",
            division=division.name,
            minimum=low,
            maximum=high,
        )
    amount = check_text(
        str(fee_amount or "").strip(),
        f"{where}: fee",
        DivisionEntryRule,
        "fee_amount",
        field="fee_amount",
    )
    currency = check_text(
        str(fee_currency or "").strip(),
        f"{where}: currency",
        DivisionEntryRule,
        "fee_currency",
        field="fee_currency",
    )
    rule = DivisionEntryRule.objects.filter(division=division).first()
    before = _rule_data(rule) if rule else None
    rule = rule or DivisionEntryRule(division=division)
    rule.cap, rule.rating_min, rule.rating_max = cap_n, low, high
    rule.fee_amount, rule.fee_currency = amount, currency
    rule.save()
    audit(
        tournament,
        actor,
        "entry_rule",
        rule,
        f"{where}: {describe_rule(rule)}",
        before=before,
        after=_rule_data(rule),
    )
    # a raised cap (or none) makes room: the waiting list moves up, first come first served
    while _promote_first(division, actor) is not None:
        pass
    return rule


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


# --------------------------------------------------------------------------- the entrant's side


@dataclass(frozen=True)
class Submitted:
    """What ``submit_entry`` did: the online entry, the personal link's secret (shown or mailed
    once, never stored), and the e-mail confirmation's secret when one is needed."""

    online: OnlineEntry
    link_token: str
    confirm_token: str | None
    # "player": a pending entry whose confirmation goes to the address the registry holds for
    # the player (``confirm_token`` is for that address, never the entrant's); "director": a
    # pending entry only a director's approval makes count (the registry holds no address)
    awaits: str = ""
    new_player: bool = False  # the entry made the player (a weekend's other events reuse them)
    link_nonce: str = ""  # what the queued mail holds in the links' place (entry_mail)
    confirm_nonce: str = ""


@dataclass(frozen=True)
class Confirmed:
    """What a confirmation link did: the online entry and, when the player confirmed an entry
    someone made for them, its new personal link's secret (the maker's link stops working)."""

    online: OnlineEntry
    link_token: str | None
    link_nonce: str = ""


def window_state(tournament: Tournament, now: dt.datetime | None = None) -> str:
    """ "none", "not_yet", "open" or "closed": whether the public form takes entries now."""
    window = EntryWindow.objects.filter(tournament=tournament).first()
    if window is None or not tournament.published:
        return "none"
    now = now or timezone.now()
    if window.closed_at is not None or now >= window.closes_at:
        return "closed"
    if now < window.opens_at:
        return "not_yet"
    return "open"


def _require_open(tournament: Tournament, field: str = "division") -> None:
    window = EntryWindow.objects.filter(tournament=tournament).first()
    state = window_state(tournament)
    if state == "none":
        raise ServiceError("entries_not_open", field=field, tournament=tournament.name)
    if state == "not_yet":
        raise ServiceError(
            "entries_not_yet",
            field=field,
            tournament=tournament.name,
            opens=_shown(window.opens_at),
        )
    if state == "closed":
        closed = window.closed_at or window.closes_at
        raise ServiceError(
            "entries_closed", field=field, tournament=tournament.name, closed=_shown(closed)
        )


def find_entrant(name: Any) -> Player:
    """The registry player an entry under ``name`` is for, as the entry form finds them (a
    venue settling an entry queued on its hosted site finds its player the same way)."""
    return _entrant(None, name)


def _entrant(player_id: Any, name: Any) -> Player:
    """The registry player this entry is for: picked by id, else found by name (exact or
    nearly, as the console's near-duplicate warning finds them), else a new player."""
    if player_id not in (None, ""):
        pk = as_int(player_id, "the player you chose", field="player")
        player = Player.objects.filter(pk=pk).first()
        if player is None:
            raise ServiceError("entries_unknown_player", field="player", player_id=pk)
        return player
    typed = check_player_name(name)
    check_text(typed, "your name", Player, "name", field="name")
    near = near_duplicates(typed)
    key = fold(typed)
    same = [p for p in near if sorted(fold(p.name).split()) == sorted(key.split())]
    if len(same) == 1 and len(near) == 1:
        return same[0]  # the same name but for accents, case, spacing or word order
    if near:
        # a name only nearly the same may be someone else ("Arden, Di" and "Arden, Ed"):
        # neither guessed nor duplicated; the entrant picks themself, or a director enters
        # a new namesake from the console
        raise ServiceError(
            "entries_name_ambiguous",
            field="name",
            name=typed,
            players="; ".join(p.name for p in near),
        )
    return Player(name=typed)


def _email(value: Any, needed: bool) -> str:
    email = str(value or "").strip()
    if not email:
        if needed:
            raise ServiceError("entries_email_needed", field="email")
        return ""
    check_text(email, "your e-mail address", OnlineEntry, "email", field="email")
    try:
        validate_email(email)
    except ValidationError:
        raise ServiceError("entries_email", field="email", value=email[:80]) from None
    return email


def division_rule(division: Division) -> DivisionEntryRule:
    rule = DivisionEntryRule.objects.filter(division=division).first()
    if rule is None:
        raise ServiceError("entries_no_division", field="division", division=division.name)
    return rule


def _check_band(division: Division, rule: DivisionEntryRule, rating: int) -> None:
    if in_band(rule, rating):
        return
    fits = [
        r.division.name
        for r in DivisionEntryRule.objects.filter(division__tournament=division.tournament)
        .select_related("division")
        .order_by("division__position", "division__name")
        if in_band(r, rating)
    ]
    raise ServiceError(
        "entries_band",
        field="division",
        rating=rating,
        rated=f"a rating of {rating}" if rating else "an unrated player",
        division=division.name,
        band=band_text(rule),
        fits=", ".join(fits) or "none",
    )


@transaction.atomic
def submit_entry(
    division: Division,
    *,
    player_id: Any = None,
    name: Any = "",
    email: Any = "",
    notices_opt_in: bool = False,
    user: Any = None,
    shares_contact: bool | None = None,
    site: str | None = None,
) -> Submitted:
    """A player's entry from the public form. Signed in (``user``), it counts at once;
    otherwise it waits for the link mailed to ``email`` (``confirm_entry``). An entry naming
    a registry player is pending (``Submitted.awaits``) unless the signed-in account is that
    player's (``speaks_for``). Its mails (the confirmation link, the entrant's page) are
    queued in the same transaction, their links on ``site`` (the site's own address by
    default), and sent after the commit: a mail server down loses no entry."""
    done = _submit(
        division,
        player_id=player_id,
        name=name,
        email=email,
        notices_opt_in=notices_opt_in,
        user=user,
        made_now=None,
        shares_contact=None,
    )
    entry_mail.submitted(done, site=site)
    return done


def _submit(
    division: Division,
    *,
    player_id: Any,
    name: Any,
    email: Any,
    notices_opt_in: bool,
    user: Any,
    made_now: Player | None,
    shares_contact: bool | None,
) -> Submitted:
    """``submit_entry``; ``made_now`` is the player a weekend form's first entry just made
    (their other events' entries are theirs, not a registry player's), and
    ``shares_contact`` carries the first entry's answer to the same entrant's others."""
    tournament = division.tournament
    _require_open(tournament)
    rule = division_rule(division)
    if paired_rounds(division):
        raise ServiceError("entries_division_started", field="division", division=division.name)
    signed_in = is_signed_in(user)
    address = _email(email or (user.email if signed_in else ""), needed=not signed_in)
    player = made_now if made_now is not None else _entrant(player_id, name)
    new_player = player.pk is None
    if player.pk is not None:
        _refuse_second_entry(tournament, player, BARRING)
    # someone naming a registry player may not be them: the player confirms, or a director
    pending = made_now is None and not new_player and not speaks_for(user, player)
    awaits = ("player" if player.email else "director") if pending else ""
    if pending:
        waiting_for_them = OnlineEntry.objects.filter(
            tournament=tournament, player=player, status=Status.PENDING
        ).count()
        if waiting_for_them >= PENDING_PER_PLAYER:
            raise ServiceError(
                "entries_pending_many",
                field="name",
                name=player.name,
                count=waiting_for_them,
                tournament=tournament.name,
            )
    rating = registry_rating(player, division) if player.pk else 0
    _check_band(division, rule, rating)
    # the entrant shares the registry's contact details with the directors when the record is
    # theirs (made now) or the entry waits for the link mailed to the address the registry
    # holds: confirming it proves that address is theirs (a signed-in account's address was
    # never proved by mail, and a director's approval proves nothing about the entrant)
    shared = new_player or awaits == "player"
    if shares_contact is not None:
        shared = shares_contact
    if new_player:
        player.email = address
        player.save()
    link_nonce, link_token, link = _new_secret()
    confirm_nonce, confirm_token, confirm = "", None, None
    if awaits == "player" or (not signed_in and not pending):
        confirm_nonce, confirm_token, confirm = _new_secret("entry.confirm")
    online = OnlineEntry.objects.create(
        tournament=tournament,
        division=division,
        player=player,
        user=user if signed_in else None,
        email=address,
        rating=rating,
        status=Status.PENDING if pending else Status.UNCONFIRMED,
        notices=bool(notices_opt_in),
        link_hash=link,
        confirm_hash=confirm,
        contact_shared=shared,
    )
    who = Actor(user.get_username(), user) if signed_in else Actor(f"entrant {player.name}")
    waits = {
        "player": "; awaiting the player's confirmation (mailed to the registry's address)",
        "director": "; awaiting a director's approval (the registry has no address for them)",
        "": "" if signed_in else "; awaiting e-mail confirmation",
    }[awaits]
    audit(
        tournament,
        who,
        "online_entry",
        online,
        f"{player.name} ({rating}) entered {division.name} online" + waits,
        after={"division": division.name, "player": player.name, "rating": rating},
    )
    if notices_opt_in and address and not pending and held_by_venue(tournament) is None:
        # (a venue's copy takes no subscription: the venue sends no mail while offline; a
        # pending entry's maker subscribes no one: the player's own confirmation does)
        notices.subscribe(tournament, player, address, actor=who)
    if signed_in and not pending:
        if not new_player:  # the player's own entry: entries others made for them are void
            _decline_others(online, who)
        _place(online, who)
    return Submitted(
        online, link_token, confirm_token, awaits, new_player, link_nonce, confirm_nonce
    )


@transaction.atomic
def confirm_entry(token: Any) -> OnlineEntry:
    """The mailed link followed: the entry counts (placed in its division, or waiting)."""
    return confirm_entry_link(token).online


@transaction.atomic
def confirm_entry_link(token: Any, *, site: str | None = None) -> Confirmed:
    """``confirm_entry``, with the entry's new personal link when the player confirmed an
    entry someone else made for them (to be shown and mailed to the player only: the mail is
    queued here, its links on ``site``, the site's own address by default)."""
    online = _by_secret(token, confirm=True)
    confirmed = _confirm(online)
    if confirmed.link_token:  # the player's own page, mailed to them after the commit
        entry_mail.page_renewed([confirmed], site=site)
    return confirmed


def _confirm(online: OnlineEntry) -> Confirmed:
    if online.status == Status.PENDING:
        nonce, token = _confirm_for_player(online)
        return Confirmed(online, token, nonce)
    if online.status != Status.UNCONFIRMED:
        return Confirmed(online, None)  # a second click changes nothing
    _require_open(online.tournament, field="")
    who = entries_actor(online)
    audit(
        online.tournament,
        who,
        "confirm_online_entry",
        online,
        f"{online.player.name} confirmed their entry to {online.division.name}",
    )
    _place(online, who)
    return Confirmed(online, None)


def _confirm_for_player(online: OnlineEntry) -> tuple[str, str]:
    """The player followed the link mailed to the address the registry holds for them: the
    entry someone made in their name counts. It gets a new personal link (returned, for the
    player alone) and that address as its contact; the maker's link no longer works."""
    _require_open(online.tournament, field="")
    _refuse_second_entry(online.tournament, online.player, BARRING)
    nonce, token, link = _new_secret()
    address = online.player.email or online.email
    online.link_hash, online.email = link, address
    online.save(update_fields=["link_hash", "email"])
    who = entries_actor(online)
    audit(
        online.tournament,
        who,
        "confirm_online_entry",
        online,
        f"{online.player.name} confirmed the entry made for them to {online.division.name}",
    )
    _settle(online, who)
    return nonce, token


@transaction.atomic
def approve_entry(online: OnlineEntry, *, actor: Actor | str | Any | None = None) -> None:
    """A director vouches for a pending entry (they know its maker is the player, or the
    registry holds no address to confirm by): it counts now, placed or waiting as any entry."""
    require(actor, "direct", online.tournament, what="approve entries")
    _require_status(online, (Status.PENDING,), "approved")
    _refuse_second_entry(online.tournament, online.player, BARRING)
    _settle(online, actor)
    audit(
        online.tournament,
        actor,
        "approve_entry",
        online,
        f"{online.player.name}'s entry to {online.division.name} approved: "
        + online.get_status_display(),
        before={"status": Status.PENDING},
        after={"status": online.status},
    )


def _settle(online: OnlineEntry, who: Any) -> None:
    """A pending entry counts: the player's other pending entries here are declined (their
    own one counts now), the notices asked for go to the entry's address, and it is placed."""
    _decline_others(online, who)
    if online.notices and online.email and held_by_venue(online.tournament) is None:
        notices.subscribe(online.tournament, online.player, online.email, actor=who)
    _place(online, who)


def _decline_others(online: OnlineEntry, who: Any) -> None:
    """The player's entry counts: the other pending entries made for them here are void."""
    others = (
        OnlineEntry.objects.select_related("division")
        .filter(tournament=online.tournament, player=online.player, status=Status.PENDING)
        .exclude(pk=online.pk)
    )
    for other in others:
        other.status, other.note = Status.DECLINED, "another entry for the player counts"
        other.save(update_fields=["status", "note"])
        audit(
            online.tournament,
            who,
            "decline_entry",
            other,
            f"{other.player.name}'s other pending entry to {other.division.name} declined",
            before={"status": Status.PENDING},
            after={"status": other.status},
        )


def _refuse_second_entry(tournament: Tournament, player: Player, statuses: tuple) -> None:
    """One entry per player and tournament: refused when the player already holds an online
    entry in one of ``statuses`` or an entry in any of its divisions, naming where."""
    earlier = (
        OnlineEntry.objects.filter(tournament=tournament, player=player, status__in=statuses)
        .select_related("division")
        .first()
    )
    held = player.entries.filter(division__tournament=tournament).select_related("division").first()
    if earlier is not None or held is not None:
        raise ServiceError(
            "entries_already",
            field="name",
            name=player.name,
            tournament=tournament.name,
            division=(earlier.division if earlier else held.division).name,
            status=earlier.get_status_display() if earlier else "entered",
        )


@transaction.atomic
def enter_from_hosted(
    division: Division,
    *,
    player: Player,
    email: str,
    rating: int,
    made: dt.datetime,
    paid: bool = False,
    notices_opt_in: bool = False,
    actor: Actor | str | Any | None = None,
) -> OnlineEntry:
    """On a venue (issue 23): an online entry the hosted site queued, entered here under this
    instance's own rules, as its entry form would have: the window as it stood when the
    entrant entered (``made``), the division's rule and band, round 1 not paired, one entry
    per player; then placed (in, or on the waiting list by the cap). Its e-mail was confirmed
    on the hosted site. Refusals are the entry form's own."""
    tournament = division.tournament
    if window_state(tournament, now=made) != "open":
        _require_open(tournament)  # the form's own words (closed, not yet, none)
    rule = division_rule(division)
    if paired_rounds(division):
        raise ServiceError("entries_division_started", field="division", division=division.name)
    if player.pk is not None:
        _refuse_second_entry(tournament, player, BARRING)
    _check_band(division, rule, rating)
    shared = player.pk is None  # a record the entry makes holds only the entrant's own details
    if player.pk is None:
        player.email = email
        player.save()
    _nonce, _token, link = _new_secret()  # the entrant's own link is the hosted site's
    online = OnlineEntry.objects.create(
        tournament=tournament,
        division=division,
        player=player,
        email=email,
        rating=rating,
        status=Status.UNCONFIRMED,
        paid=paid,
        link_hash=link,
        contact_shared=shared,
    )
    who = Actor.of(actor) if actor is not None else Actor(f"entrant {player.name}")
    audit(
        tournament,
        who,
        "online_entry",
        online,
        f"{player.name} ({rating}) entered {division.name} online, from the hosted site",
        after={"division": division.name, "player": player.name, "rating": rating},
    )
    if notices_opt_in and email and allowed(who, "view", tournament):
        # their opt-in on the hosted form: subscribed here, where the event's mail comes from
        # (held until the link is up: notices.send_held)
        online.notices = True
        online.save(update_fields=["notices"])
        notices.subscribe(tournament, player, email, actor=who)
    _place(online, who)
    return online


def _lock(division: Division) -> None:
    """Hold the division's row until the transaction ends: two entrants confirming at once
    must not both take its last place (PostgreSQL waits here; SQLite writes one at a time)."""
    list(Division.objects.select_for_update().filter(pk=division.pk).values_list("pk"))


def _room(division: Division) -> bool:
    rule = DivisionEntryRule.objects.filter(division=division).first()
    return rule is None or rule.cap is None or division.entries.count() < rule.cap


def _place(online: OnlineEntry, actor: Actor | Any) -> None:
    """Into the division if there is room and no one is waiting ahead, else onto its list;
    on a copy a venue runs (issue 23), sent to the venue, which places it by its own rules."""
    link = held_by_venue(online.tournament)
    if link is not None:
        queue_online_entry(link, online, actor)
        return
    division = online.division
    _lock(division)
    queue = division.online_entries.filter(status=Status.WAITING).exclude(pk=online.pk)
    if _room(division) and not queue.exists() and not paired_rounds(division):
        _enter(online, actor)
        notices.notify_entry(online.tournament, online.player, division, waiting_position=None)
        return
    online.status = Status.WAITING
    online.waiting_since = timezone.now()
    online.save(update_fields=["status", "waiting_since"])
    notices.notify_entry(
        online.tournament, online.player, division, waiting_position=waiting_position(online)
    )


def _enter(online: OnlineEntry, actor: Any) -> None:
    entry = register_player(
        online.division, player=online.player, rating=online.rating, actor=_door(actor)
    )
    online.entry = entry
    online.status = Status.ENTERED
    online.save(update_fields=["entry", "status"])
    if online.checked_in_at is not None:  # they checked in while waiting: they are here
        entry.checked_in_at = online.checked_in_at
        entry.save(update_fields=["checked_in_at"])


def _door(actor: Any) -> Any:
    """The actor the console's services get: the entry's checks are already made here, so an
    entrant's own request acts as a trusted door named for the audit trail."""
    return actor if acting_user(actor) is None else Actor.of(actor).name


def waiting_position(online: OnlineEntry) -> int | None:
    """1 for the first on the division's waiting list; None when not waiting."""
    if online.status != Status.WAITING:
        return None
    if online.venue_position:  # a venue holds the tournament: its list is the one that counts
        return online.venue_position
    ahead = (
        online.division.online_entries.filter(status=Status.WAITING)
        .filter(waiting_since__lt=online.waiting_since)
        .count()
        + online.division.online_entries.filter(
            status=Status.WAITING, waiting_since=online.waiting_since, pk__lt=online.pk
        ).count()
    )
    return ahead + 1


def waiting_list(division: Division) -> list[OnlineEntry]:
    return list(
        division.online_entries.filter(status=Status.WAITING)
        .select_related("player")
        .order_by("waiting_since", "pk")
    )


def _by_secret(token: Any, *, confirm: bool = False) -> OnlineEntry:
    if not isinstance(token, str) or not 32 <= len(token) <= 64:
        raise ServiceError("entries_link_bad")
    field = "confirm_hash" if confirm else "link_hash"
    online = (
        OnlineEntry.objects.select_related("player", "division__tournament", "entry")
        .filter(**{field: link_hash(token)})
        .first()
    )
    if online is None:
        raise ServiceError("entries_link_bad")
    return online


def entry_for_link(token: Any) -> OnlineEntry | None:
    """The online entry of a personal link, or None (unknown and malformed alike)."""
    try:
        return _by_secret(token)
    except ServiceError:
        return None


def _promote_first(division: Division, actor: Any) -> OnlineEntry | None:
    """The first waiting entrant takes a freed place (if the division has room)."""
    _lock(division)
    if paired_rounds(division) or not _room(division):
        return None
    queue = waiting_list(division)
    if not queue:
        return None
    _promote(queue[0], actor)
    return queue[0]


def _promote(online: OnlineEntry, actor: Any) -> None:
    """A waiting entrant takes a freed place: audited, and told by the promotion notice."""
    division = online.division
    _enter(online, actor)
    online.promoted_at = timezone.now()
    online.save(update_fields=["promoted_at"])
    audit(
        division.tournament,
        actor,
        "promote_entry",
        online,
        f"{online.player.name} moved off {division.name}'s waiting list into "
        f"#{online.entry.number}",
    )
    notices.notify_promoted(division.tournament, online.player, division)


def promote_checked_in(division: Division, actor: Any) -> list[OnlineEntry]:
    """On the day, once the absent are removed (``checkin.remove_absent``): the waiting
    entrants who checked in "if a place frees" take the freed places in their waiting-list
    order, each told by the promotion notice. Those not here are passed over and keep their
    place on the list. The caller holds the director's check."""
    _lock(division)
    promoted: list[OnlineEntry] = []
    if paired_rounds(division):
        return promoted
    for online in waiting_list(division):
        if not _room(division):
            break
        if online.checked_in_at is not None:
            _promote(online, actor)
            promoted.append(online)
    return promoted


def _free_place(online: OnlineEntry, actor: Any) -> None:
    """Remove the entrant's Entry (numbers close up) before round 1 is paired."""
    division = online.division
    if online.entry_id is not None:
        if paired_rounds(division):
            raise ServiceError("entries_play_started", field="", division=division.name)
        entry = online.entry
        online.entry = None
        online.save(update_fields=["entry"])
        remove_entry(entry, actor=_door(actor))


def _require_status(online: OnlineEntry, allowed: Any, what: str) -> None:
    """Refuse a director's action on an entry in a state it does not apply to (a withdrawn
    entry promoted, a waiting one demoted), naming the entrant and the state it is in."""
    if online.status not in allowed:
        raise ServiceError(
            "entries_state",
            name=online.player.name,
            status=online.get_status_display(),
            what=what,
        )


@transaction.atomic
def withdraw_entry(token: Any) -> OnlineEntry:
    """The entrant withdraws from their own link, before their division's round 1 is paired;
    the first waiting entrant takes the place. On a copy a venue holds (issue 23) an entry
    the venue has (or will have: sent) is withdrawn there: the withdrawal is queued for it,
    and it closes up and promotes by its own rules."""
    online = _by_secret(token)
    link = held_by_venue(online.tournament)
    if link is not None and online.status not in (Status.UNCONFIRMED, Status.PENDING):
        _require_status(online, (*LIVE, Status.SENT), "withdrawn")
        queue_withdrawal(link, online, entries_actor(online))
        return online
    _require_status(online, LIVE, "withdrawn")
    _withdraw(online, entries_actor(online))
    return online


@transaction.atomic
def withdraw_from_hosted(online: OnlineEntry, *, actor: Actor | str | Any | None = None) -> None:
    """On a venue (issue 23): an entrant's withdrawal made on the hosted copy, applied under
    this instance's rules as their own link would (before round 1 is paired; the numbers
    close up and the first waiting entrant takes the place)."""
    _require_status(online, LIVE, "withdrawn")
    who = Actor.of(actor) if actor is not None else entries_actor(online)
    _withdraw(online, who)


def _withdraw(online: OnlineEntry, who: Any) -> None:
    was_entered = online.status == Status.ENTERED
    _free_place(online, who)
    online.status = Status.WITHDRAWN
    online.save(update_fields=["status"])
    audit(
        online.tournament,
        who,
        "withdraw_online_entry",
        online,
        f"{online.player.name} withdrew their entry to {online.division.name}",
    )
    if was_entered:
        _promote_first(online.division, who)


# --------------------------------------------------------------------------- the director's list


def online_entry(tournament: Tournament, pk: Any) -> OnlineEntry:
    """The tournament's online entry ``pk`` (a form's hidden field), or a refusal naming it."""
    try:
        number = as_int(pk, "entry", field="entry")
    except ServiceError:
        number = None
    online = (
        OnlineEntry.objects.select_related("player", "division__tournament", "entry")
        .filter(tournament=tournament, pk=number)
        .first()
        if number is not None
        else None
    )
    if online is None:
        raise ServiceError(
            "entries_unknown_entry", field="entry", tournament=tournament.name, value=str(pk)[:20]
        )
    return online


@transaction.atomic
def mark_paid(online: OnlineEntry, paid: bool, *, actor: Actor | str | Any | None = None) -> None:
    """Paid or not, as the director marks it by hand (no payment passes through Gibson)."""
    require(actor, "direct", online.tournament, what="mark entry fees")
    if online.paid == bool(paid):
        return
    online.paid = bool(paid)
    online.save(update_fields=["paid"])
    audit(
        online.tournament,
        actor,
        "mark_paid",
        online,
        f"{online.player.name}: {'paid' if paid else 'not paid'}",
        before={"paid": not online.paid},
        after={"paid": online.paid},
    )


@transaction.atomic
def refuse_entry(
    online: OnlineEntry, reason: Any = "", *, actor: Actor | str | Any | None = None
) -> None:
    """The director refuses an entry: its place (if any) is freed and the first waiting
    entrant takes it. Refused once round 1 of the division is paired (withdraw instead)."""
    require(actor, "direct", online.tournament, what="refuse entries")
    _require_status(online, LIVE, "refused")
    note = check_text(str(reason or "").strip(), "the reason", OnlineEntry, "note", field="reason")
    was_entered = online.status == Status.ENTERED
    before = {"status": online.status}
    _free_place(online, actor)
    # a pending entry refused is declined: not the player's doing, it never bars them
    refused = Status.DECLINED if online.status == Status.PENDING else Status.REFUSED
    online.status, online.note = refused, note
    online.save(update_fields=["status", "note"])
    audit(
        online.tournament,
        actor,
        "refuse_entry",
        online,
        f"{online.player.name}'s entry to {online.division.name} refused"
        + (f": {note}" if note else ""),
        before=before,
        after={"status": online.status},
    )
    if was_entered:
        _promote_first(online.division, actor)


@transaction.atomic
def promote_entry(online: OnlineEntry, *, actor: Actor | str | Any | None = None) -> None:
    """Move a waiting entrant into the division now, ahead of the list and past its cap (a
    director's call: a late sponsor's place, a pairing's even number)."""
    require(actor, "direct", online.tournament, what="promote entries")
    _require_status(online, (Status.WAITING,), "promoted")
    _enter(online, actor)
    online.promoted_at = timezone.now()
    online.save(update_fields=["promoted_at"])
    audit(
        online.tournament,
        actor,
        "promote_entry",
        online,
        f"{online.player.name} promoted into {online.division.name} #{online.entry.number}",
    )
    notices.notify_promoted(online.tournament, online.player, online.division)


@transaction.atomic
def demote_entry(online: OnlineEntry, *, actor: Actor | str | Any | None = None) -> None:
    """Move an entered entrant back onto the waiting list, first in line (they held a place);
    their Entry is removed and the numbers behind close up. Only before round 1 is paired."""
    require(actor, "direct", online.tournament, what="demote entries")
    _require_status(online, (Status.ENTERED,), "demoted")
    _free_place(online, actor)
    first = online.division.online_entries.filter(status=Status.WAITING).aggregate(
        first=Min("waiting_since")
    )["first"]
    online.status = Status.WAITING
    online.waiting_since = (first - dt.timedelta(seconds=1)) if first else timezone.now()
    online.save(update_fields=["status", "waiting_since"])
    audit(
        online.tournament,
        actor,
        "demote_entry",
        online,
        f"{online.player.name} moved to the head of {online.division.name}'s waiting list",
    )


@transaction.atomic
def move_online_entry(
    online: OnlineEntry, to: Division, *, actor: Actor | str | Any | None = None
) -> None:
    """Move an entrant to another division: an entered one through the console's
    ``move_entry`` (before round 1), a waiting or unconfirmed one by changing their division
    (a waiting one joins the end of the new division's list)."""
    require(actor, "direct", online.tournament, what="move entries")
    if to.tournament_id != online.tournament_id or to.pk == online.division_id:
        raise ServiceError(
            "reg_move_where",
            field="division",
            name=online.player.name,
            division=online.division.name,
        )
    _require_status(online, LIVE, "moved")
    source = online.division
    if online.status == Status.ENTERED:
        move_entry(online.entry, to, actor=actor)
    online.division = to
    fields = ["division"]
    if online.status == Status.WAITING:
        online.waiting_since = timezone.now()
        fields.append("waiting_since")
    online.save(update_fields=fields)
    audit(
        online.tournament,
        actor,
        "move_online_entry",
        online,
        f"{online.player.name} moved from {source.name} to {to.name}",
        before={"division": source.name},
        after={"division": to.name},
    )
    if online.status == Status.ENTERED:
        _promote_first(source, actor)


# --------------------------------------------------------------------------- a weekend's form


@dataclass(frozen=True)
class WeekendSubmitted:
    """What ``submit_weekend_entries`` did: one ``Submitted`` per event entered, in the
    weekend's order; ``confirm_token`` is the one mailed link confirming them all (None when
    signed in: the entries count at once)."""

    entries: list[Submitted]
    confirm_token: str | None


@transaction.atomic
def submit_weekend_entries(
    weekend: Weekend,
    choices: dict[Tournament, Division | None],
    *,
    player_id: Any = None,
    name: Any = "",
    email: Any = "",
    notices_opt_in: bool = False,
    user: Any = None,
    site: str | None = None,
) -> WeekendSubmitted:
    """One form for several events of a weekend: a division per event chosen, each entered
    through ``submit_entry`` (so each event's window, cap, band and duplicate rules apply), all
    in one transaction: a refusal in any event writes nothing, and names that event's field
    (``event-<tournament slug>``) when it is about the division. The entrant is one registry
    player in every event (the first entry finds or makes them; the others reuse them)."""
    events = list(weekend.events.select_related("tournament").order_by("position"))
    ours = {we.tournament_id for we in events}
    for tournament in choices:
        if tournament.pk not in ours:
            raise ServiceError(
                "weekend_entries_not_an_event",
                field="event-" + tournament.slug,
                tournament=tournament.name,
                weekend=weekend.name,
            )
    chosen = [
        (we.tournament, choices[t])
        for we in events
        for t in choices
        if t.pk == we.tournament_id and choices[t] is not None
    ]
    if not chosen:
        raise ServiceError("weekend_entries_none", field="events", weekend=weekend.name)
    done: list[Submitted] = []
    for tournament, division in chosen:
        assert division is not None
        if division.tournament_id != tournament.pk:
            raise ServiceError(
                "entries_no_division", field="event-" + tournament.slug, division=division.name
            )
        division.tournament = tournament
        try:
            done.append(
                _submit(
                    division,
                    player_id=done[0].online.player_id if done else player_id,
                    name=name,
                    email=email,
                    notices_opt_in=notices_opt_in,
                    user=user,
                    made_now=done[0].online.player if done and done[0].new_player else None,
                    shares_contact=done[0].online.contact_shared if done else None,
                )
            )
        except ServiceError as exc:
            if exc.field in ("division", ""):
                exc.field = "event-" + tournament.slug
            raise
    submitted = WeekendSubmitted(done, done[0].confirm_token)
    entry_mail.weekend_submitted(weekend, submitted, site=site)  # one mail for all, after commit
    return submitted


@transaction.atomic
def confirm_weekend_entries(weekend: Weekend, token: Any) -> list[OnlineEntry]:
    """The weekend form's one mailed link: confirms the entry it was made for and the same
    entrant's other unconfirmed entries to this weekend's events from that address (they
    were submitted together), each placed or put on its waiting list by its event's rules."""
    return [done.online for done in confirm_weekend_links(weekend, token)]


@transaction.atomic
def confirm_weekend_links(
    weekend: Weekend, token: Any, *, site: str | None = None
) -> list[Confirmed]:
    """``confirm_weekend_entries`` with each entry's new personal link when the player
    confirmed entries someone made in their name (mailed to the registry's address)."""
    first = _by_secret(token, confirm=True)
    events = weekend.events.values_list("tournament_id", flat=True)
    if first.tournament_id not in set(events):
        raise ServiceError("entries_link_bad")
    together = [first] + list(
        OnlineEntry.objects.select_related("player", "division__tournament", "entry")
        .filter(
            player=first.player,
            email=first.email,
            status=first.status if first.status == Status.PENDING else Status.UNCONFIRMED,
            tournament_id__in=events,
        )
        .exclude(pk=first.pk)
    )
    confirmed = [_confirm(online) for online in together]
    renewed = [c for c in confirmed if c.link_token]
    if renewed:  # the player confirmed entries made for them: their own pages are new
        entry_mail.page_renewed(renewed, site=site, weekend=weekend)
    return confirmed
