"""Entries and check-in from the shell: list a tournament's entrants and waiting lists, check
a player in (or out), or remove those not checked in before round 1; and the director's list
of online entries with its actions (approve a pending entry, refuse, promote, demote, paid,
move), the same service calls as the console's buttons."""

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
from tournament.services import online_entries as oe
from tournament.shapes import entrant_row, waiting_row

from ..base import GibsonCommand

ACTIONS = ("list", "check-in", "undo-check-in", "remove-absent", "online", *oe.ENTRY_ACTIONS)


class Command(GibsonCommand):
    help = (
        "Entries of a tournament: list (every division's players, checked in or not, and its "
        "waiting list), check-in NUMBER / undo-check-in NUMBER (--division), or remove-absent "
        "(--division: every player not checked in, before round 1; the numbers close up); "
        "online (the online entries with their ids and status), or approve / refuse (--reason) "
        "/ promote / demote / paid / unpaid / move (--to DIVISION) ID: one online entry."
    )
    acts_as = True

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("action", choices=ACTIONS)
        parser.add_argument(
            "number",
            nargs="?",
            help="check-in: the player's number; an online entry's action: its id (from online)",
        )
        parser.add_argument("--division", help="division name (may be left out with one division)")
        parser.add_argument("--reason", default="", help="refuse: the reason the entrant reads")
        parser.add_argument("--to", default="", help="move: the division to move the entry to")

    def handle(self, *args: Any, **opts: Any) -> None:
        tournament = tournament_by_slug(opts["slug"])
        action = opts["action"]
        if action == "list":
            self._list(tournament, opts["json"])
            return
        if action == "online":
            self._online(tournament, opts["json"])
            return
        if action in oe.ENTRY_ACTIONS:
            self._entry_action(tournament, action, opts)
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
                    # the API's rows (tournament.shapes)
                    "entrants": [entrant_row(e) for e in placed],
                    "waiting": [waiting_row(w) for w in waiting],
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

    def _online(self, tournament: Any, as_json: bool) -> None:
        rows = oe.director_rows(tournament)
        if as_json:
            self.emit_json({"ok": True, "tournament": tournament.slug, "online_entries": rows})
            return
        self.stdout.write(f"{tournament.name}: {len(rows)} online entries")
        for r in rows:
            where = (
                f"#{r['number']}"
                if r["number"] is not None
                else (f"waiting {r['waiting_position']}" if r["waiting_position"] else "")
            )
            paid = "paid" if r["paid"] else "not paid"
            self.stdout.write(
                f"  id {r['id']:<5} {r['division']:<8} {r['status']:<9} {where:<11} "
                f"{r['name']} ({r['rating']}), {paid}" + (f"; {r['note']}" if r["note"] else "")
            )

    def _entry_action(self, tournament: Any, action: str, opts: dict[str, Any]) -> None:
        if opts["number"] is None:
            raise ServiceError(
                "setup_required", field="number", what="the online entry's id (see: online)"
            )
        online = oe.online_entry(tournament, opts["number"])
        online.tournament = tournament
        done = oe.apply_entry_action(
            online,
            action,
            reason=opts["reason"],
            to=opts["to"],
            actor=self.actor(opts, "entries"),
        )
        online.refresh_from_db()
        if opts["json"]:
            self.emit_json(
                {
                    "ok": True,
                    "id": online.pk,
                    "action": action,
                    "name": online.player.name,
                    "division": online.division.name,
                    "status": online.status,
                    "paid": online.paid,
                }
            )
        else:
            self.stdout.write(done + f" Now {online.status} in {online.division.name}.")
