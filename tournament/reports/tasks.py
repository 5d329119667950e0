"""Celery task: a whole division's scorecards, with progress, written atomically.

500 cards take a few seconds; as a task the director's browser can show a progress bar
(task state ``PROGRESS`` with ``current``/``total`` cards) instead of a hanging request, and a
worker crash or a bad input leaves the previous file in place, never half a PDF.

Registration: Celery's autodiscovery looks for ``<app>.tasks`` in INSTALLED_APPS, which does
not reach this module; the ``report`` command imports it, and a worker needs
``tournament.tasks`` (or ``app.autodiscover_tasks(["tournament.reports"])``) to import it too.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from celery import shared_task

from tournament.selectors import division_by_name, tournament_by_slug

from .build import build_report
from .files import write_atomically


def heartbeat(out: str | Path) -> None:
    """Touch the job's marker (``<job>.queued`` next to its PDF): the desk reads its age.

    A worker killed mid-job (kill -9, a machine restart) leaves the job's state at PROGRESS for
    ever; the desk calls a job whose marker has not moved for a while failed, so the director
    is told to start again instead of watching a bar that never fills.
    """
    try:
        os.utime(Path(out).with_suffix(".queued"))
    except OSError:
        pass  # no marker (an inline run, or cleared): nothing to keep alive


# acks_late + reject_on_worker_lost: a job whose worker process died is put back on the queue
# (and run again by the next worker) rather than acknowledged and lost; writing the PDF is
# atomic and idempotent, so running it twice is harmless.
@shared_task(
    bind=True, name="tournament.reports.scorecards", acks_late=True, reject_on_worker_lost=True
)
def division_scorecards(
    self,
    slug: str,
    division: str | None,
    out: str,
    per_page: int = 2,
    round_number: int | None = None,
    paper: str | None = None,
) -> dict[str, Any]:
    """Render and write a division's scorecards; returns the file, pages and cards."""
    tournament = tournament_by_slug(slug)
    div = division_by_name(tournament, division)
    step = {"last": -1}
    heartbeat(out)

    def progress(done: int, total: int) -> None:
        heartbeat(out)
        # at most ~50 state updates per run, whatever the field size
        if self.request.id is None or (done < total and done - step["last"] < max(1, total // 50)):
            return
        step["last"] = done
        self.update_state(state="PROGRESS", meta={"current": done, "total": total})

    report = build_report(
        div,
        "scorecards",
        round_number=round_number,
        per_page=per_page,
        paper=paper,
        progress=progress,
    )
    write_atomically(out, report.pdf)
    return {
        "file": out,
        "kind": "scorecards",
        "division": div.name,
        "round": report.round,
        "pages": report.pages,
        "cards": div.entries.count(),
        "bytes": len(report.pdf),
    }
