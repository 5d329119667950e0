"""Who may run a club on the web: its organisers (and site superusers), nobody else.

Every organiser page takes its club from :func:`organiser_required`, which answers the three
cases the same way everywhere, as the tournament console's ``director_required`` does:
unknown club -> 404, anonymous -> the sign-in page (then back), signed in without being one
of the club's organisers -> 403 naming the club. The services check again on every write, so
a view that forgot the decorator still could not write.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponseBase
from django.shortcuts import get_object_or_404

from ...access import can_organise_club
from ...models import Club


def can_organise(user: Any, club: Club) -> bool:
    """One of the club's organisers (or a site superuser), signed in and active."""
    return can_organise_club(user, club)


def organiser_required(view: Callable[..., HttpResponseBase]) -> Callable[..., HttpResponseBase]:
    """Decorate ``view(request, club, ...)`` registered with a ``slug`` URL argument."""

    @wraps(view)
    def wrapped(request: HttpRequest, slug: str, *args: Any, **kwargs: Any) -> HttpResponseBase:
        club = get_object_or_404(Club.objects.select_related("rating_list"), slug=slug)
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        if not can_organise(request.user, club):
            raise PermissionDenied(f"only the organisers of {club.name} may do this")
        return view(request, club, *args, **kwargs)

    return wrapped
