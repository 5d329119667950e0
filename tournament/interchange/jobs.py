"""Imports as background jobs: an upload never runs inside its request.

A 4-division, 500-player, 50-round all.tsh took over half a minute to write; inside a request
that was a hung browser and, on SQLite, the one write lock held the whole time. Now the request
checks what is cheap (size, the pre-scan's limits: ``imports.check_upload``), stores the files
and an ``ImportJob`` and answers at once with the job's page. The job runs on a Celery worker
when one answers, else in a background thread of the web process (``start_thread``), and
writes in short transactions, moving its progress ("division B: 300 of 500 players") and
heartbeat with every batch.

A job whose runner went away (the server or worker restarted) would say "running" forever:
``refresh`` marks it failed, with a message saying so, the next time anyone looks at it, and
deletes the half-written tournament. A runner that finds its job so marked stops at its next
batch and removes what it wrote.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from pathlib import Path
from typing import Any

from django.db import close_old_connections, connections, transaction
from django.db.models import F
from django.utils import timezone
from django.utils.translation import gettext_noop

from tournament.access import require
from tournament.errors import ServiceError
from tournament.interchange.imports import (
    check_upload,
    discard_import,
    import_files,
    import_tsh,
    upload_files,
)
from tournament.models import ImportFile, ImportJob, Tournament

logger = logging.getLogger(__name__)

State = ImportJob.State
# A running job moves its heartbeat at every batch (tens of milliseconds apart) and reads its
# files in a few seconds at most: one silent for this long lost its runner.
STALE_SECONDS = 120
# A job queued for a Celery worker that no worker took in this long never will.
QUEUE_SECONDS = 600
UNFINISHED = (State.QUEUED, State.RUNNING)
# A job's page (its outcome, its error naming the file and line) is kept this long, then the
# row goes with the next upload: nobody reads a month-old progress bar, and the table must
# not grow with every upload for ever. Its files went when it ended.
KEEP_DAYS = 30

# This process: a restarted server gets a new one even if the system reuses its process id.
HOST = socket.gethostname()
BOOT = uuid.uuid4().hex[:12]


def runner_name(kind: str) -> str:
    """Who runs a job: ``kind:host:pid:boot`` (thread, celery, command, inline)."""
    return f"{kind}:{HOST}:{os.getpid()}:{BOOT}"


class ImportStopped(Exception):
    """The job was marked failed (its runner was taken for lost) while it still ran."""


# --------------------------------------------------------------------------- creating a job


def create_upload_job(
    user: Any,
    file_name: str,
    data: bytes,
    *,
    others: dict[str, bytes] | None = None,
    name: str | None = None,
    rounds: int | None = None,
) -> ImportJob:
    """Check an upload as far as is cheap and keep it as a queued job (one short transaction).

    Raises the import's ServiceError (size, limits, a config naming a file not uploaded) with
    nothing stored; the parse and every refusal it finds come later, on the job's page.
    """
    main, files = upload_files(file_name, data, others)
    check_upload(main, files)
    purge_old_jobs()
    with transaction.atomic():
        job = ImportJob.objects.create(
            kind=ImportJob.Kind.UPLOAD,
            created_by=user if getattr(user, "pk", None) else None,
            source=main,
            options={"name": name or "", "rounds": rounds},
            phrase="waiting to start",
        )
        ImportFile.objects.bulk_create(
            ImportFile(job=job, position=i, name=fname, content=content)
            for i, (fname, content) in enumerate(files.items())
        )
    return job


def purge_old_jobs(now: Any = None) -> int:
    """Delete the jobs created more than KEEP_DAYS ago; the tournaments they imported stay.
    An old job never seen to end is failed first (``refresh``), so what it half wrote goes
    too. Answers how many jobs went."""
    cutoff = (now or timezone.now()) - timedelta(days=KEEP_DAYS)
    old = ImportJob.objects.filter(created__lt=cutoff)
    for job in old.filter(state__in=UNFINISHED):
        refresh(job)
    _, deleted = old.exclude(state__in=UNFINISHED).delete()
    return deleted.get(ImportJob._meta.label, 0)


# --------------------------------------------------------------------------- running a job


def _progress(job_id: Any) -> tuple[Callable[..., None], dict[str, str]]:
    """The import's progress callback for a job: moves done/total, the phrase and the heartbeat
    inside the batch's own transaction, and stops the import if the job was marked failed."""
    last = {"phrase": "reading and checking the files"}

    def progress(done: int, total: int, phrase: str, tournament: Tournament) -> None:
        last["phrase"] = phrase
        moved = ImportJob.objects.filter(pk=job_id, state=State.RUNNING).update(
            done=done,
            total=total,
            phrase=phrase[:200],
            heartbeat=timezone.now(),
            tournament=tournament,
        )
        if not moved:
            raise ImportStopped

    return progress, last


