from tournament.clubs.ladder import PRESETS
from tournament.clubs.services import create_season

from ..base import GibsonCommand
from ._clubs import club_arg


class Command(GibsonCommand):
    acts_as = True
    help = (
        "Create a club season: a date range and a scoring preset (its dates may not overlap "
        "another season of the club)."
    )

    def add_arguments(self, parser):
        parser.add_argument("club", help="the club's slug or name")
        parser.add_argument("--name", required=True, help='the season\'s name ("2025")')
        parser.add_argument("--start", required=True, help="first day, YYYY-MM-DD")
        parser.add_argument("--end", required=True, help="last day, YYYY-MM-DD")
        parser.add_argument(
            "--preset",
            default="",
            help="scoring: " + "; ".join(f"{k} ({v[0]})" for k, v in PRESETS.items()),
        )

    def handle(self, *args, **opts):
        club = club_arg(opts["club"])
        season = create_season(
            club,
            name=opts["name"],
            start_date=opts["start"],
            end_date=opts["end"],
            preset=opts["preset"],
            actor=self.actor(opts, "club_season"),
        )
        data = {
            "club": club.slug,
            "name": season.name,
            "start": season.start_date.isoformat(),
            "end": season.end_date.isoformat(),
            "preset": season.preset,
            "rule": season.rule,
        }
        if opts["json"]:
            self.emit_json(data)
            return
        self.stdout.write(
            f"{club.name}: season {season.name}, {data['start']} to {data['end']} "
            f"({season.preset or 'configured'})"
        )
