"""Console: the photos the event's players sent, waiting for a director's approval.

Each photo is shown (a private preview, this tournament's directors only) with Approve and
Refuse; each button is one call of tournament.services.photos.decide_photo (audited, refused
in words on the page). Approved photos show on the player's public pages and tourney.js.
"""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import redirect, render
from django.urls import URLPattern, path
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST, require_safe

from ...errors import ServiceError
from ...models import Tournament
from ...selectors.photos import waiting_photo, waiting_photos
from ...services.photos import decide_photo
from ..permissions import director_required


def _page(
    request: HttpRequest, tournament: Tournament, error: str = "", status: int = 200
) -> HttpResponse:
    context = {"tournament": tournament, "photos": waiting_photos(tournament), "error": error}
    return render(request, "console/photos.html", context, status=status)


@director_required
@require_safe
def photos(request: HttpRequest, tournament: Tournament) -> HttpResponseBase:
    """The photos awaiting a decision."""
    return _page(request, tournament)


@director_required
@require_POST
def decide(request: HttpRequest, tournament: Tournament) -> HttpResponseBase:
    """Approve or refuse one photo."""
    verdict = request.POST.get("decision", "")
    try:
        if verdict not in ("approve", "refuse"):
            raise ServiceError(
                "setup_choice",
                field="decision",
                what="decision",
                value=verdict[:20],
                choices="approve, refuse",
            )
        photo = decide_photo(
            request.POST.get("photo", ""),
            verdict == "approve",
            actor=request.user,
            tournament=tournament,
            reason=request.POST.get("reason", ""),
        )
    except ServiceError as exc:
        return _page(request, tournament, error=exc.message, status=400)
    said = (
        _("{name}'s photo is approved.")
        if verdict == "approve"
        else _("{name}'s photo is refused.")
    )
    messages.success(request, said.format(name=photo.player.name))
    return redirect("console:photos", tournament.slug)


@director_required
@require_safe
def preview(request: HttpRequest, tournament: Tournament, pk: int, ext: str) -> HttpResponse:
    """A waiting photo, for the directors deciding it (never cached, never public)."""
    photo = waiting_photo(tournament, pk)
    if photo is None:
        raise Http404()
    response = HttpResponse(bytes(photo.image), content_type=photo.content_type)
    response["Cache-Control"] = "private, no-store"
    response["X-Content-Type-Options"] = "nosniff"
    return response


urlpatterns: list[URLPattern] = [
    path("photos/", photos, name="photos"),
    path("photos/decide/", decide, name="photos_decide"),
    path("photos/<int:pk>.<str:ext>", preview, name="photo_preview"),
]
