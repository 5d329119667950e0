"""Public pages: read-only views of tournaments, divisions, standings and players for phones."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_safe

from ..models import Division, Tournament
from ..rating import rating_estimates
from ..services import (
    ServiceError,
    division_standings,
    entry_games,
    last_round_number,
    last_scored_round,
    running_records,
)
from .permissions import (
    DivisionMoved,
    can_direct,
    can_keep_score,
    can_view,
    division_by_slug,
    moved,
)


def _refuse(request: HttpRequest, message: str, status: int) -> HttpResponse:
    """An error page that says what was wrong (Django's own 404 page hides the reason)."""
    heading = "Not found" if status == 404 else "That did not work"
    return render(
        request, "tournament/error.html", {"message": message, "heading": heading}, status=status
    )


def _find(
    request: HttpRequest, slug: str, division: str | None = None
) -> tuple[Tournament, Division | None]:
    """The tournament (a draft only for its staff) and the division named by its slug.

    Raises ServiceError (-> 404) for anything unknown or hidden, DivisionMoved for an old
    name-based division URL.
    """
    tournament = Tournament.objects.filter(slug=slug).first()
    if tournament is None or not can_view(request.user, tournament):
        raise ServiceError("unknown_tournament", slug=slug)
    if division is None:
        return tournament, None
    try:
        return tournament, division_by_slug(tournament, division)
    except Http404 as exc:
        names = ", ".join(f"{d.name} ({d.slug})" for d in tournament.divisions.all()) or "none"
        raise ServiceError(
            "unknown_division", tournament=tournament.name, name=division, names=names
        ) from exc


# The public pages only read: csrf_exempt lets a stray POST get its 405 rather than a 403.
@csrf_exempt
@require_safe
def home(request: HttpRequest) -> HttpResponse:
    tournaments = Tournament.objects.filter(published=True).prefetch_related("divisions")[:50]
    return render(request, "tournament/home.html", {"tournaments": tournaments})


@csrf_exempt
@require_safe
def tournament_detail(request: HttpRequest, slug: str) -> HttpResponse:
    try:
        tournament, _ = _find(request, slug)
    except ServiceError as exc:
        return _refuse(request, str(exc), 404)
    divisions = [
        {
            "division": d,
            "players": d.entries.count(),
            "paired": last_round_number(d),
            "scored": last_scored_round(d),
        }
        for d in tournament.divisions.all()
    ]
    context = {
        "tournament": tournament,
        "divisions": divisions,
        "directs": can_direct(request.user, tournament),  # offers the desk, changes nothing
        "keeps_score": can_keep_score(request.user, tournament),
    }
    return render(request, "tournament/tournament.html", context)


@csrf_exempt
@require_safe
def standings(request: HttpRequest, slug: str, division: str) -> HttpResponse:
    try:
        tournament, div = _find(request, slug, division)
    except DivisionMoved as moved_to:
        return moved(request, division, moved_to.division)
    except ServiceError as exc:
        return _refuse(request, str(exc), 404)
    last = last_round_number(div)
    after = request.GET.get("after")
    if after is not None:
        # isascii: "²".isdigit() is True but int("²") fails
        if not (after.isascii() and after.isdigit()) or not 0 <= int(after) <= last:
            return _refuse(
                request,
                f"after={after!r}: give a round number from 0 to {last}, the last paired round",
                400,
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


@csrf_exempt
@require_safe
def player(request: HttpRequest, slug: str, division: str, number: str) -> HttpResponse:
    """A player's own page, opened from the QR code on their scorecard: the card, kept current."""
    try:
        tournament, div = _find(request, slug, division)
    except DivisionMoved as moved_to:
        return moved(request, division, moved_to.division)
    except ServiceError as exc:
        return _refuse(request, str(exc), 404)
    if not (number.isascii() and number.isdigit()) or int(number) < 1:
        return _refuse(
            request,
            f"division {div.name}: player {number!r} is not a player number (1, 2, ...)",
            404,
        )
    try:
        entry, games = entry_games(div, int(number))
    except ServiceError as exc:
        return _refuse(request, str(exc), 404)
    last = last_round_number(div)
    standing = next(r for r in division_standings(div, last) if r.number == entry.number)
    running = running_records(div, entry.number)
    by_round = {g.round: g for g in games}
    meetings: dict[int, int] = {}
    rows = []
    starts = replies = 0
    for n in range(1, last + 1):
        g = by_round.get(n)
        row: dict = {"round": n, "game": g}
        if g is not None and g.opponent is not None:
            opp = g.opponent.number
            meetings[opp] = meetings.get(opp, 0) + 1
            row["meeting"] = meetings[opp]
            if g.score is not None:
                row["spread"] = g.score - g.opponent_score
                starts += g.first is True
                replies += g.first is False
        elif g is not None and g.score is not None:
            row["spread"] = g.score
        row["record"] = running.get(n) if g is not None and g.score is not None else None
        rows.append(row)
    return render(
        request,
        "tournament/player.html",
        {
            "tournament": tournament,
            "division": div,
            "entry": entry,
            "standing": standing,
            "estimate": rating_estimates(div, last).get(entry.number),
            "rows": rows,
            "last_round": last,
            "scored_round": last_scored_round(div),
            "starts": starts,
            "replies": replies,
            "repeats": any(r.get("meeting", 0) > 1 for r in rows),
        },
    )
