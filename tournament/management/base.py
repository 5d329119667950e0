"""Shared shape of Gibson's management commands.

Scripts and checks depend on these commands, so every one answers the same way: `--json` for
machine-readable output, a one-line error naming what and where on stderr, exit status 1.
"""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError
from django.db.utils import OperationalError, ProgrammingError

from ..formats import FormatError
from ..services import ServiceError


class GibsonCommand(BaseCommand):
    json_flag = True

    def create_parser(self, prog_name: str, subcommand: str, **kwargs: Any):
        parser = super().create_parser(prog_name, subcommand, **kwargs)
        if self.json_flag:
            parser.add_argument("--json", action="store_true", help="print machine-readable JSON")
        return parser

    def execute(self, *args: Any, **options: Any):
        try:
            return super().execute(*args, **options)
        except (ServiceError, FormatError, ValueError) as exc:
            raise CommandError(str(exc)) from exc
        except (OperationalError, ProgrammingError) as exc:
            # Most often a database that was never migrated: say how to fix it.
            if "no such table" in str(exc) or "does not exist" in str(exc):
                raise CommandError(
                    f"the database is not set up ({exc}); run: manage.py migrate"
                ) from exc
            raise

    def emit_json(self, data: Any) -> None:
        self.stdout.write(json.dumps(data, indent=2, ensure_ascii=False, default=str))
