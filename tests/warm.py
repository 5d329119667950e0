"""Management commands in processes of their own, without paying Django's start each time.

The tests that drive Gibson in other processes (venue mode's two sites) run some twenty to
fifty ``manage.py`` commands each, and each fresh interpreter spends about a second (several
under load) importing Django and Gibson and setting them up before the command does anything.

A *warm* parent does that once per site, in the site's own environment, and then forks a
child for each command: the child is a process of its own (its own database connection, its
own settings and module state, an exit status, stdout and stderr as files), exactly as
``python manage.py ...`` would be, minus the start. The parent never opens a database
connection or starts a thread (checked before it serves), so every child starts as clean as a
fresh process. A test whose subject is the start itself (or a signal to a running command)
still runs ``manage.py`` as a real, separate program.

Run as ``python -m tests.warm`` with the site's environment; the test side is ``Warm``.
"""

from __future__ import annotations

import atexit
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

# what the children are most likely to import: loaded once in the parent
PRELOAD = (
    "tournament.services",
    "tournament.models",
    "pairings.services.rounds",
    "tournament.sync.push",
    "django.core.management.commands.shell",
)


def _exit_code(exc: SystemExit) -> int:
    """The status ``sys.exit(x)`` gives a real process: None is 0, a number itself, anything
    else printed to stderr and 1."""
    if exc.code is None:
        return 0
    if isinstance(exc.code, int):
        return exc.code
    print(exc.code, file=sys.stderr)
    return 1


def _child(argv: list[str], out: str, err: str, module: str = "") -> None:
    """In the forked child: stdin empty, stdout and stderr to the files (appended to when they
    are one, a server's log), ``manage.py argv``, then the process ends with the command's
    exit status (no return). With ``module``: ``python -m module argv`` instead."""
    code = 1
    try:
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        flags = os.O_WRONLY | os.O_CREAT | (os.O_APPEND if out == err else os.O_TRUNC)
        for fd, path in ((1, out), (2, err)):
            opened = os.open(path, flags, 0o600)
            os.dup2(opened, fd)
            os.close(opened)
        from django.core.management import execute_from_command_line

        sys.argv = [module or "manage.py", *argv]
        try:
            if module:
                import runpy

                runpy.run_module(module, run_name="__main__", alter_sys=True)
            else:
                execute_from_command_line(sys.argv)
            code = 0
        except SystemExit as exc:
            code = _exit_code(exc)
        except BaseException:  # noqa: BLE001 (as an uncaught exception ends python: 1)
            traceback.print_exc()
            code = 1
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:  # noqa: BLE001
                pass
        os._exit(code)


def serve() -> None:
    """The parent: set Django up as manage.py does, preload, then fork a child per request.

    A request is a JSON line on stdin. ``{"argv": [...], "out": path, "err": path}`` runs a
    command: the answer is a line ``started PID`` at once, then ``done STATUS`` when it ends (a
    negative status: the signal that ended it, as subprocess reports it). ``{"spawn": [...],
    "log": path}`` starts one that runs on (a server; with ``"module"``, ``python -m module``
    rather than ``manage.py``): ``started PID``, and ``{"status": PID}`` answers ``running``
    or ``done STATUS``."""
    replies = os.dup(1)
    os.dup2(2, 1)  # whatever set-up prints goes to the log, never into the answers
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tournament.settings")
    import importlib

    import django

    django.setup()
    from django.core.management import get_commands, load_command_class

    for name, app in get_commands().items():
        if app.split(".")[0] in ("tournament", "pairings", "ratings"):
            load_command_class(app, name)
    for module in PRELOAD:
        importlib.import_module(module)
    # every command's system checks import the URLconf (and with it every view: ~0.6 s), the
    # template tag libraries...: run once here, what they import is loaded for every child
    from django.core.checks import run_checks

    run_checks()
    from django.db import connections

    opened = [c.alias for c in connections.all(initialized_only=True) if c.connection]
    assert not opened, f"the warm parent opened a database connection ({opened}): not forkable"
    assert threading.active_count() == 1, f"the warm parent runs threads: {threading.enumerate()}"
    sys.stdout.flush()
    sys.stderr.flush()
    os.write(replies, b"ready\n")
    ended: dict[int, int] = {}  # spawned children's statuses, once reaped
    for line in sys.stdin.buffer:
        request = json.loads(line)
        if "status" in request:
            pid = request["status"]
            if pid not in ended:
                reaped, status = os.waitpid(pid, os.WNOHANG)
                if reaped:
                    ended[pid] = os.waitstatus_to_exitcode(status)
            answer = f"done {ended[pid]}" if pid in ended else "running"
            os.write(replies, f"{answer}\n".encode())
            continue
        spawn = "spawn" in request
        argv, out, err = (
            (request["spawn"], request["log"], request["log"])
            if spawn
            else (request["argv"], request["out"], request["err"])
        )
        pid = os.fork()
        if pid == 0:
            os.close(replies)
            _child(argv, out, err, request.get("module", ""))
        os.write(replies, f"started {pid}\n".encode())
        if not spawn:
            _, status = os.waitpid(pid, 0)
            os.write(replies, f"done {os.waitstatus_to_exitcode(status)}\n".encode())


