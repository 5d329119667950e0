"""Entries online, the director's side: each division's rule (a raised cap moves the waiting
list up) and the list: paid, refused, promoted, demoted, moved."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.db import transaction
from django.db.models import Min
from django.utils import timezone
from django.utils.translation import gettext_lazy, gettext_noop

from tournament.checks import as_int, check_text
from tournament.errors import ServiceError

from ...access import require
from ...models import (
    Division,
    DivisionEntryRule,
    OnlineEntry,
    Tournament,
)
from ...selectors import division_by_key
from .. import notices
from ..audit import Actor, audit
from ..entries import MAX_SEED_RATING, move_entry
from .entrant import (
    _enter,
    _free_place,
    _promote_first,
    _require_status,
    approve_entry,
    waiting_list,
)
from .window import (
    LIVE,
    Status,
    _optional_number,
    _rule_data,
    describe_rule,
)


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
    require(actor, "direct", tournament, what=gettext_noop("set entry rules"))
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
    require(actor, "direct", online.tournament, what=gettext_noop("mark entry fees"))
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
    require(actor, "direct", online.tournament, what=gettext_noop("refuse entries"))
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
    require(actor, "direct", online.tournament, what=gettext_noop("promote entries"))
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
    require(actor, "direct", online.tournament, what=gettext_noop("demote entries"))
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
    require(actor, "direct", online.tournament, what=gettext_noop("move entries"))
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


# --------------------------------------------------------------------------- one action, any face

#: the director's actions on one online entry, as the console's buttons, ``manage.py entries``
#: and the API name them
ENTRY_ACTIONS = ("paid", "unpaid", "approve", "refuse", "promote", "demote", "move")
#: what each action says it did, in the reader's language (English as it always read: the
#: command line prints it so)
ENTRY_ACTIONS_DONE = {
    "paid": gettext_lazy("{name}: paid done."),
    "unpaid": gettext_lazy("{name}: unpaid done."),
    "approve": gettext_lazy("{name}: approve done."),
    "refuse": gettext_lazy("{name}: refuse done."),
    "promote": gettext_lazy("{name}: promote done."),
    "demote": gettext_lazy("{name}: demote done."),
    "move": gettext_lazy("{name}: move done."),
}


def apply_entry_action(
    online: OnlineEntry,
    action: Any,
    *,
    reason: Any = "",
    to: Any = None,
    actor: Actor | str | Any | None = None,
) -> str:
    """Run one of ``ENTRY_ACTIONS`` on an online entry and say what was done.

    The console's row buttons, the ``entries`` command and the API's online-entry action all
    come through here, so an approval or a refusal is the same act with the same checks from
    any face. ``to`` (for ``move``) is a division of the tournament, its slug or its name."""
    action = str(action or "").strip().lower()
    name = online.player.name
    if action in ("paid", "unpaid"):
        mark_paid(online, action == "paid", actor=actor)
    elif action == "approve":
        approve_entry(online, actor=actor)
    elif action == "refuse":
        refuse_entry(online, reason, actor=actor)
    elif action == "promote":
        promote_entry(online, actor=actor)
    elif action == "demote":
        demote_entry(online, actor=actor)
    elif action == "move":
        target = to
        if not isinstance(to, Division):
            key = str(to or "").strip()[:60]
            target = division_by_key(online.tournament, key) if key else None
        if target is None:
            raise ServiceError(
                "reg_move_where", field="to", name=name, division=online.division.name
            )
        move_online_entry(online, target, actor=actor)
    else:
        raise ServiceError(
            "setup_choice",
            field="action",
            what="action",
            value=action[:20],
            choices=ENTRY_ACTIONS,
        )
    return str(ENTRY_ACTIONS_DONE[action]).format(name=name)


def director_rows(tournament: Tournament) -> list[dict[str, Any]]:
    """Every online entry of the tournament as the director's list shows it (status, paid,
    waiting position, the reason of a refusal), for the command and the API. No contact
    details: those stay on the console, under the contact rule."""
    rows = []
    online = (
        OnlineEntry.objects.filter(tournament=tournament)
        .select_related("player", "division", "entry")
        .order_by("division__pk", "status", "waiting_since", "pk")
    )
    waiting: dict[int, dict[int, int]] = {}
    for o in online:
        if o.status == Status.WAITING and o.division_id not in waiting:
            waiting[o.division_id] = {
                w.pk: i for i, w in enumerate(waiting_list(o.division), start=1)
            }
        rows.append(
            {
                "id": o.pk,
                "division": o.division.name,
                "name": o.player.name,
                "rating": o.rating,
                "status": o.status,
                "number": o.entry.number if o.entry_id else None,
                "waiting_position": waiting.get(o.division_id, {}).get(o.pk),
                "paid": o.paid,
                "note": o.note,
                "entered_at": o.created.isoformat(),
            }
        )
    return rows
