"""The pairing shell's read of prize chances: a division's state in the simulation's terms.

Reads the division through the selectors (standings, schedule, games) and hands the pure engine
(``pairings.engine.simulate`` / ``chances``) a ``SimSetup``: records after the last counted
round (or ``after_round``), the rounds left with their scheduled systems (table systems paired
by the real engine, rounds already paired with their real games and any results in), the
division's caps, bye spread and Gibson rule, and the win chances of every pair of players from
the division's rating system. Nothing here writes; the hide setting is read from
``Division.config["chances"]`` (written by ``tournament.services.tournaments``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from pairings.engine import Field, FieldPlayer, PairingError, PairingOptions, pair_round
from pairings.engine.chances import DEFAULT_PRIZE_PLACES, PlayerChances, chances
from pairings.engine.simulate import (
    GameModel,
    SimGame,
    SimPlayer,
    SimRound,
    SimSetup,
    load_game_model,
)
from pairings.engine.systems import PAIRING_SYSTEMS
from pairings.selectors import division_seed, pairing_options, schedule_entry
from ratings.engine.systems import expectancy_matrix
from tournament.errors import ServiceError
from tournament.models import Division
from tournament.selectors import DivisionSnapshot, last_round_number
from tournament.standings import compute_standings, is_withdrawn_after, name_tiebreak

DEFAULT_SIMS = 100_000
MAX_SIMS = 1_000_000
#: games the page and API simulate at most per computation (sims x players x rounds left / 2):
#: about a second; a 30-player division with 3 rounds left gets its 100,000 simulations
GAMES_BUDGET = 20_000_000
#: the system a round with nothing scheduled is simulated with
DEFAULT_SYSTEM = "swiss"


def _cap_for(rule: int | Sequence[int] | None, rnd: int) -> int | None:
    """The round's spread cap under the tournament's rule (as ``standings._cap_for``)."""
    if rule is None:
        return None
    if isinstance(rule, int):
        return rule
    caps = list(rule)
    return caps[min(rnd, len(caps)) - 1] if caps and rnd >= 1 else None


def check_sims(sims: Any) -> int:
    """Simulation count: a whole number from 1 to ``MAX_SIMS``."""
    if isinstance(sims, bool) or not isinstance(sims, int):
        try:
            sims = int(str(sims))
        except ValueError:
            raise ServiceError(
                "not_a_number", field="sims", what="simulations", value=sims
            ) from None
    if sims < 1 or sims > MAX_SIMS:
        raise ServiceError(
            "number_too_large",
            field="sims",
            what="simulations",
            value=sims,
            minimum=1,
            maximum=MAX_SIMS,
        )
    return sims


def check_after_round(division: Division, after_round: Any) -> int | None:
    """``after_round`` as a round already paired (0 = before round 1), or None (live)."""
    if after_round is None:
        return None
    if isinstance(after_round, bool) or not isinstance(after_round, int):
        try:
            after_round = int(str(after_round))
        except ValueError:
            raise ServiceError(
                "not_a_number", field="after_round", what="after round", value=after_round
            ) from None
    if after_round < 0:  # no round at all: refused as such, whatever was paired
        raise ServiceError(
            "below_minimum",
            field="after_round",
            what=f"division {division.name}: after round",
            minimum=0,
            value=after_round,
        )
    last = last_round_number(division)
    if after_round > last:
        raise ServiceError(
            "number_too_large",
            field="after_round",
            what=f"division {division.name}: after round",
            value=after_round,
            minimum=0,
            maximum=last,
        )
    return after_round


def _table_round(
    division: Division, entries: list[tuple], rnd: int, rounds_total: int, withdrawn: Mapping
) -> list[SimGame] | None:
    """A round robin or Initial Fontes round paired by the real engine (they pair from numbers
    and ratings only, so the pairing does not depend on results yet to be played)."""
    scheduled = schedule_entry(division, rnd)
    if scheduled is None or not PAIRING_SYSTEMS.get(scheduled.system, None):
        return None
    if not PAIRING_SYSTEMS[scheduled.system].table:
        return None
    players = [
        FieldPlayer(
            number=number,
            rating=rating,
            name=name,
            opponents=[0] * (rnd - 1),
            firsts=[0] * (rnd - 1),
            active=withdrawn.get(number) is None or withdrawn[number] > rnd,
        )
        for number, name, rating in entries
    ]
    field = Field(players=players, round=rnd, rounds_total=rounds_total)
    try:
        result = pair_round(field, scheduled.system, pairing_options(division, scheduled))
    except (PairingError, ValueError):
        return None
    return [SimGame(g.first, g.second) for g in result.games]


def _games_known(
    snap: DivisionSnapshot, base: int, live: bool
) -> tuple[list[tuple[int, int]], dict[int, list[SimGame]]]:
    """Who met whom through ``base`` (and, ``live``, in the rounds paired beyond it), and
    those later rounds' games as the simulation keeps them: a result in stays as recorded."""
    known: dict[int, list[SimGame]] = {}
    number_of = {pk: e.number for pk, e in snap.entries.items()}
    met = []
    for rnd, _board, p1, p2, s1, s2, _first, _expl in snap.games:
        if p2 is not None and (rnd <= base or live):
            met.append((number_of[p1], number_of[p2]))
        if live and rnd > base:
            if p2 is None:
                # a bye's or forfeit's spread; None: not yet entered (counted as a bye)
                known.setdefault(rnd, []).append(SimGame(number_of[p1], 0, s1))
                continue
            margin = s1 - s2 if s1 is not None and s2 is not None else None
            known.setdefault(rnd, []).append(SimGame(number_of[p1], number_of[p2], margin))
    return met, known


