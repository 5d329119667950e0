"""Entries online, the entrant's side: submit, confirm, the waiting list, withdraw."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_noop

from tournament.checks import as_int, check_text
from tournament.errors import ServiceError

from ...access import acting_user, allowed, is_signed_in, require
from ...models import (
    Division,
    DivisionEntryRule,
    EntryWindow,
    OnlineEntry,
    Player,
    Tournament,
)
from ...selectors import fold, near_duplicates, paired_rounds, registry_rating
from .. import entry_mail, notices
from ..audit import Actor, audit
from ..entries import check_player_name, register_player, remove_entry
from ..notice_texts import entrant_language
from ..venue import held_by_venue, queue_online_entry, queue_withdrawal
from .outcomes import Confirmed, Submitted
from .window import (
    BARRING,
    LIVE,
    PENDING_PER_PLAYER,
    Status,
    _new_secret,
    _shown,
    band_text,
    entries_actor,
    in_band,
    link_hash,
    speaks_for,
)

# --------------------------------------------------------------------------- the entrant's side


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
        language=entrant_language(),
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
    require(actor, "direct", online.tournament, what=gettext_noop("approve entries"))
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
    """On a venue (venue mode): an online entry the hosted site queued, entered here under this
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
    on a copy a venue runs (venue mode), sent to the venue, which places it by its own rules."""
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
    the first waiting entrant takes the place. On a copy a venue holds (venue mode) an entry
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
    """On a venue (venue mode): an entrant's withdrawal made on the hosted copy, applied under
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
