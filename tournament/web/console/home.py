"""Console home: the tournament's divisions and rounds at a glance (being built)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse

from ...models import Tournament
from ..permissions import scorekeeper_required


@scorekeeper_required
def console_home(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    return HttpResponse(f"console of {tournament.name}")


@scorekeeper_required
def division_home(request: HttpRequest, tournament: Tournament, division: str) -> HttpResponse:
    return HttpResponse(f"console of {tournament.name} {division}")
