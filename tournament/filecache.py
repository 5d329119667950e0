"""The file cache without a directory listing on every write.

Django's FileBasedCache lists its whole folder on every ``set`` (``_cull`` counts the files
to see whether MAX_ENTRIES is reached). The throttles write a small key per client address,
so the cost of a write grew with the number of clients the site had seen: the API throttle's
check took 0.3 ms with one address and 5.2 ms with 20,000, and an API 304 became
slower than a full answer. Here each process looks at most once every ``CULL_EVERY`` seconds;
between looks the folder may pass MAX_ENTRIES by what was written meanwhile, and the next
look culls as Django would. A write then costs the same whatever the number of clients.

``add`` and ``incr`` are atomic across processes here (Django's are a read then a write): the
sign-in and abuse counters are ``add`` + ``incr`` from every worker at once, and a flood
counted 11-13 hashed tries where 10 were allowed. Each takes an exclusive ``flock`` on one of
``LOCK_STRIPES`` lock files (a fixed number, so they never need culling) for its key.
"""

from __future__ import annotations

import fcntl
import os
import time
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.core.cache.backends.filebased import FileBasedCache

CULL_EVERY = 10.0  # seconds between two looks at the folder's size, per process
LOCK_STRIPES = 64  # lock files shared by all keys (a key always takes the same one)


class FileCache(FileBasedCache):
    """FileBasedCache whose culling check runs at most once every CULL_EVERY seconds."""

    _next_cull = 0.0

    def _cull(self) -> None:
        now = time.monotonic()
        if now < self._next_cull:
            return
        self._next_cull = now + CULL_EVERY
        super()._cull()

    @contextmanager
    def _locked(self, key: str, version: int | None) -> Iterator[None]:
        """Hold the key's stripe lock (the cache folder is made first if it is new)."""
        os.makedirs(self._dir, exist_ok=True)
        stripe = zlib.crc32(self.make_key(key, version).encode()) % LOCK_STRIPES
        fd = os.open(os.path.join(self._dir, f"lock-{stripe:02d}.lk"), os.O_CREAT | os.O_RDWR)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)  # closing releases the lock

    def add(self, key: str, value: Any, timeout: Any = None, version: int | None = None) -> bool:
        with self._locked(key, version):
            return super().add(key, value, timeout, version)

    def incr(self, key: str, delta: int = 1, version: int | None = None) -> int:
        with self._locked(key, version):
            return super().incr(key, delta, version)
