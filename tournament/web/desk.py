"""The director's print and export desk: every PDF and federation file one click from a browser.

TSH directors print from a terminal and Woogles through a cloud function; here a director on
the venue laptop opens ``/t/SLUG/desk/`` and gets each report as a PDF straight away (the
largest, 500 scorecards, renders in a few seconds). Scorecards for a whole division can also be
prepared as a Celery job with a progress bar, so a browser never sits on a hanging request
when a worker is there to do the work.

Only the tournament's directors (and site superusers) reach any of it: the reports show the
same data as the public pages, but the exports carry what a rating body receives, and the jobs
write files on the server. Every refusal is a page or JSON body naming what is wrong.
"""

from __future__ import annotations

import re
import time
import uuid
from pathlib import Path
from typing import Any

from celery.result import AsyncResult
from django.conf import settings
from django.contrib.auth.views import redirect_to_login
from django.http import (
    FileResponse,
    Http404,
    HttpRequest,
    HttpResponse,
    HttpResponseBase,
    JsonResponse,
)
from django.shortcuts import render
from django.urls import reverse
from django.utils.http import urlencode
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_POST

from tournament.errors import ServiceError
from tournament.interchange.exports import export_formats, render_export
from tournament.selectors import last_round_number, last_scored_round

from ..health import is_queue_error, redis_answers
from ..models import Division, PaperSize, Tournament
from ..reports import ReportError
from ..reports.build import KINDS, DivisionData, build_report, report_event
from ..reports.layout import page_size
from ..reports.tasks import division_scorecards
from ..siteurl import SITE_URL_ENV, unreachable_warning
from ..throttle import heavy_wait
from .permissions import DIRECTOR, DivisionMoved, NeedsSignIn, division_by_slug, staff_tournament
from .ratelimit import too_many

PER_PAGE = (1, 2, 4)
EXPORT_TYPES = {
    "all.tsh": ("text/plain; charset=utf-8", "all.tsh"),
    "tou": ("text/plain; charset=ascii", "tou"),
    "csv": ("text/csv; charset=utf-8", "csv"),
    "absp": ("text/csv; charset=utf-8", "absp.csv"),
    "tourney.js": ("application/javascript; charset=utf-8", "js"),
}
_JOB = re.compile(r"[0-9a-f]{32}\Z")
# A working job touches its marker at every progress step (reports.tasks.heartbeat); one whose
# marker is older than this lost its worker (killed, restarted). A queued job no worker has
# taken for JOB_QUEUE_SECONDS is as good as lost too. Either way: failed, start again.
JOB_STALE_SECONDS = 120
JOB_QUEUE_SECONDS = 600
# The desk's own words for a refusal where the neutral message leaves the remedy open.
DESK_WORDING = {"event_date_needed": gettext_lazy("{message} (set it in the admin)")}


class BadRequest(Exception):
    """A refused parameter; the message names the parameter and what it must be."""


def _directed(request: HttpRequest, slug: str) -> Tournament | HttpResponseBase:
    """The tournament if the signed-in user directs it; a login redirect or 403 otherwise."""
    try:
        return staff_tournament(request, slug, DIRECTOR)
    except NeedsSignIn:
        return redirect_to_login(request.get_full_path())


def _division(tournament: Tournament, key: str) -> Division:
    """The division by slug; an old name-based link still finds it (the desk never bookmarks)."""
    try:
        return division_by_slug(tournament, key)
    except DivisionMoved as moved_to:
        return moved_to.division


def _refuse(request: HttpRequest, message: str, status: int = 400) -> HttpResponse:
    if request.headers.get("Accept", "").startswith("application/json"):
        return JsonResponse({"ok": False, "error": message}, status=status)
    return render(request, "tournament/error.html", {"message": message}, status=status)


def _int_param(request: HttpRequest, name: str, *, choices: tuple[int, ...] = ()) -> int | None:
    raw = (request.GET if request.method == "GET" else request.POST).get(name, "").strip()
    if raw == "":
        return None
    if not (raw.isascii() and raw.isdigit()):  # "²".isdigit() is True, int() refuses it
        raise BadRequest(
            _("{name}={value}: give a whole number").format(name=name, value=repr(raw))
        )
    value = int(raw)
    if choices and value not in choices:
        raise BadRequest(
            _("{name}={value}: must be one of {choices}").format(
                name=name, value=repr(raw), choices=", ".join(map(str, choices))
            )
        )
    return value


