from pairings.engine import system_names
from pairings.services.rounds import pair_round
from tournament.selectors import division_by_name, tournament_by_slug

from ..base import GibsonCommand


class Command(GibsonCommand):
    acts_as = True
    help = (
        "Pair a round with the pairing engine from the results of the rounds before it "
        "(system from the division's schedule unless --system is given)."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("--division", help="division name (may be left out with one division)")
        parser.add_argument("--round", type=int, required=True, help="the round to pair")
        parser.add_argument(
            "--system",
            help="one of: " + ", ".join(system_names()),
        )
        parser.add_argument("--dry-run", action="store_true", help="show, store nothing")
        parser.add_argument("--force", action="store_true", help="replace existing pairings")
        parser.add_argument("--seed", type=int, help="seed for drawn starts and random pairing")
        parser.add_argument(
            "--keep-scored",
            action="store_true",
            help="re-pair only the unscored games of a round in play (played games, forfeits "
            "and byes kept exactly); needs no --force",
        )

    def handle(self, *args, **opts):
        tournament = tournament_by_slug(opts["slug"])
        division = division_by_name(tournament, opts["division"])
        result = pair_round(
            division,
            opts["round"],
            system=opts["system"],
            dry_run=opts["dry_run"],
            force=opts["force"],
            seed=opts["seed"],
            keep_scored=opts["keep_scored"],
            actor=self.actor(opts, "pair"),
        )
        if opts["json"]:
            self.emit_json(
                [
                    {
                        "board": g.board,
                        "first": g.first,
                        "second": g.second,
                        "explanation": g.explanation,
                    }
                    for g in result.games
                ]
            )
            return
        names = {e.number: e.player.name for e in division.entries.select_related("player")}
        state = "dry run, nothing stored" if opts["dry_run"] else "stored"
        self.stdout.write(
            f"{tournament.name} - division {division.name}, round {result.round} "
            f"({result.system}; {state})"
        )
        self.stdout.write(f"{'board':>5}  {'first':<30} {'second':<30} why")
        for g in result.games:
            first = f"#{g.first} {names.get(g.first, '?')}"
            second = f"#{g.second} {names.get(g.second, '?')}" if g.second else "bye"
            board = str(g.board) if g.board else "-"
            self.stdout.write(f"{board:>5}  {first:<30} {second:<30} {g.explanation}")
        for note in result.notes:
            self.stdout.write(f"note: {note}")
