import datetime as dt
from pathlib import Path

from tournament.interchange.exports import (
    export_formats,
    refuse_system_folder,
    render_export,
    write_export,
)
from tournament.selectors import tournament_by_slug

from ..base import GibsonCommand


class Command(GibsonCommand):
    help = (
        "Export a tournament: all.tsh (NASPA submission), tou (WESPA/AuPair .TOU), "
        "csv (standings), absp (ABSP results CSV) or tourney.js (live feed). "
        "Written atomically; nothing is written on error."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("--format", required=True, choices=export_formats(), dest="fmt")
        parser.add_argument("--out", required=True, help="file to write (its folder must exist)")
        parser.add_argument(
            "--date", help="event date for .TOU (YYYY-MM-DD; default: the tournament's start date)"
        )

    def handle(self, *args, **opts):
        date = None
        if opts["date"]:
            try:
                date = dt.date.fromisoformat(opts["date"])
            except ValueError:
                raise ValueError(f"--date {opts['date']!r}: expected YYYY-MM-DD") from None
        tournament = tournament_by_slug(opts["slug"])
        # A file lands only where its name says, never in a system folder (a run as root
        # would otherwise replace /etc/... quietly).
        out = Path(opts["out"]).expanduser()
        refuse_system_folder(out.resolve().parent, out)
        export = render_export(tournament, opts["fmt"], date=date)
        path = write_export(export.data, opts["out"])
        if opts["json"]:
            self.emit_json(
                {
                    "tournament": tournament.slug,
                    "format": export.format,
                    "path": str(path),
                    "bytes": len(export.data),
                    "divisions": export.divisions,
                }
            )
            return
        self.stdout.write(
            f"wrote {path} ({export.format}, {len(export.data)} bytes, "
            f"{len(export.divisions)} division{'s' if len(export.divisions) != 1 else ''})"
        )
