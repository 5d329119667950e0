"""Console: setting up a tournament: the list of one's tournaments (more being built)."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.db.models import Q
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import URLPattern, path
from django.views.decorators.http import require_safe

from ...models import Tournament


@login_required
@require_safe
def tournaments(request: HttpRequest) -> HttpResponse:
    """Every tournament the signed-in user directs or keeps score for (all, for a superuser)."""
    user = request.user
    qs = Tournament.objects.all()
    if not user.is_superuser:
        qs = qs.filter(Q(directors=user) | Q(scorekeepers=user)).distinct()
    rows = [
        {"tournament": t, "directs": t.is_director(user)}
        for t in qs.prefetch_related("divisions").order_by("-start_date", "name")
    ]
    return render(request, "console/tournaments.html", {"rows": rows})


urlpatterns: list[URLPattern] = []

# Pages outside any one tournament, under /console/ (namespace "console_site").
site_patterns: list[URLPattern] = [
    path("", tournaments, name="tournaments"),
]
