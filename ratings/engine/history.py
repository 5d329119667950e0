"""Replaying a rating list's history, and scoring how well a system predicts games.

A late submission re-rates every later event of the list, so the shell rebuilds a list by
replaying all its events in date order from the starting state. The same replay, with each
game's expected score taken *before* its event is rated, measures a system's predictions on
equal terms with another's (every system predicts exactly the same games).
"""

from __future__ import annotations

import datetime
import math
import operator
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass, field

from .base import RatingSystem
from .model import PlayerRating, RatedGame, RatedPlayer, RatingError
from .systems import get_system

PROBABILITY_CLIP = 1e-9


@dataclass
class RatedEvent:
    """One event of a rating list's history."""

    id: Hashable
    date: datetime.date
    configured_rounds: int
    games: list[RatedGame] = field(default_factory=list)
    system: str = "nsa2008"


_by_round = operator.itemgetter(0)  # RatedGame.round, read from the tuple


def _participants(games: list[RatedGame]) -> list[Hashable]:
    """Players in order of first appearance (round order): the newcomers' iteration order."""
    seen: dict[Hashable, None] = {}
    for g in sorted(games, key=_by_round):
        seen.setdefault(g.a, None)
        seen.setdefault(g.b, None)
    return list(seen)


def _run(
    events: Iterable[RatedEvent],
    start: dict[Hashable, RatedPlayer],
    system: str | RatingSystem | None,
    on_event: Callable[[RatedEvent, dict[Hashable, PlayerRating]], None] | None,
    before_event: Callable[[RatedEvent, RatingSystem, dict[Hashable, RatedPlayer]], None]
    | None = None,
    explain: bool | None = None,
    ordered: bool = False,
    on_rated: Callable[[RatedEvent, list[RatedPlayer], dict[Hashable, PlayerRating]], None]
    | None = None,
) -> dict[Hashable, RatedPlayer]:
    state: dict[Hashable, RatedPlayer] = dict(start)
    fixed = get_system(system) if system is not None else None
    if explain is None:
        explain = on_event is not None
    # stable: same-day events keep their order; an ordered stream is consumed as it comes, so a
    # long history read from the database never has to sit in memory whole
    stream = events if ordered else sorted(events, key=lambda e: e.date)
    for ev in stream:
        sys = fixed or get_system(ev.system)
        if before_event is not None:
            before_event(ev, sys, state)
        ids = _participants(ev.games)
        players = []
        for pid in ids:
            p = state.get(pid)
            players.append(p if p is not None else RatedPlayer(pid, None, 0))
        try:
            res = sys.rate(players, ev.games, ev.configured_rounds, explain=explain, date=ev.date)
        except RatingError as exc:
            raise RatingError(f"event {ev.id!r} ({ev.date}): {exc}") from exc
        for pid in ids:
            pr = res[pid]
            state[pid] = RatedPlayer(
                id=pid,
                rating=pr.new or None,
                career_games=pr.new_games,
                deviation=pr.deviation,
                volatility=pr.volatility,
                history=pr.history,
                last_played=ev.date,
            )
        if on_event is not None:
            on_event(ev, res)
        if on_rated is not None:
            on_rated(ev, players, res)
    return state


def replay(
    events: Iterable[RatedEvent],
    start: dict[Hashable, RatedPlayer],
    *,
    system: str | None = None,
    on_event: Callable[[RatedEvent, dict[Hashable, PlayerRating]], None] | None = None,
    explain: bool | None = None,
    ordered: bool = False,
    on_rated: Callable[[RatedEvent, list[RatedPlayer], dict[Hashable, PlayerRating]], None]
    | None = None,
) -> dict[Hashable, RatedPlayer]:
    """Rate ``events`` in date order from ``start``; returns every player's final state.

    ``system`` overrides each event's own system (to compare systems on one history). Players
    not in ``start`` enter as newcomers. ``on_event`` sees each event's results (with the
    per-game explanation unless ``explain=False``). ``start`` is not modified. With
    ``ordered=True`` the caller promises date order and ``events`` may be a one-pass stream.
    ``on_rated`` sees each event with the participants' states entering it (in the order the
    system was given them) and the results: what a lazy explanation stores to rate the event
    again later.
    """
    return _run(
        events, start, system, on_event, explain=explain, ordered=ordered, on_rated=on_rated
    )


def prediction_scores(
    events: Iterable[RatedEvent],
    start: dict[Hashable, RatedPlayer],
    systems: list[str],
) -> dict[str, dict]:
    """Per system: how well its ratings before each event predicted that event's games.

    Only games between two players who were already rated before the event count (a newcomer
    has no prediction), and that set is the same for every system. A tie counts as half a win.
    For reference, always predicting 0.5 scores log-loss ln 2 = 0.693 and Brier 0.25.
    """
    evs = list(events)
    out: dict[str, dict] = {}
    for name in systems:
        sys = get_system(name)
        acc = {"log_loss": 0.0, "brier": 0.0, "games": 0, "skipped": 0}

        def predict(ev: RatedEvent, s: RatingSystem, state, acc=acc) -> None:
            for g in ev.games:
                pa, pb = state.get(g.a), state.get(g.b)
                if pa is None or pb is None or pa.is_newcomer or pb.is_newcomer:
                    acc["skipped"] += 1
                    continue
                p = min(1 - PROBABILITY_CLIP, max(PROBABILITY_CLIP, s.expected_score(pa, pb)))
                y = g.result_a
                acc["log_loss"] -= y * math.log(p) + (1 - y) * math.log(1 - p)
                acc["brier"] += (p - y) ** 2
                acc["games"] += 1

        _run(evs, start, sys, None, before_event=predict, explain=False)
        n = acc["games"]
        out[name] = {
            "system": name,
            "label": sys.label,
            "log_loss": acc["log_loss"] / n if n else None,
            "brier": acc["brier"] / n if n else None,
            "games": n,
            "skipped": acc["skipped"],
        }
    return out
