"""The shell of "what I need": a division's standings and unplayed games as the pure needs
engine (``pairings/engine/needs.py``) sees them, and its answers in the forms the faces show.

Reads only. The ranking is the standings' own (``tournament.standings.compute_standings``
under the tournament's spread-cap and points rules); a player's tiebreak after wins, losses
and spread is their seed rating, then the name's fixed random value, then the number, as the
standings list them. Prize places are the division's ``prize_places``; a division without
one is given the top ``DEFAULT_PLACES`` (3, as the printed prize list assumes), and the answer
says so (``places_default``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from django.utils.translation import gettext_noop

from pairings.engine.needs import (
    MARGIN_BOUND,
    Behind,
    Margin,
    Need,
    NeedGroup,
    NeedsInput,
    Pending,
    Standing,
    compute_needs,
    describe,
    summarize_groups,
)
from tournament.errors import Phrase, ServiceError
from tournament.models import Division
from tournament.selectors import DivisionSnapshot
from tournament.standings import (
    PlayerRound,
    StandingsPlayer,
    StandingsRow,
    compute_standings,
    name_tiebreak,
)

DEFAULT_PLACES = 3


@dataclass
class NeedsView:
    """One player's needs as the page, the API and the command show them."""

    number: int
    name: str
    rank: int | None
    lines: list[str]
    needs: list[dict[str, Any]] = field(default_factory=list)
    # the lines in parts, for the player's page (the few things that matter first, every way
    # behind a tap); not in the JSON, whose ``needs`` hold the same as data
    groups: list[NeedGroup] = field(default_factory=list)


@dataclass
class DivisionNeeds:
    division: str
    mode: str  # "exact" (the last round paired), "bounds" (rounds left), "final"
    places: int
    places_default: bool  # True: the division sets no prize places; the top 3 are assumed
    margin_bound: int  # the largest margin a game counts in the statements
    assumptions: list[str]
    players: list[NeedsView]


def _cap(rule: Any, rnd: int) -> int | None:
    """The spread cap of a round under ``Tournament.spread_cap_rule`` (a number or a list by
    round whose last cap holds on), as the standings apply it."""
    if rule is None:
        return None
    if isinstance(rule, list):
        if not rule:
            return None
        return int(rule[min(rnd, len(rule)) - 1]) if rnd >= 1 else None
    return int(rule)


def _zero_cap(rule: Any, rounds: Sequence[int]) -> bool:
    """Whether a round still to play has a spread cap of 0 (its spread counts nothing): the
    statements' margins would then not be the ranked spread, so only bounds on wins are
    given."""
    return any(_cap(rule, r) == 0 for r in rounds)


def _bound(rule: Any, rnd: int) -> int:
    cap = _cap(rule, rnd)
    return cap if cap is not None and cap >= 1 else MARGIN_BOUND


def needs_input_from(
    players: list[StandingsPlayer],
    rounds: list[PlayerRound],
    *,
    spread_cap: Any = None,
    sum_before_spread: bool = False,
    rounds_total: int = 0,
    prize_places: int = 0,
) -> NeedsInput:
    """The engine's input from the standings core's terms (no database): every player's
    counted results, the paired games still without a result, one margin bound per round not
    yet paired (up to ``rounds_total``), the prize places (``prize_places`` or the default).
    The exactness tests build their cases through this too."""
    return _input_and_ranks(
        players,
        rounds,
        spread_cap=spread_cap,
        sum_before_spread=sum_before_spread,
        rounds_total=rounds_total,
        prize_places=prize_places,
    )[0]


def _input_and_ranks(
    players: list[StandingsPlayer],
    rounds: list[PlayerRound],
    *,
    spread_cap: Any,
    sum_before_spread: bool,
    rounds_total: int,
    prize_places: int,
) -> tuple[NeedsInput, dict[int, int | None]]:
    """needs_input_from, with the standings' ranks by number."""
    # the spread as ranked (capped when a cap is set), whatever the standings show
    rows = compute_standings(
        players,
        rounds,
        spread_cap=spread_cap,
        standings_spread_cap=False,
        sum_before_spread=sum_before_spread,
    )
    rating = {p.number: p.rating for p in players}
    standing = [
        Standing(
            number=r.number,
            wins=r.wins,
            losses=r.losses,
            spread=r.spread,
            tiebreak=(-rating[r.number], name_tiebreak(r.name)),
            ranked=r.rank is not None,
        )
        for r in rows
    ]
    pending = [
        Pending(r.player, r.opponent, _bound(spread_cap, r.round))
        for r in rounds
        if r.opponent is not None
        and r.player < r.opponent
        and (r.score is None or r.opponent_score is None)
    ]
    last = max((r.round for r in rounds), default=0)
    future = [_bound(spread_cap, n) for n in range(last + 1, rounds_total + 1)]
    to_play = [r.round for r in rounds if r.score is None] + list(range(last + 1, rounds_total + 1))
    ranked = sum(1 for s in standing if s.ranked)
    places = max(1, min(prize_places or DEFAULT_PLACES, ranked or 1))
    data = NeedsInput(
        standing,
        pending,
        future,
        places=places,
        spread_decides=not sum_before_spread and not _zero_cap(spread_cap, to_play),
    )
    # the ranks the standings show: showing the real spread (standings_spread_cap) changes
    # only the spread printed, never the order
    return data, {r.number: r.rank for r in rows}


