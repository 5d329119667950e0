from django.core.management.base import CommandError

from pairings.engine import system_names
from pairings.services.rounds import (
    add_bye,
    pair_round,
    pin_in_round,
    remove_bye,
    swap_in_round,
)
from tournament.models import Game
from tournament.selectors import division_by_name, tournament_by_slug
from tournament.shapes import game_row

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
        change = parser.add_argument_group(
            "changing a round in play (scored games stay exactly as recorded; one audit event)"
        )
        change.add_argument(
            "--swap",
            nargs=2,
            type=int,
            metavar=("A", "B"),
            help="exchange two players (wrong table)",
        )
        change.add_argument(
            "--pin",
            nargs=2,
            type=int,
            metavar=("A", "B"),
            help="A plays B, their old opponents play each other (a late arrival and the bye's "
            "player)",
        )
        change.add_argument(
            "--add-bye",
            type=int,
            metavar="P",
            help="P sits out; their opponent takes the bye's game",
        )
        change.add_argument(
            "--remove-bye",
            type=int,
            metavar="P",
            help="P's bye goes: P plays the other bye player or a late arrival (--opponent)",
        )
        change.add_argument("--opponent", type=int, help="with --remove-bye: who P plays")

    def handle(self, *args, **opts):
        tournament = tournament_by_slug(opts["slug"])
        division = division_by_name(tournament, opts["division"])
        changes = [k for k in ("swap", "pin", "add_bye", "remove_bye") if opts[k] is not None]
        if changes:
            return self._change(tournament, division, changes, opts)
        if opts["opponent"] is not None:
            raise CommandError("--opponent goes with --remove-bye")
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

    def _change(self, tournament, division, changes: list[str], opts) -> None:
        """One change to a round in play through the pairing service, then the round as stored."""
        if len(changes) > 1:
            named = " and ".join("--" + c.replace("_", "-") for c in changes)
            raise CommandError(f"give one change at a time, not {named}")
        clash = [f for f in ("system", "seed") if opts[f] is not None]
        clash += [f for f in ("dry_run", "force", "keep_scored") if opts[f]]
        if clash:
            named = ", ".join("--" + c.replace("_", "-") for c in clash)
            raise CommandError(
                f"{named} re-pair a round; --{changes[0].replace('_', '-')} changes it"
            )
        if opts["opponent"] is not None and changes != ["remove_bye"]:
            raise CommandError("--opponent goes with --remove-bye")
        r = opts["round"]
        kind = changes[0]
        if kind == "swap":
            swap_in_round(division, r, *opts["swap"], actor="pair")
        elif kind == "pin":
            pin_in_round(division, r, *opts["pin"], actor="pair")
        elif kind == "add_bye":
            add_bye(division, r, opts["add_bye"], actor="pair")
        else:
            remove_bye(division, r, opts["remove_bye"], opts["opponent"], actor="pair")
        games = list(
            Game.objects.filter(round__division=division, round__number=r)
            .select_related("round", "player1__player", "player2__player")
            .order_by("board", "pk")
        )
        rows = [{**game_row(g), "explanation": g.explanation} for g in games]  # the API's game
        if opts["json"]:
            self.emit_json({"round": r, "change": kind, "games": rows})
            return
        what = kind.replace("_", " ")
        self.stdout.write(
            f"{tournament.name} - division {division.name}, round {r} changed ({what})"
        )
        for g in games:
            second = f"#{g.player2.number} {g.player2.name}" if g.player2_id else "-"
            score = (
                "" if g.score1 is None else f"{g.score1}-{g.score2 if g.score2 is not None else ''}"
            )
            board = str(g.board) if g.board else "-"
            self.stdout.write(
                f"{board:>5}  #{g.player1.number} {g.player1.name:<27} {second:<30} {score:<9} "
                f"{g.explanation}"
            )
