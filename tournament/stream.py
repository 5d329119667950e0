"""The live stream: server-sent events telling public pages and overlays that a tournament
changed, from one small asyncio process beside gunicorn (``manage.py serve_stream``).

Why a process of its own: a stream stays open for hours, and each would hold one of
gunicorn's sync workers (a dozen on a small server) for as long. Here one thread holds
thousands of streams (a few kilobytes each) and the site's workers stay free. It is plain
asyncio from the standard library, so the site needs no ASGI server or new dependency, and it
reads the database through the ORM in one thread of its own.

A page opens ``GET /t/SLUG/live/?since=ID`` (EventSource). It is sent, for every write the
public sees, ``id: AUDIT_ID`` and ``data: {"kind": ...}`` (result, correction, pairing,
clock, announcement, broadcast, change), nothing else: it then fetches its part again from the
cached, versioned pages it polls without the stream. The id is the write's audit event id,
so after a dropped connection or a restart of this process EventSource sends
``Last-Event-ID`` and gets what it missed, read back from the audit trail.

How a write is noticed: the tournaments someone listens to have their content versions polled
in one query every ``POLL_SECONDS``; with ``REDIS_URL``, a message on Redis after each commit
(``tournament.live``) wakes the poll at once and the poll itself slows to a safety net.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import resource
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlsplit

log = logging.getLogger(__name__)

POLL_SECONDS = 0.25  # without Redis: how soon a write made elsewhere reaches the pages
REDIS_POLL_SECONDS = 5.0  # with Redis: the poll only catches a lost message
HEARTBEAT_SECONDS = 15.0  # a comment line: proxies keep the connection, dead ones are found
RETRY_MS = 1000  # EventSource waits this long before reconnecting (a restart, a blip)
MAX_BUFFER = 256 * 1024  # a client this far behind (not reading) is dropped; it reconnects
REQUEST_TIMEOUT = 10.0
MAX_STREAMS = 20_000  # beyond, a page is told 503 and polls (open files stay for the rest)
KNOWN_SECONDS = 2.0  # a tournament's lookup serves the connections of the next 2 s
PATH = re.compile(r"^/t/([-a-zA-Z0-9_]+)/live/$")


@dataclass(eq=False)
class Listener:
    """One open stream: where to write, and the last event id it was sent."""

    writer: asyncio.StreamWriter
    last: int

    def send(self, payload: bytes, event_id: int) -> None:
        if event_id and event_id <= self.last:
            return  # already sent (the replay and the broadcast can cross)
        transport = self.writer.transport
        if transport.is_closing():
            return
        if transport.get_write_buffer_size() > MAX_BUFFER:
            transport.abort()  # not reading: drop it rather than hold its backlog
            return
        self.writer.write(payload)
        if event_id:
            self.last = event_id


@dataclass(eq=False)
class Channel:
    """A tournament someone listens to: its version and last write as last seen."""

    pk: int
    version: int
    last: int
    listeners: set[Listener] = field(default_factory=set)


def event(change_id: int, kind: str) -> bytes:
    """One server-sent event: the write's audit id and its kind."""
    return f'id: {change_id}\ndata: {{"kind":"{kind}","id":{change_id}}}\n\n'.encode()


