"""Public pages: read-only views of tournaments, divisions and standings for players' phones."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from .models import Tournament
from .rating import rating_estimates
from .services import ServiceError, division_by_name, division_standings, last_round_number


def home(request: HttpRequest) -> HttpResponse:
    tournaments = Tournament.objects.prefetch_related("divisions")[:50]
    return render(request, "tournament/home.html", {"tournaments": tournaments})


def tournament_detail(request: HttpRequest, slug: str) -> HttpResponse:
    tournament = get_object_or_404(Tournament, slug=slug)
    divisions = [
        {"division": d, "players": d.entries.count(), "last_round": last_round_number(d)}
        for d in tournament.divisions.all()
    ]
    return render(
        request, "tournament/tournament.html", {"tournament": tournament, "divisions": divisions}
    )


def standings(request: HttpRequest, slug: str, division: str) -> HttpResponse:
    tournament = get_object_or_404(Tournament, slug=slug)
    try:
        div = division_by_name(tournament, division)
    except ServiceError as exc:
        raise Http404(str(exc)) from exc
    last = last_round_number(div)
    after = request.GET.get("after")
    if after is not None:
        if not after.isdigit() or not 0 <= int(after) <= max(last, div.rounds):
            return render(
                request,
                "tournament/error.html",
                {"message": f"after={after!r}: give a round number from 0 to {last}"},
                status=400,
            )
        after_round = int(after)
    else:
        after_round = last
    rows = division_standings(div, after_round)
    estimates = rating_estimates(div, after_round)
    for row in rows:
        row.estimate = estimates.get(row.number)
    return render(
        request,
        "tournament/standings.html",
        {
            "tournament": tournament,
            "division": div,
            "rows": rows,
            "after_round": after_round,
            "rounds": range(1, last + 1),
        },
    )
