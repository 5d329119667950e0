"""Shared shape of Gibson's management commands.

Scripts and checks depend on these commands, so every one answers the same way: `--json` for
machine-readable output, a one-line error naming what and where, exit status 1. Without
`--json` the error goes to stderr as text; with it, a script reading stdout gets
`{"ok": false, "error": "...", "code": "...", "field": "...", "params": {...}}` there instead of
output it cannot parse: the code and parameters of the service's refusal (see
``tournament.errors.CODES``), so a script can act on the code rather than the words.

The services word a refusal neutrally; ``CLI_WORDING`` says it the command line's way, naming
the flag that fixes it ("use --force"), which a web page must never show.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from typing import Any, NoReturn

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db.utils import OperationalError, ProgrammingError
from django.utils import translation

from tournament.errors import ServiceError

from ..formats import FormatError

# A shell reports a tool ended by SIGPIPE as 128 + 13; `head`, `grep -q` and friends expect it.
BROKEN_PIPE_STATUS = 141

# code -> the command line's wording (str.format with ``message``, the neutral text, and the
# error's params). Only codes whose remedy is a flag need one; the rest print the neutral text.
CLI_WORDING: dict[str, str] = {
    "venue_hosted_ahead": "the hosted copy of {where} holds changes (up to number {applied}) "
    "that this laptop never had: it was restored from an older backup (its own changes reach "
    "number {ours}). Nothing was "
    "pushed and nothing is lost: venue_status shows what each side would lose; then keep this "
    "laptop's state (venue_resolve {slug} --keep-venue) or bring the hosted copy's down "
    "(venue_resolve {slug} --take-hosted)",
    "round_already_paired": "{message}; use --force to replace its pairings",
    "bye_already_recorded": "{where}: #{number}'s bye/forfeit is already recorded ({score}); "
    'correct it with --correct "reason" or in the admin (Games)',
    "already_recorded": "the game #{player1} v #{player2} already has a result "
    '({score1}-{score2}); correct it with --correct "reason" or in the admin (Games); either '
    "way the change is audited",
    "no_result_to_correct": "{where}: #{number} has no result yet to correct; record it "
    "without --correct",
    "division_required": "{tournament} has {count} divisions; name one with --division ({names})",
    "event_date_needed": "{message} (give --date YYYY-MM-DD)",
    "not_a_division_file": "{file} is a TSH {kind}, not a .t division file; --config goes with "
    "a single .t file only",
    "rounds_below_file": "--rounds {rounds}: {file} line {line} (#{number} {name}) is already "
    "paired in round {round}; division {division} needs --rounds {need} or more",
    "no_system_scheduled": "{where}: no pairing system scheduled for this round; give one with "
    "--system ({systems}) or add a schedule range",
    "database_not_set_up": "{message}; run: manage.py migrate",
    "unknown_account": "--as {username}: there is no active account {username!r}",
}


def _disk_full(exc: Exception) -> bool:
    """The server's disk (or the database's) has no room: nothing was written."""
    from ..dbhealth import is_disk_full

    return is_disk_full(exc)


def _database_busy(exc: Exception) -> bool:
    """SQLite's (or a PostgreSQL lock timeout's) "another writer holds the lock"."""
    from ..dbhealth import is_database_busy

    return is_database_busy(exc)


def cli_message(exc: ServiceError) -> str:
    """The refusal in the command line's words; the neutral text if the wording cannot fill in
    (a code raised with other params than the table expects must still print something)."""
    try:
        return exc.worded(CLI_WORDING)
    except (KeyError, IndexError, ValueError):
        return exc.message


class CommandFailure(CommandError):
    """A refused command: the worded message plus the code, field and params for ``--json``."""

    def __init__(
        self,
        message: str,
        *,
        code: str = "invalid_argument",
        field: str = "",
        params: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.field = field
        self.params = params or {}

    @classmethod
    def from_service(cls, exc: ServiceError) -> CommandFailure:
        """The refusal in English: a command's output stays English whatever language is
        active (a refusal's text follows the language active when it is read)."""
        with translation.override("en"):
            message = cli_message(exc)
        data = exc.as_dict()
        return cls(message, code=exc.code, field=exc.field, params=data["params"])


def error_payload(exc: CommandError) -> dict[str, Any]:
    """What ``--json`` prints for a failed command; a plain CommandError is "invalid_argument"."""
    return {
        "ok": False,
        "error": str(exc),
        "code": getattr(exc, "code", "invalid_argument"),
        "field": getattr(exc, "field", ""),
        "params": getattr(exc, "params", {}),
    }


class GibsonCommand(BaseCommand):
    json_flag = True
    # A command that writes offers --as USERNAME: it then acts as that account and the
    # services check the account's roles (tournament.access), as they do for a page or the
    # API. Without it the command is the operator's door: whoever holds the server's shell
    # holds the database too, so the command is trusted and named in the audit trail.
    acts_as = False
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
        if self.acts_as:
            parser.add_argument(
                "--as",
                dest="as_user",
                metavar="USERNAME",
                help="act as this account: its roles are checked as on the web, and the "
                "audit trail names it (default: the command itself, trusted)",
            )
        if self._json_errors and parser.called_from_command_line:

            def json_error(message: str) -> NoReturn:
                # argparse's own convention for a usage error is status 2; keep it.
                failure = CommandFailure(f"{parser.prog}: {message}", code="invalid_argument")
                self.emit_json(error_payload(failure))
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
                self.emit_json(error_payload(exc))
                sys.exit(exc.returncode)
            raise

    def _execute(self, *args: Any, **options: Any) -> Any:
        try:
            return super().execute(*args, **options)
        except ServiceError as exc:
            raise CommandFailure.from_service(exc) from exc
        except FormatError as exc:
            params = {"source": exc.source, "line": exc.line}
            raise CommandFailure(str(exc), code="invalid_file", params=params) from exc
        except ValueError as exc:
            raise CommandFailure(str(exc), code="invalid_argument") from exc
        except OSError as exc:
            if _disk_full(exc):
                raise CommandFailure.from_service(ServiceError("disk_full")) from exc
            raise
        except (OperationalError, ProgrammingError) as exc:
            if _disk_full(exc):
                raise CommandFailure.from_service(ServiceError("disk_full")) from exc
            # Another writer (an import, a re-rate) held SQLite's lock for the whole busy
            # timeout: nothing was written, so say "try again", not a traceback.
            if _database_busy(exc):
                raise CommandFailure.from_service(ServiceError("database_busy")) from exc
            # Most often a database that was never migrated: say how to fix it.
            if "no such table" in str(exc) or "does not exist" in str(exc):
                error = ServiceError("database_not_set_up", detail=str(exc))
                raise CommandFailure.from_service(error) from exc
            raise

    def actor(self, options: dict[str, Any], name: str) -> Any:
        """Who the command acts as: the ``--as`` account (checked by the services) or its own
        ``name`` (the operator's trusted door). An unknown or disabled account is refused."""
        username = options.get("as_user")
        if username is None:
            return name
        from django.contrib.auth import get_user_model

        user = get_user_model().objects.filter(username=username).first()
        if user is None or not user.is_active:
            raise ServiceError("unknown_account", field="as", username=username)
        return user

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
