"""Renumber a division's players by seed rating before round 1 (TSH numbers them that way)."""

from __future__ import annotations

from typing import Any

from tournament.selectors import division_by_name, tournament_by_slug
from tournament.services import renumber_by_rating

from ..base import GibsonCommand


class Command(GibsonCommand):
    help = (
        "Renumber a division's players by seed rating (highest #1, ties keep their order), "
        "before round 1 is paired."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("--division", help="division name (may be left out with one division)")

    def handle(self, *args: Any, **opts: Any) -> None:
        tournament = tournament_by_slug(opts["slug"])
        division = division_by_name(tournament, opts["division"])
        plan = renumber_by_rating(division, actor="renumber")
        moved = [p for p in plan if p.old != p.new]
        if opts["json"]:
            self.emit_json(
                {
                    "ok": True,
                    "division": division.name,
                    "moved": len(moved),
                    "numbers": [
                        {"old": p.old, "new": p.new, "name": p.name, "seed_rating": p.rating}
                        for p in plan
                    ],
                }
            )
            return
        self.stdout.write(f"division {division.name}: {len(moved)} players renumbered")
        for p in moved:
            self.stdout.write(f"  #{p.old:>3} -> #{p.new:<3} {p.name} ({p.rating})")
