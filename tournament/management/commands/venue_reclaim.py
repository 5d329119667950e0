"""Take a tournament back from its venue on the hosted site (event over, or laptop lost)."""

from __future__ import annotations

from typing import Any

from tournament.selectors import tournament_by_slug
from tournament.services.venue import reclaim

from ..base import GibsonCommand


class Command(GibsonCommand):
    help = (
        "Take a tournament back from its venue: what this site last received becomes the "
        "tournament again, and the venue's link is revoked."
    )
    acts_as = True

    def add_arguments(self, parser):
        parser.add_argument("slug")

    def handle(self, *args: Any, **opts: Any) -> None:
        tournament = tournament_by_slug(opts["slug"])
        link = reclaim(self.actor(opts, "venue_reclaim"), tournament)
        if opts["json"]:
            self.emit_json(
                {
                    "ok": True,
                    "tournament": tournament.slug,
                    "last_seq_applied": link.last_seq_applied,
                }
            )
            return
        self.stdout.write(
            f"{tournament} taken back from {link.venue_name} "
            f"(its changes up to {link.last_seq_applied} were received)"
        )
