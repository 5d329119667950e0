"""The explanation players read of a rating change: built from the engine's result, either as
the event is rated (small events, a division at submission) or later, when it is read, from
what a federation re-rate stores instead (the participants' state before the event).

Kept apart from services so selectors can build an explanation on read without importing the
write side. Both ways give the same JSON: the event is rated again by the same engine from the
same state, and encoded by the same function.
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Hashable, Iterable
from typing import Any

from .engine import PlayerRating as EnginePlayerRating
from .engine import RatedGame, RatedPlayer, get_system
from .engine.history import _participants

#: One encoder for every explanation: compact (jsonb keeps no spacing; SQLite stores less).
_ENCODE = json.JSONEncoder(check_circular=False, separators=(",", ":")).encode


#: round(e, 4) of the chances seen so far: most are the rating system's table values (a rating
#: difference's chance), so a federation's millions of per-game chances are a few thousand
#: values; round() costs several times a lookup. Zero is never cached (0.0 and -0.0 are one key
#: but round to different text), and the cache is emptied when it grows past _ROUNDED_MAX.
_ROUNDED: dict[float, float] = {}
_ROUNDED_MAX = 200_000


def _round4(e: float) -> float:
    value = round(e, 4)
    if e:
        if len(_ROUNDED) >= _ROUNDED_MAX:
            _ROUNDED.clear()
        _ROUNDED[e] = value
    return value


def _explanation(pr: EnginePlayerRating) -> dict[str, Any]:
    rounded = _ROUNDED.get
    return {
        "text": pr.explain(),
        "segments": [
            {
                "rounds": [s.first_round, s.last_round],
                "rating_in": s.rating_in,
                "games": s.games,
                "expected": round(s.expected, 4),
                "actual": s.actual,
                "multipliers": [[k, round(e, 4)] for k, e in s.multipliers],
                "change": round(s.change, 3),
                "bonus": round(s.bonus, 3),
                "feedback": round(s.feedback, 3),
                "rating_out": s.rating_out,
                "newcomer": s.newcomer,
                "notes": list(s.notes),
                # unpacked, not read by name: a federation's re-rate explains millions of games
                "per_game": [
                    [r, opp, opp_rating, got if (got := rounded(e)) is not None else _round4(e), a]
                    for r, opp, opp_rating, e, a, _score, _opp_score in s.game_details
                ],
            }
            for s in pr.segments
        ],
    }


def _encode_history(history: tuple[float, ...] | None) -> str:
    """absp's recent game values as plain text: "" for none, "h" and each float's repr
    (which reads back to the same float), space-separated."""
    if history is None:
        return ""
    return "h" + " ".join(map(repr, history))


def _decode_history(text: str) -> tuple[float, ...] | None:
    if not text:
        return None
    return tuple(float(x) for x in text[1:].split())


def state_columns(p: RatedPlayer) -> tuple[Any, ...]:
    """A player's state entering an event as the history row stores it (after ``before``):
    games_before, deviation_before, volatility_before, last_played_before, history_before."""
    played = p.last_played.isoformat() if p.last_played is not None else None  # any driver
    return (p.career_games, p.deviation, p.volatility, played, _encode_history(p.history))


#: A stored row's state: before, games_before, deviation_before, volatility_before,
#: last_played_before, history_before (the columns ``state_columns`` fills, after ``before``).
STATE_FIELDS = (
    "before",
    "games_before",
    "deviation_before",
    "volatility_before",
    "last_played_before",
    "history_before",
)


def explain_event(
    system: str,
    date: datetime.date,
    configured_rounds: int,
    games: Iterable[Iterable[int]],
    states: dict[Hashable, tuple[Any, ...]],
) -> dict[Hashable, dict[str, Any]]:
    """Every participant's explanation, rating the event again from the stored state.

    ``games`` as the event stores them ([round, a, b, score_a, score_b]); ``states`` maps each
    participant to its STATE_FIELDS values. The players go to the system in the order the
    re-rate gave them (first appearance by round), so the result is the one rated then.
    """
    rated = [RatedGame(*g) for g in games]
    players = []
    for pid in _participants(rated):
        before, games_before, deviation, volatility, last_played, history = states[pid]
        players.append(
            RatedPlayer(
                pid,
                before,
                games_before,
                deviation,
                volatility,
                _decode_history(history),
                last_played,
            )
        )
    res = get_system(system).rate(players, rated, configured_rounds, explain=True, date=date)
    return {pid: _explanation(pr) for pid, pr in res.items()}