def chance_setup(
    division: Division, after_round: int | None = None, snapshot: DivisionSnapshot | None = None
) -> SimSetup:
    """The division after ``after_round`` (None: after its last complete round, with the
    rounds already paired beyond it and their results so far) as the simulation's input.
    ``snapshot``: the division's one load of its games, when the caller (a page) has it."""
    t = division.tournament
    snap = snapshot if snapshot is not None else DivisionSnapshot.load(division)
    live = after_round is None
    base = snap.scored_round() if live else after_round
    players, rounds = snap.player_rounds()
    last_paired = snap.last_round()
    total = max(division.rounds, last_paired)
    # ranking spread: each game clipped to its round's cap (standings_spread_cap=False shows
    # exactly the spread the ranking uses)
    rows = compute_standings(
        players,
        rounds,
        after_round=base,
        spread_cap=t.spread_cap_rule,
        standings_spread_cap=False,
        sum_before_spread=t.sum_before_spread,
    )
    by_number = {r.number: r for r in rows}
    sim_players = [
        SimPlayer.from_standing(p, by_number[p.number], ranked=not is_withdrawn_after(p, total))
        for p in players
    ]
    classes = dict(division.entries.values_list("number", "player_class"))
    for sp in sim_players:
        sp.player_class = classes.get(sp.number, "") or ""
    withdrawn = {p.number: p.withdrawn_round for p in players}
    entries = [(p.number, p.name, p.rating) for p in players]
    met, known = _games_known(snap, base, live)
    sim_rounds = []
    for rnd in range(base + 1, total + 1):
        scheduled = schedule_entry(division, rnd)
        system = scheduled.system if scheduled is not None else DEFAULT_SYSTEM
        options = pairing_options(division, scheduled)
        pairs = known.get(rnd)
        if pairs is None:
            pairs = _table_round(division, entries, rnd, total, withdrawn)
        info = PAIRING_SYSTEMS.get(system)
        sim_rounds.append(
            SimRound(
                number=rnd,
                system=system,
                pairs=pairs,
                gibson=bool(t.gibson and info is not None and info.uses_gibson),
                gibson_spread=options.spread_for_round(rnd),
                factor=max(1, options.factor_distance),
                cap=_cap_for(t.spread_cap_rule, rnd),
                max_meetings=max(1, options.max_meetings),
            )
        )
    order = sorted(
        range(len(players)),
        key=lambda i: (-players[i].rating, name_tiebreak(players[i].name), players[i].number),
    )
    return SimSetup(
        players=sim_players,
        rounds=sim_rounds,
        win_prob=expectancy_matrix(division.rating_system, [p.rating for p in players]),
        bye_spread=t.bye_spread,
        sum_before_spread=t.sum_before_spread,
        prize_places=division.prize_places or DEFAULT_PRIZE_PLACES,
        tiebreak=order,
        met=met,
    )


def budget_sims(setup: SimSetup, sims: int, games_budget: int = GAMES_BUDGET) -> int:
    """At most ``games_budget`` simulated games per computation (a page must not run for a
    minute on a 500-player division with 20 rounds left); at least 1,000 simulations."""
    games = max(1, len(setup.players) * len(setup.rounds) // 2)
    return max(1000, min(sims, games_budget // games))


def division_chances(
    division: Division,
    after_round: int | None = None,
    *,
    sims: int = DEFAULT_SIMS,
    seed: int | None = None,
    model: GameModel | None = None,
) -> list[PlayerChances]:
    """Every player's prize chances (``pairings.engine.chances``), seeded by the division
    unless a seed is given, so the same state always gives the same figures."""
    after_round = check_after_round(division, after_round)
    sims = check_sims(sims)
    setup = chance_setup(division, after_round)
    return chances(
        setup,
        model or load_game_model(),
        sims,
        division_seed(division) if seed is None else seed,
        prize_places=division.prize_places,
    )


def chances_hidden(division: Division, round_number: int | None = None) -> bool:
    """Whether the public is not shown this division's chances (the director's setting:
    ``hide`` always, or ``hide_last`` rounds: hidden once the round being reached is one of
    the last K of the event)."""
    setting = (division.config or {}).get("chances") or {}
    if setting.get("hide"):
        return True
    last_k = int(setting.get("hide_last") or 0)
    if last_k <= 0:
        return False
    reached = last_round_number(division) if round_number is None else round_number
    return reached > max(division.rounds, reached) - last_k


#: simulations behind a ``cop`` pairing: ~0.1-0.8 s from 30 to 300 players, a few rounds left
COP_SIMS = 10_000


def cop_options(division: Division, field: Field, options: PairingOptions) -> PairingOptions:
    """``options`` with the division's own prize chances for a ``cop`` round.

    The chances are the division's simulation (its rating system, caps, schedule, Gibson rule)
    after the field's complete rounds, seeded by the division (the same state pairs the same
    way: a dry run, then the real pairing). Paid places: the schedule's ``prize_bands`` when it
    sets them, else the division's prize places (the prize list's default 3 when unset), so
    contention covers what the prize list pays. At most ``COP_SIMS`` simulations, fewer within
    the page budget for a big field with many rounds left.
    """
    if options.cop_chances is not None:
        return options
    bands = options.prize_bands
    if bands == [1]:  # the default: nothing scheduled, use the division's paid places
        bands = [division.prize_places or DEFAULT_PRIZE_PLACES]
    places = max(bands)
    setup = chance_setup(division, max(0, min(field.rounds_complete, field.round - 1)))
    found = chances(
        setup,
        load_game_model(),
        budget_sims(setup, COP_SIMS),
        division_seed(division),
        prize_places=places,
    )
    return dataclasses.replace(
        options,
        prize_bands=list(bands),
        cop_chances={c.number: tuple(c.p_places) for c in found},
    )
