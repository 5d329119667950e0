from pairings.engine import PairingOptions, Schedule, check_round, pair_round
from pairings.engine.generator import simulate
from tournament.errors import ServiceError
from tournament.selectors import division_by_name, tournament_by_slug

from ..base import GibsonCommand


class Command(GibsonCommand):
    help = (
        "Play a whole random event through the pairing engine and the independent checker and "
        "print each round's quality. With a tournament SLUG, its division's players and ratings "
        "are the field (nothing is written to it)."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug", nargs="?", help="take the field from this tournament")
        parser.add_argument("--division", help="division name (with a SLUG)")
        parser.add_argument("--players", type=int, help="invent a field of N players")
        parser.add_argument("--rounds", type=int, required=True)
        parser.add_argument("--schedule", help='e.g. "1-3:fontes,4-10:swiss,11-12:koth"')
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument(
            "--withdraw-rate",
            type=float,
            default=0.0,
            help="chance per round that a player withdraws",
        )

    def handle(self, *args, **opts):
        rounds = opts["rounds"]
        if rounds < 1:
            raise ValueError(f"--rounds {rounds}: must be at least 1")
        if (opts["slug"] is None) == (opts["players"] is None):
            raise ValueError("give either a tournament SLUG or --players N (not both)")
        entrants = None
        n_players = opts["players"] or 0
        if opts["slug"] is not None:
            division = division_by_name(tournament_by_slug(opts["slug"]), opts["division"])
            entrants = [
                (e.player.name, e.seed_rating)
                for e in division.entries.select_related("player").order_by("number")
            ]
            if not entrants:
                raise ServiceError("division_has_no_players", division=division.name)
        elif n_players < 1:
            raise ValueError(f"--players {n_players}: must be at least 1")
        schedule = Schedule.parse(opts["schedule"] or f"1-{rounds}:swiss")
        for r in range(1, rounds + 1):
            schedule.entry_for(r)  # refuse a gap before playing anything
        base = PairingOptions(seed=opts["seed"])
        rows = []

        def pair(field):
            entry = schedule.entry_for(field.round)
            options = entry.options(base)
            result = pair_round(field, entry.system, options)
            report = check_round(field, result, options)
            rows.append(
                {
                    "round": field.round,
                    "system": entry.system,
                    "games": sum(1 for g in result.games if g.second),
                    "byes": sum(1 for g in result.games if not g.second),
                    **report.quality,
                    "checker_errors": report.errors,
                }
            )
            return result

        simulate(
            n_players,
            rounds,
            pair,
            seed=opts["seed"],
            withdraw_rate=opts["withdraw_rate"],
            lag=schedule.lag_for,
            rounds_total=rounds,
            entrants=entrants,
        )
        if opts["json"]:
            self.emit_json(rows)
            return
        self.stdout.write(
            f"{'round':>5} {'system':<11} {'games':>5} {'byes':>4} {'repeats':>7} "
            f"{'win diff':>8} {'floats':>6} {'imbalance':>9}  checker"
        )
        for r in rows:
            verdict = "ok" if not r["checker_errors"] else "; ".join(r["checker_errors"])
            self.stdout.write(
                f"{r['round']:>5} {r['system']:<11} {r['games']:>5} {r['byes']:>4} "
                f"{r['repeats']:>7} {r['win_diff']:>8g} {r['floats']:>6} "
                f"{r['max_imbalance']:>9}  {verdict}"
            )
