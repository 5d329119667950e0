"""An upload being imported in the background: the job and its files (tournament.interchange
reads them; tournament.tasks runs the job)."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models

from .core import (
    Tournament,
)


class ImportJob(models.Model):
    """An upload being imported in the background: the request stores the files and
    this row and answers at once; a Celery worker, or a thread of the web process when no
    worker answers, reads and writes it in short transactions, reporting progress here.

    Only its uploader (and a site superuser) follows it (``access.can_follow_import``). A job
    whose runner went away (a restart) is marked failed the next time it is looked at.
    """

    class State(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        DONE = "done"
        FAILED = "failed"

    class Kind(models.TextChoices):
        UPLOAD = "upload", "console upload"
        COMMAND = "command", "import_tsh"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    kind = models.CharField(max_length=10, choices=Kind.choices, default=Kind.UPLOAD)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="import_jobs",
    )
    source = models.CharField(max_length=100, help_text="the uploaded file's name")
    options = models.JSONField(default=dict, blank=True, help_text="name and rounds given")
    state = models.CharField(max_length=10, choices=State.choices, default=State.QUEUED)
    runner = models.CharField(
        max_length=200, blank=True, help_text="celery, or thread:HOST:PID:BOOT of the web process"
    )
    done = models.PositiveIntegerField(default=0)
    total = models.PositiveIntegerField(default=0)
    phrase = models.CharField(max_length=200, blank=True)
    error = models.TextField(blank=True)
    # what a finished import tells its director without refusing (ranks and estimates TSH
    # printed before a later change, autopair lines left out, ...)
    warnings = models.JSONField(default=list, blank=True)
    tournament = models.ForeignKey(
        Tournament,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="import_jobs",
    )
    created = models.DateTimeField(auto_now_add=True)
    started = models.DateTimeField(null=True, blank=True)
    finished = models.DateTimeField(null=True, blank=True)
    # moved at every batch: a running job whose heartbeat stopped lost its runner
    heartbeat = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created"]

    def __str__(self) -> str:
        return f"import of {self.source} ({self.state})"

    @property
    def finished_state(self) -> bool:
        return self.state in (self.State.DONE, self.State.FAILED)


class ImportFile(models.Model):
    """One uploaded file of an import job, kept in the database (so a worker on another
    machine reads it too) until the job ends; at most GIBSON_MAX_UPLOAD_MB in all."""

    job = models.ForeignKey(ImportJob, on_delete=models.CASCADE, related_name="files")
    position = models.PositiveSmallIntegerField(default=0, help_text="0: the main file")
    name = models.CharField(max_length=100)
    content = models.BinaryField()

    class Meta:
        ordering = ["position"]
