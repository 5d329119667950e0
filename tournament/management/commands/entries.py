"""Entries and check-in from the shell: list a tournament's entrants and waiting lists, check
a player in (or out), or remove those not checked in before round 1."""

from __future__ import annotations

from typing import Any

from tournament.errors import ServiceError
from tournament.selectors import (
    checked_in_count,
    division_by_name,
    public_entry_list,
    tournament_by_slug,
)
from tournament.services import checkin

from ..base import GibsonCommand

ACTIONS = ("list", "check-in", "undo-check-in", "remove-absent")


class Command(GibsonCommand):
    help = (
        "Entries of a tournament: list (every division's players, checked in or not, and its "
        "waiting list), check-in NUMBER / undo-check-in NUMBER (--division), or remove-absent "
        "(--division: every player not checked in, before round 1; the numbers close up)."
    )
    acts_as = True

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("action", choices=ACTIONS)
        parser.add_argument("number", nargs="?", help="check-in: the player's number")
        parser.add_argument("--division", help="division name (may be left out with one division)")

    def handle(self, *args: Any, **opts: Any) -> None:
        tournament = tournament_by_slug(opts["slug"])
        action = opts["action"]
        if action == "list":
            self._list(tournament, opts["json"])
            return
        division = division_by_name(tournament, opts["division"])
        division.tournament = tournament
        actor = self.actor(opts, "entries")
        if action == "remove-absent":
            names = checkin.remove_absent(division, actor=actor)
            if opts["json"]:
                self.emit_json(
                    {
                        "ok": True,
                        "division": division.name,
                        "removed": list(names),
                        "promoted": names.promoted,
                    }
                )
            else:
                self.stdout.write(
                    f"division {division.name}: removed {len(names)}: {', '.join(names)}"
                    + (f"; promoted: {', '.join(names.promoted)}" if names.promoted else "")
                )
            return
        raw = opts["number"]
        if raw is None:
            raise ServiceError("setup_required", field="number", what="the player's number")
        if not (str(raw).isascii() and str(raw).isdigit() and len(str(raw)) < 10):
            raise ServiceError(
                "setup_not_number", field="number", what="the player's number", value=raw[:40]
            )
        entry = division.entries.select_related("player").filter(number=int(raw)).first()
        if entry is None:
            raise ServiceError(
                "setup_no_player", field="number", division=division.name, number=raw
            )
        entry.division = division
        here = action == "check-in"
        checkin.check_in(entry, here=here, actor=actor)
        if opts["json"]:
            self.emit_json(
                {"ok": True, "division": division.name, "number": entry.number, "here": here}
            )
        else:
            state = "checked in" if here else "not checked in"
            self.stdout.write(f"division {division.name} #{entry.number} {entry.name}: {state}")

    def _list(self, tournament: Any, as_json: bool) -> None:
        here, players = checked_in_count(tournament)
        rows = []
        for d in tournament.divisions.all():
            placed, waiting = public_entry_list(d)
            rows.append(
                {
                    "division": d.name,
                    "entrants": [
                        {
                            "number": e.number,
                            "name": e.name,
                            "rating": e.rating,
                            "club": e.club,
                            "checked_in": e.checked_in,
                        }
                        for e in placed
                    ],
                    "waiting": [
                        {"position": w.position, "name": w.name, "rating": w.rating}
                        for w in waiting
                    ],
                }
            )
        if as_json:
            self.emit_json({"ok": True, "checked_in": here, "players": players, "divisions": rows})
            return
        self.stdout.write(f"{tournament.name}: {here} of {players} checked in")
        for row in rows:
            self.stdout.write(f"division {row['division']}")
            for e in row["entrants"]:
                mark = "here" if e["checked_in"] else "    "
                self.stdout.write(f"  {mark} #{e['number']:<3} {e['name']} ({e['rating']})")
            for w in row["waiting"]:
                self.stdout.write(f"  waiting {w['position']}: {w['name']} ({w['rating']})")
