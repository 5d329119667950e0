"""Who may read and write what, by the web pages' own rules (tournament.web.permissions)."""

from __future__ import annotations

from typing import Any

from rest_framework.exceptions import NotFound, PermissionDenied

from ..access import can_direct, can_keep_score, can_view, visible_tournaments  # noqa: F401 (re-exported)
from ..models import Tournament


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
