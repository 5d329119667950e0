from ratings.division import division_estimates, division_system
from tournament.selectors import division_by_name, tournament_by_slug

from ..base import GibsonCommand


class Command(GibsonCommand):
    help = "Show a division's rating estimates after each round (TSH's in-event ratings)."

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("--division", help="division name (may be left out with one division)")
        parser.add_argument("--through-round", type=int, help="estimates through this round")
        parser.add_argument("--system", help="rating system (default: the division's)")

    def handle(self, *args, **opts):
        tournament = tournament_by_slug(opts["slug"])
        division = division_by_name(tournament, opts["division"])
        rows = division_estimates(division, opts["through_round"], opts["system"])
        if opts["json"]:
            self.emit_json(rows)
            return
        system = division_system(division, opts["system"])
        shown = len(rows[0]["by_round"]) if rows else 0
        self.stdout.write(
            f"{tournament.name} - division {division.name}: {system} estimates "
            f"through round {shown}"
        )
        head = f"{'#':>4}  {'name':<28} {'old':>5} {'new':>5} {'change':>6}  last rounds"
        self.stdout.write(head)
        for r in rows:
            recent = " ".join(str(x) for x in r["by_round"][-5:])
            change = r["new"] - r["old"] if r["old"] else r["new"]
            self.stdout.write(
                f"{r['number']:>4}  {r['name']:<28} {r['old']:>5} {r['new']:>5} {change:>+6}  "
                f"{recent}"
            )
