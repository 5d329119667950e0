"""What the result box answers: both names, the spread and each player's new record.

The console's result entry and a club night's page both echo a recorded line the way TSH's
add-score does, so the operator can compare it with the slip; this module is that answer,
shared by both faces (neither imports the other's views).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.utils.translation import gettext as _

from tournament.standings import format_record

from ..models import Division, Game, PendingResult
from ..scoreline import LOW_SCORE, low_scores
from ..selectors import records_of
from ..services.results import Entered
from ..standings import StandingsRow


def record_echo(row: StandingsRow | None) -> dict[str, Any]:
    if row is None:
        return {"record": "", "spread": ""}
    return {"record": format_record(row.wins, row.losses), "spread": f"{row.spread:+d}"}


def side_echo(entry, score: int | None, rows: dict[int, StandingsRow]) -> dict[str, Any]:
    return {
        "number": entry.number,
        "name": entry.name,
        "score": score,
        **record_echo(rows.get(entry.number)),
    }


def game_echo(game: Game, rows: dict[int, StandingsRow]) -> dict[str, Any]:
    """Both players with their scores, the winner and spread, and each one's new record."""
    one = side_echo(game.player1, game.score1, rows)
    two = side_echo(game.player2, game.score2, rows)
    spread = abs(game.score1 - game.score2)
    if game.score1 == game.score2:
        outcome = _("a tie at {score}").format(score=game.score1)
    else:
        winner = one if game.score1 > game.score2 else two
        outcome = _("#{number} {name} wins by {spread}").format(
            number=winner["number"], name=winner["name"], spread=spread
        )
    return {"players": [one, two], "outcome": outcome, "spread": spread}


def players_of(games: Iterable[Game]) -> set[int]:
    """The player numbers of some games (both sides of each)."""
    numbers = set()
    for game in games:
        numbers.add(game.player1.number)
        if game.player2_id is not None:
            numbers.add(game.player2.number)
    return numbers


def line_echo(division: Division, entered: Entered) -> dict[str, Any]:
    """The answer to a typed line. Only the records of the line's players are counted
    (``records_of``): the echo costs the same at 50 players as at 500."""
    rows = records_of(division, players_of(entered.games))
    line = entered.line
    echo: dict[str, Any] = {"kind": entered.kind, "line": line.text, "game_ids": []}
    if entered.kind in ("forfeit", "double_forfeit"):
        # stored as two single games, the player's own first
        one, two = entered.games
        echo["players"] = [
            side_echo(one.player1, one.score1, rows),
            side_echo(two.player1, two.score1, rows),
        ]
        a, b = one.player1, two.player1
        if entered.kind == "forfeit":
            echo["outcome"] = _(
                "#{number} {name} forfeits; #{other_number} {other_name} wins by {spread}"
            ).format(
                number=a.number,
                name=a.name,
                other_number=b.number,
                other_name=b.name,
                spread=two.score1,
            )
        else:
            echo["outcome"] = _(
                "#{number} {name} and #{other_number} {other_name} both forfeit ({spread})"
            ).format(
                number=a.number,
                name=a.name,
                other_number=b.number,
                other_name=b.name,
                spread=one.score1,
            )
        echo["game_ids"] = [one.pk, two.pk]
        return echo
    game = entered.games[0]
    echo["game_ids"] = [game.pk]
    if entered.kind == "cleared":
        echo["players"] = [
            side_echo(game.player1, None, rows),
            side_echo(game.player2, None, rows),
        ]
        echo["outcome"] = _("#{number} v #{other_number} is unplayed again").format(
            number=game.player1.number, other_number=game.player2.number
        )
        return echo
    if entered.kind in ("recorded", "confirmed", "corrected"):
        echo.update(game_echo(game, rows))
        low = low_scores(line)
        if low:
            # at most two scores: the game's two
            scores = (
                str(low[0])
                if len(low) == 1
                else _("{first} and {second}").format(first=low[0], second=low[1])
            )
            echo["warning"] = _(
                "score {scores} is under {low}: recorded; check the scorecard "
                "(ArrowUp reopens this line)"
            ).format(scores=scores, low=LOW_SCORE)

    else:
        if entered.kind == "held":
            waiting = game.pending_results.filter(status=PendingResult.Status.PENDING)
            echo["cards"] = sorted({(c.score1, c.score2) for c in waiting})
        echo["players"] = [
            {"number": game.player1.number, "name": game.player1.name},
            {"number": game.player2.number, "name": game.player2.name},
        ]
    return echo
