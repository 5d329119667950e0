from tournament.interchange.exports import export_tsh
from tournament.selectors import tournament_by_slug

from ..base import GibsonCommand


class Command(GibsonCommand):
    help = "Write a tournament as TSH files: config.tsh and one .t per division."

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument(
            "--out",
            required=True,
            help="folder to write into (created if needed; never a system folder such as /etc)",
        )

    def handle(self, *args, **opts):
        tournament = tournament_by_slug(opts["slug"])
        paths = export_tsh(tournament, opts["out"])
        if opts["json"]:
            self.emit_json({"tournament": tournament.slug, "files": [str(p) for p in paths]})
            return
        for p in paths:
            self.stdout.write(f"wrote {p}")
