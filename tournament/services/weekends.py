"""Weekends: tournaments grouped in the order they start (early bird, main event, late event).

A weekend changes how its events are rated (in its order, docs/weekends.md), so grouping is
the call of someone who directs every tournament involved: each service here checks the
acting user against every event of the weekend and the tournament it adds. Each call is one
transaction with one audit event; a refusal writes nothing.

A player in two events is one registry Player already (entries point at Player), so a weekend
needs no players of its own.
"""

from __future__ import annotations

import re
from typing import Any

from django.apps import apps
from django.db import transaction
from django.db.models import F, Min
from django.utils.translation import gettext_noop

from ..access import require
from ..errors import ServiceError
from ..models import Tournament, Weekend, WeekendEvent
from .audit import Actor, audit

SLUG = re.compile(r"\A[a-z0-9]+(?:[-_][a-z0-9]+)*\Z")
NAME_MAX = 200
SLUG_MAX = 120
# Places are moved out of the way before being renumbered, so the (weekend, place) constraint
# never sees two events on one place mid-update.
_PARK = 100_000


def _require_directs(actor: Any, tournaments: list[Tournament], what: str) -> None:
    for t in tournaments:
        require(actor, "direct", t, what=what)


def _events(weekend: Weekend) -> list[WeekendEvent]:
    return list(
        WeekendEvent.objects.select_for_update()
        .filter(weekend=weekend)
        .select_related("tournament")
        .order_by("position")
    )


def _order(weekend: Weekend) -> list[str]:
    return list(
        WeekendEvent.objects.filter(weekend=weekend)
        .order_by("position")
        .values_list("tournament__slug", flat=True)
    )


def _renumber(weekend: Weekend, ordered: list[WeekendEvent]) -> None:
    """Give ``ordered`` the places 1..n (in two steps, see _PARK)."""
    WeekendEvent.objects.filter(weekend=weekend).update(position=F("position") + _PARK)
    for place, we in enumerate(ordered, start=1):
        WeekendEvent.objects.filter(pk=we.pk).update(position=place)
        we.position = place
    _resequence(ordered)


def _resequence(events: list[WeekendEvent]) -> None:
    """Events already on a rating list take their new place: their lists are marked for
    re-rating from the earliest date moved (a re-submission or a re-rate then honours it)."""
    rated_event = apps.get_model("ratings", "RatedEvent")
    rating_list = apps.get_model("ratings", "RatingList")
    for we in events:
        rated = rated_event.objects.filter(division__tournament=we.tournament).exclude(
            sequence=we.position
        )
        moved = list(rated.values("rating_list").annotate(first=Min("date")))
        if not moved:
            continue
        rated.update(sequence=we.position)
        for row in moved:
            lst = rating_list.objects.select_for_update().get(pk=row["rating_list"])
            if lst.dirty_from is None or row["first"] < lst.dirty_from:
                lst.dirty_from = row["first"]
                lst.save(update_fields=["dirty_from"])
            rating_list.objects.filter(pk=lst.pk).update(content_version=F("content_version") + 1)


def parse_position(value: Any, count: int) -> int:
    """A place typed on a form: a whole number from 1 to ``count``, else a refusal naming it."""
    text = str(value).strip()
    if not text.isdigit() or not text.isascii() or not 1 <= int(text) <= count:
        shown = text.replace("\x00", "\\0")[:10]
        raise ServiceError("weekend_bad_position", field="position", value=shown, count=count)
    return int(text)


@transaction.atomic
def create_weekend(
    actor: Any, name: str, tournament: Tournament | None, *, slug: str = ""
) -> Weekend:
    """A new weekend whose first event is ``tournament`` (which the actor must direct)."""
    name = (name or "").strip()
    if not name:
        raise ServiceError("weekend_name_required", field="name")
    if len(name) > NAME_MAX:
        raise ServiceError(
            "text_too_long", field="name", what="name", maximum=NAME_MAX, length=len(name)
        )
    slug = (slug or "").strip().lower()
    if not slug:
        from django.utils.text import slugify

        slug = slugify(name)[:SLUG_MAX] or "weekend"
    if len(slug) > SLUG_MAX or not SLUG.match(slug):
        raise ServiceError("weekend_bad_slug", field="slug", value=slug[: SLUG_MAX + 1])
    if tournament is None:
        raise ServiceError("weekend_needs_event", field="tournament")
    _require_directs(actor, [tournament], gettext_noop("group it into a weekend"))
    if Weekend.objects.filter(slug=slug).exists():
        raise ServiceError("weekend_slug_taken", field="slug", slug=slug)
    taken = WeekendEvent.objects.filter(tournament=tournament).select_related("weekend").first()
    if taken is not None:
        raise ServiceError(
            "weekend_event_taken",
            field="tournament",
            tournament=tournament.name,
            weekend=taken.weekend.name,
        )
    who = Actor.of(actor)
    weekend = Weekend.objects.create(
        name=name, slug=slug, created_by=who.user if getattr(who.user, "pk", None) else None
    )
    WeekendEvent.objects.create(weekend=weekend, tournament=tournament, position=1)
    audit(
        tournament,
        who,
        "create_weekend",
        weekend,
        f"weekend {name} created with {tournament.name} first",
        after={"weekend": slug, "order": [tournament.slug]},
    )
    return weekend