def needs_input(
    division: Division, snapshot: DivisionSnapshot | None = None
) -> tuple[NeedsInput, dict[int, str], dict[int, int | None], bool]:
    """The engine's input for the division (``needs_input_from`` on its games), with the
    names and standings ranks by number and whether the prize places are the default."""
    t = division.tournament
    snapshot = snapshot or DivisionSnapshot.load(division)
    players, rounds = snapshot.player_rounds()
    data, ranks = _input_and_ranks(
        players,
        rounds,
        spread_cap=t.spread_cap_rule,
        sum_before_spread=t.sum_before_spread,
        rounds_total=division.rounds,
        prize_places=division.prize_places,
    )
    names = {p.number: p.name for p in players}
    return data, names, ranks, not division.prize_places


def prepared_from_standings(
    division: Division,
    rows: list[StandingsRow],
    pending: Sequence[tuple[int, int, int]],
    last_round: int,
) -> tuple[NeedsInput, dict[int, str], dict[int, int | None], bool] | None:
    """``needs_input``'s answer from standings a page already has (after the last paired
    round) and the unplayed games as (player1, player2, round) numbers: no second read of the
    games. None when the rows' spread is not the ranked one (``standings_spread_cap``: the
    real spread is shown, the capped one ranks); the caller then reads the games."""
    t = division.tournament
    if t.standings_spread_cap:
        return None
    rule = t.spread_cap_rule
    standing = [
        Standing(
            number=r.number,
            wins=r.wins,
            losses=r.losses,
            spread=r.spread,
            tiebreak=(-r.rating, name_tiebreak(r.name)),
            ranked=r.rank is not None,
        )
        for r in rows
    ]
    ranked = sum(1 for s in standing if s.ranked)
    places = max(1, min(division.prize_places or DEFAULT_PLACES, ranked or 1))
    data = NeedsInput(
        standing,
        [Pending(a, b, _bound(rule, rnd)) for a, b, rnd in pending],
        [_bound(rule, n) for n in range(last_round + 1, division.rounds + 1)],
        places=places,
        spread_decides=not t.sum_before_spread
        and not _zero_cap(
            rule,
            [rnd for _a, _b, rnd in pending] + list(range(last_round + 1, division.rounds + 1)),
        ),
    )
    names = {r.number: r.name for r in rows}
    ranks = {r.number: r.rank for r in rows}
    return data, names, ranks, not division.prize_places


def _condition(c: Margin | Behind) -> dict[str, Any]:
    kind = "margin" if isinstance(c, Margin) else "behind"
    return {"kind": kind, **asdict(c)}


def _need(n: Need, labels: dict[int, str]) -> dict[str, Any]:
    return {
        "place": n.place,
        "status": n.status,
        "exact": n.exact,
        "text": describe(n, labels),
        "alternatives": [[_condition(c) for c in alt] for alt in n.alternatives],
    }


def _assumptions(mode: str, data: NeedsInput, default: bool, bound: int) -> list[str]:
    """What the answer assumes, as Phrases: English strings for the API and the command line,
    worded in the reader's language by a page (``tournament.errors.worded``)."""
    out: list[str] = []
    if default:
        out.append(
            Phrase(
                gettext_noop("The division sets no prize places: the top {places} are assumed."),
                places=data.places,
            )
        )
    if mode == "exact":
        out.append(
            Phrase(
                gettext_noop(
                    "Exact for the games still to play; a margin counts up to {bound} (the "
                    "spread cap, or {unbounded} without one). Players level on wins, losses "
                    "and spread are placed as the standings list them (seed rating, then a "
                    "fixed draw)."
                ),
                bound=bound,
                unbounded=MARGIN_BOUND,
            )
        )
    elif mode == "bounds":
        out.append(
            Phrase(
                gettext_noop(
                    "Rounds are still to be paired: only what holds whatever the pairings and "
                    "results (each game counted up to a margin of {bound}) is shown."
                ),
                bound=bound,
            )
        )
    return out


def division_needs(
    division: Division,
    player: int | None = None,
    snapshot: DivisionSnapshot | None = None,
    prepared: tuple | None = None,
) -> DivisionNeeds:
    """Every ranked player's needs (or only ``player``'s), refusing an unknown number.
    ``prepared`` is ``needs_input``'s answer already at hand (a page caches it per version:
    500 players' pages then each cost only their own few milliseconds)."""
    data, names, ranks, default = prepared or needs_input(division, snapshot)
    if player is not None and player not in names:
        raise ServiceError(
            "unknown_player",
            field="player",
            where=f"division {division.name}",
            number=player,
            count=len(names),
        )
    result = compute_needs(data, only=player) if (player is None or ranks.get(player)) else {}
    labels = {n: f"#{n} {name}" for n, name in names.items()}
    views = []
    mode = "final"
    # in standings order, as the command and the API list players elsewhere
    for number in sorted(result, key=lambda n: (ranks.get(n) is None, ranks.get(n) or 0, n)):
        pn = result[number]
        mode = pn.mode
        groups = summarize_groups(pn, data.places, labels)
        views.append(
            NeedsView(
                number=number,
                name=names[number],
                rank=ranks.get(number),
                lines=[g.text for g in groups],
                needs=[_need(n, labels) for n in pn.needs],
                groups=groups,
            )
        )
    if not result:
        mode = "final" if not data.pending and not data.future_margins else "exact"
    if player is not None and not result:
        views.append(
            NeedsView(player, names[player], None, ["Withdrawn: not ranked, no prize place."])
        )
    bounds = [g.margin for g in data.pending] + list(data.future_margins)
    bound = max(bounds) if bounds else MARGIN_BOUND
    return DivisionNeeds(
        division=division.name,
        mode=mode,
        places=data.places,
        places_default=default,
        margin_bound=bound,
        assumptions=_assumptions(mode, data, default, bound),
        players=views,
    )


def needs_as_dict(result: DivisionNeeds) -> dict[str, Any]:
    """The JSON the API and ``manage.py needs --json`` give."""
    data = asdict(result)
    for player in data["players"]:
        player.pop("groups", None)
    return data
