"""Downloading a federation file: built, checked, and recorded (who, when, which, checksum).

A director sends the downloaded file to NASPA, WESPA or the ABSP themselves; what Gibson can
answer later is which file that was. So a download is a write: only the tournament's
directors, one transaction, one FederationDownload row and one audit event. A file with
problems is refused unless the director says "download anyway", and then the problems are
recorded with the download. This is not a submission to one of Gibson's own rating lists
(ratings.division.submit_divisions).

It lives with the file it records (``interchange``, above the services), not in
``tournament/services/``: a service that built the file would import the layer above it.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils.translation import gettext_noop

from ..access import require
from ..errors import ServiceError
from ..models import FederationDownload, Tournament
from ..services.audit import Actor, audit
from .federation import BuiltFile, build_federation_file, federation_file


@transaction.atomic
def download_federation_file(
    tournament: Tournament,
    key: str,
    actor: Any,
    *,
    anyway: bool = False,
    require_ids: bool = False,
) -> tuple[FederationDownload, BuiltFile]:
    """Build and check the file; refuse it when it has problems unless ``anyway``; record it."""
    require(actor, "direct", tournament, what=gettext_noop("download federation files"))
    federation_file(key)  # an unknown key is refused by name before anything is built
    built = build_federation_file(tournament, key, require_ids=require_ids)
    if built.data is None:
        raise ServiceError("federation_file_invalid", field="federation", file=built.name, count=1)
    if built.problems and not anyway:
        raise ServiceError(
            "federation_file_invalid",
            field="federation",
            file=built.name,
            count=len(built.problems),
        )
    who = Actor.of(actor)
    record = FederationDownload.objects.create(
        tournament=tournament,
        federation=built.spec.federation,
        format=built.spec.format,
        file_name=built.name,
        sha256=built.sha256,
        size=len(built.data),
        forced=bool(built.problems),
        problems=[p.as_dict() for p in built.problems],
        downloaded_by=who.user if getattr(who.user, "pk", None) else None,
    )
    audit(
        tournament,
        who,
        "download_federation_file",
        record,
        f"{built.spec.federation} file {built.name} downloaded"
        + (f" anyway, with {len(built.problems)} problem(s)" if built.problems else ""),
        after={
            "file": built.name,
            "sha256": built.sha256,
            "size": len(built.data),
            "problems": len(built.problems),
        },
    )
    return record, built