def _report_params(request: HttpRequest, tournament: Tournament) -> dict[str, Any]:
    """kind, round, per_page and paper from the query, each checked with its own message."""
    params = request.GET if request.method == "GET" else request.POST
    kind = params.get("kind", "")
    if kind not in KINDS:
        raise BadRequest(
            _("kind={value}: choose one of {choices}").format(
                value=repr(kind), choices=", ".join(KINDS)
            )
        )
    return {
        "kind": kind,
        "round_number": _int_param(request, "round"),
        "per_page": _int_param(request, "per_page", choices=PER_PAGE) or 2,
        "paper": _paper(params.get("paper", ""), tournament),
    }


def _paper(raw: str, tournament: Tournament) -> str | None:
    """The paper asked for (None: the tournament's own), refused here if unknown."""
    paper = raw.strip().lower() or None
    if paper is not None:
        try:
            page_size(report_event(tournament, paper))
        except ReportError as exc:
            raise BadRequest(
                _("paper={value}: {error}").format(value=repr(paper), error=exc)
            ) from exc

    return paper


def _filename(*parts: object) -> str:
    return "-".join(re.sub(r"[^A-Za-z0-9._-]+", "_", str(p)).strip("_") for p in parts if p != "")


@require_GET
def desk(request: HttpRequest, slug: str) -> HttpResponseBase:
    tournament = _directed(request, slug)
    if not isinstance(tournament, Tournament):
        return tournament
    divisions = [
        {
            "division": d,
            "last_round": last_round_number(d),
            "scored": last_scored_round(d),
            "players": d.entries.count(),
        }
        for d in tournament.divisions.order_by("position", "name")
    ]
    return render(
        request,
        "tournament/desk.html",
        {
            "tournament": tournament,
            "divisions": divisions,
            "kinds": KINDS,
            "papers": PaperSize.choices,
            "per_page": PER_PAGE,
            "formats": export_formats(downloads_only=True),
            "site_url": settings.SITE_URL,
            "site_url_warning": _site_url_warning(request),
        },
    )


def _site_url_warning(request: HttpRequest) -> str | None:
    """Said above the print buttons when the cards' QR codes would not open on phones: the
    server listens beyond this computer (``serve --addr 0.0.0.0:8000``), or the director reached
    the desk at another address, while SITE_URL names this computer."""
    site_url = settings.SITE_URL
    for addr in (settings.LISTEN_ADDR, request.get_host()):
        if unreachable_warning(addr, site_url):
            # the command line's sentence (tournament/siteurl.py), in the director's language
            return _(
                "WARNING: the site listens on {listen} but scorecard QR codes point to "
                "{site_url}, which only this computer opens: the cards would not open on "
                "players' phones. Set {setting} to the address phones reach (e.g. {example}) "
                "and restart."
            ).format(
                listen=addr,
                site_url=site_url,
                setting=SITE_URL_ENV,
                example="http://192.168.1.20:8000",
            )
    return None


@require_GET
def report_pdf(request: HttpRequest, slug: str, division: str) -> HttpResponseBase:
    """One report as a PDF, rendered in the request: every kind takes well under a second
    except very large scorecard runs, which the job below also offers."""
    tournament = _directed(request, slug)
    if not isinstance(tournament, Tournament):
        return tournament
    if wait := heavy_wait(request):  # a PDF or an export costs a worker seconds
        return too_many(request, wait)
    div = _division(tournament, division)
    try:
        p = _report_params(request, tournament)
        report = build_report(
            div,
            p["kind"],
            round_number=p["round_number"],
            per_page=p["per_page"],
            paper=p["paper"],
            actor=request.user,
        )
    except (BadRequest, ReportError, ServiceError) as exc:
        return _refuse(request, _where(tournament, div, exc))
    name = _filename(tournament.slug, div.name, p["kind"], report.round or "") + ".pdf"
    response = HttpResponse(report.pdf, content_type="application/pdf")
    response["Content-Disposition"] = f'inline; filename="{name}"'
    return response


