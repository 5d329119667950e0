from ratings.division import rating_estimates
from tournament.selectors import (
    division_by_name,
    division_standings,
    division_team_standings,
    last_round_number,
    tournament_by_slug,
)
from tournament.shapes import standings_row
from tournament.standings import format_record

from ..base import GibsonCommand


class Command(GibsonCommand):
    help = "Show a division's standings after any round (default: the latest)."

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("--division", help="division name (may be left out with one division)")
        parser.add_argument("--after-round", type=int, help="standings after this round")
        parser.add_argument(
            "--teams",
            action="store_true",
            help="TSH's team standings instead (players grouped by their 'team' field)",
        )

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
        if opts["teams"]:
            self.team_standings(tournament, division, shown, opts["json"])
            return
        rows = division_standings(division, shown)
        estimates = rating_estimates(division, shown)
        if opts["json"]:
            self.emit_json([standings_row(r, estimates.get(r.number)) for r in rows])
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

    def team_standings(self, tournament, division, shown: int, as_json: bool) -> None:
        """TSH's TeamStandings report: one row per team, ranked by the members' mean rank."""
        teams = division_team_standings(division, shown)
        if not teams:
            raise ValueError(
                f"division {division.name} has no teams: no player's line names one "
                "(TSH's 'team' field)"
            )
        if as_json:
            self.emit_json(
                [
                    {
                        "rank": t.rank,
                        "team": t.team,
                        "players": t.members,
                        "wins": t.wins,
                        "losses": t.losses,
                        "spread": t.spread,
                        "mean_rank": round(t.mean_rank, 2),
                        "ranks": t.ranks,
                        "percent_vs_others": round(t.percent_vs_others, 2),
                    }
                    for t in teams
                ]
            )
            return
        self.stdout.write(
            f"{tournament.name} - division {division.name}, team standings after round {shown}"
        )
        self.stdout.write(
            f"{'rank':>4}  {'W-L':>9} {'spread':>7} {'mean W-L':>11} {'mean spr':>8}"
            f" {'W%VsO':>6}  {'team':<20} {'mean rk':>7}  ranks"
        )
        for t in teams:
            mean = f"{t.mean_wins:.2f}-{t.mean_losses:.2f}"
            self.stdout.write(
                f"{t.rank:>4}  {format_record(t.wins, t.losses):>9} {t.spread:>+7} {mean:>11}"
                f" {t.mean_spread:>+8.1f} {t.percent_vs_others:>6.2f}  {t.team:<20}"
                f" {t.mean_rank:>7.2f}  {' '.join(map(str, t.ranks))}"
            )
