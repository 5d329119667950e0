"""Console: a division's game records (GCG). Attach or replace a game's record, remove it,
keep records private until a round is published (and publish it), and download them all.

Every button is one call of tournament.services.gcg (audited), for the tournament's directors
only. A refused upload comes back on this page naming the file's line; a refused button is
answered by the web face's one place for refusals (tournament/web/refusals.py).
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import redirect, render
from django.urls import URLPattern, path
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from tournament.errors import ServiceError

from ...formats.gcg import MAX_BYTES
from ...models import Division, Game, GameRecord, Round, Tournament
from ...selectors.gcg import division_records
from ...services import gcg as gcg_services
from ..gcg import zip_response
from ..permissions import DivisionMoved, director_required, division_by_slug, moved


def _games(division: Division) -> list[dict[str, Any]]:
    games = (
        Game.objects.filter(round__division=division, player2__isnull=False)
        .select_related("round", "player1__player", "player2__player")
        .order_by("round__number", "board", "pk")
    )
    records = dict(
        GameRecord.objects.filter(game__round__division=division).values_list(
            "game_id", "file_name"
        )
    )
    return [{"game": g, "record": records.get(g.pk)} for g in games]


def _page(
    request: HttpRequest, tournament: Tournament, division: Division, error: str = "", status=200
) -> HttpResponse:
    rows = _games(division)
    rounds = list(Round.objects.filter(division=division).order_by("number"))
    context = {
        "tournament": tournament,
        "division": division,
        "rows": rows,
        "rounds": rounds,
        "error": error,
        "max_kb": MAX_BYTES // 1024,
        "count": sum(1 for r in rows if r["record"]),
    }
    return render(request, "console/records.html", context, status=status)


def _division(tournament: Tournament, key: str) -> Division:
    division = division_by_slug(tournament, key)
    division.tournament = tournament
    return division


@director_required
@require_http_methods(["GET", "HEAD", "POST"])
def records(request: HttpRequest, tournament: Tournament, division: str) -> HttpResponseBase:
    """The division's games with their records; POST attaches (or replaces) one."""
    try:
        div = _division(tournament, division)
    except DivisionMoved as moved_to:
        return moved(request, division, moved_to.division)
    if request.method != "POST":
        return _page(request, tournament, div)
    upload = request.FILES.get("file")
    wanted = request.POST.get("game", "")
    number = wanted if wanted.isascii() and wanted.isdigit() else -1
    game = Game.objects.filter(round__division=div, pk=number).first()
    try:
        if upload is None:
            raise ServiceError("setup_required", field="file", what="the GCG file")
        if game is None:
            raise ServiceError("gcg_not_your_game", field="game", where=f"division {div.name}")
        attached = gcg_services.attach_record(
            game, upload.read(MAX_BYTES + 1), actor=request.user, file_name=upload.name or ""
        )
    except ServiceError as exc:
        return _page(request, tournament, div, error=exc.message, status=400)
    said = (
        _("Round {round} board {board}: record replaced ({turns} turns).")
        if attached.replaced
        else _("Round {round} board {board}: record attached ({turns} turns).")
    )
    messages.success(
        request,
        said.format(round=game.round.number, board=game.board, turns=len(attached.parsed.turns)),
    )
    return redirect("console:records", tournament.slug, div.slug)


@director_required
@require_POST
def remove(request: HttpRequest, tournament: Tournament, division: str, pk: int):
    div = _division(tournament, division)
    found = Game.objects.filter(round__division=div, pk=pk).first()
    # a refusal (a game of another division or tournament: 403; no record: 404) is answered
    # by the web face's one place, tournament/web/refusals.py: there is no typed input to keep
    if found is None:
        raise ServiceError("gcg_not_your_game", field="game", where=f"division {div.name}")
    gcg_services.remove_record(found, actor=request.user)
    messages.success(
        request,
        _("Round {round} board {board}: record removed.").format(
            round=found.round.number, board=found.board
        ),
    )
    return redirect("console:records", tournament.slug, div.slug)


@director_required
@require_POST
def settings(request: HttpRequest, tournament: Tournament, division: str):
    """Keep records private until each round is published, or publish one round's."""
    div = _division(tournament, division)
    # a button, no typed input: a refusal is answered by tournament/web/refusals.py
    if "publish" in request.POST:
        game_round = gcg_services.publish_round_records(
            div, request.POST.get("publish", ""), actor=request.user
        )
        messages.success(
            request,
            _("Round {round}'s game records are public.").format(round=game_round.number),
        )
    else:
        private = request.POST.get("private") == "1"
        gcg_services.set_records_private(tournament, private, actor=request.user)
        messages.success(
            request,
            _("Game records stay private until you publish their round.")
            if private
            else _("Game records are public once attached."),
        )
    return redirect("console:records", tournament.slug, div.slug)


@director_required
def download(request: HttpRequest, tournament: Tournament, division: str) -> HttpResponse:
    """Every record of the division (private ones too) as one zip of GCG files."""
    div = _division(tournament, division)
    return zip_response(
        division_records(div, public=False), f"{tournament.slug}-{div.slug}-gcg.zip"
    )


urlpatterns: list[URLPattern] = [
    path("<str:division>/records/", records, name="records"),
    path("<str:division>/records/settings/", settings, name="records_settings"),
    path("<str:division>/records/records.zip", download, name="records_zip"),
    path("<str:division>/records/<int:pk>/remove/", remove, name="records_remove"),
]
