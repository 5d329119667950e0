from pairings.chances import DEFAULT_SIMS, check_after_round, check_sims, division_chances
from tournament.selectors import division_by_name, tournament_by_slug

from ..base import GibsonCommand


def _pct(p: float | None) -> str:
    return "" if p is None else f"{100 * p:.1f}%"


class Command(GibsonCommand):
    help = (
        "Prize chances: play the division's remaining rounds many times (seeded) and print each "
        "player's chance of 1st, of each prize place, of the money and of their class prize."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("--division", help="division name (may be left out with one division)")
        parser.add_argument(
            "--after-round",
            help="replay: the division as if only rounds 1..N had been played and paired",
        )
        parser.add_argument("--sims", default=DEFAULT_SIMS, help=f"default {DEFAULT_SIMS}")
        parser.add_argument("--seed", type=int, help="default: fixed per division")

    def handle(self, *args, **opts):
        tournament = tournament_by_slug(opts["slug"])
        division = division_by_name(tournament, opts["division"])
        after = check_after_round(division, opts["after_round"])
        sims = check_sims(opts["sims"])
        rows = division_chances(division, after, sims=sims, seed=opts["seed"])
        if opts["json"]:
            self.emit_json([r.as_dict() for r in rows])
            return
        self.stdout.write(f"{'#':>4} {'player':<28} {'1st':>7} {'cash':>7} {'class':>7} {'exp':>6}")
        for r in sorted(rows, key=lambda r: (r.expected_rank is None, r.expected_rank or 0)):
            exp = "" if r.expected_rank is None else f"{r.expected_rank:.1f}"
            self.stdout.write(
                f"{r.number:>4} {r.name[:28]:<28} {_pct(r.p_first):>7} {_pct(r.p_cash):>7} "
                f"{_pct(r.p_class):>7} {exp:>6}"
            )
