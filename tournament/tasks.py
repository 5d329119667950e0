"""Celery tasks: inline on the embedded default, on workers when REDIS_URL is set."""

from __future__ import annotations

from celery import shared_task

from tournament.interchange import jobs
from tournament.interchange.exports import export_tsh
from tournament.selectors import tournament_by_slug

from .reports import tasks as report_tasks  # noqa: F401  (workers discover only <app>.tasks)
from .services.notices import deliver_notices, retry_notices  # noqa: F401  (mail tasks)


@shared_task(name="tournament.export_tsh")
def export_tournament(slug: str, out_dir: str) -> list[str]:
    """Write a tournament's TSH files; a task so a web request never waits on disk work."""
    return [str(p) for p in export_tsh(tournament_by_slug(slug), out_dir)]


@shared_task(name="tournament.import_job")
def run_import_job(job_id: str) -> str:
    """An upload's import, on a worker: the request that stored it has long answered."""
    return jobs.run_job(job_id, "celery")
