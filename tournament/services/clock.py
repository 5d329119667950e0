"""The round clock and the director's announcement (before and after play).

A director starts, pauses, resumes, extends and resets a division round's clock; each is one
transaction with one audit event, the clock's server times before and after in it (the
extensions with their minutes and reasons), so the trail replays the round's time. Only the
server's clock is read: ``now`` is the application server's time when the write runs, never a
browser's.

The announcement is one short text per tournament, shown on its public pages, the venue
screen and players' pages until cleared or until its ``until`` passes.

Who may: the tournament's directors (``access.require(actor, "direct", ...)``); scorekeepers
only enter and correct results, as the "Who may do what" table (docs/reference.md) says.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_noop

from tournament.errors import Phrase, where_round

from ..access import require
from ..checks import check_text, setting_int
from ..clock import (
    MAX_EXTENSION_MINUTES,
    MAX_ROUND_MINUTES,
    NOT_STARTED,
    OVER,
    PAUSED,
    RUNNING,
    ClockState,
    state_of,
)
from ..errors import ServiceError
from ..models import Announcement, Division, Round, RoundClock, Tournament
from .audit import Action, Actor, audit

EXTENSION_REASON_LENGTH = 200
ACTIONS = ("start", "pause", "resume", "extend", "reset")


def _where(division: Division, number: int) -> Phrase:
    return where_round(division, number)


def _snapshot(clock: RoundClock) -> dict[str, Any]:
    """The clock's stored times, as the audit trail keeps them (before and after)."""

    def iso(value: dt.datetime | None) -> str | None:
        return value.isoformat() if value is not None else None

    return {
        "round": clock.round_number,
        "minutes": clock.minutes,
        "started_at": iso(clock.started_at),
        "paused_at": iso(clock.paused_at),
        "paused_seconds": clock.paused_seconds,
        "extensions": list(clock.extensions or []),
    }


def _round_number(division: Division, number: Any) -> int:
    value = setting_int(number, "round", "the round", minimum=1, maximum=division.rounds)
    assert value is not None
    return value


def _locked_clock(division: Division, number: int) -> RoundClock | None:
    """The clock's row, locked for this transaction: two directors' presses are taken in
    turn, each against what the other left."""
    return (
        RoundClock.objects.select_for_update()
        .filter(division=division, round_number=number)
        .first()
    )


def _stored(
    clock: RoundClock,
    division: Division,
    actor: Actor | str | None,
    action: Action,
    text: str,
    before: dict[str, Any] | None,
    now: dt.datetime,
) -> ClockState:
    """Save the changed clock with its audit event (before and after) and answer its state:
    the end of every clock action."""
    clock.save()
    audit(
        division.tournament,
        actor,
        action,
        clock,
        text,
        before=before,
        after=_snapshot(clock),
    )
    return _state(clock, division, now)


def _state(clock: RoundClock | None, division: Division, now: dt.datetime) -> ClockState:
    return state_of(clock, now, division.tournament.round_minutes)


@transaction.atomic
def start_clock(
    division: Division,
    round_number: Any,
    minutes: Any = None,
    *,
    actor: Actor | str | None = None,
) -> ClockState:
    """Start the round's clock at the server's time, ``minutes`` long (the tournament's round
    length when not given). The round must be paired. A clock already started is refused
    (reset it first), so a second press never restarts a running round by mistake."""
    require(actor, "direct", division.tournament, what=gettext_noop("run the round clock"))
    number = _round_number(division, round_number)
    where = _where(division, number)
    if not Round.objects.filter(division=division, number=number, games__isnull=False).exists():
        raise ServiceError("round_not_paired", field="round", division=division.name, round=number)
    if minutes is None or (isinstance(minutes, str) and not minutes.strip()):
        minutes = division.tournament.round_minutes
    length = setting_int(
        minutes, "minutes", f"{where}: the clock's minutes", minimum=1, maximum=MAX_ROUND_MINUTES
    )
    assert length is not None
    now = timezone.now()
    clock = _locked_clock(division, number)
    current = _state(clock, division, now)
    if current.state != NOT_STARTED:
        raise ServiceError(
            "clock_already_started", field="action", where=where, state=current.state
        )
    before = _snapshot(clock) if clock is not None else None
    if clock is None:
        clock = RoundClock(division=division, round_number=number)
    clock.minutes = length
    clock.started_at = now
    clock.paused_at = None
    clock.paused_seconds = 0
    clock.extensions = []
    return _stored(
        clock,
        division,
        actor,
        Action.START_CLOCK,
        f"{where}: clock started, {length} minutes",
        before,
        now,
    )


