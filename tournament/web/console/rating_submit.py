"""Submit a finished division to a rating list from the console (it was the admin's action).

A director who is an officer of the list puts the division on it at once (``submit_divisions``:
rated, the list re-rated, audited); any other director asks (``request_submission``), and an
officer of the list decides in the admin. Refusals show their message and change nothing.
"""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponseBase
from django.shortcuts import redirect
from django.urls import URLPattern, path, reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from ratings.division import request_submission, submit_divisions
from ratings.engine import RatingError
from ratings.models import RatingList
from tournament.access import can_rate
from tournament.errors import ServiceError

from ...models import Tournament
from ..permissions import DivisionMoved, director_required, division_by_slug, moved


@director_required
@require_POST
def submit_ratings(request: HttpRequest, tournament: Tournament, division: str) -> HttpResponseBase:
    """POST rating_list=SLUG: submit (an officer of the list) or ask to (any other director)."""
    try:
        div = division_by_slug(tournament, division)
    except DivisionMoved as to:
        return moved(request, division, to.division)
    back = reverse("console:division", args=[tournament.slug, div.slug])
    # a slug has no NUL (PostgreSQL refuses one in any query: a 500, not "no such list")
    slug = (request.POST.get("rating_list") or "").replace("\x00", "")[:100]
    lst = RatingList.objects.filter(slug=slug).first() if slug else div.rating_list
    try:
        if lst is None:
            raise ServiceError("submission_no_list", field="rating_list", division=div.name)
        if can_rate(request.user, lst):
            submit_divisions([div], lst, actor=request.user)
            messages.success(
                request,
                _("Division {division} is rated on {rating_list}.").format(
                    division=div.name, rating_list=lst.name
                ),
            )
        else:
            request_submission(div, lst, request.user)
            messages.success(
                request,
                _(
                    "Division {division}: submission to {rating_list} requested; an officer of "
                    "the list decides."
                ).format(division=div.name, rating_list=lst.name),
            )
    except (ServiceError, RatingError) as exc:
        messages.error(request, str(exc))
    return redirect(back)


urlpatterns: list[URLPattern] = [
    path("<str:division>/submit-ratings/", submit_ratings, name="submit_ratings"),
]
