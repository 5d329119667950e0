"""Console: venue mode (issue 23), one page for both sides of the link.

On the hosted site a director hands the tournament to a venue (the token is shown once, here)
and takes it back; on the venue's laptop the page shows the link's state (last push, changes
waiting, last error) with "Push now" and "Hand back". The services do the work and the checks
(tournament.services.venue); the pushes go through tournament.sync.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import URLPattern, path
from django.views.decorators.http import require_http_methods

from ...errors import ServiceError
from ...models import Tournament
from ...services import venue
from ...sync import client
from ...sync.push import push
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
            elif action == "reclaim":
                venue.reclaim(request.user, tournament)
                done = "Taken back: this site runs the tournament again; the venue's link is off."
            elif action in ("push", "release"):
                take = venue.venue_panel(tournament)["venue_take"]
                if take is None:
                    raise ServiceError("venue_not_held", where=str(tournament))
                result = push(take)
                done = f"{result['changes']} changes pushed."
                if action == "release":
                    client.release(take.hosted_url, take.token)
                    venue.mark_released(take, request.user)
                    done += " Handed back: the hosted site runs the tournament again."
        except ServiceError as exc:
            error, status = exc.message, 400
    context = {"tournament": tournament, "token": token, "error": error, "done": done}
    context.update(venue.venue_panel(tournament))
    return render(request, "console/venue_mode.html", context, status=status)


urlpatterns: list[URLPattern] = [path("venue-mode/", venue_page, name="venue_mode")]
