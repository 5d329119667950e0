"""Console: the tournament's weekend (its events in order) and submitting it to a rating list.

Only this tournament's directors reach the page; every action is a service that checks the
acting user directs every event involved (tournament.services.weekends, ratings.weekend), so a
director of only one of the events sees the weekend and is refused any change to it. A refusal
shows its message (naming the field) and changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import redirect, render
from django.urls import URLPattern, path, reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from ratings.models import RatingList
from ratings.weekend import submit_weekend
from tournament.errors import ServiceError

from ...access import can_rate
from ...models import Tournament, Weekend, WeekendEvent
from ...services.weekends import add_event, create_weekend, move_event, remove_event, set_seeding
from ..permissions import director_required


def _field(request: HttpRequest, name: str, limit: int = 200) -> str:
    # no NUL reaches a query (PostgreSQL refuses one: a 500, not "no such tournament")
    return (request.POST.get(name) or "").replace("\x00", "")[:limit]


def _position(request: HttpRequest) -> str:
    """The place as typed: a NUL or any other stray character is refused by the service with
    the value shown, never dropped (an emptied place would silently mean "last")."""
    return (request.POST.get("position") or "")[:10]


def _tournament(request: HttpRequest, name: str = "event") -> Tournament | None:
    slug = _field(request, name, 120)
    return Tournament.objects.filter(slug=slug, importing=False).first() if slug else None


def weekend_of(tournament: Tournament) -> Weekend | None:
    place = WeekendEvent.objects.filter(tournament=tournament).select_related("weekend").first()
    return place.weekend if place else None


@director_required
@require_GET
def weekend_page(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    weekend = weekend_of(tournament)
    events = (
        list(weekend.events.select_related("tournament").order_by("position")) if weekend else []
    )
    grouped = WeekendEvent.objects.values("tournament")
    candidates = (
        Tournament.objects.filter(directors=request.user, importing=False)
        .exclude(pk__in=grouped)
        .order_by("start_date", "name")
        if request.user.is_authenticated
        else Tournament.objects.none()
    )
    lists = [lst for lst in RatingList.objects.order_by("name") if can_rate(request.user, lst)]
    return render(
        request,
        "console/weekend.html",
        {
            "tournament": tournament,
            "weekend": weekend,
            "events": events,
            "candidates": candidates,
            "lists": lists,
        },
    )


def _act(
    request: HttpRequest, tournament: Tournament, action: Callable[[Weekend | None], str]
) -> HttpResponseBase:
    """Run one service call; its message or its refusal (with the field) goes on the page."""
    try:
        messages.success(request, action(weekend_of(tournament)))
    except ServiceError as exc:
        where = f"{exc.field}: " if exc.field else ""
        messages.error(request, where + str(exc))
    return redirect(reverse("console:weekend", args=[tournament.slug]))


def _in_weekend(weekend: Weekend | None, tournament: Tournament) -> Weekend:
    if weekend is None:
        raise ServiceError(
            "weekend_not_an_event", field="tournament", tournament=tournament.name, weekend="-"
        )
    return weekend


@director_required
@require_POST
def weekend_create(request: HttpRequest, tournament: Tournament) -> HttpResponseBase:
    def run(_weekend: Any) -> str:
        w = create_weekend(
            request.user, _field(request, "name", 300), tournament, slug=_field(request, "slug")
        )
        return _("Weekend {weekend} created with {name} first.").format(
            weekend=w.name, name=tournament.name
        )

    return _act(request, tournament, run)


@director_required
@require_POST
def weekend_add(request: HttpRequest, tournament: Tournament) -> HttpResponseBase:
    def run(weekend: Weekend | None) -> str:
        other = _tournament(request)
        add_event(
            _in_weekend(weekend, tournament),
            other,
            request.user,
            position=_position(request),
            seed_from_earlier=request.POST.get("seed_from_earlier") == "on",
        )
        return _("{name} added to the weekend.").format(name=other.name) if other else ""

    return _act(request, tournament, run)


@director_required
@require_POST
def weekend_move(request: HttpRequest, tournament: Tournament) -> HttpResponseBase:
    def run(weekend: Weekend | None) -> str:
        other = _tournament(request)
        move_event(_in_weekend(weekend, tournament), other, _position(request), request.user)
        return _("The weekend's order is changed.")

    return _act(request, tournament, run)


@director_required
@require_POST
def weekend_remove(request: HttpRequest, tournament: Tournament) -> HttpResponseBase:
    def run(weekend: Weekend | None) -> str:
        other = _tournament(request)
        remove_event(_in_weekend(weekend, tournament), other, request.user)
        if other is None:
            return _("The event is no longer in the weekend.")
        return _("{name} is no longer in the weekend.").format(name=other.name)

    return _act(request, tournament, run)


@director_required
@require_POST
def weekend_seeding(request: HttpRequest, tournament: Tournament) -> HttpResponseBase:
    def run(weekend: Weekend | None) -> str:
        other = _tournament(request)
        we = set_seeding(
            _in_weekend(weekend, tournament),
            other,
            request.POST.get("seed_from_earlier") == "on",
            request.user,
        )
        said = (
            _("{name} is seeded from the earlier events' results when the weekend is submitted.")
            if we.seed_from_earlier
            else _("{name} is seeded from the seeds as entered when the weekend is submitted.")
        )
        return said.format(name=we.tournament.name)

    return _act(request, tournament, run)


@director_required
@require_POST
def weekend_submit(request: HttpRequest, tournament: Tournament) -> HttpResponseBase:
    def run(weekend: Weekend | None) -> str:
        weekend = _in_weekend(weekend, tournament)
        slug = _field(request, "rating_list", 100)
        lst = RatingList.objects.filter(slug=slug).first() if slug else None
        if lst is None:
            raise ServiceError("submission_no_list", field="rating_list", division=weekend.name)
        events = submit_weekend(weekend, lst, actor=request.user)
        return _("Weekend {weekend}: {count} division(s) rated on {rating_list}, in order.").format(
            weekend=weekend.name, count=len(events), rating_list=lst.name
        )

    return _act(request, tournament, run)


urlpatterns: list[URLPattern] = [
    path("weekend/", weekend_page, name="weekend"),
    path("weekend/create/", weekend_create, name="weekend_create"),
    path("weekend/add/", weekend_add, name="weekend_add"),
    path("weekend/move/", weekend_move, name="weekend_move"),
    path("weekend/remove/", weekend_remove, name="weekend_remove"),
    path("weekend/seeding/", weekend_seeding, name="weekend_seeding"),
    path("weekend/submit/", weekend_submit, name="weekend_submit"),
]
