"""``manage.py serve``: the site for real, under gunicorn with several worker processes.

``serve_demo`` is Django's development server: one process, fine for a laptop, not for a
hundred phones refreshing standings at the end of a round. This command prepares what a server
needs and then becomes gunicorn (the process is replaced, so a service manager's stop signal
reaches gunicorn directly and it finishes the requests in flight):

1. refuses a busy or malformed address before printing anything;
2. migrates the database (nothing to do on an up-to-date one);
3. collects the static files into STATIC_ROOT, which whitenoise serves;
4. compiles the languages' catalogues (locale/, docs/languages.md);
5. builds the manual served at /docs/ when it is missing or older than docs/ (said and skipped
   when MkDocs is not installed);
6. starts gunicorn on ``--addr`` with ``--workers`` processes.

With ``--stream HOST:PORT`` the live stream (``serve_stream``: server-sent events that tell
public pages and overlays of each write at once) runs beside gunicorn, in a process of its own
so the open streams hold none of gunicorn's workers; pages find it on that port of their own
host, or through nginx at ``/t/SLUG/live/`` with ``--front``.

With ``--front HOST:PORT`` nginx answers the visitors there (static files, and a cache of
public answers kept a second, a big division's player pages longer:
tournament/management/front.py, tournament/web/front.py) and gunicorn listens on
``--addr``, a loopback address, behind it. The console's pages and the API's writes (the
directors' and scorekeepers' requests) go to a second, small gunicorn of their own
(``--desk-workers``, 2 by default, on ``--desk-addr``): a crowd of phones queueing on the
public pool never makes the desk wait, and ``--app-nice`` lowers the public pool only. This
process then stays, running them all, and stops them all when it is stopped or when one ends.
"""

from __future__ import annotations

import importlib.util
import os
import secrets
import subprocess
import sys
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management import CommandError, call_command
from django.core.management.base import CommandParser

