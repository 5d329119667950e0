from ratings.division import rating_estimates
from tournament.selectors import (
    division_by_name,
    division_standings,
    last_round_number,
    tournament_by_slug,
)
from tournament.standings import format_record

from ..base import GibsonCommand


class Command(GibsonCommand):
    help = "Show a division's standings after any round (default: the latest)."

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("--division", help="division name (may be left out with one division)")
        parser.add_argument("--after-round", type=int, help="standings after this round")

    def handle(self, *args, **opts):
        tournament = tournament_by_slug(opts["slug"])
        division = division_by_name(tournament, opts["division"])
        last = last_round_number(division)
        after = opts["after_round"]
        # Standings after a round nobody has been paired in yet would just repeat the last
        # round's under a misleading heading, so only paired rounds (and 0, the seeding) count.
        if after is not None and not 0 <= after <= last:
            raise ValueError(
                f"--after-round {after}: division {division.name} has "
                + (f"no round {after} paired yet" if after > last else "no negative rounds")
                + f"; give a round number from 0 to {last}"
            )
        shown = after if after is not None else last
        rows = division_standings(division, shown)
        estimates = rating_estimates(division, shown)
        if opts["json"]:
            self.emit_json(
                [
                    {
                        "rank": r.rank,
                        "number": r.number,
                        "name": r.name,
                        "wins": r.wins,
                        "losses": r.losses,
                        "spread": r.spread,
                        "rating": r.rating,
                        "estimate": estimates.get(r.number),
                        "withdrawn": r.withdrawn,
                    }
                    for r in rows
                ]
            )
            return
        self.stdout.write(f"{tournament.name} - division {division.name}, after round {shown}")
        self.stdout.write(
            f"{'rank':>4} {'#':>4}  {'name':<28} {'W-L':>9} {'spread':>7} {'rating':>6} {'est.':>5}"
        )
        for r in rows:
            rank = str(r.rank) if r.rank is not None else "-"
            rec = format_record(r.wins, r.losses)
            name = r.name + (" (withdrawn)" if r.withdrawn else "")
            est = estimates.get(r.number, "")
            self.stdout.write(
                f"{rank:>4} {r.number:>4}  {name:<28} {rec:>9} {r.spread:>+7} {r.rating:>6}"
                f" {est:>5}"
            )
