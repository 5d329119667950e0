"""Submitting a weekend: its events rated on one list in the weekend's order, in one action.

NASPA rates tournaments in the order players began to play them (docs/weekends.md), so an
early bird, a main event and a late event of one weekend are rated one after another even when
two share a date. Each event's divisions go on the list with the event's place in the weekend
as their ``sequence`` (ratings.division.rate_division), which every ordering of the list's
events reads, and the list is re-rated after each event so that a later event whose rule says
so (``WeekendEvent.seed_from_earlier``) is seeded from the ratings the earlier ones gave.
Submitting the events one by one, in any order, rates them the same way.
"""

from __future__ import annotations

import datetime
from typing import Any

from django.db import transaction
from django.db.models import Q
from django.utils.translation import gettext_noop

from tournament.access import require
from tournament.errors import ServiceError
from tournament.models import Division, Entry, Weekend, WeekendEvent
from tournament.services.audit import audit

from .division import check_officer, division_rating_input, submit_divisions
from .engine import RatingError
from .models import PlayerRating, RatedEvent, RatingHistory, RatingList


def _plan(weekend: Weekend) -> list[tuple[WeekendEvent, list[Division]]]:
    """Every check before any write: events, dates in the weekend's order, games to rate."""
    events = list(
        WeekendEvent.objects.filter(weekend=weekend)
        .select_related("tournament")
        .order_by("position")
    )
    if not events:
        raise ServiceError("weekend_empty", weekend=weekend.name)
    plan = []
    previous: WeekendEvent | None = None
    for we in events:
        t = we.tournament
        if t.start_date is None:
            raise ServiceError("submission_no_date", tournament=t.slug)
        if previous is not None and t.start_date < previous.tournament.start_date:
            raise ServiceError(
                "weekend_order_dates",
                later=t.name,
                position=we.position,
                date=t.start_date.isoformat(),
                earlier=previous.tournament.name,
                earlier_date=previous.tournament.start_date.isoformat(),
            )
        divisions = [
            d for d in t.divisions.order_by("position", "name") if division_rating_input(d)[2]
        ]
        if not divisions:
            raise ServiceError("weekend_event_no_games", tournament=t.name)
        plan.append((we, divisions))
        previous = we
    return plan


def ratings_before(
    rating_list: RatingList,
    player_ids: list[int],
    date: datetime.date,
    sequence: int,
    earlier_tournaments: list[int],
) -> dict[int, tuple[int, int | None]]:
    """(rating, career games) of each player who played an earlier event of the weekend, as
    the list stood just before the event at (``date``, ``sequence``): their last history row
    before it, the games counted from their start on the list."""
    played = set(
        RatingHistory.objects.filter(
            event__rating_list=rating_list,
            event__division__tournament__in=earlier_tournaments,
            player_id__in=player_ids,
        ).values_list("player_id", flat=True)
    )
    if not played:
        return {}
    before = Q(event__date__lt=date) | Q(event__date=date, event__sequence__lt=sequence)
    start = dict(
        PlayerRating.objects.filter(rating_list=rating_list, player_id__in=played).values_list(
            "player_id", "start_career_games"
        )
    )
    out: dict[int, tuple[int, int | None]] = {}
    games: dict[int, int] = {}
    for pid, after, n in (
        RatingHistory.objects.filter(before, event__rating_list=rating_list, player_id__in=played)
        .order_by("event__date", "event__sequence", "event_id")
        .values_list("player_id", "after", "games")
    ):
        games[pid] = games.get(pid, 0) + n
        career = None if start.get(pid) is None else start[pid] + games[pid]
        out[pid] = (after, career)
    return out


def _seed_from_earlier(
    rating_list: RatingList, we: WeekendEvent, divisions: list[Division], earlier: list[int]
) -> list[dict[str, Any]]:
    """Set the event's entries' seeds to the ratings the earlier events gave; returns the
    changes (for the audit trail)."""
    changes = []
    for d in divisions:
        entries = list(d.entries.select_related("player"))
        found = ratings_before(
            rating_list,
            [e.player_id for e in entries],
            we.tournament.start_date,
            we.position,
            earlier,
        )
        for e in entries:
            if e.player_id not in found:
                continue
            rating, career = found[e.player_id]
            new_career = e.career_games if career is None else career
            if (rating, new_career) == (e.seed_rating, e.career_games):
                continue
            changes.append(
                {
                    "division": d.name,
                    "number": e.number,
                    "player": e.player.name,
                    "before": e.seed_rating,
                    "after": rating,
                }
            )
            Entry.objects.filter(pk=e.pk).update(seed_rating=rating, career_games=new_career)
    return changes


def submit_weekend(weekend: Weekend, rating_list: RatingList, *, actor: Any) -> list[RatedEvent]:
    """Rate every event of the weekend on ``rating_list`` in the weekend's order, all or
    nothing: only an officer of the list who directs every event of the weekend may."""
    if rating_list is None:
        raise ServiceError("submission_no_list", field="rating_list", division=weekend.name)
    who = check_officer(rating_list, actor)
    events = list(WeekendEvent.objects.filter(weekend=weekend).select_related("tournament"))
    for we in events:
        require(who, "direct", we.tournament, what=gettext_noop("submit this weekend's ratings"))
    plan = _plan(weekend)
    rated: list[RatedEvent] = []
    earlier: list[int] = []
    with transaction.atomic():
        for we, divisions in plan:
            seeded: list[dict[str, Any]] = []
            if we.seed_from_earlier and earlier:
                seeded = _seed_from_earlier(rating_list, we, divisions, earlier)
            try:
                rated += submit_divisions(divisions, rating_list, actor=who)
            except RatingError as exc:
                raise ServiceError("rating_refused", reason=str(exc)) from exc
            audit(
                we.tournament,
                who,
                "submit_weekend",
                weekend,
                f"weekend {weekend.name}: {we.tournament.name} (place {we.position}) rated on "
                f"{rating_list.name}"
                + (f", {len(seeded)} seed(s) from earlier events" if seeded else ""),
                after={
                    "rating_list": rating_list.slug,
                    "place": we.position,
                    "divisions": [d.name for d in divisions],
                    "seeded": seeded,
                },
            )
            earlier.append(we.tournament_id)
    return rated