class StreamServer:
    """The streams of every tournament in this process; ``serve`` runs it on an address."""

    def __init__(
        self,
        *,
        redis_url: str = "",
        poll_seconds: float | None = None,
        max_streams: int = MAX_STREAMS,
    ) -> None:
        self.redis_url = redis_url
        self.max_streams = max_streams
        self.poll_seconds = poll_seconds or (REDIS_POLL_SECONDS if redis_url else POLL_SECONDS)
        self.channels: dict[int, Channel] = {}
        self.known: dict[str, tuple[int, float]] = {}  # slug -> (pk, when looked up)
        self.replays: dict[tuple[int, int], tuple[int, list[Any]]] = {}
        self.db = ThreadPoolExecutor(max_workers=1, thread_name_prefix="stream-db")
        self.wake = asyncio.Event()
        self.sent = 0  # events written (the benchmark's count)
        self.streams = 0  # stream connections open or opening
        self.server: asyncio.AbstractServer | None = None

    @property
    def clients(self) -> int:
        return sum(len(c.listeners) for c in self.channels.values())

    async def read(self, fn: Callable[..., Any], *args: Any) -> Any:
        """``fn(*args)`` on the database thread (the ORM is synchronous)."""
        return await asyncio.get_running_loop().run_in_executor(self.db, _in_db, fn, args)

    # --- serving ---------------------------------------------------------------------------

    async def serve(self, host: str, port: int, ready: Callable[[], None] | None = None) -> None:
        _raise_open_files_limit()
        self.server = await asyncio.start_server(self.handle, host, port, backlog=4096)
        tasks = [asyncio.create_task(self.poll()), asyncio.create_task(self.heartbeat())]
        if self.redis_url:
            tasks.append(asyncio.create_task(self.listen_redis()))
        if ready is not None:
            ready()
        try:
            async with self.server:
                await self.server.serve_forever()
        finally:
            for task in tasks:
                task.cancel()
            for channel in self.channels.values():
                for listener in channel.listeners:
                    listener.writer.transport.abort()
            self.db.shutdown(wait=False)

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        listener: Listener | None = None
        channel: Channel | None = None
        counted = False
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), REQUEST_TIMEOUT)
            method, target, headers = _parse(head)
            url = urlsplit(target)
            if url.path == "/healthz":
                return _answer(writer, 200, f"ok: {self.clients} streams\n")
            match = PATH.match(url.path)
            if method not in ("GET", "HEAD") or match is None:
                return _answer(writer, 404, "Not found: the live stream is /t/SLUG/live/\n")
            if self.streams >= self.max_streams:
                return _answer(writer, 503, "Too many streams: poll the page instead\n")
            self.streams += 1  # counted from here (no await since the check), until it ends
            counted = True
            found = self.recent(match.group(1)) or await self.tournament(match.group(1))
            if found is None:
                return _answer(writer, 404, "No such published tournament\n")
            pk, last_now = found
            since = _since(headers.get("last-event-id"), parse_qs(url.query).get("since"))
            writer.write(
                b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                b"Cache-Control: no-cache, no-store\r\nX-Accel-Buffering: no\r\n"
                b"Access-Control-Allow-Origin: *\r\nConnection: keep-alive\r\n\r\n"
                + f"retry: {RETRY_MS}\n\n".encode()
            )
            if method == "HEAD":
                return
            channel = await self.channel(pk, last_now)
            listener = Listener(writer, since if since is not None else last_now)
            channel.listeners.add(listener)
            if since is not None and since < last_now:
                await self.replay(channel.pk, listener)
            await writer.drain()
            # nothing more is read: the connection stays until the client or this process ends
            while not reader.at_eof():
                if not await reader.read(1024):
                    break
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, TimeoutError):
            pass
        except (ConnectionError, OSError):
            pass
        except asyncio.CancelledError:
            pass  # this process stopping: the page reconnects to the next one
        except ValueError:
            _answer(writer, 400, "Bad request\n")
        finally:
            if counted:
                self.streams -= 1
            if channel is not None and listener is not None:
                channel.listeners.discard(listener)
                if not channel.listeners:
                    self.channels.pop(channel.pk, None)
            with contextlib.suppress(Exception):
                writer.close()

    def recent(self, slug: str) -> tuple[int, int] | None:
        """A tournament someone listens to, looked up less than ``KNOWN_SECONDS`` ago: a
        crowd reconnecting at once (a restart) costs one lookup, not one each."""
        known = self.known.get(slug)
        if known is None or time.monotonic() - known[1] > KNOWN_SECONDS:
            return None
        channel = self.channels.get(known[0])
        return (channel.pk, channel.last) if channel is not None else None

    async def tournament(self, slug: str) -> tuple[int, int] | None:
        from .selectors.live import live_tournament

        found = await self.read(live_tournament, slug)
        if found is not None:
            self.known[slug] = (found[0], time.monotonic())
        return found

    async def channel(self, pk: int, last_now: int) -> Channel:
        channel = self.channels.get(pk)
        if channel is None:
            from .selectors.live import content_versions

            versions = await self.read(content_versions, [pk])
            channel = self.channels.get(pk)  # another client made it while we read
            if channel is None:
                channel = Channel(pk, versions.get(pk, 0), last_now)
                self.channels[pk] = channel
        return channel

    async def replay(self, pk: int, listener: Listener) -> None:
        """What a reconnecting page missed, from the audit trail (too much: "reload")."""
        from .selectors.live import REPLAY_LIMIT, changes_since

        key = (pk, listener.last)
        kept = self.replays.get(key)
        channel = self.channels.get(pk)
        if kept is not None and channel is not None and kept[0] == channel.last:
            missed = kept[1]  # the same gap as the page before it (a crowd reconnecting)
        else:
            missed = await self.read(changes_since, pk, listener.last)
            if channel is not None:
                if len(self.replays) > 1000:
                    self.replays.clear()
                self.replays[key] = (channel.last, missed)
        if len(missed) > REPLAY_LIMIT:
            listener.send(event(missed[-1].id, "reload"), missed[-1].id)
            return
        for change in missed:
            listener.send(event(change.id, change.kind), change.id)

    # --- noticing writes -------------------------------------------------------------------

    async def poll(self) -> None:
        from .selectors.live import changes_since, content_versions

        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.wake.wait(), self.poll_seconds)
            self.wake.clear()
            if not self.channels:
                continue
            try:
                versions = await self.read(content_versions, list(self.channels))
                for pk, version in versions.items():
                    channel = self.channels.get(pk)
                    if channel is None or version == channel.version:
                        continue
                    channel.version = version
                    changes = await self.read(changes_since, pk, channel.last)
                    if not changes:  # seen elsewhere (a player renamed): a plain change
                        self.broadcast(channel, event(0, "change"), 0)
                    for change in changes[-50:]:
                        self.broadcast(channel, event(change.id, change.kind), change.id)
                        channel.last = max(channel.last, change.id)
            except Exception:  # the database away for a moment: try again next time
                log.exception("live stream: polling the database failed")
                await asyncio.sleep(1)

    def broadcast(self, channel: Channel, payload: bytes, change_id: int) -> None:
        for listener in list(channel.listeners):
            listener.send(payload, change_id)
        self.sent += len(channel.listeners)

    async def heartbeat(self) -> None:
        while True:
            await asyncio.sleep(HEARTBEAT_SECONDS)
            for channel in list(self.channels.values()):
                self.broadcast(channel, b": ping\n\n", 0)

    async def listen_redis(self) -> None:
        from redis import asyncio as aioredis

        from .live import CHANNEL_PREFIX

        while True:
            try:
                client = aioredis.Redis.from_url(self.redis_url)
                pubsub = client.pubsub()
                await pubsub.psubscribe(CHANNEL_PREFIX + "*")
                async for message in pubsub.listen():
                    if message.get("type") == "pmessage":
                        self.wake.set()
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # Redis away: the poll carries on; try again shortly
                log.warning("live stream: Redis subscription lost (%s); polling meanwhile", exc)
                await asyncio.sleep(2)


