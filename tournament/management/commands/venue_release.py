"""On the venue: final push, then hand the tournament back to its hosted site."""

from __future__ import annotations

from typing import Any

from tournament.services.venue import mark_released
from tournament.sync import client
from tournament.sync.push import push, take

from ..base import GibsonCommand


class Command(GibsonCommand):
    help = (
        "Push what is waiting, then hand the tournament back to its hosted site: it is run "
        "there again and this copy refuses changes."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug")

    def handle(self, *args: Any, **opts: Any) -> None:
        link = take(opts["slug"])
        result = push(link)
        client.release(link.hosted_url, link.token)
        mark_released(link, "venue_release")
        if opts["json"]:
            self.emit_json({"ok": True, "tournament": link.tournament.slug, "pushed": result})
            return
        self.stdout.write(
            f"{link.tournament} handed back to {link.hosted_url} "
            f"(last push: {result['changes']} changes)"
        )
