from typing import Any

from tournament.errors import ServiceError
from tournament.models import Division, Game
from tournament.selectors import division_by_name, pairings_after, tournament_by_slug
from tournament.services import change_result, correct_player_result, record_result
from tournament.shapes import game_row, later_pairing_rows

from ..base import GibsonCommand


class Command(GibsonCommand):
    acts_as = True
    help = (
        "Record a game's result: the player's score first, then the opponent's; "
        "'P f' when P forfeits, 'P ff' for a double forfeit, 'P --clear REASON' back to unplayed."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("--division", help="division name (may be left out with one division)")
        parser.add_argument("--round", type=int, required=True)
        parser.add_argument("player_number")
        parser.add_argument(
            "score",
            nargs="?",
            help="the player's score; 'f' when the player forfeits, 'ff' for a double forfeit",
        )
        parser.add_argument("opp_score", nargs="?", help="left out for a bye or forfeit")
        parser.add_argument(
            "--correct",
            metavar="REASON",
            help="change a result already recorded; the reason goes to the audit trail",
        )
        parser.add_argument(
            "--clear",
            metavar="REASON",
            help="take a recorded result back to unplayed; the reason goes to the audit trail",
        )

    def handle(self, *args, **opts):
        tournament = tournament_by_slug(opts["slug"])
        division = division_by_name(tournament, opts["division"])
        games = self.write_result(division, opts)
        # the API's game (tournament.shapes); a single game says what it is (bye, forfeit,
        # forfeit win, double forfeit)
        data = [
            {**game_row(game), **({} if game.player2_id else {"explanation": game.explanation})}
            for game in games
        ]
        # A correction or clear of an earlier round: later rounds were paired from the old result.
        changed = opts["correct"] is not None or opts["clear"] is not None
        later = pairings_after(games[0]) if changed else []
        if changed:
            for row in data:
                row["later_pairings"] = later_pairing_rows(later)
        if opts["json"]:
            self.emit_json(data[0] if len(data) == 1 else data)
            return
        if opts["clear"] is not None:
            verb = "Cleared"
        else:
            verb = "Corrected" if opts["correct"] is not None else "Recorded"
        for row in data:
            if row["player2"]:
                second = (
                    f"#{row['player2']['number']} "
                    f"{row['score2'] if row['score2'] is not None else ''}"
                )
            else:
                second = f"({row.get('explanation') or 'bye'})"
            self.stdout.write(
                f"{verb} round {row['round']}: #{row['player1']['number']} "
                f"{row['score1'] if row['score1'] is not None else ''} - {second}".replace(
                    "  ", " "
                )
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

    def write_result(self, division: Division, opts: dict[str, Any]) -> list[Game]:
        """The result written as the options say (record, correct, a state, clear): the
        game's rows afterwards."""
        score = opts["score"]
        state = {"f": "forfeit", "ff": "double_forfeit"}.get((score or "").lower())
        if opts["clear"] is not None:
            if score is not None:
                raise ServiceError(
                    "bad_line", field="score", message="--clear takes the player number only"
                )
            games = change_result(
                division,
                opts["round"],
                opts["player_number"],
                "clear",
                reason=opts["clear"],
                actor=self.actor(opts, "record_result"),
            )
        elif state is not None:
            games = change_result(
                division,
                opts["round"],
                opts["player_number"],
                state,
                reason=opts["correct"] or "",
                actor=self.actor(opts, "record_result"),
            )
        elif score is None:
            raise ServiceError("both_scores_needed", field="score", where=f"round {opts['round']}")
        elif opts["correct"] is not None:
            games = [
                correct_player_result(
                    division,
                    opts["round"],
                    opts["player_number"],
                    score,
                    opts["opp_score"],
                    reason=opts["correct"],
                    actor=self.actor(opts, "record_result"),
                )
            ]
        else:
            games = [
                record_result(
                    division,
                    opts["round"],
                    opts["player_number"],
                    score,
                    opts["opp_score"],
                    actor=self.actor(opts, "record_result"),
                )
            ]
        return games