@require_GET
def export_file(request: HttpRequest, slug: str, fmt: str) -> HttpResponseBase:
    """A federation or spreadsheet file of the whole event, as ``manage.py export`` writes it."""
    tournament = _directed(request, slug)
    if not isinstance(tournament, Tournament):
        return tournament
    if wait := heavy_wait(request):  # a PDF or an export costs a worker seconds
        return too_many(request, wait)
    if fmt not in EXPORT_TYPES:
        return _refuse(
            request,
            _("export {value}: choose one of {choices}").format(
                value=repr(fmt), choices=", ".join(EXPORT_TYPES)
            ),
            404,
        )
    try:
        export = render_export(tournament, fmt)
    except ServiceError as exc:
        return _refuse(request, exc.worded(DESK_WORDING))
    content_type, suffix = EXPORT_TYPES[fmt]
    response = HttpResponse(export.data, content_type=content_type)
    name = "all.tsh" if fmt == "all.tsh" else f"{tournament.slug}.{suffix}"
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


def _jobs_dir(tournament: Tournament) -> Path:
    return Path(settings.DATA_DIR) / "reports" / tournament.slug


def _clear_old_jobs(folder: Path, max_age: float = 2 * 24 * 3600) -> None:
    """Job files are downloads, not records: drop those older than a weekend event."""
    cutoff = time.time() - max_age
    for path in [*folder.glob("*.pdf"), *folder.glob("*.queued")]:
        try:
            if path.stat().st_mtime < cutoff:
                path.unlink()
        except FileNotFoundError:
            pass


def _where(tournament: Tournament, division: Division, exc: Exception) -> str:
    """A report's refusal named with its tournament and division."""
    return _("{name}, division {division}: {error}").format(
        name=tournament.name, division=division.name, error=exc
    )


def _queue_answers() -> bool:
    """Whether the job queue (the Redis broker) answers now; a non-Redis broker is trusted."""
    url = str(division_scorecards.app.conf.broker_url or "")
    return not url.startswith(("redis://", "rediss://")) or redis_answers(url)


def _worker_unavailable(request: HttpRequest, where: str, now: str) -> HttpResponse:
    """The queue is down: say so and offer the same scorecards built in this request instead."""
    message = _(
        "{where}: the background worker is unavailable (its job queue does not answer), so "
        "the scorecards cannot be prepared in the background; build the PDF now instead"
    ).format(where=where)
    if request.headers.get("Accept", "").startswith("application/json"):
        body = {"ok": False, "state": "unavailable", "error": message, "now": now}
        return JsonResponse(body, status=503)
    context = {
        "heading": _("The background worker is unavailable"),
        "message": message,
        "link": now,
        "link_text": _("Build the scorecards PDF now"),
    }
    return render(request, "tournament/error.html", context, status=503)


def _no_such_job(tournament: Tournament, why: str = "") -> JsonResponse:
    message = why or _("no such scorecards job (unknown, or cleared after two days)")
    error = _("{name}: {message}; prepare the scorecards again").format(
        name=tournament.name, message=message
    )
    return JsonResponse({"ok": False, "state": "unknown", "error": error}, status=404)


