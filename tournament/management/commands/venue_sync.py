"""On the venue: keep pushing, every few seconds, for as long as it runs (Ctrl-C stops it)."""

from __future__ import annotations

import time
from typing import Any

from django.conf import settings

from tournament.errors import ServiceError
from tournament.models import VenueTake
from tournament.sync.push import push

from ..base import GibsonCommand


class Command(GibsonCommand):
    help = (
        "Push the waiting changes of every tournament taken here, every --every seconds; a "
        "dropped link is retried at the next turn (nothing is lost meanwhile)."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--every",
            type=float,
            default=settings.VENUE_PUSH_SECONDS,
            help="seconds between pushes (GIBSON_VENUE_PUSH_SECONDS, 2 by default)",
        )
        parser.add_argument("--times", type=int, default=0, help="stop after this many (0: never)")

    def handle(self, *args: Any, **opts: Any) -> None:
        turn = 0
        try:
            while True:
                turn += 1
                for link in VenueTake.objects.select_related("tournament").filter(
                    released__isnull=True
                ):
                    try:
                        r = push(link)
                    except ServiceError as exc:
                        self.stderr.write(f"{link.tournament.slug}: {exc.message}")
                        continue
                    if r["changes"] and not opts["json"]:
                        self.stdout.write(
                            f"{link.tournament.slug}: {r['changes']} changes pushed "
                            f"({r['seconds']} s)"
                        )
                if opts["times"] and turn >= opts["times"]:
                    break
                time.sleep(max(0.1, opts["every"]))
        except KeyboardInterrupt:
            pass
        if opts["json"]:
            self.emit_json({"ok": True, "turns": turn})
