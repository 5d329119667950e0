"""``manage.py serve_stream``: the live stream (server-sent events) in a process of its own.

Public pages and overlays open ``/t/SLUG/live/`` to hear of each write at once instead of
polling. A stream stays open for hours; served by gunicorn each would hold a sync worker, so
this small asyncio process (``tournament.stream``) holds them all. ``serve --stream`` starts it
beside gunicorn; nginx in front sends ``/t/SLUG/live/`` here (docs/running.md).
"""

from __future__ import annotations

import os
from typing import Any

from django.conf import settings
from django.core.management.base import CommandParser

from ...stream import run
from ..base import GibsonCommand
from ..serving import check_free, split_addr


class Command(GibsonCommand):
    help = "Serve the live stream (server-sent events of each tournament's writes) on HOST:PORT."
    json_flag = False

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--addr",
            default=os.environ.get("GIBSON_STREAM_ADDR", "127.0.0.1:8001"),
            help="HOST:PORT to listen on (default GIBSON_STREAM_ADDR or 127.0.0.1:8001)",
        )

    def handle(self, *args: Any, **opts: Any) -> None:
        addr = opts["addr"]
        host, port = split_addr(addr)
        check_free(addr)
        how = "Redis messages" if settings.REDIS_URL else "polling the database 4 times a second"
        self.stdout.write(f"Gibson's live stream is serving on http://{addr}/t/SLUG/live/ ({how})")
        self.stdout.flush()
        try:
            run(host, port, redis_url=settings.REDIS_URL)
        except KeyboardInterrupt:
            pass
