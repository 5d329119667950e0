"""``manage.py build_manual``: the manual (docs/) as pages the site serves at /docs/.

``serve_demo`` runs it at start; a site under ``serve`` runs it after an upgrade. The pages are
built beside the served folder and swapped in (``tournament.manual.publish_manual``), so a
reader never gets half a manual.
``--write-codes`` first rewrites docs/refusals.md from ``tournament.errors.CODES`` (after a
refusal code is added or reworded).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management import CommandError
from django.core.management.base import CommandParser

from ...manual import REFUSALS_PAGE, ManualError, publish_manual, refusal_codes_page
from ..base import GibsonCommand


class Command(GibsonCommand):
    help = (
        "Build the manual (docs/, MkDocs in strict mode) into GIBSON_DATA_DIR/manual, which "
        "the site serves at /docs/."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--out", help="build into this folder instead (replaced whole)")
        parser.add_argument(
            "--write-codes",
            action="store_true",
            help="first rewrite docs/refusals.md from tournament/errors.py's CODES",
        )

    def handle(self, *args: Any, **opts: Any) -> None:
        target = Path(opts["out"] or settings.MANUAL_DIR).expanduser().resolve()
        if target.exists() and not target.is_dir():
            raise CommandError(f"--out {target}: it is a file, not a folder")
        if (
            target.is_dir()
            and any(target.iterdir())
            and not (target / "search" / "search_index.json").exists()
        ):
            # the folder is replaced whole: never one that holds anything but a built manual
            raise CommandError(
                f"--out {target}: the folder holds files that are not a built manual; "
                "name a new or empty folder"
            )
        if opts["write_codes"]:
            REFUSALS_PAGE.write_text(refusal_codes_page(), encoding="utf-8")
        try:
            pages, _ = publish_manual(target)
        except ManualError as exc:
            raise CommandError(str(exc)) from exc
        if opts["json"]:
            self.emit_json({"ok": True, "folder": str(target), "pages": pages})
        else:
            self.stdout.write(f"Manual built: {pages} pages in {target} (served at /docs/)")
