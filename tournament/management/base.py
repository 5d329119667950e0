"""Shared shape of Gibson's management commands.

Scripts and checks depend on these commands, so every one answers the same way: `--json` for
machine-readable output, a one-line error naming what and where, exit status 1. Without
`--json` the error goes to stderr as text; with it, a script reading stdout gets
`{"ok": false, "error": "..."}` there instead of output it cannot parse.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from typing import Any, NoReturn

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db.utils import OperationalError, ProgrammingError

from ..formats import FormatError
from ..services import ServiceError

# A shell reports a tool ended by SIGPIPE as 128 + 13; `head`, `grep -q` and friends expect it.
BROKEN_PIPE_STATUS = 141


class GibsonCommand(BaseCommand):
    json_flag = True
    _json_errors = False  # set from the command line: report errors as JSON on stdout

    def run_from_argv(self, argv: list[str]) -> None:
        self._json_errors = self.json_flag and "--json" in argv[2:]
        try:
            super().run_from_argv(argv)
            # Output to a pipe is buffered: flush here so a reader that went away (`| head -1`)
            # is noticed below, not as an "Exception ignored" message at interpreter exit.
            sys.stdout.flush()
        except BrokenPipeError:
            _exit_quietly_on_closed_pipe()

    def create_parser(self, prog_name: str, subcommand: str, **kwargs: Any) -> CommandParser:
        parser = super().create_parser(prog_name, subcommand, **kwargs)
        if self.json_flag:
            parser.add_argument("--json", action="store_true", help="print machine-readable JSON")
        if self._json_errors and parser.called_from_command_line:

            def json_error(message: str) -> NoReturn:
                # argparse's own convention for a usage error is status 2; keep it.
                self.emit_json({"ok": False, "error": f"{parser.prog}: {message}"})
                sys.exit(2)

            parser.error = json_error  # type: ignore[method-assign]
        return parser

    def execute(self, *args: Any, **options: Any) -> Any:
        try:
            return self._execute(*args, **options)
        except CommandError as exc:
            if (
                self._json_errors
                and getattr(self, "_called_from_command_line", False)
                and not options.get("traceback")
            ):
                self.emit_json({"ok": False, "error": str(exc)})
                sys.exit(exc.returncode)
            raise

    def _execute(self, *args: Any, **options: Any) -> Any:
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

    def progress_bar(self, options: dict[str, Any], unit: str) -> Callable[[int, int], None]:
        """A ``progress(current, total)`` drawing a bar on stderr; silent with ``--json``.

        Re-rating a long list takes seconds to minutes; the bar tells a director it is moving
        without putting anything but the JSON on stdout.
        """
        show = not options.get("json")
        err = self.stderr

        def progress(current: int, total: int) -> None:
            if not show or not total:
                return
            width = 30
            done = width * current // total
            err.write(f"\r[{'#' * done}{'.' * (width - done)}] {current}/{total} {unit}", ending="")
            if current == total:
                err.write("")
            err.flush()

        return progress

    def emit_json(self, data: Any) -> None:
        self.stdout.write(json.dumps(data, indent=2, ensure_ascii=False, default=str))


def _exit_quietly_on_closed_pipe() -> NoReturn:
    """The reader of our output has gone: stop without a traceback, as unix tools do.

    Python flushes stdout once more at exit, which would fail again and print a warning, so
    stdout is pointed at the null device first.
    """
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, sys.stdout.fileno())
    finally:
        os.close(devnull)
    sys.exit(BROKEN_PIPE_STATUS)
