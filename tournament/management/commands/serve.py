"""``manage.py serve``: the site for real, under gunicorn with several worker processes.

``serve_demo`` is Django's development server: one process, fine for a laptop, not for a
hundred phones refreshing standings at the end of a round. This command prepares what a server
needs and then becomes gunicorn (the process is replaced, so a service manager's stop signal
reaches gunicorn directly and it finishes the requests in flight):

1. refuses a busy or malformed address before printing anything;
2. migrates the database (nothing to do on an up-to-date one);
3. collects the static files into STATIC_ROOT, which whitenoise serves;
4. starts gunicorn on ``--addr`` with ``--workers`` processes.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from typing import Any

from django.conf import settings
from django.core.management import CommandError, call_command
from django.core.management.base import CommandParser

from ..base import GibsonCommand
from ..serving import announce_site_url, check_free


def default_workers() -> int:
    """GIBSON_WORKERS, else two per CPU core: requests mostly wait on the database."""
    raw = os.environ.get("GIBSON_WORKERS", "").strip()
    if raw:
        return _workers(raw, "GIBSON_WORKERS")
    return 2 * (os.cpu_count() or 1)


def _workers(raw: str, name: str) -> int:
    if not (raw.isascii() and raw.isdigit()) or not 1 <= int(raw) <= 256:
        raise CommandError(f"{name}={raw!r}: give a whole number of worker processes, 1 to 256")
    return int(raw)


class Command(GibsonCommand):
    help = "Migrate, collect static files and serve the site under gunicorn with N workers."
    json_flag = False

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--addr",
            default=os.environ.get("GIBSON_ADDR", "127.0.0.1:8000"),
            help="HOST:PORT to listen on (default GIBSON_ADDR or 127.0.0.1:8000)",
        )
        parser.add_argument(
            "--workers",
            default=None,
            help="worker processes (default GIBSON_WORKERS or two per CPU core)",
        )

    def handle(self, *args: Any, **opts: Any) -> None:
        addr = opts["addr"]
        check_free(addr)  # before anything is printed: no "serving" line for a dead server
        raw = opts["workers"]
        workers = _workers(str(raw).strip(), "--workers") if raw is not None else default_workers()
        if importlib.util.find_spec("gunicorn") is None:
            raise CommandError("gunicorn is not installed: install the project again")
        site_url = announce_site_url(addr, self.stderr)  # gunicorn inherits the environment
        call_command("migrate", interactive=False, verbosity=0)
        call_command("collectstatic", interactive=False, verbosity=0)
        self.stdout.write(
            f"Gibson is serving on http://{addr}/ with {workers} worker processes (gunicorn); "
            f"health: http://{addr}/healthz\n"
            f"Scorecard QR codes open {site_url}\n"
            f"Background jobs need a worker too when REDIS_URL is set: celery -A tournament worker"
        )
        self.stdout.flush()
        sys.stderr.flush()
        argv = [
            sys.executable,
            "-m",
            "gunicorn",
            "tournament.wsgi:application",
            "--bind",
            addr,
            "--workers",
            str(workers),
            "--chdir",
            str(settings.BASE_DIR),
            "--graceful-timeout",
            "20",
        ]
        if _has_control_socket():
            # gunicorn 24+ opens a control socket at one fixed path in $HOME; a second server on
            # the same machine (another event, a test run) would take it over. Not used here.
            argv.append("--no-control-socket")
        os.execv(sys.executable, argv)  # gunicorn takes over this process (and its pid)


def _has_control_socket() -> bool:
    from gunicorn.config import Config

    return "control_socket_disable" in Config().settings
