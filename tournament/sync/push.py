"""The venue's push: send the unconfirmed changes, batch by batch, until none wait.

Each batch is read (tournament.services.venue.next_batch), sent, and what the hosted site
confirmed is recorded (``confirm_push``) before the next is read. Killed between the send and
the record, the next push sends the batch again and the hosted site answers it as already
applied: nothing is doubled. Refused because the hosted copy holds fewer changes than this
side thought (it was restored from an older backup), the push starts again from what it
holds.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from typing import Any

from ..errors import ServiceError
from ..models import Tournament, VenueTake
from ..services import notices, venue
from . import client, inbox

# a request body the hosted site accepts (Django's DATA_UPLOAD_MAX_MEMORY_SIZE is 2.5 MB)
MAX_BODY = 2_000_000


def take(slug: str) -> VenueTake:
    """The link of a tournament taken here, or a refusal naming it."""
    tournament = Tournament.objects.filter(slug=slug).first()
    if tournament is None:
        raise ServiceError("venue_not_held", where=slug)
    found = VenueTake.objects.select_related("tournament").filter(tournament=tournament).first()
    if found is None:
        raise ServiceError("venue_not_held", where=str(tournament))
    return found


def push(
    link: VenueTake,
    send: Callable[[str, str, dict[str, Any]], dict[str, Any]] | None = None,
    *,
    pull: bool = True,
) -> dict[str, Any]:
    """Push every waiting change; returns {"batches", "changes", "seconds", "last_seq"}.

    A failure is kept on the link for the console (``last_error``) and raised. ``send`` is
    the hosted site's push door (looked up when called: tests and tools put their own in)."""
    send = send or client.push_batch
    started = time.perf_counter()
    batches = changes = restarts = pulled = 0
    # GIBSON_VENUE_BATCH_CHANGES: smaller batches for a slow or flaky link (and the tests)
    full = int(os.environ.get("GIBSON_VENUE_BATCH_CHANGES") or venue.BATCH_CHANGES)
    limit = full
    try:
        # players' reports queued on the hosted site first: what they record goes up below
        if pull and link.released is None:
            pulled = inbox.pull(link)
        while True:
            link.refresh_from_db()
            if link.released is not None:
                raise ServiceError(
                    "venue_released", where=str(link.tournament), hosted=link.hosted_url
                )
            batch = venue.next_batch(link, limit)
            if batch is None:
                break
            if limit > 1 and len(json.dumps(batch, separators=(",", ":"))) > MAX_BODY:
                limit = max(1, limit // 4)
                continue
            try:
                answer = send(link.hosted_url, link.token, batch)
            except ServiceError as exc:
                if exc.params.get("remote") == "venue_gap" and restarts < 3:
                    restarts += 1
                    applied = int(exc.params.get("remote_params", {}).get("applied", 0))
                    venue.restart_from(link, applied)
                    continue
                raise
            link = venue.confirm_push(link, answer, batch)
            batches += 1
            changes += batch["changes"]
            limit = full
    except ServiceError as exc:
        venue.note_push_error(link, exc.message)
        raise
    # the hosted site answered: the internet is up, the notices held meanwhile go out now
    # (each marked sent or failed on the Notices page; a mail server's trouble raises nothing)
    mailed = notices.send_held(link.tournament_id)
    return {
        "batches": batches,
        "changes": changes,
        "seconds": round(time.perf_counter() - started, 3),
        "last_seq": link.last_pushed_seq,
        "reports_pulled": pulled,
        "notices_handed_over": mailed,
    }
