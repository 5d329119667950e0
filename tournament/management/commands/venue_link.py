"""Hand a hosted tournament to a venue: make its link token (shown this once)."""

from __future__ import annotations

from typing import Any

from tournament.selectors import tournament_by_slug
from tournament.services.venue import create_link

from ..base import GibsonCommand


class Command(GibsonCommand):
    help = (
        "Make a venue link for a tournament on this (hosted) site: the venue runs "
        "`venue_take URL TOKEN` with the token printed here, shown this once."
    )
    acts_as = True

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("--venue", default="the venue", help="what the venue is called")

    def handle(self, *args: Any, **opts: Any) -> None:
        tournament = tournament_by_slug(opts["slug"])
        link, token = create_link(self.actor(opts, "venue_link"), tournament, opts["venue"])
        if opts["json"]:
            self.emit_json({"ok": True, "tournament": tournament.slug, "token": token})
            return
        self.stdout.write(
            f"venue link of {tournament} to {link.venue_name}; its token (shown once):"
        )
        self.stdout.write(token)
