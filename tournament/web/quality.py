"""The pairing-quality report of a round, public once the round is paired.

/t/SLUG/DIV/round/N/quality/: the independent checker's verdict on the round as stored
(pairings.engine.checker: rules broken, warnings, each repeat by board), its win gaps (total
win difference, players paired out of their score group) and its starts balance. Nothing any
peer publishes; read-only, for anyone who may see the tournament.
"""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import path
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_safe

from pairings.selectors import stored_round_check
from tournament.selectors import last_round_number

from ..models import Tournament
from .permissions import DivisionMoved, can_view, division_by_slug


def _refuse(request: HttpRequest, message: str, status: int) -> HttpResponse:
    heading = _("Not found") if status == 404 else _("That did not work")
    return render(
        request, "tournament/error.html", {"message": message, "heading": heading}, status=status
    )


@csrf_exempt
@require_safe
def round_quality(request: HttpRequest, slug: str, division: str, number: str) -> HttpResponse:
    tournament = Tournament.objects.filter(slug=slug, importing=False).first()
    if tournament is None or not can_view(request.user, tournament):
        return _refuse(
            request, _("There is no tournament {slug}.").format(slug=repr(slug[:60])), 404
        )
    try:
        div = division_by_slug(tournament, division)
    except (Http404, DivisionMoved):  # unknown, or an old name-based link: worded here
        return _refuse(
            request,
            _("{name} has no division {division}.").format(
                name=tournament.name, division=repr(division[:40])
            ),
            404,
        )
    paired = last_round_number(div)
    if not (number.isascii() and number.isdigit()) or not 1 <= int(number) <= max(paired, 0):
        return _refuse(
            request,
            (
                _("division {division}: round {round} is not paired (rounds 1 to {last})")
                if paired
                else _("division {division}: round {round} is not paired (no round yet)")
            ).format(division=div.name, round=repr(number[:20]), last=paired),
            404,
        )
    report, balance = stored_round_check(div, int(number))
    return render(
        request,
        "tournament/round_quality.html",
        {
            "tournament": tournament,
            "division": div,
            "number": int(number),
            "report": report,
            "balance": balance,
            "rounds": range(1, paired + 1),
        },
    )


urlpatterns = [
    path(
        "t/<slug:slug>/<str:division>/round/<str:number>/quality/",
        round_quality,
        name="round_quality",
    ),
]
