"""Console: the round clock of a division's current round, and the tournament's announcement.

The clock's panel sits on the division's page (start with the tournament's round length or
another, pause, resume, +1 or +5 minutes with a reason, reset); the announcement's form on the
console's home. Each button is one service call (tournament.services.clock): audited, refused
in words on the page, and only for the tournament's directors (scorekeepers see the clock).
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponseBase
from django.shortcuts import redirect
from django.urls import URLPattern, path, reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from tournament.errors import ServiceError

from ...models import Division, Tournament
from ...selectors import last_round_number, live_announcement, round_clock
from ...services import clock as clock_services
from ..permissions import DivisionMoved, can_direct, director_required, division_by_slug, moved

EXTEND_CHOICES = (1, 5)


def clock_panel(request: HttpRequest, tournament: Tournament, division: Division) -> dict[str, Any]:
    """The division page's clock panel: the current (last paired) round's clock, its times for
    the countdown, and whether this viewer may press its buttons."""
    number = last_round_number(division)
    if not number:
        return {"clock_row": None}
    now = timezone.now()
    state = round_clock(division, number, now)
    return {
        "clock_row": {
            "division": division,
            "round": number,
            "clock": state,
            "ends_ms": int(state.ends_at.timestamp() * 1000) if state.ends_at else None,
        },
        "clock_now_ms": int(now.timestamp() * 1000),
        "clock_url": reverse("console:clock", args=(tournament.slug, division.slug, number)),
        "clock_directs": can_direct(request.user, tournament),
        "clock_extend": EXTEND_CHOICES,
        "clock_extensions": _extensions(division, number),
    }


def _extensions(division: Division, number: int) -> list[dict[str, Any]]:
    from ...models import RoundClock

    row = RoundClock.objects.filter(division=division, round_number=number).first()
    return list(row.extensions) if row is not None and row.started_at else []


def announcement_panel(tournament: Tournament) -> dict[str, Any]:
    """The console home's announcement form: what shows now, if anything."""
    return {
        "announcement": live_announcement(tournament, timezone.now()),
        "announcement_url": reverse("console:announcement", args=(tournament.slug,)),
        "screen_url": reverse("public:screen", args=(tournament.slug,)),
    }


@director_required
@require_POST
def clock(
    request: HttpRequest, tournament: Tournament, division: str, round: int
) -> HttpResponseBase:
    """One press of the clock's panel: ``action`` start (``minutes``), pause, resume, reset, or
    ``extend`` = 1 or 5 (with ``reason``)."""
    try:
        div = division_by_slug(tournament, division)
    except DivisionMoved as moved_to:
        return moved(request, division, moved_to.division)
    div.tournament = tournament
    action = request.POST.get("action", "")
    minutes: Any = request.POST.get("minutes")
    if "extend" in request.POST:
        action, minutes = "extend", request.POST.get("extend")
    try:
        state = clock_services.clock_action(
            div,
            round,
            action,
            minutes=minutes,
            reason=request.POST.get("reason", ""),
            actor=request.user,
        )
    except ServiceError as exc:
        messages.error(request, _("Round clock: {message}").format(message=exc.message))
    else:
        messages.success(request, _said(action, state, round))
    return redirect(reverse("console:division", args=(tournament.slug, div.slug)) + "#round-clock")


def _said(action: str, state: Any, round: int) -> str:
    """What the clock did, one whole sentence per button (each is translated whole)."""
    if action == "start":
        return _("Round {round} clock: started, {minutes} minutes.").format(
            round=round, minutes=state.minutes
        )
    if action == "extend":
        return _("Round {round} clock: extended, {left} left.").format(
            round=round, left=state.shown
        )
    if action == "reset":
        return _("Round {round} clock: reset.").format(round=round)
    if action == "pause":
        return _("Round {round} clock: paused, {left} left.").format(round=round, left=state.shown)
    return _("Round {round} clock: resumed, {left} left.").format(round=round, left=state.shown)


@director_required
@require_POST
def announcement(request: HttpRequest, tournament: Tournament) -> HttpResponseBase:
    """Post, replace or clear (``action=clear``) the tournament's announcement."""
    try:
        if request.POST.get("action") == "clear":
            clock_services.clear_announcement(tournament, actor=request.user)
            messages.success(request, _("The announcement is cleared."))
        else:
            clock_services.post_announcement(
                tournament,
                request.POST.get("text", ""),
                request.POST.get("until", ""),
                actor=request.user,
            )
            messages.success(request, _("The announcement is showing."))
    except ServiceError as exc:
        messages.error(request, _("Announcement: {message}").format(message=exc.message))
    return redirect(reverse("console:home", args=(tournament.slug,)) + "?stay=1#announcement")


@director_required
@require_POST
def round_length(request: HttpRequest, tournament: Tournament) -> HttpResponseBase:
    """The round length a clock starts with unless its start says otherwise."""
    try:
        clock_services.set_round_minutes(
            tournament, request.POST.get("round_minutes"), actor=request.user
        )
        messages.success(
            request,
            _("Rounds are now {minutes} minutes.").format(minutes=tournament.round_minutes),
        )
    except ServiceError as exc:
        messages.error(request, _("Round length: {message}").format(message=exc.message))
    back = request.POST.get("division", "")
    if back and tournament.divisions.filter(slug=back).exists():
        return redirect(reverse("console:division", args=(tournament.slug, back)) + "#round-clock")
    return redirect(reverse("console:home", args=(tournament.slug,)) + "?stay=1")


# Under setup/: a one-word page here would hide a division of that slug.
urlpatterns: list[URLPattern] = [
    path("setup/announcement/", announcement, name="announcement"),
    path("setup/round-length/", round_length, name="round_length"),
]
division_patterns: list[URLPattern] = [
    path("<str:division>/round/<int:round>/clock/", clock, name="clock"),
]