def _finish(
    job_id: Any, state: str, *, error: str = "", tournament: Tournament | None = None
) -> None:
    fields: dict[str, Any] = {"state": state, "finished": timezone.now(), "error": error[:4000]}
    if state == State.DONE:
        fields.update(tournament=tournament, phrase="done", done=F("total"))
        fields["warnings"] = list(getattr(tournament, "import_warnings", []) or [])
    else:
        fields.update(tournament=None)
    with transaction.atomic():
        ImportJob.objects.filter(pk=job_id, state=State.RUNNING).update(**fields)
        ImportFile.objects.filter(job_id=job_id).delete()  # the files are not kept after


def run_job(job_id: Any, kind: str = "thread") -> str:
    """Run a queued upload job here and now (a worker, a thread, or a test); its final state.

    Every refusal the files hold (a bad line, a one-sided score) fails the job with the
    import's own message, naming the file and line; anything unexpected fails it naming what
    the import was doing. Nothing of a failed import is left behind.
    """
    now = timezone.now()
    with transaction.atomic():
        started = ImportJob.objects.filter(pk=job_id, state=State.QUEUED).update(
            state=State.RUNNING,
            runner=runner_name(kind),
            started=now,
            heartbeat=now,
            phrase="reading and checking the files",
        )
    if not started:
        job = ImportJob.objects.filter(pk=job_id).first()
        return job.state if job else "unknown"
    job = ImportJob.objects.select_related("created_by").get(pk=job_id)
    files = {f.name: bytes(f.content) for f in job.files.order_by("position")}
    progress, last = _progress(job_id)
    user = job.created_by
    try:
        tournament = import_files(
            job.source,
            files,
            actor=user if user is not None else "import",
            director=user,
            name=job.options.get("name") or None,
            rounds=job.options.get("rounds"),
            progress=progress,
        )
    except ImportStopped:
        return State.FAILED  # marked failed by whoever found it lost; the import undid itself
    except ServiceError as exc:
        _finish(job_id, State.FAILED, error=exc.message)
        return State.FAILED
    except Exception as exc:
        logger.exception("import job %s failed", job_id)
        _finish(
            job_id,
            State.FAILED,
            error=f"{job.source}: the import failed while {last['phrase']} "
            f"({type(exc).__name__}: {str(exc)[:300]}); nothing of it was kept",
        )
        return State.FAILED
    _finish(job_id, State.DONE, tournament=tournament)
    return State.DONE


def run_command_import(
    path: str | Path,
    *,
    config_path: str | Path | None = None,
    rounds: int | None = None,
    name: str | None = None,
    actor: Any = "import_tsh",
) -> tuple[Tournament, ImportJob]:
    """``import_tsh`` as a job of kind "command": run here (a command is not a request), but
    recorded like an upload's, so a command killed halfway leaves a job that ``refresh`` (or
    the next import) finds lost and whose half-written tournament it deletes."""
    sweep_lost_jobs()
    now = timezone.now()
    job = ImportJob.objects.create(
        kind=ImportJob.Kind.COMMAND,
        source=Path(path).name[:100],
        options={"name": name or "", "rounds": rounds},
        state=State.RUNNING,
        runner=runner_name("command"),
        started=now,
        heartbeat=now,
        phrase="reading and checking the files",
    )
    progress, _last = _progress(job.pk)
    try:
        tournament = import_tsh(
            path, config_path=config_path, rounds=rounds, name=name, actor=actor, progress=progress
        )
    except ServiceError as exc:
        _finish(job.pk, State.FAILED, error=exc.message)
        raise
    except BaseException as exc:
        _finish(job.pk, State.FAILED, error=f"{job.source}: {type(exc).__name__}: {exc}"[:2000])
        raise
    _finish(job.pk, State.DONE, tournament=tournament)
    job.refresh_from_db()
    return tournament, job


# --------------------------------------------------------------------------- the thread runner

_LOCK = threading.Lock()
_EXECUTOR: ThreadPoolExecutor | None = None
_LIVE: set[str] = set()  # jobs this process has taken and not finished


