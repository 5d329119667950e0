"""The round clock's arithmetic, pure: a clock's state at a given server time.

A clock is kept as server times only (tournament.models.RoundClock): when it started, when it
was paused, how long earlier pauses lasted and the minutes added by extensions. What a page or
the API shows (running or paused, the end, the seconds left) is derived here from those and
the server's ``now``, so every face agrees and no browser's clock is ever trusted: a page
sends the server's time beside the end, and the browser corrects for its own offset.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

NOT_STARTED = "not_started"
RUNNING = "running"
PAUSED = "paused"
OVER = "over"
STATES = (NOT_STARTED, RUNNING, PAUSED, OVER)

# Bounds a director's input is checked against (services.clock).
MAX_ROUND_MINUTES = 240
MAX_EXTENSION_MINUTES = 60


@dataclass(frozen=True)
class ClockState:
    """A round clock as seen at ``now`` (server time)."""

    state: str  # one of STATES
    minutes: int  # the length it was started with (or will be)
    extended_minutes: int  # the extensions' minutes, added up
    started_at: datetime | None
    ends_at: datetime | None  # while running or over: the server time it ends
    remaining_seconds: int  # at ``now``, never below 0
    now: datetime

    @property
    def total_minutes(self) -> int:
        return self.minutes + self.extended_minutes

    @property
    def remaining_minutes(self) -> int:
        """Whole minutes left, rounded up (what a page without scripts shows: "3 min" means
        under three minutes to go, never "0 min" while time is left)."""
        return -(-self.remaining_seconds // 60)

    @property
    def shown(self) -> str:
        """The time left as a clock shows it: ``24:05``, ``0:00``."""
        minutes, seconds = divmod(self.remaining_seconds, 60)
        return f"{minutes}:{seconds:02d}"


def clock_state(
    *,
    minutes: int,
    started_at: datetime | None,
    paused_at: datetime | None,
    paused_seconds: int,
    extended_minutes: int,
    now: datetime,
) -> ClockState:
    """The clock at ``now``. The end moves later by every extension and every pause: a clock
    paused for three minutes ends three minutes later than it would have."""
    total = timedelta(minutes=minutes + extended_minutes)
    if started_at is None:
        return ClockState(
            NOT_STARTED, minutes, extended_minutes, None, None, int(total.total_seconds()), now
        )
    end = started_at + total + timedelta(seconds=paused_seconds)
    if paused_at is not None:
        left = max(0, _ceil_seconds(end - paused_at))
        return ClockState(PAUSED, minutes, extended_minutes, started_at, None, left, now)
    left = max(0, _ceil_seconds(end - now))
    state = RUNNING if left > 0 else OVER
    return ClockState(state, minutes, extended_minutes, started_at, end, left, now)


def _ceil_seconds(delta: timedelta) -> int:
    """Seconds rounded up: a clock with 0.4 s to go is not over yet."""
    whole = int(delta.total_seconds())
    return whole + 1 if delta > timedelta(seconds=whole) else whole


def extension_minutes(extensions: list[dict]) -> int:
    """The minutes of a clock's recorded extensions, added up."""
    return sum(int(e.get("minutes", 0)) for e in extensions or [])


def state_of(clock: Any, now: datetime, default_minutes: int) -> ClockState:
    """The state at ``now`` of a stored clock (a RoundClock, read by its fields); a round
    without one is not started, with the tournament's round length."""
    if clock is None:
        return clock_state(
            minutes=default_minutes,
            started_at=None,
            paused_at=None,
            paused_seconds=0,
            extended_minutes=0,
            now=now,
        )
    return clock_state(
        minutes=clock.minutes,
        started_at=clock.started_at,
        paused_at=clock.paused_at,
        paused_seconds=clock.paused_seconds,
        extended_minutes=extension_minutes(clock.extensions),
        now=now,
    )
