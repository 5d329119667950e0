"""Console: venue mode, one page for both sides of the link.

On the hosted site a director hands the tournament to a venue (the token is shown once, here)
and takes it back; the page says what the copy last received and when the venue's state
replaced it. On the venue's laptop ``venue_take_page`` (/console/venue/take/) takes a
tournament with the hosted site's address and the token, so ``serve_demo`` and a browser are
enough; the tournament's page then shows the link's state (last push, changes waiting, last
error, refreshed by htmx every few seconds) with "Push now" and "Hand back". The services do
the work and the checks (tournament.services.venue); the HTTP side is tournament.sync.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import URLPattern, path
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from ...access import can_create_tournament
from ...errors import ServiceError
from ...models import Tournament
from ...selectors import replica_note
from ...services import venue
from ...sync import client
from ...sync.push import push, resolve
from ...sync.take import take_from_hosted
from ..permissions import director_required


@director_required
@require_http_methods(["GET", "POST"])
def venue_page(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    token = error = done = ""
    status = 200
    if request.method == "POST":
        action = request.POST.get("action", "")
        try:
            if action == "link":
                _link, token = venue.create_link(
                    request.user, tournament, request.POST.get("venue_name", "")
                )
            elif action == "move":
                venue.move_link(request.user, tournament)
                done = _("The link is free: the next laptop to take it with its token holds it.")
            elif action in ("keep_venue", "take_hosted"):
                take = venue.venue_panel(tournament)["venue_take"]
                if take is None:
                    raise ServiceError("venue_not_held", where=str(tournament))
                choice = "venue" if action == "keep_venue" else "hosted"
                lost = resolve(take, choice, actor=request.user)
                said = (
                    _("The hosted copy lost: {changes}.")
                    if choice == "venue"
                    else _("This laptop lost: {changes}.")
                )
                done = said.format(changes="; ".join(lost) or _("nothing"))
            elif action == "reclaim":
                venue.reclaim(request.user, tournament)
                done = _(
                    "Taken back: this site runs the tournament again; the venue's link is off."
                )
            elif action in ("push", "release"):
                take = venue.venue_panel(tournament)["venue_take"]
                if take is None:
                    raise ServiceError("venue_not_held", where=str(tournament))
                result = push(take)
                done = _("{count} changes pushed.").format(count=result["changes"])
                if action == "release":
                    client.release(take.hosted_url, take.token)
                    venue.mark_released(take, request.user)
                    done += " " + _("Handed back: the hosted site runs the tournament again.")
        except ServiceError as exc:
            error, status = exc.message, 400
    context = {
        "tournament": tournament,
        "token": token,
        "error": error,
        "done": done,
        "replica": replica_note(tournament),
    }
    context.update(venue.venue_panel(tournament))
    return render(request, "console/venue_mode.html", context, status=status)


@login_required
@require_http_methods(["GET", "POST"])
def venue_take_page(request: HttpRequest) -> HttpResponse:
    """On the venue's laptop: take a tournament from its hosted site (its address and the
    venue link's token); the one who takes it directs it here."""
    if not can_create_tournament(request.user):
        raise PermissionDenied(_("a site administrator grants the right to create tournaments"))
    context = {"url": "", "error": ""}
    if request.method == "POST":
        context["url"] = request.POST.get("url", "").strip()
        try:
            tournament, state = take_from_hosted(
                context["url"], request.POST.get("token", ""), request.user, request.user
            )
        except ServiceError as exc:
            context["error"] = exc.message
            return render(request, "console/venue_take.html", context, status=400)
        entries = sum(len(d["entries"]) for d in state["divisions"])
        messages.success(
            request,
            _(
                "{name} taken from {url}: {divisions} divisions, {players} players. It is run "
                "from here now; serve_demo pushes it every 2 seconds (or push from this page)."
            ).format(
                name=tournament.name,
                url=tournament.venue_take.hosted_url,
                divisions=len(state["divisions"]),
                players=entries,
            ),
        )
        return redirect("console:venue_mode", slug=tournament.slug)
    return render(request, "console/venue_take.html", context)


urlpatterns: list[URLPattern] = [path("venue-mode/", venue_page, name="venue_mode")]
