"""The weekend's public page: its events in the order they start (and are rated).

Only events the visitor may see are listed (a draft event stays hidden from the public); a
weekend with none to show is a 404, like a draft tournament, so its name does not leak.
"""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_safe

from ..access import can_view
from ..models import Weekend


@require_safe
def weekend_detail(request: HttpRequest, slug: str) -> HttpResponse:
    weekend = get_object_or_404(Weekend, slug=slug)
    events = [
        we
        for we in weekend.events.select_related("tournament").order_by("position")
        if can_view(request.user, we.tournament)
    ]
    if not events:
        raise Http404(f"no weekend {slug!r}")
    return render(request, "tournament/weekend.html", {"weekend": weekend, "events": events})