@transaction.atomic
def pause_clock(
    division: Division, round_number: Any, *, actor: Actor | str | None = None
) -> ClockState:
    """Stop the running clock where it is (a disturbance in the room); resume starts it again
    with the time it had left."""
    require(actor, "direct", division.tournament, what=gettext_noop("run the round clock"))
    number = _round_number(division, round_number)
    where = _where(division, number)
    now = timezone.now()
    clock = _locked_clock(division, number)
    current = _state(clock, division, now)
    if current.state == OVER:
        raise ServiceError("clock_over", field="action", where=where)
    if clock is None or current.state != RUNNING:
        raise ServiceError("clock_not_running", field="action", where=where, state=current.state)
    before = _snapshot(clock)
    clock.paused_at = now
    return _stored(
        clock,
        division,
        actor,
        Action.PAUSE_CLOCK,
        f"{where}: clock paused with {current.shown} left",
        before,
        now,
    )


@transaction.atomic
def resume_clock(
    division: Division, round_number: Any, *, actor: Actor | str | None = None
) -> ClockState:
    """Start a paused clock again: the pause's length is added to the end."""
    require(actor, "direct", division.tournament, what=gettext_noop("run the round clock"))
    number = _round_number(division, round_number)
    where = _where(division, number)
    now = timezone.now()
    clock = _locked_clock(division, number)
    current = _state(clock, division, now)
    if clock is None or current.state != PAUSED or clock.paused_at is None:
        raise ServiceError("clock_not_paused", field="action", where=where, state=current.state)
    before = _snapshot(clock)
    clock.paused_seconds += max(0, int((now - clock.paused_at).total_seconds()))
    clock.paused_at = None
    return _stored(
        clock,
        division,
        actor,
        Action.RESUME_CLOCK,
        f"{where}: clock resumed with {current.shown} left",
        before,
        now,
    )


@transaction.atomic
def extend_clock(
    division: Division,
    round_number: Any,
    minutes: Any,
    reason: str = "",
    *,
    actor: Actor | str | None = None,
) -> ClockState:
    """Add ``minutes`` (1..60) to a started clock, with the reason kept on the clock and in
    the audit trail. A clock whose time is up may be extended: it runs again."""
    require(actor, "direct", division.tournament, what=gettext_noop("run the round clock"))
    number = _round_number(division, round_number)
    where = _where(division, number)
    added = setting_int(
        minutes,
        "minutes",
        f"{where}: the extension's minutes",
        minimum=1,
        maximum=MAX_EXTENSION_MINUTES,
    )
    assert added is not None
    reason = " ".join(str(reason or "").split())
    check_text(reason, f"{where}: the extension's reason", Announcement, "text", field="reason")
    if len(reason) > EXTENSION_REASON_LENGTH:
        raise ServiceError(
            "text_too_long",
            field="reason",
            what=f"{where}: the extension's reason",
            maximum=EXTENSION_REASON_LENGTH,
            length=len(reason),
        )
    now = timezone.now()
    clock = _locked_clock(division, number)
    current = _state(clock, division, now)
    if clock is None or current.state == NOT_STARTED:
        raise ServiceError("clock_not_started", field="action", where=where)
    before = _snapshot(clock)
    who = Actor.of(actor).name
    clock.extensions = [
        *(clock.extensions or []),
        {"minutes": added, "reason": reason, "at": now.isoformat(), "by": who},
    ]
    if current.state == OVER and clock.paused_at is None:
        # time was up: the extension counts from now, not from the end already passed
        assert current.ends_at is not None
        clock.paused_seconds += max(0, int((now - current.ends_at).total_seconds()))
    clock.save()
    audit(
        division.tournament,
        actor,
        Action.EXTEND_CLOCK,
        clock,
        f"{where}: clock extended by {added} min" + (f" ({reason})" if reason else ""),
        before=before,
        after=_snapshot(clock),
        reason=reason,
    )
    return _state(clock, division, now)


@transaction.atomic
def reset_clock(
    division: Division, round_number: Any, *, actor: Actor | str | None = None
) -> ClockState:
    """Put the clock back to not started (a start by mistake, a round restarted); the audit
    event keeps what it held."""
    require(actor, "direct", division.tournament, what=gettext_noop("run the round clock"))
    number = _round_number(division, round_number)
    where = _where(division, number)
    now = timezone.now()
    clock = _locked_clock(division, number)
    if clock is None or clock.started_at is None:
        raise ServiceError("clock_not_started", field="action", where=where)
    before = _snapshot(clock)
    clock.started_at = None
    clock.paused_at = None
    clock.paused_seconds = 0
    clock.extensions = []
    return _stored(clock, division, actor, Action.RESET_CLOCK, f"{where}: clock reset", before, now)


