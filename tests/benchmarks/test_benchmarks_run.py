"""Every benchmark in tests/benchmarks/ runs as shipped, and leaves nothing running.

Each ``*.py`` here (but this file and the shared benchkit.py) is run in a child process with
``--short`` on a fresh temporary data folder, as on a fresh clone: without REDIS_URL, and with
one (a ``redis-server`` of the test's own on a free port, so the benchmarks' cache clearing
and keys never touch the suite's Redis). It must exit 0 (a missed speed target does not count
in short mode: toy sizes judge nothing; a crash, a page answering an error or a server that
never came up does), print its targets, and leave no process behind: every process it
started carries a marker in its environment, and none may be alive once it has exited.

The Redis runs need REDIS_URL set (CI sets it) and redis-server installed; the benchmarks
that never load Django (no cache, no Celery, no settings; checked with ``-X importtime``) run
once; ``bench_web.py --abuse`` runs without Redis. Nothing is timed here: the benchmarks'
figures are for people to read. About 18 runs of 1-50 s each: 2-3 minutes on a quiet 2-core
machine, so the PostgreSQL pass of CI (DATABASE_URL set) skips them: the benchmarks build
their own SQLite databases either way.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.ports import free_port

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
NOT_BENCHMARKS = {"__init__.py", "benchkit.py", Path(__file__).name}
BENCHMARKS = sorted(p.name for p in HERE.glob("*.py") if p.name not in NOT_BENCHMARKS)
# no Django, so REDIS_URL cannot change what they do: run once, without it
PURE = {
    "bench_chances.py",
    "bench_formats.py",
    "bench_pairing.py",
    "bench_reports.py",
    "replay_2006.py",
}
TIMEOUT = 300  # seconds for one short run on a slow, busy machine; they take 2-40 s
MARKER = "GIBSON_BENCH_RUN"

RUNS = [pytest.param(name, (), False, id=f"{name}-no-redis") for name in BENCHMARKS]
RUNS.append(pytest.param("bench_web.py", ("--abuse",), False, id="bench_web.py-abuse-no-redis"))
RUNS += [
    pytest.param(name, (), True, id=f"{name}-redis") for name in BENCHMARKS if name not in PURE
]


def test_every_benchmark_is_run_here():
    """A new benchmark is covered without editing this file; its short mode is the contract."""
    assert len(BENCHMARKS) >= 10
    assert PURE <= set(BENCHMARKS)
    for name in BENCHMARKS:
        text = (HERE / name).read_text(encoding="utf-8")
        assert "--short" in text, f"{name} has no --short mode"


@pytest.fixture(scope="module")
def bench_redis(tmp_path_factory) -> Iterator[str]:
    """A Redis of this module's own, for the benchmarks run with REDIS_URL."""
    if not os.environ.get("REDIS_URL"):
        pytest.skip("REDIS_URL is not set: the benchmarks' Redis runs are for CI")
    if shutil.which("redis-server") is None:
        pytest.skip("redis-server is not installed")
    import socket

    port = free_port()
    process = subprocess.Popen(
        ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", ""]
        + ["--appendonly", "no", "--dir", str(tmp_path_factory.mktemp("redis"))],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                if time.monotonic() > deadline or process.poll() is not None:
                    raise RuntimeError(f"redis-server did not start on port {port}") from None
                time.sleep(0.05)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


def marked_processes(marker: str) -> list[int]:
    """Pids of live processes whose environment holds ``GIBSON_BENCH_RUN=marker``."""
    needle = f"{MARKER}={marker}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            environ = (entry / "environ").read_bytes()
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:  # gone meanwhile, or not ours to read
            continue
        if needle in environ.split(b"\0") and state != "Z":  # a zombie is already dead
            found.append(int(entry.name))
    return found


def child_env(data_dir: Path, marker: str, redis_url: str | None) -> dict[str, str]:
    """The environment of a fresh clone: none of the suite's database, Redis or settings."""
    drop = {"DATABASE_URL", "REDIS_URL", "GIBSON_CACHE_URL", "GIBSON_TESTING"}
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env.update(GIBSON_DATA_DIR=str(data_dir), PYTHONUNBUFFERED="1")
    env[MARKER] = marker
    if redis_url:
        env["REDIS_URL"] = redis_url
    return env


@pytest.mark.slow(seconds=15)  # each starts the benchmark's servers and measures: 3-30 s
@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="needs Linux's /proc")
@pytest.mark.skipif(
    bool(os.environ.get("DATABASE_URL")),
    reason="the benchmarks build their own SQLite databases whatever DATABASE_URL says: the "
    "suite's SQLite pass runs them, a PostgreSQL pass would only repeat it",
)
@pytest.mark.parametrize(("script", "extra", "with_redis"), RUNS)
def test_benchmark_runs_short_and_stops_what_it_started(
    script, extra, with_redis, request, tmp_path
):
    redis_url = request.getfixturevalue("bench_redis") if with_redis else None
    marker = uuid.uuid4().hex
    # the pure ones list their imports (-X importtime, on stderr): Django must not be among them
    python = [sys.executable, "-X", "importtime"] if script in PURE else [sys.executable]
    child = subprocess.Popen(
        [*python, str(HERE / script), "--short", *extra],
        cwd=REPO,
        env=child_env(tmp_path, marker, redis_url),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its group: a run that hangs is stopped whole
    )
    try:
        out, err = child.communicate(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        os.killpg(child.pid, signal.SIGTERM)  # the benchmark's own cleanup runs on SIGTERM
        try:
            out, err = child.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(child.pid, signal.SIGKILL)
            out, err = child.communicate()
        out = f"{out}\n(stopped after {TIMEOUT} s)"
    if script in PURE:
        imports = [line for line in err.splitlines() if line.startswith("import time:")]
        err = "\n".join(line for line in err.splitlines() if not line.startswith("import time:"))
        assert imports, "-X importtime listed nothing"
        django = [line for line in imports if re.search(r"\|\s*django(\.|$)", line)]
        assert not django, f"{script} loads Django, so it needs a run with REDIS_URL too"
    # whatever it started is given a moment to finish stopping, then must be gone
    deadline = time.monotonic() + 10
    left = marked_processes(marker)
    while left and time.monotonic() < deadline:
        time.sleep(0.2)
        left = marked_processes(marker)
    described = {}
    for pid in left:  # never leave them to the rest of the suite, whatever the verdict
        try:
            described[pid] = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")
            os.kill(pid, signal.SIGKILL)
        except (OSError, ProcessLookupError):
            pass
    tail = out[-3000:] + ("\n--- stderr ---\n" + err[-2000:] if err.strip() else "")
    assert child.returncode == 0, f"{script} {' '.join(extra)} exited {child.returncode}:\n{tail}"
    assert not left, f"{script} left processes running: {described}\n{tail}"
    assert re.search(r"\btargets?\b", out, re.IGNORECASE), f"{script} printed no target:\n{tail}"
