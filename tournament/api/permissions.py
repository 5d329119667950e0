"""Who may read and write what, by the web pages' own rules (tournament.web.permissions)."""

from __future__ import annotations

from typing import Any

from django.db.models import Q, QuerySet
from rest_framework.exceptions import NotFound, PermissionDenied

from ..models import Tournament
from ..web.permissions import can_direct, can_keep_score, can_view


def visible_tournaments(user: Any) -> QuerySet[Tournament]:
    """Published tournaments, and the drafts this user directs or keeps score for."""
    qs = Tournament.objects.all()
    if user is not None and user.is_authenticated and user.is_active and user.is_superuser:
        return qs
    if user is None or not user.is_authenticated or not user.is_active:
        return qs.filter(published=True)
    staff = Q(directors=user) | Q(scorekeepers=user)
    return qs.filter(pk__in=Tournament.objects.filter(Q(published=True) | staff).values("pk"))


def visible_tournament(user: Any, slug: str) -> Tournament:
    """The tournament by slug; a draft is not found for anyone but its staff."""
    tournament = Tournament.objects.filter(slug=slug).first()
    if tournament is None or not can_view(user, tournament):
        raise NotFound(f"no tournament {slug!r}")
    return tournament


def require_score_keeper(user: Any, tournament: Tournament) -> None:
    """Recording and correcting results: the tournament's directors and scorekeepers."""
    if not can_keep_score(user, tournament):
        raise PermissionDenied(f"{user} does not keep score at {tournament.slug}")


def require_director(user: Any, tournament: Tournament) -> None:
    """Pairing and registration: the tournament's directors only (scorekeepers write results)."""
    if not can_direct(user, tournament):
        raise PermissionDenied(f"{user} does not direct {tournament.slug}")
