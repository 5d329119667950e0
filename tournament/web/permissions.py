"""Who may do what on the web: one helper per role, used by every view, the admin and the API.

A tournament is changed only by its directors (and site superusers); scorekeepers only enter
and correct results; a draft tournament is seen only by its staff. The same rules are checked
again by the services for writes, so a view that forgot a check still could not write.

Views take their tournament from :func:`staff_tournament`, which answers the three cases the
same way everywhere: anonymous -> the sign-in page (then back), signed in without the role ->
403 naming the tournament ("this tournament" for a draft they may not see), unknown slug -> 404.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponseBase, HttpResponsePermanentRedirect
from django.shortcuts import get_object_or_404
from django.utils.translation import gettext as _

from ..access import can_direct, can_keep_score, can_view
from ..models import Division, Tournament

DIRECTOR = "director"
SCOREKEEPER = "scorekeeper"

__all__ = ["can_direct", "can_keep_score", "can_view"]


def has_role(user: Any, tournament: Tournament, role: str) -> bool:
    return can_direct(user, tournament) if role == DIRECTOR else can_keep_score(user, tournament)


class NeedsSignIn(Exception):
    """Raised inside a view to send an anonymous visitor to the sign-in page."""


def refusal_for(user: Any, tournament: Tournament, role: str) -> str:
    """The 403's sentence, whole in each language: who may do this, and the tournament's
    name only to those who may see it (a draft's name is its staff's news, as in
    ``access.name_for``)."""
    if not can_view(user, tournament):
        if role == DIRECTOR:
            return _("only the directors of this tournament may do this")
        return _("only the directors and scorekeepers of this tournament may do this")
    if role == DIRECTOR:
        return _("only the directors of {tournament} may do this").format(
            tournament=tournament.name
        )
    return _("only the directors and scorekeepers of {tournament} may do this").format(
        tournament=tournament.name
    )


def staff_tournament(request: HttpRequest, slug: str, role: str = DIRECTOR) -> Tournament:
    """The tournament if the signed-in user holds ``role`` in it.

    Raises NeedsSignIn for anonymous visitors (the decorators turn it into a redirect),
    PermissionDenied (403) for anyone else, Http404 for an unknown slug.
    """
    # an import still writing it is followed on its job's page, not opened half-written
    tournament = get_object_or_404(Tournament, slug=slug, importing=False)
    if not request.user.is_authenticated:
        raise NeedsSignIn
    if not has_role(request.user, tournament, role):
        raise PermissionDenied(refusal_for(request.user, tournament, role))
    return tournament


def staff_required(role: str = DIRECTOR) -> Callable:
    """Decorate ``view(request, tournament, ...)`` registered with a ``slug`` URL argument."""

    def decorate(view: Callable[..., HttpResponseBase]) -> Callable[..., HttpResponseBase]:
        @wraps(view)
        def wrapped(request: HttpRequest, slug: str, *args: Any, **kwargs: Any):
            try:
                tournament = staff_tournament(request, slug, role)
            except NeedsSignIn:
                return redirect_to_login(request.get_full_path())
            return view(request, tournament, *args, **kwargs)

        return wrapped

    return decorate


director_required = staff_required(DIRECTOR)
scorekeeper_required = staff_required(SCOREKEEPER)


class DivisionMoved(Exception):
    """A division was named by its old name-based URL; carries where it lives now."""

    def __init__(self, division: Division) -> None:
        super().__init__(division.slug)
        self.division = division


def division_by_slug(tournament: Tournament, key: str) -> Division:
    """The division whose slug is ``key``.

    URLs carry slugs; a link from before slugs (the division's name, as printed on older
    scorecards' QR codes) raises DivisionMoved so the view can redirect; anything else is 404.
    """
    divisions = list(tournament.divisions.all())
    for d in divisions:
        if d.slug == key:
            return d
    for d in divisions:
        if d.name == key or d.name.lower() == key.lower():
            raise DivisionMoved(d)
    names = ", ".join(f"{d.name} ({d.slug})" for d in divisions) or "none"
    raise Http404(f"{tournament.name} has no division {key!r}; it has {names}")


def moved(request: HttpRequest, old: str, division: Division) -> HttpResponsePermanentRedirect:
    """Redirect a name-based URL to the same page under the division's slug."""
    from urllib.parse import quote

    path = request.path
    for form in (f"/{quote(old, safe='')}/", f"/{quote(old)}/", f"/{old}/"):
        if form in path:
            path = path.replace(form, f"/{division.slug}/", 1)
            break
    query = request.META.get("QUERY_STRING", "")
    return HttpResponsePermanentRedirect(path + (f"?{query}" if query else ""))