def _executor() -> ThreadPoolExecutor:
    """One import at a time per web process: two at once would only share its cores."""
    global _EXECUTOR
    with _LOCK:
        if _EXECUTOR is None:
            _EXECUTOR = ThreadPoolExecutor(max_workers=1, thread_name_prefix="gibson-import")
        return _EXECUTOR


def _thread_main(job_id: str) -> None:
    close_old_connections()
    try:
        run_job(job_id, "thread")
    except Exception:  # noqa: BLE001 - a thread has nobody to raise to; the job says it
        logger.exception("import job %s: the thread stopped", job_id)
    finally:
        with _LOCK:
            _LIVE.discard(job_id)
        connections.close_all()  # this thread's own connections, never the request's


def start_thread(job: ImportJob) -> Any:
    """Run ``job`` in a background thread of this process (the request answers meanwhile);
    returns the future, which tests may wait on."""
    job_id = str(job.pk)
    ImportJob.objects.filter(pk=job.pk, state=State.QUEUED).update(
        runner=runner_name("thread"), heartbeat=timezone.now()
    )
    with _LOCK:
        _LIVE.add(job_id)
    return _executor().submit(_thread_main, job_id)


# --------------------------------------------------------------------------- lost jobs


def _process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process: alive
    return True


def lost_reason(job: ImportJob, now: Any = None) -> str:
    """Why an unfinished job will never finish ("" while it may)."""
    if job.state not in UNFINISHED:
        return ""
    now = now or timezone.now()
    restarted = (
        f"the import of {job.source} stopped before it finished: the server (or its background "
        "worker) was stopped or restarted while it ran. Nothing of it was kept; upload the file "
        "again"
    )
    kind, _, rest = job.runner.partition(":")
    host, _, rest = rest.partition(":")
    pid_text, _, boot = rest.partition(":")
    if kind and host == HOST and pid_text.isdigit():
        pid = int(pid_text)
        if pid == os.getpid():
            if boot != BOOT:
                return restarted  # this process id, but a process started since
            if kind == "thread":
                with _LOCK:
                    return "" if str(job.pk) in _LIVE else restarted
            return ""  # running right here (a command, a test)
        if not _process_alive(pid):
            return restarted
    if not job.runner:  # waiting for a Celery worker
        if now - job.created > timedelta(seconds=QUEUE_SECONDS):
            return (
                f"no background worker took the import of {job.source} in "
                f"{QUEUE_SECONDS // 60} minutes; nothing was imported: upload the file again"
            )
        return ""
    beat = job.heartbeat or job.started or job.created
    # a thread's queued job waits behind the imports before it in its process
    wait = QUEUE_SECONDS if job.state == State.QUEUED else STALE_SECONDS
    if now - beat > timedelta(seconds=wait):
        return restarted
    return ""


def fail_lost(job: ImportJob, reason: str) -> None:
    """Mark a lost job failed (if it still is unfinished) and delete what it half wrote."""
    with transaction.atomic():
        marked = ImportJob.objects.filter(pk=job.pk, state__in=UNFINISHED).update(
            state=State.FAILED, error=reason, finished=timezone.now(), tournament=None
        )
        ImportFile.objects.filter(job_id=job.pk).delete()
    if marked and job.tournament_id:
        discard_import(job.tournament_id)


def refresh(job: ImportJob) -> ImportJob:
    """The job as it stands, a lost one marked failed first (see the module's docstring)."""
    reason = lost_reason(job)
    if reason:
        fail_lost(job, reason)
        job.refresh_from_db()
    return job


def sweep_lost_jobs() -> int:
    """Fail every lost job and delete its half-written tournament; how many there were."""
    count = 0
    for job in ImportJob.objects.filter(state__in=UNFINISHED):
        reason = lost_reason(job)
        if reason:
            fail_lost(job, reason)
            count += 1
    return count


def follow_job(user: Any, job_id: Any) -> ImportJob | None:
    """The job ``user`` uploaded, as it stands now (a lost one marked failed first).

    Raises ``not_allowed`` alike for someone else's job and for no job at all, so a job's
    address tells another account nothing, not even that it exists; None (no such job) only
    for a site superuser, who may follow any.
    """
    job = ImportJob.objects.select_related("tournament").filter(pk=job_id).first()
    if job is None:
        # refused like someone else's job; a superuser passes and hears there is none
        require(
            user,
            "follow_import",
            ImportJob(created_by=None),
            what=gettext_noop("follow this import"),
        )
        return None
    require(user, "follow_import", job, what=gettext_noop("follow this import"))
    return refresh(job)
