"""Check-in on the day: who is here before round 1.

A player checks in from their own link (the online entry's personal page, or the scorecard's
self-entry QR page) or a director taps them in on the console's check-in list. It is kept on
the ``Entry`` (``checked_in_at``), so players the director registered by hand check in the
same way as those who entered online. Round 1 is then paired from those who came: one
director's action removes every entry not checked in (``remove_absent``), through the
console's ``remove_entry`` so the numbers close up, refused once round 1 is paired (after
that, an absent player is withdrawn, not removed).

A capped division's waiting entrants check in too, "if a place frees" (``check_in_waiting``,
kept on their online entry): removing the absent then promotes those who are here into the
freed places in their waiting-list order, each told by the promotion notice, so the division
starts full (no bye for want of a player who came).
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_noop

from tournament.errors import ServiceError

from ..access import require
from ..models import Division, Entry, OnlineEntry
from ..selectors import paired_rounds
from . import online_entries as oe
from .audit import Actor, audit
from .entries import remove_entry
from .venue import held_by_venue, queue_check_in


@transaction.atomic
def check_in(entry: Entry, *, here: bool = True, actor: Actor | str | Any | None = None) -> Entry:
    """Mark ``entry`` here (or, ``here=False``, not here after all: a tap on the wrong name).

    A director's tap needs ``direct``; a player's own link is a trusted door (its secret was
    checked by the page) and passes an Actor naming them. Checking in twice changes nothing."""
    division = entry.division
    require(actor, "direct", division.tournament, what=gettext_noop("check players in"))
    if here and entry.withdrawn_round is not None:
        raise ServiceError(
            "checkin_withdrawn",
            field="entry",
            number=entry.number,
            name=entry.name,
            division=division.name,
        )
    if (entry.checked_in_at is not None) == here:
        return entry
    entry.checked_in_at = timezone.now() if here else None
    entry.save(update_fields=["checked_in_at"])
    audit(
        division.tournament,
        actor,
        "check_in" if here else "undo_check_in",
        entry,
        f"{division.name} #{entry.number} {entry.name} "
        + ("checked in" if here else "no longer checked in"),
        after={"checked_in": here},
    )
    return entry


@transaction.atomic
def check_in_waiting(
    online: OnlineEntry, *, here: bool = True, actor: Actor | str | Any | None = None
) -> OnlineEntry:
    """Mark a waiting entrant here "if a place frees" (or, ``here=False``, not here after all):
    ``remove_absent`` promotes the checked-in waiting entrants in their list order. Checked as
    ``check_in`` is (a director's tap, or the entrant's own link as a trusted door); refused
    for an entrant not on the waiting list and once round 1 is paired."""
    division = online.division
    require(actor, "direct", division.tournament, what=gettext_noop("check players in"))
    if online.status != OnlineEntry.Status.WAITING:
        raise ServiceError(
            "entries_state",
            field="entry",
            name=online.player.name,
            status=online.get_status_display(),
            what="checked in from the waiting list",
        )
    if paired_rounds(division):
        raise ServiceError("checkin_round_paired", field="entry", division=division.name)
    if (online.checked_in_at is not None) == here:
        return online
    online.checked_in_at = timezone.now() if here else None
    online.save(update_fields=["checked_in_at"])
    audit(
        division.tournament,
        actor,
        "check_in" if here else "undo_check_in",
        online,
        f"{division.name} waiting list: {online.player.name} "
        + ("checked in if a place frees" if here else "no longer checked in"),
        after={"checked_in": here, "waiting": True},
    )
    return online


class Removed(list[str]):
    """The names ``remove_absent`` removed (a list, as before), and in ``promoted`` the
    waiting entrants who were here and took the freed places, in order."""

    promoted: list[str]


@transaction.atomic
def player_check_in(entry: Entry, *, actor: Actor | str | Any | None = None) -> str:
    """A player checking in from their own link: "checked_in" (or already), or "sent" when a
    venue runs the tournament and this is its hosted copy (venue mode): the check-in is queued
    for the venue, which sets it unless its director removed or withdrew the player, and the
    player's page shows the answer."""
    link = held_by_venue(entry.division.tournament)
    if link is None:
        check_in(entry, actor=actor)
        return "checked_in"
    if entry.withdrawn_round is not None:
        raise ServiceError(
            "checkin_withdrawn",
            field="entry",
            number=entry.number,
            name=entry.name,
            division=entry.division.name,
        )
    if entry.checked_in_at is not None:
        return "checked_in"
    queue_check_in(link, entry, actor)
    return "sent"


@transaction.atomic
def remove_absent(division: Division, *, actor: Actor | str | Any | None = None) -> Removed:
    """Before round 1: remove every entry of ``division`` not checked in (numbers close up, the
    players stay in the registry; an online entrant's entry is marked withdrawn), then move
    the waiting entrants who checked in into the freed places, in their waiting-list order
    (``Removed.promoted``). Returns the names removed. Refused once a round is paired, when
    nobody has checked in (that would empty the division: check-in has probably not
    started), and when everyone has."""
    tournament = division.tournament
    require(actor, "direct", tournament, what=gettext_noop("remove players who did not check in"))
    if paired_rounds(division):
        raise ServiceError("checkin_round_paired", division=division.name)
    entries = list(division.entries.select_for_update().select_related("player"))
    absent = [e for e in entries if e.checked_in_at is None]
    if len(absent) == len(entries):
        raise ServiceError("checkin_nobody", division=division.name)
    if not absent:
        raise ServiceError("checkin_all_here", division=division.name)
    names = []
    # highest number first: each removal then moves nobody still to be removed
    for entry in sorted(absent, key=lambda e: -e.number):
        names.append(f"#{entry.number} {entry.name}")
        OnlineEntry.objects.filter(entry=entry).update(
            status=OnlineEntry.Status.WITHDRAWN, note="did not check in", entry=None
        )
        remove_entry(Entry.objects.get(pk=entry.pk), actor=actor)
    names.reverse()
    audit(
        tournament,
        actor,
        "remove_absent",
        division,
        f"{division.name}: {len(names)} not checked in removed before round 1",
        after={"removed": names},
    )
    removed = Removed(names)
    removed.promoted = [
        f"#{o.entry.number} {o.player.name}" for o in oe.promote_checked_in(division, actor)
    ]
    return removed
