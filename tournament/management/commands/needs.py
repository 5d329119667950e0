from pairings.needs import division_needs, needs_as_dict
from tournament.selectors import division_by_name, tournament_by_slug

from ..base import GibsonCommand


class Command(GibsonCommand):
    help = (
        "What each player needs for each prize place: exact conditions once the last round is "
        "paired ('1st if you win by 87 or more, or win and #5 loses'), safe bounds before "
        "('can no longer finish above 4th', 'clinched a prize')."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("--division", help="division name (may be left out with one division)")
        parser.add_argument("--player", type=int, help="only this player number")

    def handle(self, *args, **opts):
        tournament = tournament_by_slug(opts["slug"])
        division = division_by_name(tournament, opts["division"])
        player = opts["player"]
        if player is not None and player < 1:
            raise ValueError(
                f"--player {player}: a player number is 1 or more (division {division.name})"
            )
        result = division_needs(division, player)
        if opts["json"]:
            self.emit_json(needs_as_dict(result))
            return
        self.stdout.write(
            f"{tournament.name} - division {division.name}: what each player needs "
            f"(prize places: top {result.places})"
        )
        for line in result.assumptions:
            self.stdout.write(f"  {line}")
        for view in result.players:
            rank = f"{view.rank}." if view.rank is not None else "-"
            self.stdout.write(f"{rank:>4} #{view.number} {view.name}")
            for line in view.lines:
                self.stdout.write(f"       {line}")
