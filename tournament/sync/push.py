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
import logging
import os
import threading
import time
from collections.abc import Callable
from typing import Any

from ..errors import ServiceError
from ..models import Tournament, VenueTake
from ..services import notices, venue
from . import client, inbox

logger = logging.getLogger(__name__)

# a batch's JSON the push keeps under by sending fewer changes (Django's request limit,
# DATA_UPLOAD_MAX_MEMORY_SIZE, is 2.5 MB; the client gzips a body this size to a few hundred KB)
MAX_BODY = 8_000_000


def take(slug: str) -> VenueTake:
    """The link of a tournament taken here, or a refusal naming it."""
    tournament = Tournament.objects.filter(slug=slug).first()
    if tournament is None:
        raise ServiceError("venue_not_held", where=slug)
    found = VenueTake.objects.select_related("tournament").filter(tournament=tournament).first()
    if found is None:
        raise ServiceError("venue_not_held", where=str(tournament))
    return found


def _parted(link: VenueTake, exc: ServiceError) -> ServiceError:
    """The copy holds changes this laptop never had: fetch it, keep both sides' differences
    for the director (the console, venue_status), and refuse until they choose."""
    if not link.diverged:
        from ..services.venue import conflict

        hosted = client.fetch_copy(link.hosted_url, link.token)
        applied = int(exc.params.get("applied") or 0)
        conflict.note_divergence(link, applied, conflict.compare(link, hosted))
    return exc


def _held(link: VenueTake) -> ServiceError:
    applied = int(link.diverged.get("hosted_seq") or 0)
    return ServiceError(
        "venue_hosted_ahead",
        where=str(link.tournament),
        slug=link.tournament.slug,
        applied=applied,
        ours=link.next_seq - 1,
    )


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
        if link.diverged:  # the director has not chosen yet: nothing goes up, nothing comes
            raise _held(link)
        # players' reports queued on the hosted site first: what they record goes up below;
        # the copy's position with them: behind (restored) is resent, ahead with
        # changes this laptop never had waits for the director
        if pull and link.released is None:
            pulled, at = inbox.pull(link)
            try:
                link = venue.check_position(link, at)
            except ServiceError as exc:
                raise _parted(link, exc) from None
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
                if exc.params.get("remote") == "venue_diverged":
                    raise _hosted_ahead(link, exc) from None
                if exc.params.get("remote") == "venue_gap" and restarts < 3:
                    restarts += 1
                    applied = int(exc.params.get("remote_params", {}).get("applied", 0))
                    venue.restart_from(link, applied)
                    continue
                raise
            try:
                link = venue.confirm_push(link, answer, batch)
            except ServiceError as exc:
                if exc.code == "venue_hosted_ahead":
                    raise _parted(link, exc) from None
                raise
            batches += 1
            changes += batch["changes"]
            limit = full
    except ServiceError as exc:
        venue.note_push_error(link, exc.message)
        if exc.params.get("remote") == "venue_link_revoked":
            venue.revoked_there(link, exc.params.get("detail") or exc.message)
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


def _hosted_ahead(link: VenueTake, exc: ServiceError) -> Exception:
    """The hosted copy refused a change whose key it does not know: it holds changes this
    laptop never had (the laptop was restored from an older backup). Parts the two sides."""
    applied = int(exc.params.get("remote_params", {}).get("applied", 0))
    return _parted(link, venue.hosted_ahead(link, applied))


def resolve(link: VenueTake, choice: str, actor: Any = None) -> list[str]:
    """The director's choice after the two sides parted: ``venue`` sends this
    laptop's state up whole (and pushes now), ``hosted`` brings the copy's state down.
    Returns what the losing side lost, as the console listed it."""
    from ..services.venue import conflict

    if not link.diverged:
        raise ServiceError("venue_not_diverged", where=str(link.tournament))
    if choice == "venue":
        lost = list(link.diverged.get("hosted_only") or [])
        link = conflict.keep_venue(link, actor)
        try:
            push(link)
        except ServiceError:
            pass  # kept on the link (last error): the rebase waits for the next push
        return lost
    lost = list(link.diverged.get("venue_only") or [])
    conflict.take_hosted(link, client.fetch_copy(link.hosted_url, link.token), actor)
    return lost


def push_live() -> dict[str, dict[str, Any] | str]:
    """One turn of the sync loop: push every tournament taken here and still held; a failure
    is kept on its link (the console and venue_status show it) and named in the answer."""
    results: dict[str, dict[str, Any] | str] = {}
    for link in VenueTake.objects.select_related("tournament").filter(released__isnull=True):
        try:
            results[link.tournament.slug] = push(link)
        except ServiceError as exc:
            results[link.tournament.slug] = exc.message
    return results


def sync_in_background(every: float = 2.0) -> threading.Thread:
    """The sync loop in a thread of the serving process (``serve_demo`` on a venue's
    laptop pushes by itself, no second terminal). Cheap when nothing is taken here: one query
    a turn; a tournament taken from the console later is pushed from its next turn."""
    from django.db import close_old_connections

    def loop() -> None:
        while True:
            try:
                push_live()
            except Exception:  # noqa: BLE001 (the loop outlives any one turn's trouble)
                logger.exception("venue sync turn failed")
            finally:
                close_old_connections()
            time.sleep(max(0.5, every))

    thread = threading.Thread(target=loop, name="venue-sync", daemon=True)
    thread.start()
    return thread
