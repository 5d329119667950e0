"""Venue mode, down: the venue reads the hosted copy's inbox and settles each item; what a
player's page shows of it."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils import timezone

from ...access import LinkActor
from ...models import (
    Entry,
    OnlineEntry,
    VenueInbox,
    VenueTake,
)
from ..audit import Action, audit
from .fields import (
    PLAYER_FIELDS,
    _bad,
    _iso,
)
from .hosted import (
    _heard_from,
    check_laptop,
    link_for_token,
    position,
)


def _inbox_row(item: VenueInbox) -> dict[str, Any]:
    row: dict[str, Any] = {"id": item.pk, "key": f"{item.pk}.{item.key}", "kind": item.kind}
    if item.entry_id is not None:
        row.update(
            division=item.entry.division.slug,
            number=item.entry.number,
            player=item.entry.player_id,
        )
    if item.kind == VenueInbox.Kind.REPORT:
        row.update(round=item.round_number, score=item.score, opp_score=item.opp_score)
    elif item.kind == VenueInbox.Kind.ENTRY and item.online is not None:
        online, player = item.online, item.online.player
        row.update(
            division=online.division.slug,
            player=player.pk,
            name=player.name,
            **{f: getattr(player, f) for f in PLAYER_FIELDS if f != "name"},
            email=online.email,
            rating=online.rating,
            paid=online.paid,
            notices=online.notices,
            made=_iso(online.created),
        )
    elif item.kind == VenueInbox.Kind.WITHDRAW and item.online is not None:
        online = item.online
        row.update(division=online.division.slug, player=online.player_id, name=online.player.name)
    return row


def inbox_for(token: Any, laptop: tuple[str, str] | None = None) -> dict[str, Any]:
    """The venue's pull: what is still waiting for it (reports, entries, check-ins), oldest
    first. A player is named by this site's id too, which the venue's pushes use back. With
    this copy's position in the venue's change log: the laptop checks it at every push, even
    one with nothing to send (a copy restored from a backup is resent what it
    lacks)."""
    link = link_for_token(token)
    if laptop and laptop[0] and not link.laptop_id:  # (binding: under the link's lock)
        with transaction.atomic():
            link = link_for_token(token, lock=True)
            check_laptop(link, laptop)
    check_laptop(link, laptop)
    _heard_from(link)
    items = VenueInbox.objects.filter(link=link, status=VenueInbox.Status.QUEUED).select_related(
        "entry__division", "online__player", "online__division"
    )
    return {"items": [_inbox_row(i) for i in items], "position": position(link)}


def settle_inbox(token: Any, payload: Any, laptop: tuple[str, str] | None = None) -> dict[str, Any]:
    """The venue's answers: each report accepted or refused, with the words the player sees.
    Only this link's own reports are touched; an answer already given stays as it was, and
    an answer naming an item by a key it does not have (an id given again after this site
    was restored from a backup) touches nothing."""
    rows = payload.get("settled") if isinstance(payload, dict) else None
    if not isinstance(rows, list):
        raise _bad("settled: a list of answers")
    with transaction.atomic():
        link = link_for_token(token, lock=True)
        check_laptop(link, laptop)
        done = 0
        for row in rows:
            try:
                pk, status = int(row["id"]), str(row["status"])
            except (KeyError, TypeError, ValueError) as exc:
                raise _bad(f"an answer names its report and status: {row!r}"[:200]) from exc
            if status not in (VenueInbox.Status.ACCEPTED, VenueInbox.Status.REFUSED):
                raise _bad(f"status {status!r}: accepted or refused")
            outcome = str(row.get("outcome") or "")[:300]
            item = (
                VenueInbox.objects.select_for_update()
                .filter(pk=pk, link=link, status=VenueInbox.Status.QUEUED)
                .first()
            )
            if item is None or row.get("key") not in (None, f"{item.pk}.{item.key}"):
                continue
            item.status, item.outcome, item.settled = status, outcome, timezone.now()
            item.save(update_fields=["status", "outcome", "settled"])
            if item.kind == VenueInbox.Kind.ENTRY and item.online is not None:
                _settle_online(item.online, status, str(row.get("state") or ""), outcome)
            elif item.kind == VenueInbox.Kind.WITHDRAW and item.online is not None:
                if status == VenueInbox.Status.ACCEPTED:  # (the push brings the rest: numbers)
                    item.online.status = OnlineEntry.Status.WITHDRAWN
                    item.online.venue_position = None
                    item.online.save(update_fields=["status", "venue_position"])
            done += 1
        if done:
            audit(
                link.tournament,
                LinkActor(link.pk, link.venue_name),
                Action.SELF_CONFIRM,
                link,
                f"venue {link.venue_name} answered {done} players' reports",
            )
    return {"settled": done}


def _settle_online(online: OnlineEntry, status: str, state: str, outcome: str) -> None:
    """The venue's answer to a queued online entry, on the entrant's own record here: in the
    division or on its waiting list at the venue, or refused there (with its words). The entry
    itself comes up with the venue's next push."""
    if online.status != OnlineEntry.Status.SENT:
        return
    if status == VenueInbox.Status.REFUSED:
        online.status = OnlineEntry.Status.REFUSED
    elif state == "waiting":
        online.status = OnlineEntry.Status.WAITING
        online.waiting_since = timezone.now()
    else:
        online.status = OnlineEntry.Status.ENTERED
    online.note = outcome[:200]
    online.save(update_fields=["status", "waiting_since", "note"])


def venue_reports(entry: Entry) -> list[VenueInbox]:
    """A player's reports and check-ins sent to the venue, newest first (their page shows
    the outcome)."""
    return list(VenueInbox.objects.filter(entry=entry).order_by("-id")[:5])


def venue_answers(online: OnlineEntry) -> list[VenueInbox]:
    """An entrant's online entry and check-ins sent to the venue, newest first."""
    rows = VenueInbox.objects.filter(online=online)
    if online.entry_id is not None:
        rows = rows | VenueInbox.objects.filter(entry_id=online.entry_id)
    return list(rows.order_by("-id")[:5])


def record_inbox_outcome(
    take: VenueTake,
    item_id: int | str,
    status: str,
    outcome: str,
    *,
    state: str = "",
    ref: tuple[int, Any] | None = None,
) -> None:
    """On the venue: a pulled item was settled (in the transaction that settled it); an entry
    made here maps its player to the hosted site's (``ref``: ours, theirs), so the push names
    the hosted site's player."""
    with transaction.atomic():
        row = VenueTake.objects.select_for_update().get(pk=take.pk)
        row.inbox_done = {**row.inbox_done, str(item_id): [status, outcome[:300], state]}
        fields = ["inbox_done"]
        if ref is not None and isinstance(ref[1], int):
            row.player_refs = {**row.player_refs, str(ref[0]): ref[1]}
            fields.append("player_refs")
        row.save(update_fields=fields)
        take.inbox_done, take.player_refs = row.inbox_done, row.player_refs
