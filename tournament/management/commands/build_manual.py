"""``manage.py build_manual``: the manual (docs/) as pages the site serves at /docs/.

``serve_demo`` runs it at start; a site under ``serve`` runs it after an upgrade. The pages are
built beside the served folder and swapped in (``tournament.manual.publish_manual``), so a
reader never gets half a manual.
``--write-codes`` first rewrites the generated pages: docs/refusals.md from
``tournament.errors.CODES`` (after a refusal code is added or reworded) and docs/settings.md
from the models (``tournament.manual_reference``, after a setting is added) and
docs/api-reference.md from the published OpenAPI schema (after an endpoint changed).
``--screenshots`` first takes the manual's pictures again (docs/img/) from a fresh demo
(``tournament.manual_screenshots``), after the console or a page changed; ``--only NAME``
takes just those.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management import CommandError
from django.core.management.base import CommandParser

from ...manual import (
    API_REFERENCE_PAGE,
    REFUSALS_PAGE,
    SETTINGS_PAGE,
    ManualError,
    publish_manual,
    refusal_codes_page,
)
from ..base import GibsonCommand


class Command(GibsonCommand):
    help = (
        "Build the manual (docs/, MkDocs in strict mode) into GIBSON_DATA_DIR/manual, which "
        "the site serves at /docs/."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--out", help="build into this folder instead (replaced whole)")
        parser.add_argument(
            "--screenshots",
            action="store_true",
            help="first take the manual's pictures (docs/img/) again from a fresh demo "
            "(needs playwright, chromium and pdftoppm)",
        )
        parser.add_argument(
            "--only",
            action="append",
            metavar="NAME",
            help="with --screenshots: only this picture (NAME.png of docs/img/); may be repeated",
        )
        parser.add_argument(
            "--write-codes",
            action="store_true",
            help="first rewrite the generated pages: docs/refusals.md from tournament/errors.py's "
            "CODES, docs/settings.md from the Tournament and Division models, "
            "docs/api-reference.md from the OpenAPI schema",
        )

    def handle(self, *args: Any, **opts: Any) -> None:
        target = Path(opts["out"] or settings.MANUAL_DIR).expanduser().resolve()
        if opts["only"] and not opts["screenshots"]:
            raise CommandError("--only names pictures to take: give it with --screenshots")
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
            from ...manual_reference import api_reference_page, settings_page

            REFUSALS_PAGE.write_text(refusal_codes_page(), encoding="utf-8")
            SETTINGS_PAGE.write_text(settings_page(), encoding="utf-8")
            API_REFERENCE_PAGE.write_text(api_reference_page(), encoding="utf-8")
        pictures = self._pictures(opts["only"]) if opts["screenshots"] else []
        try:
            pages, _ = publish_manual(target)
        except ManualError as exc:
            raise CommandError(str(exc)) from exc
        if opts["json"]:
            answer = {"ok": True, "folder": str(target), "pages": pages}
            if opts["screenshots"]:
                answer["pictures"] = [str(p) for p in pictures]
            self.emit_json(answer)
        else:
            for picture in pictures:
                self.stdout.write(f"Picture: {picture} ({picture.stat().st_size // 1024} KB)")
            self.stdout.write(f"Manual built: {pages} pages in {target} (served at /docs/)")

    def _pictures(self, only: list[str] | None) -> list[Path]:
        """The pictures taken again into docs/img/, before the build that shows them."""
        from ...manual_screenshots import PDF_SHOT, SHOTS, ScreenshotError, take_all

        names = {s.name for s in SHOTS} | {PDF_SHOT}
        if only and (unknown := sorted(set(only) - names)):
            raise CommandError(
                f"--only {', '.join(unknown)}: no such picture; the pictures are "
                + ", ".join(sorted(names))
            )
        try:
            return take_all(only=set(only) if only else None)
        except ScreenshotError as exc:
            raise CommandError(str(exc)) from exc