from ...catalogues import compile_catalogues
from ...siteurl import is_loopback
from ..base import GibsonCommand
from ..front import check_config, empty_cache, find_nginx, nginx_argv, supervise, write_config
from ..front_refresh import CardRefresher
from ..serving import announce_site_url, check_free, ensure_manual, split_addr


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
        parser.add_argument(
            "--front",
            metavar="HOST:PORT",
            default=None,
            help="nginx in front on HOST:PORT (the address visitors open): static files and a "
            "one-second cache of public pages; gunicorn then listens on --addr, a loopback "
            "address",
        )
        parser.add_argument(
            "--stream",
            metavar="HOST:PORT",
            default=os.environ.get("GIBSON_STREAM_ADDR") or None,
            help="run the live stream (server-sent events to public pages and overlays) on "
            "HOST:PORT beside gunicorn (default GIBSON_STREAM_ADDR; none if unset); behind "
            "--front, nginx passes /t/SLUG/live/ to it",
        )
        parser.add_argument(
            "--desk-workers",
            type=int,
            default=2,
            metavar="N",
            help="with --front: N worker processes of their own for the console and the API's "
            "writes (the directors' and scorekeepers' requests), on --desk-addr, so a public "
            "crowd never makes the desk wait (default 2; 0: one pool for everything)",
        )
        parser.add_argument(
            "--desk-addr",
            metavar="HOST:PORT",
            default=None,
            help="with --front: the loopback address of the desk's workers (default: --addr's "
            "host, the port after --addr's)",
        )
        parser.add_argument(
            "--app-nice",
            type=int,
            default=0,
            metavar="N",
            help="with --front: gunicorn's CPU priority lowered by N (0-19), so nginx answers "
            "the crowd first when the machine is saturated (the desk then waits longer)",
        )

    def handle(self, *args: Any, **opts: Any) -> None:
        addr, front = opts["addr"], opts["front"]
        nginx = _front_checks(addr, front) if front else None
        app_nice = opts["app_nice"]
        if not 0 <= app_nice <= 19 or (app_nice and not front):
            raise CommandError(f"--app-nice {app_nice}: give 0 to 19, with --front")
        check_free(addr)  # before anything is printed: no "serving" line for a dead server
        stream = opts["stream"]
        if stream:
            check_free(stream)
            if split_addr(stream) in (split_addr(addr), split_addr(front or addr)):
                raise CommandError(f"--stream {stream}: give a port of its own")
            # the pages' script opens the stream there (a page cached whole names it too)
            os.environ.setdefault(
                "GIBSON_STREAM_URL", "/" if front else f":{split_addr(stream)[1]}"
            )
        desk = _desk_addr(addr, opts["desk_addr"], opts["desk_workers"]) if front else None
        if desk and stream and split_addr(desk) == split_addr(stream):
            raise CommandError(
                f"--stream {stream}: the desk's workers listen there; give the stream another "
                "port (or the desk one with --desk-addr)"
            )
        raw = opts["workers"]
        workers = _workers(str(raw).strip(), "--workers") if raw is not None else default_workers()
        if importlib.util.find_spec("gunicorn") is None:
            raise CommandError("gunicorn is not installed: install the project again")
        # gunicorn inherits the environment; behind the front, phones open the front's address
        site_url = announce_site_url(front or addr, self.stderr)
        call_command("migrate", interactive=False, verbosity=0)
        call_command("collectstatic", interactive=False, verbosity=0)
        compile_catalogues()  # the languages' .mo files (never in git; docs/languages.md)
        manual = ensure_manual(f"http://{front or addr}")
        if nginx is not None:
            return self.serve_front(
                nginx,
                front,
                addr,
                workers,
                site_url,
                app_nice,
                stream,
                manual,
                desk,
                opts["desk_workers"],
            )
        if stream:
            return self.serve_with_stream(addr, stream, workers, site_url, manual)
        self.stdout.write(
            f"Gibson is serving on http://{addr}/ with {workers} worker processes (gunicorn); "
            f"health: http://{addr}/healthz\n"
            f"{manual}\n"
            f"Scorecard QR codes open {site_url}\n"
            f"Background jobs need a worker too when REDIS_URL is set: celery -A tournament worker"
        )
        _venue_sync(self.stdout)
        self.stdout.flush()
        sys.stderr.flush()
        os.execv(sys.executable, gunicorn_argv(addr, workers))  # gunicorn takes over (and its pid)

    def serve_with_stream(
        self, addr: str, stream: str, workers: int, site_url: str, manual: str = ""
    ) -> None:
        """gunicorn on ``addr`` and the live stream on ``stream``, until stopped."""
        self.stdout.write(
            f"Gibson is serving on http://{addr}/ with {workers} worker processes (gunicorn) "
            f"and its live stream on http://{stream}/t/SLUG/live/; health: http://{addr}/healthz\n"
            f"{manual}\n"
            f"Scorecard QR codes open {site_url}\n"
            f"Background jobs need a worker too when REDIS_URL is set: celery -A tournament worker"
        )
        self.stdout.flush()
        sys.stderr.flush()
        status = supervise(None, gunicorn_argv(addr, workers), self.stderr, 0, stream_argv(stream))
        if status:
            raise SystemExit(status)

    def serve_front(
        self,
        nginx: str,
        front: str,
        addr: str,
        workers: int,
        site_url: str,
        app_nice: int = 0,
        stream: str | None = None,
        manual: str = "",
        desk: str | None = None,
        desk_workers: int = 0,
    ) -> None:
        """nginx on ``front`` and gunicorn on ``addr`` behind it (and the desk's own gunicorn
        on ``desk``), until stopped."""
        os.environ["GIBSON_BEHIND_PROXY"] = "1"  # the client is the address nginx appends
        os.environ["GIBSON_FRONT_CACHE"] = "1"  # public answers say how long nginx keeps them
        token = secrets.token_hex(16)  # the card refresher's, for this run only
        paths = write_config(front, addr, stream=stream, desk=desk, refresh_token=token)
        check_config(nginx, paths)
        empty_cache()  # an earlier run's pages: never served again
        self.stdout.write(
            f"Gibson is serving on http://{front}/ through nginx (static files, public pages "
            f"kept a second, player pages refreshed in turn, a second per 10 players) in front of "
            f"gunicorn on {addr} with {workers} worker "
            f"processes{_desk_words(desk, desk_workers)}; health: http://{front}/healthz\n"
            f"nginx configuration: {paths.conf} (log: {paths.error_log})\n"
            f"{manual}\n"
            f"Scorecard QR codes open {site_url}\n"
            f"Background jobs need a worker too when REDIS_URL is set: celery -A tournament worker"
        )
        self.stdout.flush()
        sys.stderr.flush()
        desk_argv = gunicorn_argv(desk, desk_workers) if desk is not None else None
        status = supervise(
            nginx_argv(nginx, paths),
            gunicorn_argv(addr, workers),
            self.stderr,
            app_nice,
            stream_argv(stream) if stream else None,
            desk_argv,
            CardRefresher(front, token, paths.cards_log),
        )
        if status:
            raise SystemExit(status)


