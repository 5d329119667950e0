"""Console: following an upload's import job (``/console/imports/JOB/``).

The upload's request only stores the files and the job (tournament.interchange.jobs) and
redirects here. The page shows the job's progress ("division B: 300 of 500 players"), polled
every second with htmx (without JavaScript the page reloads itself every two seconds), then a
link to the imported tournament or the refusal naming file and line. Only the uploader (and a
site superuser) sees it; anyone else gets the plain denial, for a job that exists or not.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

from tournament.errors import ServiceError
from tournament.interchange import jobs
from tournament.models import ImportJob
from tournament.tasks import run_import_job

from ...health import is_queue_error, redis_answers, worker_replies

# A worker must answer a ping this fast for a job to be queued for it: the director's
# request waits for the answer, and a thread of this process does the same work anyway.
PING_SECONDS = 0.5
DENIED = gettext_lazy("an import job is seen only by the director who uploaded it")


def _worker_ready() -> bool:
    url = str(run_import_job.app.conf.broker_url or "")
    if url.startswith(("redis://", "rediss://")) and not redis_answers(url):
        return False
    return worker_replies(timeout=PING_SECONDS)


def launch_import(job: ImportJob) -> str:
    """Start ``job`` where it can run: a Celery worker if one answers now, else a background
    thread of this process (never inline in a request, but for the test suite's setting)."""
    mode = settings.IMPORT_JOB_RUNNER
    if mode == "inline":
        jobs.run_job(job.pk, "inline")
        return "inline"
    if mode == "auto" and not run_import_job.app.conf.task_always_eager:
        try:
            if _worker_ready():
                run_import_job.apply_async(args=(str(job.pk),), task_id=str(job.pk))
                return "celery"
        except Exception as exc:
            if not is_queue_error(exc):
                raise
    # once the job's row is committed (at once, outside a transaction), or the thread would
    # look for a job it cannot see yet
    transaction.on_commit(lambda: jobs.start_thread(job))
    return "thread"


@never_cache
@login_required
@require_safe
def import_job(request: HttpRequest, job: str) -> HttpResponse:
    """The job's page (or, for ``Accept: application/json``, its state as JSON)."""
    try:
        found = jobs.follow_job(request.user, job)
    except ServiceError:  # the same words whether the job is someone else's or none at all
        raise PermissionDenied(DENIED) from None
    if found is None:
        raise Http404(_("no such import job"))
    link = (
        reverse("console:setup", args=[found.tournament.slug])
        if found.state == ImportJob.State.DONE and found.tournament is not None
        else ""
    )
    if request.headers.get("Accept", "").startswith("application/json"):
        return JsonResponse(
            {
                "state": found.state,
                "done": found.done,
                "total": found.total,
                "phrase": found.phrase,
                "error": found.error,
                "tournament": link,
            }
        )
    percent = round(100 * found.done / found.total) if found.total else 0
    context = {"job": found, "link": link, "percent": percent}
    return render(request, "console/import_job.html", context)
