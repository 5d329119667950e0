"""Helpers for the production tests: free ports, a Redis of the test's own, subprocess env."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.ports import free_port


def clean_env(data_dir: Path, **extra: str) -> dict[str, str]:
    """The environment for a child process: our own data folder, no database/Redis from CI
    unless the test passes one."""
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env.update(GIBSON_DATA_DIR=str(data_dir), GIBSON_SECRET_KEY="production-test-key")
    env.update(extra)
    return env


class OwnRedis:
    """``redis-server --port N --save ''`` started and stopped by a test."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.url = f"redis://127.0.0.1:{port}/0"
        self.process = subprocess.Popen(
            [
                "redis-server",
                "--port",
                str(port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                return
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"redis-server did not start on port {port}")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)


@pytest.fixture
def own_redis() -> Iterator[OwnRedis]:
    if shutil.which("redis-server") is None:
        pytest.skip("redis-server is not installed: no Redis to start and stop in the test")
    redis = OwnRedis(free_port())
    try:
        yield redis
    finally:
        redis.stop()


@pytest.fixture
def point_celery(monkeypatch):
    """``point_celery(url)``: the web process's Celery app on ``url``, not eager, as it runs with
    REDIS_URL set. The app read its settings at start-up, so its config is patched (and put
    back after the test) and its cached connections are dropped."""
    from tournament.celery import app

    local_backend = app._local.__dict__.get("backend")

    def point(url: str) -> None:
        # in the layer of changes on top of Django's settings, so undoing removes them again
        for key, value in (
            ("broker_url", url),
            ("result_backend", url),
            ("task_always_eager", False),
        ):
            monkeypatch.setitem(app.conf.changes, key, value)
        monkeypatch.setattr(app, "_pool", None)
        monkeypatch.setattr(app.amqp, "_producer_pool", None)
        # the result store, made again on first use (kept per app or per thread by Celery)
        monkeypatch.setattr(app, "_backend_cache", None)
        app._local.__dict__.pop("backend", None)

    yield point
    if app._pool is not None:  # the test's own connections, before the old pool is put back
        app._pool.force_close_all()
    app._local.__dict__.pop("backend", None)
    if local_backend is not None:
        app._local.backend = local_backend
