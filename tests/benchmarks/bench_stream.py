"""The live stream (issue 37) under a crowd: N pages listening on loopback, each result
delivered to all of them, beside what the same crowd costs by polling, in the same run.

Run: python tests/benchmarks/bench_stream.py [--clients 2000] [--results 5] [--short]

Builds a published division (SQLite, a fresh data folder), starts ``manage.py serve_stream``
and gunicorn (``manage.py serve``, 2 workers) on free loopback ports, then:

- stream: opens N EventSource-like connections in this process (asyncio), records results
  through the service here (as the console does), and times each result's arrival at every
  client; the stream process's CPU (from /proc) per result, its CPU when idle (the version
  poll and heartbeats) and its resident memory per client;
- polling: what the same pages cost polling every 15 s with their ETag (a 304 while nothing
  changed, as htmx's polls are answered today): gunicorn's CPU per conditional request,
  hence per minute for N clients, and the delay a result waits for (half the interval on
  average, the whole interval at worst);
- both: each page then fetches the new version once (gunicorn's CPU per cached page times N:
  the same either way; behind ``serve --front`` nginx answers all but one a second).

Targets: every client receives each result within 2 s (p100), the stream's CPU per result
below the polling's CPU per minute for the same crowd, and at most 64 KB of server memory per
client. With REDIS_URL set the stream hears of each write through Redis instead of its
poll. ``--short`` (50 clients, 2 results) reports the targets without enforcing them.
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from tests.benchmarks.bench_console import build_division, setup_django  # noqa: E402
from tests.benchmarks.benchkit import (  # noqa: E402
    add_short,
    free_port,
    spawn,
    stop_all,
    verdict,
    wait_ready,
)

DELIVERY_TARGET_S = 2.0
MEMORY_TARGET_KB = 64.0
POLL_SECONDS = 15.0
TICK = os.sysconf("SC_CLK_TCK")
PAGE = os.sysconf("SC_PAGE_SIZE")


def cpu_seconds(pids: list[int]) -> float:
    """User and system CPU of the processes, from /proc (Linux)."""
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except FileNotFoundError:
            continue
        total += int(fields[11]) + int(fields[12])
    return total / TICK


def rss_kb(pid: int) -> float:
    return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * PAGE / 1024


def children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except (FileNotFoundError, ProcessLookupError):
                continue
            if int(stat[1]) == pid:
                found.append(int(entry.name))
    return found


class Crowd:
    """N stream clients in one asyncio loop (a thread of this process): when each saw each id."""

    def __init__(self, port: int, path: str, n: int) -> None:
        self.port, self.path, self.n = port, path, n
        self.seen: dict[int, list[float]] = {}
        self.connected = 0
        self.failed = 0
        self.loop = asyncio.new_event_loop()
        self.ready = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.stop_event: asyncio.Event | None = None

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.run_until_complete(self._main())

    async def _client(self, opened: asyncio.Semaphore) -> None:
        try:
            async with opened:
                reader, writer = await asyncio.open_connection("127.0.0.1", self.port)
                writer.write(f"GET {self.path} HTTP/1.1\r\nHost: bench\r\n\r\n".encode())
                await reader.readuntil(b"retry: ")
            self.connected += 1
        except OSError:
            self.failed += 1
            return
        if self.connected + self.failed == self.n:
            self.ready.set()
        assert self.stop_event is not None
        buffer = b""
        while not self.stop_event.is_set():
            chunk = await reader.read(4096)
            if not chunk:
                break
            buffer += chunk
            while b"\n\n" in buffer:
                message, buffer = buffer.split(b"\n\n", 1)
                if message.startswith(b"id: "):
                    change = int(message[4:].split(b"\n", 1)[0])
                    self.seen.setdefault(change, []).append(time.monotonic())
        writer.close()

    async def _main(self) -> None:
        self.stop_event = asyncio.Event()
        opened = asyncio.Semaphore(200)  # the listen backlog is not flooded at once
        tasks = [asyncio.create_task(self._client(opened)) for _ in range(self.n)]
        await self.stop_event.wait()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    def start(self, timeout: float) -> None:
        self.thread.start()
        if not self.ready.wait(timeout):
            raise SystemExit(f"only {self.connected} of {self.n} clients connected in {timeout} s")

    def close(self) -> None:
        if self.stop_event is not None:
            self.loop.call_soon_threadsafe(self.stop_event.set)
        self.thread.join(10)


def poll_cost(
    port: int, path: str, requests: int, pids: list[int], conditional: bool = True
) -> tuple[float, float]:
    """gunicorn's CPU ms per GET of the cached page (conditional: answered 304 with its
    ETag; else the whole page, 200), and the requests' p50 ms."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("GET", path)
    first = conn.getresponse()
    first.read()
    etag = first.getheader("ETag") if conditional else None
    conn.close()
    times = []
    before = cpu_seconds(pids)

    def worker(count: int) -> None:
        for _ in range(count):
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            started = time.perf_counter()
            c.request("GET", path, headers={"If-None-Match": etag} if etag else {})
            answer = c.getresponse()
            answer.read()
            times.append(time.perf_counter() - started)
            c.close()
            if answer.status not in (200, 304):
                raise SystemExit(f"{path} answered {answer.status}")

    threads = [threading.Thread(target=worker, args=(requests // 4,)) for _ in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    spent = cpu_seconds(pids) - before
    return spent * 1000 / max(1, len(times)), statistics.median(times) * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=2000)
    parser.add_argument("--results", type=int, default=5)
    parser.add_argument("--players", type=int, default=100)
    add_short(parser)
    args = parser.parse_args()
    if args.short:
        args.clients, args.results, args.players = 50, 2, 20
    missed: list[str] = []
    broken: list[str] = []
    with tempfile.TemporaryDirectory(prefix="gibson-bench-stream-") as data:
        try:
            run(args, data, missed, broken)
        finally:
            stop_all()
    return verdict(missed, broken, short=args.short)


def run(args: argparse.Namespace, data: str, missed: list[str], broken: list[str]) -> None:
    setup_django(data)
    from tournament import services
    from tournament.selectors import missing_games

    t, d = build_division("Stream", args.players, 3)
    pending = list(missing_games(d, 3))
    if len(pending) < args.results:
        raise SystemExit(f"only {len(pending)} games left to record")
    env = dict(os.environ, GIBSON_DATA_DIR=data, GIBSON_LOG_LEVEL="ERROR")
    stream_port, app_port = free_port(), free_port()
    manage = [sys.executable, str(REPO / "manage.py")]
    stream = spawn([*manage, "serve_stream", "--addr", f"127.0.0.1:{stream_port}"], env=env)
    app = spawn(
        [*manage, "serve", "--addr", f"127.0.0.1:{app_port}", "--workers", "2"],
        env=env,
        stdout=open(os.devnull, "w"),  # noqa: SIM115 - closed with the process
        stderr=open(os.devnull, "w"),  # noqa: SIM115
    )
    wait_ready(stream_port, stream)
    wait_ready(app_port, app)
    how = "Redis" if os.environ.get("REDIS_URL") else "version poll, 4/s"

    rss_before = rss_kb(stream.pid)
    crowd = Crowd(stream_port, f"/t/{t.slug}/live/", args.clients)
    started = time.monotonic()
    crowd.start(timeout=120)
    connect_s = time.monotonic() - started
    if crowd.failed:
        broken.append(f"{crowd.failed} of {args.clients} clients could not connect")
    time.sleep(1.0)
    per_client_kb = (rss_kb(stream.pid) - rss_before) / max(1, crowd.connected)

    idle_window = 3.0
    idle_before = cpu_seconds([stream.pid])
    time.sleep(idle_window)
    idle_per_min = (cpu_seconds([stream.pid]) - idle_before) * 1000 * 60 / idle_window

    delays: list[float] = []
    per_result_ms: list[float] = []
    for game in pending[: args.results]:
        cpu_before = cpu_seconds([stream.pid])
        written = time.monotonic()
        services.record_result(d, 3, game.player1.number, 400, 350)
        from tournament.models import AuditEvent

        change = AuditEvent.objects.filter(tournament=t).order_by("-id").values_list("id")[0][0]
        deadline = written + 10
        while len(crowd.seen.get(change, ())) < crowd.connected and time.monotonic() < deadline:
            time.sleep(0.01)
        arrivals = crowd.seen.get(change, [])
        if len(arrivals) < crowd.connected:
            broken.append(f"result {change}: {len(arrivals)} of {crowd.connected} clients in 10 s")
        delays.append(max(arrivals) - written if arrivals else float("inf"))
        time.sleep(0.3)  # the poll's quarter second after the last arrival, in the window
        per_result_ms.append((cpu_seconds([stream.pid]) - cpu_before) * 1000)
    crowd.close()

    gunicorn = [app.pid, *children(app.pid)]
    gunicorn = [p for p in gunicorn if p != app.pid] or gunicorn
    page = f"/t/{t.slug}/{d.slug}/standings/"
    poll_requests = 40 if args.short else 400
    poll_ms, poll_p50 = poll_cost(app_port, page, poll_requests, gunicorn)
    poll_per_min = poll_ms * args.clients * 60 / POLL_SECONDS
    # each page fetches each new version once, told by the stream or finding it by its poll
    page_ms, _ = poll_cost(app_port, page, poll_requests, gunicorn, conditional=False)
    refetch_ms = page_ms * args.clients

    stream_per_result = statistics.median(per_result_ms)
    rows = [
        ("clients", f"{crowd.connected:,}", f"{args.clients:,}"),
        ("how a result is noticed", how, f"a poll every {POLL_SECONDS:.0f} s, ETag"),
        ("connect all clients, s", f"{connect_s:.2f}", "-"),
        (
            "delay to the last client, s (max)",
            f"{max(delays):.3f}",
            f"{POLL_SECONDS / 2:.1f} average, {POLL_SECONDS:.0f} worst",
        ),
        ("server CPU per result, ms", f"{stream_per_result:.1f}", "-"),
        ("server CPU per minute, idle, ms", f"{idle_per_min:.0f}", f"{poll_per_min:,.0f}"),
        ("server CPU per 304 poll, ms", "-", f"{poll_ms:.2f} (p50 {poll_p50:.1f} ms wall)"),
        (
            "+ every page fetches the new version, ms",
            f"{refetch_ms:,.0f}",
            f"{refetch_ms:,.0f}",
        ),
        ("server memory per client, KB", f"{per_client_kb:.1f}", "0 (no connection held)"),
    ]
    print(f"\nLive stream v polling, {args.players} players, {args.results} results (loopback)")
    print(f"| {'figure':40} | {'stream':>18} | {'polling':>34} |")
    print(f"|{'-' * 42}|{'-' * 20}|{'-' * 36}|")
    for name, a, b in rows:
        print(f"| {name:40} | {a:>18} | {b:>34} |")
    print(
        f"\ntargets: every client within {DELIVERY_TARGET_S} s; stream CPU per result below "
        f"polling's per minute ({poll_per_min:,.0f} ms); <= {MEMORY_TARGET_KB:.0f} KB a client"
    )
    if max(delays) > DELIVERY_TARGET_S:
        missed.append(f"slowest delivery {max(delays):.2f} s > {DELIVERY_TARGET_S} s")
    if stream_per_result + idle_per_min >= poll_per_min:
        missed.append(
            f"stream CPU per result + idle minute {stream_per_result + idle_per_min:.0f} ms "
            f">= polling's {poll_per_min:.0f} ms a minute"
        )
    if per_client_kb > MEMORY_TARGET_KB:
        missed.append(f"{per_client_kb:.1f} KB per client > {MEMORY_TARGET_KB:.0f} KB")


if __name__ == "__main__":
    sys.exit(main())