def _in_db(fn: Callable[..., Any], args: tuple[Any, ...]) -> Any:
    from django.db import close_old_connections

    close_old_connections()
    return fn(*args)


def _parse(head: bytes) -> tuple[str, str, dict[str, str]]:
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ")
    if len(parts) != 3 or not parts[2].startswith("HTTP/1."):
        raise ValueError(lines[0])
    headers = {}
    for line in lines[1:]:
        name, sep, value = line.partition(":")
        if sep:
            headers[name.strip().lower()] = value.strip()
    return parts[0], parts[1], headers


def _since(last_event_id: str | None, query: list[str] | None) -> int | None:
    """The id a page saw last: EventSource's Last-Event-ID after a reconnect, else the one
    the page was built at (``?since=``); None when it names none (then: from now)."""
    for raw in (last_event_id, (query or [None])[0]):
        if raw and raw.isascii() and raw.isdigit() and len(raw) < 19:
            return int(raw)
    return None


def _answer(writer: asyncio.StreamWriter, status: int, text: str) -> None:
    reason = {200: "OK", 400: "Bad Request", 404: "Not Found", 503: "Service Unavailable"}[status]
    body = text.encode()
    writer.write(
        f"HTTP/1.1 {status} {reason}\r\nContent-Type: text/plain; charset=utf-8\r\n"
        f"Content-Length: {len(body)}\r\nAccess-Control-Allow-Origin: *\r\n"
        f"Connection: close\r\n\r\n".encode()
        + body
    )


def _raise_open_files_limit() -> None:
    """Thousands of streams need as many open files: lift the soft limit to the hard one."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or soft < hard:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def run(
    host: str, port: int, *, redis_url: str = "", ready: Callable[[], None] | None = None
) -> None:
    """Serve the stream on ``host:port`` until interrupted (``manage.py serve_stream``)."""

    async def main() -> None:
        await StreamServer(redis_url=redis_url).serve(host, port, ready)

    asyncio.run(main())


class StreamThread:
    """The stream in a thread of this process, for ``serve_demo`` and the tests."""

    def __init__(
        self, host: str, port: int, *, redis_url: str = "", max_streams: int = MAX_STREAMS
    ) -> None:
        self.host, self.port, self.redis_url = host, port, redis_url
        self.max_streams = max_streams
        self.loop: asyncio.AbstractEventLoop | None = None
        self.stream: StreamServer | None = None
        self._started = threading.Event()
        self._thread = threading.Thread(target=self._run, name="live-stream", daemon=True)

    def _run(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.stream = StreamServer(redis_url=self.redis_url, max_streams=self.max_streams)
        main = self.stream.serve(self.host, self.port, self._started.set)
        with contextlib.suppress(asyncio.CancelledError):
            self.loop.run_until_complete(main)
        # the cancelled tasks (poll, heartbeat, connections) finish before the loop closes
        left = asyncio.all_tasks(self.loop)
        if left:
            self.loop.run_until_complete(asyncio.gather(*left, return_exceptions=True))
        self.loop.close()

    def start(self) -> StreamThread:
        self._thread.start()
        if not self._started.wait(10):
            raise RuntimeError("the live stream did not start")
        return self

    def stop(self) -> None:
        """Stop serving and close every stream (as a restart does)."""
        if self.loop is None or self.stream is None or self.stream.server is None:
            return
        server = self.stream.server

        def close() -> None:
            server.close()
            for task in asyncio.all_tasks(self.loop):
                task.cancel()  # the connections' handlers end quietly, the serving task too

        self.loop.call_soon_threadsafe(close)
        self._thread.join(10)
