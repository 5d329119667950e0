from tournament.clubs.selectors import season_ladder
from tournament.standings import format_record

from ..base import GibsonCommand
from ._clubs import club_arg, season_arg


class Command(GibsonCommand):
    help = (
        "Show a club season's ladder (the current season unless --season names one): closed "
        "nights only, ranked by points, then wins, then spread."
    )

    def add_arguments(self, parser):
        parser.add_argument("club", help="the club's slug or name")
        parser.add_argument("--season", help="the season's name (default: the current one)")

    def handle(self, *args, **opts):
        club = club_arg(opts["club"])
        season = season_arg(club, opts["season"])
        rows = [
            {
                k: r.as_dict()[k]
                for k in ("rank", "name", "points", "wins", "losses", "spread", "nights")
            }
            for r in season_ladder(season)
        ]
        if opts["json"]:
            self.emit_json(rows)
            return
        self.stdout.write(
            f"{club.name} - season {season.name} ({season.start_date} to {season.end_date}"
            f"{', ' + season.preset if season.preset else ''})"
        )
        self.stdout.write(
            f"{'rank':>4}  {'name':<28} {'points':>7} {'W-L':>11} {'spread':>7} {'nights':>6}"
        )
        for r in rows:
            rank = str(r["rank"]) if r["rank"] is not None else "-"
            rec = format_record(r["wins"], r["losses"])
            self.stdout.write(
                f"{rank:>4}  {r['name']:<28} {r['points']:>7g} {rec:>11} {r['spread']:>+7} "
                f"{r['nights']:>6}"
            )
        if not rows:
            self.stdout.write("no closed nights in this season yet")
