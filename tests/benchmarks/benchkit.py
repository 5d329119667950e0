"""What the benchmarks here share: ``--short``, servers started and always stopped, the verdict.

``--short`` runs a benchmark at its smallest sizes in seconds (tests/benchmarks/
test_benchmarks_run.py runs every one so, with and without REDIS_URL): every figure, anchor
and target is still printed, but a missed target does not set the exit status, since figures
at toy sizes judge nothing. Only a benchmark that could not measure (a crash, a page answering
an error, a server that never came up) exits non-zero.

Servers and helpers are started in process groups of their own, on free loopback ports, and
stopped (the whole group: gunicorn's workers too) in ``finally`` blocks, at exit, on SIGTERM,
SIGHUP or Ctrl-C, and, on Linux, by the kernel when the benchmark itself is killed outright
(PR_SET_PDEATHSIG). A benchmark never leaves a gunicorn, runserver or writer behind.
"""

from __future__ import annotations

import argparse
import atexit
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

# a benchmark run as a script imports this module by its plain name (``import benchkit``),
# with only its own folder on the path: the repository goes last, so the tree bench_versions
# puts first for an older commit still comes first
if str(Path(__file__).resolve().parents[2]) not in sys.path:
    sys.path.append(str(Path(__file__).resolve().parents[2]))

from tests.ports import free_port  # noqa: E402,F401 (the benchmarks import it from here)

SHORT_HELP = (
    "smallest sizes, a few seconds: print every figure, anchor and target, but exit 0 "
    "on a missed target (exit 1 only when something could not be measured)"
)

_children: list[subprocess.Popen] = []
_installed = False


def add_short(parser: argparse.ArgumentParser) -> None:
    """``--short`` on the benchmark's parser; from here on SIGTERM ends it through its finally
    blocks (temporary folders removed) rather than on the spot."""
    parser.add_argument("--short", action="store_true", help=SHORT_HELP)
    _install()


def _die_with_parent() -> None:  # runs in the child between fork and exec
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass


def _on_signal(signum: int, frame: object) -> None:
    # an exception, so every finally block runs and atexit stops the children
    raise SystemExit(128 + signum)


def _install() -> None:
    global _installed
    if _installed:
        return
    _installed = True
    atexit.register(stop_all)
    for sig in (signal.SIGTERM, signal.SIGHUP):
        if signal.getsignal(sig) in (signal.SIG_DFL, None):
            signal.signal(sig, _on_signal)


def spawn(argv: Sequence[str], **kwargs: object) -> subprocess.Popen:
    """``Popen(argv)`` in a process group of its own, stopped by ``stop_all`` whatever happens."""
    _install()
    proc = subprocess.Popen(
        list(argv),
        start_new_session=True,
        preexec_fn=_die_with_parent,  # noqa: PLW1509 - no threads run beside it
        **kwargs,  # type: ignore[arg-type]
    )
    _children.append(proc)
    return proc


def stop(proc: subprocess.Popen, timeout: float = 20.0) -> None:
    """SIGTERM to the process's group (gunicorn stops its workers), SIGKILL if it lingers."""
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            pass
    try:  # whatever of the group outlived its leader (a worker gunicorn had not reaped)
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    if proc.poll() is None:
        proc.wait(timeout=10)
    if proc in _children:
        _children.remove(proc)


def stop_all() -> None:
    """Stop every process ``spawn`` started and is still running, newest first."""
    for proc in reversed(list(_children)):
        try:
            stop(proc)
        except Exception as exc:  # noqa: BLE001 - stop the others regardless
            print(f"could not stop process {proc.pid}: {exc}", file=sys.stderr)


def wait_ready(port: int, proc: subprocess.Popen, timeout: float = 90.0) -> None:
    """Until the server on ``port`` answers ``GET /healthz`` with any HTTP status.

    Each attempt waits up to 10 s for the answer: /healthz checks the database, Redis and
    the Celery worker, and a first request also loads the URLs and views.
    """
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"server on port {port} exited with status {proc.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
                s.sendall(b"GET /healthz HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
                if s.recv(64).startswith(b"HTTP/1."):
                    return
        except OSError:
            pass
        time.sleep(0.2)
    raise SystemExit(f"server on port {port} did not answer within {timeout:.0f} s")


def verdict(missed: Sequence[str], broken: Sequence[str] = (), *, short: bool) -> int:
    """Print what was missed and what could not be measured; the exit status (see above)."""
    for line in broken:
        print(f"BROKEN: {line}")
    for line in missed:
        print(f"MISSED: {line}")
    if not missed and not broken:
        print("all targets met")
    elif missed and short:
        print("(--short: sizes too small to judge; targets reported, not enforced)")
    return exit_status(missed, broken, short=short)


def exit_status(missed: Sequence[str], broken: Sequence[str] = (), *, short: bool) -> int:
    """``verdict``'s exit status without its lines (``--json`` keeps stdout pure JSON)."""
    return 1 if broken or (missed and not short) else 0


def migrate() -> None:
    """This process's database migrated, after ``django.setup()``: a fresh SQLite file is
    first copied from the suite's migrated template (tests/migrated.py, built once per set of
    migrations), which makes ``migrate`` a check of seconds less; any other database is
    migrated as usual."""
    from pathlib import Path

    from django.conf import settings
    from django.core.management import call_command

    import tournament

    database = settings.DATABASES["default"]
    name = Path(str(database.get("NAME", "")))
    repo = Path(__file__).resolve().parents[2]
    # only for this tree's own code: bench_versions measures an older tree's code with these
    # helpers, and that code must get its own migrations, not this tree's schema
    ours = Path(tournament.__file__).resolve().parents[1] == repo
    if ours and database["ENGINE"].endswith("sqlite3") and name.suffix and not name.exists():
        if str(repo) not in sys.path:
            sys.path.insert(0, str(repo))
        from tests.migrated import migrated_sqlite

        migrated_sqlite(name)
    call_command("migrate", interactive=False, verbosity=0)
