import time
from pathlib import Path

from tournament.interchange.jobs import run_command_import
from tournament.selectors import last_round_number

from ..base import GibsonCommand


class Command(GibsonCommand):
    help = "Import a TSH .t, config.tsh, all.tsh or tourney.js as a new tournament."

    def add_arguments(self, parser):
        parser.add_argument("path", help=".t file, config.tsh, all.tsh or tourney.js")
        parser.add_argument("--config", help="config.tsh naming divisions and settings")
        parser.add_argument(
            "--rounds", type=int, help="configured number of rounds when no config says"
        )
        parser.add_argument("--name", help="tournament name (default: event_name or file name)")

    def handle(self, *args, **opts):
        path = Path(opts["path"])
        if not path.exists():
            raise ValueError(f"{path}: no such file")
        # Recorded as an import job (kind "command"): written in batches of a few hundred rows,
        # so the site's result entry goes on meanwhile, and a run killed halfway is found and
        # its hidden, half-written tournament deleted by the next import.
        started = time.monotonic()
        tournament, job = run_command_import(
            path,
            config_path=opts["config"],
            rounds=opts["rounds"],
            name=opts["name"],
            actor="import_tsh",
        )
        seconds = round(time.monotonic() - started, 2)
        divisions = [
            {"name": d.name, "players": d.entries.count(), "rounds": last_round_number(d)}
            for d in tournament.divisions.order_by("position")
        ]
        warnings = getattr(tournament, "import_warnings", [])
        if opts["json"]:
            self.emit_json(
                {
                    "tournament": tournament.slug,
                    "divisions": divisions,
                    "warnings": warnings,
                    # rounds whose ranks/estimates TSH printed before a later change
                    "printed_before_change": getattr(
                        tournament, "import_printed_before_change", []
                    ),
                    "progress": {
                        "job": str(job.pk),
                        "steps": job.total,
                        "seconds": seconds,
                        **getattr(tournament, "import_writes", {}),
                    },
                }
            )
            return
        for w in warnings:
            self.stderr.write(f"warning: {w}")
        self.stdout.write(f"Imported {tournament.name} as {tournament.slug}")
        for d in divisions:
            self.stdout.write(
                f"  division {d['name']}: {d['players']} players, {d['rounds']} rounds"
            )
