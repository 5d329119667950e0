"""Console: Federation files. Each federation's file built, checked, downloaded, recorded.

The page builds the NASPA, WESPA and ABSP files with the export writers and shows what the
checks found (division, player, round, what) before anything is downloaded. A download is a
POST (it writes a record): a file with problems is offered only with an explicit "download
anyway", which is recorded with the problems. Only the tournament's directors. Sending the
file to the federation is the director's own step; this is not a submission to one of
Gibson's own rating lists (the division page's "Submit ratings").
"""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import redirect, render
from django.urls import URLPattern, path, reverse
from django.views.decorators.http import require_GET, require_POST

from tournament.errors import ServiceError

from ...interchange.downloads import download_federation_file
from ...interchange.federation import FEDERATION_FILES, build_federation_file
from ...models import Tournament
from ...throttle import heavy_wait
from ..permissions import director_required
from ..ratelimit import too_many


def _require_ids(request: HttpRequest) -> bool:
    return (request.POST.get("ids") or request.GET.get("ids")) in ("1", "on")


@director_required
@require_GET
def federation_page(request: HttpRequest, tournament: Tournament) -> HttpResponseBase:
    if wait := heavy_wait(request):  # building every file costs a worker a moment
        return too_many(request, wait)
    require_ids = _require_ids(request)
    files = [
        build_federation_file(tournament, key, require_ids=require_ids) for key in FEDERATION_FILES
    ]
    downloads = tournament.federation_downloads.select_related("downloaded_by")[:50]
    return render(
        request,
        "console/federation.html",
        {
            "tournament": tournament,
            "files": files,
            "downloads": downloads,
            "require_ids": require_ids,
        },
    )


@director_required
@require_POST
def federation_download(request: HttpRequest, tournament: Tournament, key: str) -> HttpResponseBase:
    if wait := heavy_wait(request):
        return too_many(request, wait)
    try:
        record, built = download_federation_file(
            tournament,
            key[:20],
            request.user,
            anyway=request.POST.get("anyway") == "on",
            require_ids=_require_ids(request),
        )
    except ServiceError as exc:
        messages.error(request, str(exc))
        back = reverse("console:federation", args=[tournament.slug])
        return redirect(back + ("?ids=1" if _require_ids(request) else ""))
    response = HttpResponse(built.data, content_type=built.spec.content_type)
    response["Content-Disposition"] = f'attachment; filename="{record.file_name}"'
    response["X-Checksum-SHA256"] = record.sha256
    return response


urlpatterns: list[URLPattern] = [
    path("federation/", federation_page, name="federation"),
    path("federation/<str:key>/download/", federation_download, name="federation_download"),
]
