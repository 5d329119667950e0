"""Move a player entered in the wrong division to another one, before round 1 is paired."""

from __future__ import annotations

from typing import Any

from tournament.errors import ServiceError
from tournament.selectors import division_by_name, tournament_by_slug
from tournament.services import move_entry

from ..base import GibsonCommand


class Command(GibsonCommand):
    help = (
        "Move player NUMBER of --division to the division --to, before round 1 of either is "
        "paired; they take the last number there and the numbers behind them close up."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("number", type=int, help="the player's number in --division")
        parser.add_argument("--division", help="division name (may be left out with one division)")
        parser.add_argument("--to", required=True, help="the division to move the player to")

    def handle(self, *args: Any, **opts: Any) -> None:
        tournament = tournament_by_slug(opts["slug"])
        source = division_by_name(tournament, opts["division"])
        target = division_by_name(tournament, opts["to"])
        entry = source.entries.select_related("player").filter(number=opts["number"]).first()
        if entry is None:
            raise ServiceError(
                "unknown_player",
                field="number",
                where=f"division {source.name}",
                number=opts["number"],
                count=source.entries.count(),
            )
        old = entry.number
        move_entry(entry, target, actor="move_player")
        if opts["json"]:
            self.emit_json(
                {
                    "ok": True,
                    "name": entry.name,
                    "from_division": source.name,
                    "from_number": old,
                    "division": target.name,
                    "number": entry.number,
                }
            )
            return
        self.stdout.write(
            f"{entry.name}: division {source.name} #{old} -> division {target.name} #{entry.number}"
        )
