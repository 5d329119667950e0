"""Console: the featured boards the stream's overlays show.

One line on the console's home, such as ``A 1, A 2, B 1`` (division, board; in the order the
overlays number them), sent to ``services.broadcast.feature_boards``: audited, refused in
words on the page, only for the tournament's directors. The overlays follow at once through
the live stream.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponseBase
from django.shortcuts import redirect
from django.urls import URLPattern, path, reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from tournament.errors import ServiceError

from ...models import Tournament
from ...services.broadcast import feature_boards
from ..permissions import director_required


def featured_panel(tournament: Tournament) -> dict[str, Any]:
    """The console home's featured-boards form: the boards featured now, as the line to edit."""
    featured = list(tournament.featured_boards.select_related("division"))
    return {
        "featured": featured,
        "featured_line": ", ".join(f"{f.division.name} {f.board}" for f in featured),
        "featured_url": reverse("console:featured", args=(tournament.slug,)),
        "commentators_url": reverse("broadcast:commentators", args=(tournament.slug,)),
    }


def parse_boards(line: str) -> list[tuple[str, str]]:
    """``"A 1, A 2, Premier 3"`` as [("A", "1"), ("A", "2"), ("Premier", "3")]: each item's
    last word is the board, the rest its division (a lone board names no division: "")."""
    out = []
    for item in line.replace(";", ",").split(","):
        words = item.split()
        if words:
            out.append((" ".join(words[:-1]), words[-1]))
    return out


@director_required
@require_POST
def featured(request: HttpRequest, tournament: Tournament) -> HttpResponseBase:
    """Replace the featured boards by the line typed (empty: none featured)."""
    line = request.POST.get("boards", "")[:500]
    try:
        made = feature_boards(tournament, parse_boards(line), actor=request.user)
        if made:
            shown = ", ".join(f"{f.division.name} {f.board}" for f in made)
            messages.success(request, _("Featured on the overlays: {boards}.").format(boards=shown))
        else:
            messages.success(request, _("No board is featured now."))
    except ServiceError as exc:
        messages.error(request, _("Featured boards: {message}").format(message=exc.message))
    return redirect(reverse("console:home", args=(tournament.slug,)) + "?stay=1#featured")


# Under setup/: a one-word page here would hide a division of that slug.
urlpatterns: list[URLPattern] = [
    path("setup/featured/", featured, name="featured"),
]
