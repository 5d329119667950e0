"""Console: a tournament's e-mail notices.

Its directors see who subscribed (names, and an address only where the player shared it with
them: tournament.access.contact_visible; never on a public page), add an entrant at the
address the registry holds (sent to, not shown), stop a subscriber's notices,
read the log of what was sent or failed (with the mail server's words), and e-mail the final
results: a confirmation step first, and sending a second time needs its own confirmation.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import URLPattern, path
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_http_methods, require_POST

from tournament.errors import ServiceError

from ...models import Notice, Tournament, VenueTake
from ...selectors import (
    notice_candidates,
    notice_log,
    notice_subscribers,
    shown_notice_addresses,
)
from ...services.notices import add_subscriber, remove_subscriber, send_final_results
from ..permissions import director_required


def _page(
    request: HttpRequest,
    tournament: Tournament,
    *,
    error: str = "",
    error_field: str = "",
    done: str = "",
    confirm: bool = False,
    status: int = 200,
) -> HttpResponse:
    log = notice_log(tournament)
    subscribers = notice_subscribers(tournament)
    candidates = notice_candidates(tournament)
    shown_subscriptions, shown_players = shown_notice_addresses(
        request.user, tournament, subscribers, candidates
    )
    results_sent = Notice.objects.filter(tournament=tournament, kind=Notice.Kind.RESULTS)
    context = {
        "tournament": tournament,
        "subscribers": subscribers,
        "candidates": candidates,
        "shown_subscriptions": shown_subscriptions,
        "shown_players": shown_players,
        "log": log,
        "failed": sum(1 for n in log if n.state == Notice.State.FAILED),
        "queued": sum(1 for n in log if n.state == Notice.State.QUEUED),
        # a venue's laptop (venue mode) holds its notices until the link is up
        "at_venue": VenueTake.objects.filter(tournament=tournament, released__isnull=True).exists(),
        "results_sent": results_sent.order_by("-created").first(),
        "results_count": results_sent.count(),
        "error": error,
        "error_field": error_field,
        "done": done,
        "confirm": confirm,
    }
    return render(request, "console/notices.html", context, status=status)


@director_required
@require_http_methods(["GET", "HEAD"])
def notices(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """The subscribers, the log and the final-results action."""
    return _page(request, tournament)


@director_required
@require_POST
def notices_add(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """Subscribe an entrant at the registry's address for them."""
    try:
        sub = add_subscriber(tournament, request.POST.get("player", ""), actor=request.user)
    except ServiceError as exc:
        return _page(request, tournament, error=exc.message, error_field=exc.field, status=400)
    return _page(request, tournament, done=_("{name} subscribed.").format(name=sub.player.name))


@director_required
@require_POST
def notices_remove(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """Stop one subscriber's notices."""
    try:
        remove_subscriber(tournament, request.POST.get("subscription", ""), actor=request.user)
    except ServiceError as exc:
        return _page(request, tournament, error=exc.message, error_field=exc.field, status=400)
    return redirect("console:notices", slug=tournament.slug)


@director_required
@require_POST
def notices_results(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """E-mail the final results: without ``confirm`` the page asks first; with it they go (a
    second sending also needs ``again``, asked for by its own confirmation)."""
    if request.POST.get("confirm") != "yes":
        return _page(request, tournament, confirm=True)
    again = request.POST.get("again") == "yes"
    try:
        count = send_final_results(tournament, actor=request.user, again=again)
    except ServiceError as exc:
        return _page(
            request,
            tournament,
            error=exc.message,
            error_field=exc.field,
            confirm=exc.code == "final_results_already_sent",
            status=400,
        )
    return _page(
        request,
        tournament,
        done=ngettext(
            "Final results queued for {count} subscribers.",
            "Final results queued for {count} subscribers.",
            count,
        ).format(count=count),
    )


urlpatterns: list[URLPattern] = [
    path("notices/", notices, name="notices"),
    path("notices/add/", notices_add, name="notices_add"),
    path("notices/remove/", notices_remove, name="notices_remove"),
    path("notices/results/", notices_results, name="notices_results"),
]
