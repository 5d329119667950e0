"""The file cache without a directory listing on every write.

Django's FileBasedCache lists its whole folder on every ``set`` (``_cull`` counts the files
to see whether MAX_ENTRIES is reached). The throttles write a small key per client address,
so the cost of a write grew with the number of clients the site had seen: the API throttle's
check took 0.3 ms with one address and 5.2 ms with 20,000 (issue 24), and an API 304 became
slower than a full answer. Here each process looks at most once every ``CULL_EVERY`` seconds;
between looks the folder may pass MAX_ENTRIES by what was written meanwhile, and the next
look culls as Django would. A write then costs the same whatever the number of clients.
"""

from __future__ import annotations

import time

from django.core.cache.backends.filebased import FileBasedCache

CULL_EVERY = 10.0  # seconds between two looks at the folder's size, per process


class FileCache(FileBasedCache):
    """FileBasedCache whose culling check runs at most once every CULL_EVERY seconds."""

    _next_cull = 0.0

    def _cull(self) -> None:
        now = time.monotonic()
        if now < self._next_cull:
            return
        self._next_cull = now + CULL_EVERY
        super()._cull()