def clock_action(
    division: Division,
    round_number: Any,
    action: str,
    *,
    minutes: Any = None,
    reason: str = "",
    actor: Actor | str | None = None,
) -> ClockState:
    """One door for the faces that name the action in their input (console form, API,
    command): ``start`` (minutes optional), ``pause``, ``resume``, ``extend`` (minutes,
    reason), ``reset``."""
    if action == "start":
        return start_clock(division, round_number, minutes, actor=actor)
    if action == "pause":
        return pause_clock(division, round_number, actor=actor)
    if action == "resume":
        return resume_clock(division, round_number, actor=actor)
    if action == "extend":
        return extend_clock(division, round_number, minutes, reason, actor=actor)
    if action == "reset":
        return reset_clock(division, round_number, actor=actor)
    raise ServiceError(
        "clock_unknown_action", field="action", action=str(action)[:40], actions=", ".join(ACTIONS)
    )


@transaction.atomic
def set_round_minutes(
    tournament: Tournament, minutes: Any, *, actor: Actor | str | None = None
) -> Tournament:
    """The round length a clock starts with when none is given."""
    require(actor, "direct", tournament, what=gettext_noop("change settings"))
    length = setting_int(
        minutes,
        "round_minutes",
        "the round length in minutes",
        minimum=1,
        maximum=MAX_ROUND_MINUTES,
    )
    before = tournament.round_minutes
    tournament.round_minutes = length
    tournament.save(update_fields=["round_minutes"])
    audit(
        tournament,
        actor,
        Action.UPDATE_TOURNAMENT,
        tournament,
        f"round clock length {before} -> {length} minutes",
        before={"round_minutes": before},
        after={"round_minutes": length},
    )
    return tournament


# --------------------------------------------------------------------------- announcement


def parse_until(value: Any, now: dt.datetime | None = None) -> dt.datetime | None:
    """An announcement's end as a director types it: ``HH:MM`` (today, the site's time zone),
    ``YYYY-MM-DD HH:MM`` (or with a ``T``), a datetime, or blank for none."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, dt.datetime):
        return value if timezone.is_aware(value) else timezone.make_aware(value)
    text = str(value).strip()
    now = now or timezone.now()
    local_now = timezone.localtime(now)
    try:
        if len(text) <= 5 and ":" in text:
            clock_time = dt.time.fromisoformat(text.zfill(5))
            moment = dt.datetime.combine(local_now.date(), clock_time)
        else:
            moment = dt.datetime.fromisoformat(text.replace(" ", "T", 1))
    except ValueError:
        raise ServiceError("announcement_until_bad", field="until", value=text[:40]) from None
    if timezone.is_naive(moment):
        moment = timezone.make_aware(moment)
    return moment


@transaction.atomic
def post_announcement(
    tournament: Tournament,
    text: Any,
    until: Any = None,
    *,
    actor: Actor | str | None = None,
) -> Announcement:
    """Post the tournament's announcement, or replace the one showing (one at a time): plain
    text, at most 280 characters, shown escaped; ``until`` hides it after that time."""
    require(actor, "direct", tournament, what=gettext_noop("post announcements"))
    words = " ".join(str(text or "").split())
    if not words:
        raise ServiceError("announcement_empty", field="text")
    words = check_text(words, "the announcement", Announcement, "text", field="text")
    now = timezone.now()
    ends = parse_until(until, now)
    if ends is not None and ends <= now:
        raise ServiceError(
            "announcement_until_past",
            field="until",
            until=timezone.localtime(ends).strftime("%Y-%m-%d %H:%M"),
        )
    current = Announcement.objects.select_for_update().filter(tournament=tournament).first()
    before = _announcement_data(current) if current is not None else None
    if current is None:
        current = Announcement(tournament=tournament)
    current.text = words
    current.until = ends
    current.save()
    audit(
        tournament,
        actor,
        Action.POST_ANNOUNCEMENT,
        current,
        f"announcement: {words}",
        before=before,
        after=_announcement_data(current),
    )
    return current


@transaction.atomic
def clear_announcement(tournament: Tournament, *, actor: Actor | str | None = None) -> None:
    """Take the announcement down."""
    require(actor, "direct", tournament, what=gettext_noop("post announcements"))
    current = Announcement.objects.select_for_update().filter(tournament=tournament).first()
    if current is None:
        raise ServiceError("no_announcement", field="text", tournament=tournament.name)
    before = _announcement_data(current)
    current.delete()
    audit(
        tournament,
        actor,
        Action.CLEAR_ANNOUNCEMENT,
        tournament,
        "announcement cleared",
        before=before,
    )


def _announcement_data(a: Announcement) -> dict[str, Any]:
    return {"text": a.text, "until": a.until.isoformat() if a.until else None}
