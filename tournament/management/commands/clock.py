"""Run a division round's clock from the shell: start, pause, resume, extend, reset, or show."""

from __future__ import annotations

from typing import Any

from django.utils import timezone

from tournament.clock import ClockState
from tournament.errors import ServiceError
from tournament.selectors import division_by_name, round_clock, tournament_by_slug
from tournament.services import clock as clock_services

from ..base import GibsonCommand


class Command(GibsonCommand):
    help = (
        "The round clock of --division's round --round: start [MINUTES] (the tournament's "
        "round length if left out), pause, resume, extend MINUTES [--reason R], reset, or "
        "show. Times are the server's; every change is in the audit trail."
    )
    acts_as = True

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("action", choices=(*clock_services.ACTIONS, "show"))
        parser.add_argument("minutes", nargs="?", help="start: the length; extend: minutes to add")
        parser.add_argument("--division", help="division name (may be left out with one division)")
        parser.add_argument("--round", required=True, help="the round number")
        parser.add_argument("--reason", default="", help="why the clock is extended")

    def handle(self, *args: Any, **opts: Any) -> None:
        tournament = tournament_by_slug(opts["slug"])
        division = division_by_name(tournament, opts["division"])
        division.tournament = tournament
        action = opts["action"]
        if action == "show":
            number = opts["round"]
            if not (str(number).isascii() and str(number).isdigit()):
                raise ServiceError(
                    "setup_not_number", field="round", what="the round", value=str(number)[:40]
                )
            state = round_clock(division, int(number), timezone.now())
        else:
            if action == "extend" and opts["minutes"] is None:
                raise ServiceError("setup_required", field="minutes", what="the minutes to add")
            state = clock_services.clock_action(
                division,
                opts["round"],
                action,
                minutes=opts["minutes"],
                reason=opts["reason"],
                actor=self.actor(opts, "clock"),
            )
        self._report(division.name, opts["round"], state, opts["json"])

    def _report(self, division: str, number: Any, state: ClockState, as_json: bool) -> None:
        if as_json:
            self.emit_json(
                {
                    "ok": True,
                    "division": division,
                    "round": int(number),
                    "state": state.state,
                    "minutes": state.minutes,
                    "extended_minutes": state.extended_minutes,
                    "ends_at": state.ends_at.isoformat() if state.ends_at else None,
                    "remaining_seconds": state.remaining_seconds,
                    "server_now": state.now.isoformat(),
                }
            )
            return
        ends = f", ends {timezone.localtime(state.ends_at):%H:%M:%S}" if state.ends_at else ""
        self.stdout.write(
            f"division {division} round {number}: {state.state.replace('_', ' ')}, "
            f"{state.shown} left{ends}"
        )