def _desk_addr(addr: str, given: str | None, desk_workers: int) -> str | None:
    """The desk pool's address (``--desk-addr``, else the port after ``--addr``'s), checked
    free and on loopback like ``--addr``; None with ``--desk-workers 0``."""
    if not 0 <= desk_workers <= 64:
        raise CommandError(f"--desk-workers {desk_workers}: give 0 to 64 worker processes")
    if desk_workers == 0:
        return None
    if given is None:
        host, port = split_addr(addr)
        if port >= 65535:
            raise CommandError(f"--addr {addr}: no port after it for the desk: give --desk-addr")
        given = f"[{host}]:{port + 1}" if ":" in host else f"{host}:{port + 1}"
    host, _port = split_addr(given)
    if not is_loopback(host):
        raise CommandError(f"--desk-addr {given}: the desk's workers listen on a loopback address")
    if split_addr(given) == split_addr(addr):
        raise CommandError(f"--desk-addr {given} and --addr {addr}: give two different ports")
    try:
        check_free(given)
    except CommandError as exc:
        raise CommandError(
            str(exc).replace("--addr", "--desk-addr", 1)
            + " (or give --desk-addr, or --desk-workers 0)"
        ) from None
    return given


def _desk_words(desk: str | None, desk_workers: int) -> str:
    if desk is None:
        return ""
    return f", and the console's {desk_workers} worker processes of their own on {desk}"


def _front_checks(addr: str, front: str) -> str:
    """Refuse what cannot work before anything is prepared: a busy or malformed front
    address, gunicorn reachable from the room (it trusts X-Forwarded-For behind the front, so
    anyone reaching it directly could claim any address), nginx missing. Returns nginx."""
    try:
        check_free(front)
    except CommandError as exc:
        raise CommandError(str(exc).replace("--addr", "--front", 1)) from None
    host, _port = split_addr(addr)
    if not is_loopback(host):
        raise CommandError(
            f"--addr {addr}: with --front, gunicorn listens on a loopback address (e.g. "
            "127.0.0.1:8000); visitors reach nginx on the --front address"
        )
    if split_addr(front) == split_addr(addr):
        raise CommandError(f"--front {front} and --addr {addr}: give two different ports")
    nginx = find_nginx()
    if nginx is None:
        raise CommandError(
            "--front needs nginx, which is not installed (Debian, Ubuntu: apt-get install "
            "nginx); or serve without --front"
        )
    return nginx


def gunicorn_argv(addr: str, workers: int) -> list[str]:
    """gunicorn serving the site on ``addr`` with ``workers`` processes."""
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
    return argv


def stream_argv(stream: str) -> list[str]:
    """The live stream's process (``manage.py serve_stream``) on ``stream``."""
    manage = str(settings.BASE_DIR / "manage.py")
    return [sys.executable, manage, "serve_stream", "--addr", stream]


def _has_control_socket() -> bool:
    from gunicorn.config import Config

    return "control_socket_disable" in Config().settings


def _venue_sync(out: Any) -> None:
    """Venue mode: on a laptop holding a tournament taken from a hosted site, ``venue_sync``
    runs beside gunicorn (no second terminal); it is in this process group, so the
    terminal's Ctrl-C or the service manager's stop ends it with the server."""
    from tournament.models import VenueTake

    if not VenueTake.objects.filter(released__isnull=True).exists():
        return
    manage = Path(__file__).resolve().parents[3] / "manage.py"
    every = f"{settings.VENUE_PUSH_SECONDS:g}"
    subprocess.Popen([sys.executable, str(manage), "venue_sync", "--every", every])
    out.write(f"Venue mode: the tournaments taken here are pushed every {every} s (venue_sync).")
