"""On the hosted site: free a tournament's venue link from its laptop, so another takes it."""

from __future__ import annotations

from typing import Any

from tournament.selectors import tournament_by_slug
from tournament.services.venue import move_link

from ..base import GibsonCommand


class Command(GibsonCommand):
    help = (
        "Free the tournament's venue link from the laptop that took it (it broke, or the event "
        "moves to another): the next laptop that takes it with the same token holds it, and "
        "the first one's pushes are refused. The copy stays the venue's meanwhile."
    )
    acts_as = True

    def add_arguments(self, parser):
        parser.add_argument("slug")

    def handle(self, *args: Any, **opts: Any) -> None:
        tournament = tournament_by_slug(opts["slug"])
        link = move_link(self.actor(opts, "venue_move_link"), tournament)
        if opts["json"]:
            self.emit_json(
                {"ok": True, "tournament": tournament.slug, "from": link.last_seq_applied}
            )
            return
        self.stdout.write(
            f"the venue link of {tournament} is free: the next laptop to take it holds it "
            f"(the copy holds the venue's changes up to {link.last_seq_applied})"
        )
