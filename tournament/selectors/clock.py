"""The round clock and the announcement, as the pages show them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..models import (
    Division,
    RoundClock,
    Tournament,
)

# --- the round clock and the announcement -----------------------------------------------------


@dataclass(frozen=True)
class DivisionClock:
    """A division's current round (its last paired one; 0 when none is) and that round's
    clock at the time asked (None when no round is paired)."""

    division: Division
    round: int
    clock: Any  # tournament.clock.ClockState | None


def round_clock(division: Division, number: int, now: Any) -> Any:
    """The clock of the division's round ``number`` at ``now`` (not started when it has none)."""
    from ..clock import state_of

    row = RoundClock.objects.filter(division=division, round_number=number).first()
    return state_of(row, now, division.tournament.round_minutes)


def division_clocks(tournament: Tournament, now: Any) -> list[DivisionClock]:
    """Each division's current round and its clock, in the divisions' order (two queries
    and one a division): what the venue screen and the public pages show."""
    from django.db.models import Max

    from ..clock import state_of

    # a Round row exists only while the round is paired (unpairing deletes it), so the games
    # are not read: the public pages count their game queries, and the strip needs none
    # ordered explicitly: Django drops Meta.ordering from a GROUP BY query, and PostgreSQL
    # then returns the divisions in any order
    divisions = list(
        tournament.divisions.annotate(paired=Max("round_set__number")).order_by("position", "name")
    )
    rows = {
        (c.division_id, c.round_number): c
        for c in RoundClock.objects.filter(division__tournament=tournament)
    }
    out = []
    for d in divisions:
        d.tournament = tournament
        number = d.paired or 0
        clock = (
            state_of(rows.get((d.pk, number)), now, tournament.round_minutes) if number else None
        )
        out.append(DivisionClock(d, number, clock))
    return out


def live_announcement(tournament: Tournament, now: Any) -> Any:
    """The tournament's announcement while it shows (None when there is none, or its
    ``until`` has passed)."""
    from ..models import Announcement

    found = Announcement.objects.filter(tournament=tournament).first()
    if found is None or (found.until is not None and found.until <= now):
        return None
    return found
