from tournament.selectors import division_by_name, pairings_after, tournament_by_slug
from tournament.services import correct_player_result, record_result

from ..base import GibsonCommand


class Command(GibsonCommand):
    help = "Record a game's result: the player's score first, then the opponent's."

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("--division", help="division name (may be left out with one division)")
        parser.add_argument("--round", type=int, required=True)
        parser.add_argument("player_number")
        parser.add_argument("score")
        parser.add_argument("opp_score", nargs="?", help="left out for a bye or forfeit")
        parser.add_argument(
            "--correct",
            metavar="REASON",
            help="change a result already recorded; the reason goes to the audit trail",
        )

    def handle(self, *args, **opts):
        tournament = tournament_by_slug(opts["slug"])
        division = division_by_name(tournament, opts["division"])
        if opts["correct"] is not None:
            game = correct_player_result(
                division,
                opts["round"],
                opts["player_number"],
                opts["score"],
                opts["opp_score"],
                reason=opts["correct"],
                actor="record_result",
            )
        else:
            game = record_result(
                division,
                opts["round"],
                opts["player_number"],
                opts["score"],
                opts["opp_score"],
                actor="record_result",
            )
        data = {
            "round": game.round.number,
            "board": game.board,
            "player1": game.player1.number,
            "score1": game.score1,
            "player2": game.player2.number if game.player2_id else 0,
            "score2": game.score2,
        }
        # A correction of an earlier round: the later rounds were paired from the old result.
        later = pairings_after(game) if opts["correct"] is not None else []
        if opts["correct"] is not None:
            data["later_pairings"] = [{"round": x.round, "unscored": x.unscored} for x in later]
        if opts["json"]:
            self.emit_json(data)
            return
        verb = "Corrected" if opts["correct"] is not None else "Recorded"
        self.stdout.write(
            f"{verb} round {data['round']}: #{data['player1']} {data['score1']} - "
            f"#{data['player2']} {data['score2'] if data['score2'] is not None else ''}"
        )
        for x in later:
            self.stderr.write(
                f"warning: round {x.round} was paired from the old result; "
                + (
                    f"{x.unscored} unscored game(s) may be re-paired "
                    f"(pair {opts['slug']} --round {x.round} --keep-scored)"
                    if x.unscored
                    else "every game of it is scored"
                )
            )