@require_POST
def start_scorecards(request: HttpRequest, slug: str, division: str) -> HttpResponseBase:
    """Queue a division's scorecards; answers at once with where to watch the job.

    Everything that could make the job fail is checked here first, so a refusal reaches the
    director as a message now rather than as a failed job later.
    """
    tournament = _directed(request, slug)
    if not isinstance(tournament, Tournament):
        return tournament
    if wait := heavy_wait(request):  # a PDF or an export costs a worker seconds
        return too_many(request, wait)
    div = _division(tournament, division)
    try:
        per_page = _int_param(request, "per_page", choices=PER_PAGE) or 2
        round_number = _int_param(request, "round")
        paper = _paper(request.POST.get("paper", ""), tournament)
        if round_number is not None:
            DivisionData(div).check_round(round_number)
    except (BadRequest, ReportError) as exc:
        return JsonResponse({"ok": False, "error": _where(tournament, div, exc)}, status=400)
    job = uuid.uuid4().hex
    folder = _jobs_dir(tournament)
    folder.mkdir(parents=True, exist_ok=True)
    _clear_old_jobs(folder)
    out = folder / f"{job}.pdf"
    query = {"kind": "scorecards", "per_page": per_page, "round": round_number, "paper": paper}
    now = (
        reverse("desk:report", args=(tournament.slug, div.slug))
        + "?"
        + urlencode({k: v for k, v in query.items() if v is not None})
    )
    inline = division_scorecards.app.conf.task_always_eager
    if not inline and not _queue_answers():
        return _worker_unavailable(
            request,
            _("{name}, division {division}").format(name=tournament.name, division=div.name),
            now,
        )
    marker = folder / f"{job}.queued"  # tells a job we started from one nobody knows
    marker.write_text(now, encoding="utf-8")
    try:
        division_scorecards.apply_async(
            args=(tournament.slug, div.name, str(out)),
            kwargs={"per_page": per_page, "round_number": round_number, "paper": paper},
            task_id=job,
        )
    except (ReportError, ServiceError) as exc:  # inline (no worker): the task ran here
        marker.unlink(missing_ok=True)
        return JsonResponse({"ok": False, "error": _where(tournament, div, exc)}, status=400)
    except Exception as exc:
        marker.unlink(missing_ok=True)
        if inline or not is_queue_error(exc):
            raise
        return _worker_unavailable(
            request,
            _("{name}, division {division}").format(name=tournament.name, division=div.name),
            now,
        )
    return JsonResponse(
        {
            "ok": True,
            "job": job,
            "status": reverse("desk:job", args=(tournament.slug, job)),
            "file": reverse("desk:job_file", args=(tournament.slug, job)),
        },
        status=202,
    )


@require_GET
def job_status(request: HttpRequest, slug: str, job: str) -> HttpResponseBase:
    """Where a scorecards job is: queued, working (cards done of total), done or failed."""
    tournament = _directed(request, slug)
    if not isinstance(tournament, Tournament):
        return tournament
    if not _JOB.match(job):
        return _no_such_job(tournament)
    file_url = reverse("desk:job_file", args=(tournament.slug, job))
    if (_jobs_dir(tournament) / f"{job}.pdf").is_file():
        return JsonResponse({"ok": True, "state": "done", "file": file_url})
    marker = _jobs_dir(tournament) / f"{job}.queued"
    if division_scorecards.app.conf.task_always_eager or not marker.is_file():
        return _no_such_job(tournament)  # inline jobs finish before their POST answers
    result = AsyncResult(job)
    try:
        state = result.state
    except Exception as exc:
        if not is_queue_error(exc):
            raise
        return _worker_unavailable(request, tournament.name, marker.read_text(encoding="utf-8"))
    if state == "FAILURE":
        return JsonResponse({"ok": False, "state": "failed", "error": str(result.result)})
    lost = _lost_job(marker, state)
    if lost:
        return JsonResponse({"ok": False, "state": "failed", "error": f"{tournament.name}: {lost}"})
    if state == "SUCCESS":  # finished, but its file is gone (cleared by hand)
        return _no_such_job(tournament, _("the job's file is no longer there"))
    body: dict[str, Any] = {"ok": True, "state": "working" if state != "PENDING" else "queued"}
    if state == "PROGRESS" and isinstance(result.info, dict):
        body.update(current=result.info.get("current"), total=result.info.get("total"))
    return JsonResponse(body)


def _lost_job(marker: Path, state: str) -> str:
    """Why an unfinished job will never finish ("" while it may): its worker went away."""
    try:
        age = time.time() - marker.stat().st_mtime
    except FileNotFoundError:
        return ""
    if state == "PENDING":
        if age > JOB_QUEUE_SECONDS:
            return _(
                "no background worker took the scorecards job in {minutes} "
                "minutes; it failed: start again (or build the PDF now)"
            ).format(minutes=JOB_QUEUE_SECONDS // 60)
        return ""
    if age > JOB_STALE_SECONDS:
        return _(
            "the scorecards job stopped (its background worker was stopped or restarted "
            "while working on it); it failed: start again"
        )
    return ""


@require_GET
def job_file(request: HttpRequest, slug: str, job: str) -> HttpResponseBase:
    tournament = _directed(request, slug)
    if not isinstance(tournament, Tournament):
        return tournament
    path = _jobs_dir(tournament) / f"{job}.pdf"
    if not _JOB.match(job) or not path.is_file():
        raise Http404(_("no such file: the job is unknown or has not finished"))
    name = _filename(tournament.slug, "scorecards") + ".pdf"
    return FileResponse(path.open("rb"), content_type="application/pdf", filename=name)