@transaction.atomic
def add_event(
    weekend: Weekend,
    tournament: Tournament | None,
    actor: Any,
    *,
    position: Any = None,
    seed_from_earlier: bool = False,
) -> WeekendEvent:
    """Put ``tournament`` in the weekend at ``position`` (default: last); later ones move down.

    The actor must direct every event already in the weekend and the one added."""
    weekend = Weekend.objects.select_for_update().get(pk=weekend.pk)
    events = _events(weekend)
    if tournament is None:
        raise ServiceError("weekend_needs_event", field="tournament")
    _require_directs(
        actor, [we.tournament for we in events] + [tournament], gettext_noop("group these events")
    )
    place = len(events) + 1 if position in (None, "") else parse_position(position, len(events) + 1)
    taken = WeekendEvent.objects.filter(tournament=tournament).select_related("weekend").first()
    if taken is not None:
        raise ServiceError(
            "weekend_event_taken",
            field="tournament",
            tournament=tournament.name,
            weekend=taken.weekend.name,
        )
    before = _order(weekend)
    added = WeekendEvent.objects.create(
        weekend=weekend,
        tournament=tournament,
        position=_PARK * 3,
        seed_from_earlier=bool(seed_from_earlier),
    )
    ordered = events[:]
    ordered.insert(place - 1, added)
    _renumber(weekend, ordered)
    audit(
        tournament,
        actor,
        "add_weekend_event",
        weekend,
        f"{tournament.name} added to weekend {weekend.name} at place {place}",
        before={"order": before},
        after={"order": _order(weekend), "seed_from_earlier": added.seed_from_earlier},
    )
    return added


def _place_of(weekend: Weekend, events: list[WeekendEvent], tournament: Tournament | None):
    for we in events:
        if tournament is not None and we.tournament_id == tournament.pk:
            return we
    raise ServiceError(
        "weekend_not_an_event",
        field="tournament",
        tournament=tournament.name if tournament is not None else "(none)",
        weekend=weekend.name,
    )


@transaction.atomic
def remove_event(weekend: Weekend, tournament: Tournament | None, actor: Any) -> None:
    """Take ``tournament`` out of the weekend; the later events close up."""
    weekend = Weekend.objects.select_for_update().get(pk=weekend.pk)
    events = _events(weekend)
    _require_directs(actor, [we.tournament for we in events], gettext_noop("change this weekend"))
    we = _place_of(weekend, events, tournament)
    before = _order(weekend)
    we.delete()
    rest = [e for e in events if e.pk != we.pk]
    _renumber(weekend, rest)
    # its rated events, if any, are no longer a weekend's: back to place 0
    we.position = 0
    _resequence([we])
    audit(
        we.tournament,
        actor,
        "remove_weekend_event",
        weekend,
        f"{we.tournament.name} removed from weekend {weekend.name}",
        before={"order": before},
        after={"order": _order(weekend)},
    )


@transaction.atomic
def move_event(weekend: Weekend, tournament: Tournament | None, position: Any, actor: Any) -> None:
    """Move ``tournament`` to ``position`` in the weekend's order (the others close up)."""
    weekend = Weekend.objects.select_for_update().get(pk=weekend.pk)
    events = _events(weekend)
    _require_directs(actor, [we.tournament for we in events], gettext_noop("change this weekend"))
    we = _place_of(weekend, events, tournament)
    place = parse_position(position, len(events))
    before = _order(weekend)
    ordered = [e for e in events if e.pk != we.pk]
    ordered.insert(place - 1, we)
    _renumber(weekend, ordered)
    audit(
        we.tournament,
        actor,
        "move_weekend_event",
        weekend,
        f"{we.tournament.name} moved to place {place} of weekend {weekend.name}",
        before={"order": before},
        after={"order": _order(weekend)},
    )


@transaction.atomic
def set_seeding(
    weekend: Weekend, tournament: Tournament | None, seed_from_earlier: bool, actor: Any
) -> WeekendEvent:
    """Whether the event's entries are seeded from the weekend's earlier results when the
    weekend is submitted (docs/weekends.md: the director's choice)."""
    weekend = Weekend.objects.select_for_update().get(pk=weekend.pk)
    events = _events(weekend)
    _require_directs(actor, [we.tournament for we in events], gettext_noop("change this weekend"))
    we = _place_of(weekend, events, tournament)
    before = we.seed_from_earlier
    we.seed_from_earlier = bool(seed_from_earlier)
    we.save(update_fields=["seed_from_earlier"])
    audit(
        we.tournament,
        actor,
        "set_weekend_seeding",
        weekend,
        f"{we.tournament.name}: seeds "
        + ("from the weekend's earlier results" if we.seed_from_earlier else "as entered"),
        before={"seed_from_earlier": before},
        after={"seed_from_earlier": we.seed_from_earlier},
    )
    return we
