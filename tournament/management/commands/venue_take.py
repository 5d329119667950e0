"""On the venue's laptop: download a hosted tournament and run it here as the authority."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model

from tournament.errors import ServiceError
from tournament.sync.take import take_from_hosted

from ..base import GibsonCommand


class Command(GibsonCommand):
    help = (
        "Take a tournament from its hosted site with the venue link's token: it is created "
        "here and run from here; the hosted copy follows it (venue_sync pushes the changes)."
    )

    def add_arguments(self, parser):
        parser.add_argument("url", help="the hosted site, e.g. https://gibson.example.org")
        parser.add_argument("token", help="the venue link's token")
        parser.add_argument("--director", help="an account here that directs it")

    def handle(self, *args: Any, **opts: Any) -> None:
        director = None
        if opts.get("director"):
            director = get_user_model().objects.filter(username=opts["director"]).first()
            if director is None:
                raise ServiceError("unknown_account", field="director", username=opts["director"])
        tournament, state = take_from_hosted(opts["url"], opts["token"], "venue_take", director)
        entries = sum(len(d["entries"]) for d in state["divisions"])
        if opts["json"]:
            self.emit_json(
                {
                    "ok": True,
                    "tournament": tournament.slug,
                    "divisions": len(state["divisions"]),
                    "entries": entries,
                }
            )
            return
        self.stdout.write(
            f"{tournament} taken from {opts['url']}: {len(state['divisions'])} divisions, "
            f"{entries} players; run venue_sync to keep the hosted copy following"
        )
