"""Celery tasks for rating lists: inline on the embedded default, on workers with REDIS_URL."""

from __future__ import annotations

import datetime

from celery import shared_task

from .services import rating_list_by_slug, rerate_list


@shared_task(bind=True, name="ratings.rerate")
def rerate(self, slug: str, from_date: str | None = None, system: str | None = None) -> dict:
    """Re-rate a list; progress (current/total events) goes to the task's state for the web."""

    def progress(current: int, total: int) -> None:
        if self.request.id and not self.request.called_directly:
            self.update_state(state="PROGRESS", meta={"current": current, "total": total})

    frm = datetime.date.fromisoformat(from_date) if from_date else None
    return rerate_list(rating_list_by_slug(slug), frm, system=system, progress=progress)
