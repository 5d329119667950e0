"""On the venue: push the waiting changes of the tournaments taken here to their hosted site."""

from __future__ import annotations

from typing import Any

from tournament.models import VenueTake
from tournament.sync.push import push, take

from ..base import GibsonCommand


class Command(GibsonCommand):
    help = (
        "Push the changes waiting for the hosted site (every tournament taken here if none named)."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug", nargs="?")

    def handle(self, *args: Any, **opts: Any) -> None:
        links = (
            [take(opts["slug"])]
            if opts.get("slug")
            else list(VenueTake.objects.select_related("tournament").filter(released__isnull=True))
        )
        results = {link.tournament.slug: push(link) for link in links}
        if opts["json"]:
            self.emit_json({"ok": True, "pushed": results})
            return
        for slug, r in results.items():
            self.stdout.write(
                f"{slug}: {r['changes']} changes in {r['batches']} batches ({r['seconds']} s); "
                f"the hosted copy holds up to {r['last_seq']}"
            )
