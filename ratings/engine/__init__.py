"""Rating systems as plain Python: players' state and an event's games in, new state out.

No Django here (the shell in ``ratings`` loads and stores); everything can be used from a
notebook. The public API:

- ``rate_event(system, players, games, configured_rounds)`` -> {id: PlayerRating}
- ``estimates_by_round(system, players, games, configured_rounds, through_round=None)``
- ``segment_plan(configured_rounds)``
- ``replay(events, start, system=None, on_event=None)`` and ``prediction_scores(...)``
- ``SYSTEMS``: "nsa2008", "naspa2024", "naspa-csw", "club-third", "wespa-tsh", "absp",
  "aus", "glicko2"
- ``ratingsfile.parse_ratings(text, source=...)``: TSH's tab-separated ratings list or CSV
"""

from .base import RatingSystem
from .history import RatedEvent, prediction_scores, replay
from .model import (
    MAX_GAME_SCORE,
    GameExplanation,
    PlayerRating,
    RatedGame,
    RatedPlayer,
    RatingError,
    SegmentExplanation,
    round_half_up,
    segment_plan,
)
from .systems import (
    NO_RATING_SYSTEM,
    SYSTEMS,
    estimates_by_round,
    get_system,
    rate_event,
    system_names,
)

__all__ = [
    "MAX_GAME_SCORE",
    "NO_RATING_SYSTEM",
    "SYSTEMS",
    "GameExplanation",
    "PlayerRating",
    "RatedEvent",
    "RatedGame",
    "RatedPlayer",
    "RatingError",
    "RatingSystem",
    "SegmentExplanation",
    "estimates_by_round",
    "get_system",
    "prediction_scores",
    "rate_event",
    "replay",
    "round_half_up",
    "segment_plan",
    "system_names",
]