class Warm:
    """The test side: one warm parent for an environment, started on the first command and
    again whenever the environment it was started with has changed since."""

    def __init__(self, cwd: Path, folder: Path) -> None:
        """Commands run in ``cwd``; their output and the parent's log go in ``folder``."""
        self.cwd = cwd
        self.folder = folder
        self.folder.mkdir(parents=True, exist_ok=True)
        self.log = folder / "warm.log"
        self.process: subprocess.Popen | None = None
        self.env: dict[str, str] = {}
        self.count = 0
        self.spawned: list[Spawned] = []

    def _start(self, env: dict[str, str]) -> None:
        self.close()
        self.spawned = []
        self.env = dict(env)
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tests.warm"],
            cwd=self.cwd,
            env=self.env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.log.open("a"),
            bufsize=0,  # unbuffered: select() then sees every answer line as it comes
        )
        if self._line(300) != "ready":
            raise AssertionError(f"the warm parent did not start: {self.log.read_text()}")

    def _line(self, timeout: float) -> str:
        assert self.process is not None and self.process.stdout is not None
        ready, _, _ = select.select([self.process.stdout], [], [], timeout)
        if not ready:
            return ""
        return self.process.stdout.readline().decode().strip()

    def run(
        self, argv: list[str], env: dict[str, str], timeout: float
    ) -> subprocess.CompletedProcess:
        """``manage.py argv`` in a child of the warm parent, as ``subprocess.run`` would answer
        (text stdout and stderr); TimeoutExpired (the child killed) after ``timeout``."""
        self.count += 1
        out, err = self.folder / f"{self.count}.out", self.folder / f"{self.count}.err"
        self._request({"argv": argv, "out": str(out), "err": str(err)}, env)
        started = self._line(60)
        if not started.startswith("started "):
            raise AssertionError(f"the warm parent did not fork: {self.log.read_text()}")
        deadline = time.monotonic() + timeout
        done = self._line(max(0.0, deadline - time.monotonic()))
        if not done:
            os.kill(int(started.split()[1]), signal.SIGKILL)
            self._line(60)
            raise subprocess.TimeoutExpired(["manage.py", *argv], timeout)
        stdout, stderr = out.read_text(), err.read_text()
        out.unlink()
        err.unlink()
        return subprocess.CompletedProcess(
            ["manage.py", *argv], int(done.split()[1]), stdout, stderr
        )

    def spawn(self, argv: list[str], env: dict[str, str], log: Path, module: str = "") -> Spawned:
        """``manage.py argv`` (``python -m module argv`` with ``module``) left running in a child
        (a server), its output appended to ``log``: a handle with Popen's ``poll``, ``wait``,
        ``send_signal`` and ``kill``."""
        self._request({"spawn": argv, "log": str(log), "module": module}, env)
        started = self._line(60)
        if not started.startswith("started "):
            raise AssertionError(f"the warm parent did not fork: {self.log.read_text()}")
        self.spawned.append(Spawned(self, int(started.split()[1]), argv))
        self.spawned[-1].log = log
        return self.spawned[-1]

    def status(self, pid: int) -> int | None:
        """A spawned child's exit status, None while it runs."""
        assert self.process is not None and self.process.stdin is not None
        self.process.stdin.write(json.dumps({"status": pid}).encode() + b"\n")
        answer = self._line(60)
        if answer == "running":
            return None
        if not answer.startswith("done "):
            raise AssertionError(f"the warm parent did not answer: {self.log.read_text()}")
        return int(answer.split()[1])

    def ready(self, env: dict[str, str]) -> Warm:
        """The parent started for ``env`` now, if it is not (a test that times a command must
        not time the parent's start)."""
        if self.process is None or self.process.poll() is not None or env != self.env:
            running = [child.pid for child in self.spawned if child.poll() is None]
            assert not running, f"the environment changed under running children {running}"
            self._start(env)
        return self

    def _request(self, request: dict, env: dict[str, str]) -> None:
        self.ready(env)
        assert self.process is not None and self.process.stdin is not None
        self.process.stdin.write(json.dumps(request).encode() + b"\n")

    def close(self) -> None:
        """End the warm parent (its stdin closed: it finishes its loop and exits)."""
        if self.process is not None:
            if self.process.stdin is not None:
                self.process.stdin.close()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
            if self.process.stdout is not None:
                self.process.stdout.close()
            self.process = None


class Spawned:
    """A command left running in a child of a warm parent: the part of ``subprocess.Popen``
    a server's tests use (the child is the warm parent's, so its status is asked there)."""

    def __init__(self, warm: Warm, pid: int, argv: list[str]) -> None:
        self.warm = warm
        self.pid = pid
        self.args = ["manage.py", *argv]
        self.log: Path | None = None
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None:
            self.returncode = self.warm.status(self.pid)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        deadline = time.monotonic() + (timeout if timeout is not None else 3600)
        while self.poll() is None:
            if time.monotonic() > deadline:
                raise subprocess.TimeoutExpired(self.args, timeout or 3600)
            time.sleep(0.02)
        assert self.returncode is not None
        return self.returncode

    def send_signal(self, sig: int) -> None:
        if self.poll() is None:  # not yet reaped: the pid is still this child's
            os.kill(self.pid, sig)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)


_POOL: dict[tuple[tuple[str, str], ...], Warm] = {}


def warm_for(env: dict[str, str]) -> Warm:
    """The warm parent of this environment in this test process: started at its first command,
    kept for the next tests with the same environment (a session's shared database), ended
    when the test process ends."""
    key = tuple(sorted(env.items()))
    if key not in _POOL:
        folder = Path(tempfile.mkdtemp(prefix="gibson-warm-"))
        _POOL[key] = Warm(REPO, folder)
        atexit.register(shutil.rmtree, folder, True)
        atexit.register(_POOL[key].close)
    return _POOL[key]


def manage(env: dict[str, str], *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    """``manage.py args`` in a process of its own with ``env``, forked from the warm parent of
    that environment: what ``subprocess.run([python, "manage.py", *args], capture_output=True,
    text=True)`` answers, without Django's start each time."""
    return warm_for(env).run(list(args), env, timeout)


if __name__ == "__main__":
    serve()
