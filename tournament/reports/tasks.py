"""Celery task: a whole division's scorecards, with progress, written atomically.

500 cards take a few seconds; as a task the director's browser can show a progress bar
(task state ``PROGRESS`` with ``current``/``total`` cards) instead of a hanging request, and a
worker crash or a bad input leaves the previous file in place, never half a PDF.

Registration: Celery's autodiscovery looks for ``<app>.tasks`` in INSTALLED_APPS, which does
not reach this module; the ``report`` command imports it, and a worker needs
``tournament.tasks`` (or ``app.autodiscover_tasks(["tournament.reports"])``) to import it too.
"""

from __future__ import annotations

from typing import Any

from celery import shared_task

from ..services import division_by_name, tournament_by_slug
from .build import build_report
from .files import write_atomically


@shared_task(bind=True, name="tournament.reports.scorecards")
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

    def progress(done: int, total: int) -> None:
        # at most ~50 state updates per run, whatever the field size
        if self.request.id is None or (done < total and done - step["last"] < max(1, total // 50)):
            return
        step["last"] = done
        self.update_state(state="PROGRESS", meta={"current": done, "total": total})

    report = build_report(
        div, "scorecards", round_number=round_number, per_page=per_page, paper=paper,
        progress=progress,
    )  # fmt: skip
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
