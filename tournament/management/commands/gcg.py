"""Game records (GCG) from the shell: import a board's file, remove it, publish a round's
records, or write a division's records as one zip."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tournament.errors import ServiceError
from tournament.formats.gcg import zip_records
from tournament.selectors import division_by_name, tournament_by_slug
from tournament.selectors.gcg import division_records, game_on_board
from tournament.services import gcg as gcg_services

from ..base import GibsonCommand


class Command(GibsonCommand):
    help = (
        "Game records: 'import SLUG --round R --board B FILE' attaches a GCG file to a game "
        "(checked against the game's players and result), 'remove SLUG --round R --board B', "
        "'publish SLUG --round R' shows a round's records when the event keeps them private, "
        "'export SLUG FILE' writes the division's records as one zip."
    )
    acts_as = True

    def add_arguments(self, parser):
        parser.add_argument("action", choices=("import", "remove", "publish", "export"))
        parser.add_argument("slug")
        parser.add_argument("file", nargs="?", help="import: the .gcg file; export: the zip")
        parser.add_argument("--division", help="division name (may be left out with one division)")
        parser.add_argument("--round", help="the round number")
        parser.add_argument("--board", help="the board number")

    def _need(self, opts: dict[str, Any], *names: str) -> None:
        for name in names:
            if not opts.get(name):
                what = {"file": "the file", "round": "the round", "board": "the board"}[name]
                raise ServiceError("setup_required", field=name, what=what)

    def handle(self, *args: Any, **opts: Any) -> None:
        tournament = tournament_by_slug(opts["slug"])
        division = division_by_name(tournament, opts["division"])
        division.tournament = tournament
        action = opts["action"]
        actor = self.actor(opts, "gcg")
        if action == "export":
            self._need(opts, "file")
            files = division_records(division, public=False)
            try:
                Path(opts["file"]).write_bytes(zip_records(files))
            except OSError as exc:
                raise ServiceError(
                    "cannot_write", field="file", path=opts["file"], reason=exc.strerror or str(exc)
                ) from exc
            self._say(
                opts,
                {"division": division.name, "files": len(files)},
                f"{len(files)} "
                f"game record(s) of division {division.name} written to {opts['file']}",
            )
            return
        if action == "publish":
            self._need(opts, "round")
            game_round = gcg_services.publish_round_records(division, opts["round"], actor=actor)
            self._say(
                opts,
                {"round": game_round.number, "published": True},
                f"Round {game_round.number}'s game records are public.",
            )
            return
        self._need(opts, "round", "board")
        game = game_on_board(division, opts["round"], opts["board"])
        if action == "remove":
            gcg_services.remove_record(game, actor=actor)
            self._say(
                opts,
                {"round": game.round.number, "board": game.board, "removed": True},
                f"Round {game.round.number} board {game.board}: record removed.",
            )
            return
        self._need(opts, "file")
        path = Path(opts["file"])
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise ServiceError(
                "cannot_read", field="file", path=str(path), reason=exc.strerror or str(exc)
            ) from exc
        attached = gcg_services.attach_record(game, data, actor=actor, file_name=path.name)
        parsed = attached.parsed
        data_out = {
            "totals": parsed.totals(),
            "turns": len(parsed.turns),
            "lexicon": parsed.lexicon or None,
        }
        totals = ", ".join(f"{name} {total}" for name, total in parsed.totals().items())
        verb = "replaced" if attached.replaced else "attached"
        self._say(
            opts,
            data_out,
            f"Round {game.round.number} board {game.board}: record "
            f"{verb} ({len(parsed.turns)} turns; {totals}).",
        )

    def _say(self, opts: dict[str, Any], data: dict[str, Any], text: str) -> None:
        if opts["json"]:
            self.emit_json(data)
        else:
            self.stdout.write(text)
