"""Calibration of prize chances, measured: replay real events and score the forecasts.

Why: a chance of 37% means something only if, over many such forecasts, about 37% came true.
Each real division in ``fixtures/`` (``tsh/*.t``, ``feeds/*.js``) is replayed as if only rounds
1..R-k had been played (k = 6, 3, 1; R = the division's last scored round), and every ranked
player's P(1st) and P(in the money) is scored against the real final standings with the Brier
score and the log loss, for three forecasters measured in the same run:

* ``gibson``: the prize-chances simulation with the fitted game model (ratings decide who wins,
  a normal margin of the fitted spread);
* ``coin_flip``: the same simulation with every game a coin flip (win chance 0.5 whatever the
  ratings) and one fixed margin distribution (the model's), as COP's simulation does;
* ``standings_hold``: whoever leads now finishes 1st and whoever is in the money now stays in
  it (P = 1, players tied now sharing the places as the engine shares them), which a log loss
  can only score once clipped (see ``CLIP``).

Pure and file-based (no database): the records come from the same readers and the same
``compute_standings`` as an import would give. What a feed's ``config`` says is followed: its
``rating_system`` (the expectancy), ``spread_cap`` (in the standings the forecasts start from,
in the simulated games and in the final standings they are scored against) and ``max_rounds``
(which round is the event's last). The ``.t`` files carry no config: NASPA's (nsa2008, no cap,
their last round the event's last).

The remaining rounds are paired as NASPA events pair them (``rule_schedule``), not as one
system throughout: Swiss with no repeat (``docs/pairings.md``, Swiss: "avoid repeats
(... default 1 = no repeats)"), and the event's **last round King of the Hill with repeats
allowed**: the spec's KOTH is "1 v 2, 3 v 4, ... by current standings, avoiding repeats only as
configured. Used for the final rounds" (no file configures a repeat limit), NASPA's Official
Tournament Rules (2008, p. 53) estimate that 75-80% of tournaments pair their last one or two
rounds KOTH, and TSH's manual says KOTH "is used widely in North America to pair the last
round". One round (the least the rule covers), chosen from those texts before any calibration
run of it and not changed after: nothing in it is fitted on the outcomes. Gibson pairing is
on in every round (Gibson spread 500), three prize places, bye spread 50.

Outcomes share ties as the engine does: a player tied with m others for a place block counts
1/m of each place of the block, so a two-way tie for 1st is an outcome of 0.5 for each.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from pairings.engine.chances import DEFAULT_PRIZE_PLACES, chances
from pairings.engine.simulate import GameModel, SimPlayer, SimRound, SimSetup
from ratings.engine.systems import expectancy_matrix
from tournament.formats.tourney_js import parse_tourney_js, tourney_js_divisions
from tournament.formats.tsh import TshPlayer, read_t, standings_input
from tournament.standings import (
    compute_standings,
    is_withdrawn_after,
    name_tiebreak,
    round_spread_cap,
)

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
#: rounds before the end each division is replayed from
BACK = (6, 3, 1)
#: probabilities are clipped to [CLIP, 1 - CLIP] for the log loss only (a certain forecast
#: that fails would otherwise cost infinity); the Brier score uses them as they are
CLIP = 1e-3
FORECASTERS = ("gibson", "coin_flip", "standings_hold")
QUESTIONS = ("first", "cash")


@dataclass(frozen=True)
class Division:
    """A real division read from a file: its players as TSH keeps them, and the event's
    ``config`` when the file carries one (a feed's; a ``.t`` file has none)."""

    event: str
    name: str
    players: list[TshPlayer]
    config: dict = field(default_factory=dict, compare=False)

    @property
    def spread_cap(self) -> Any:
        """The configured spread cap (TSH's number, list by round or hash), or None."""
        return self.config.get("spread_cap") or None

    @property
    def rating_system(self) -> str:
        return str(self.config.get("rating_system") or "nsa2008")

    def event_rounds(self, played: int) -> int:
        """The event's last round: ``max_rounds`` when configured, else the rounds played."""
        try:
            return max(played, int(self.config.get("max_rounds") or 0))
        except (TypeError, ValueError):
            return played

    @property
    def label(self) -> str:
        return self.event if not self.name else f"{self.event} {self.name}"


def real_divisions(root: Path = FIXTURES) -> list[Division]:
    """Every division of every real event under ``root`` (tsh/*.t, feeds/*.js), in name order."""
    out = []
    for path in sorted((root / "tsh").glob("*.t")):
        out.append(Division(f"tsh/{path.name}", "", read_t(path)))
    for path in sorted((root / "feeds").glob("*.js")):
        data = parse_tourney_js(path.read_text(encoding="utf-8"), source=path.name)
        divisions = tourney_js_divisions(data)
        config = data.get("config") if isinstance(data.get("config"), dict) else {}
        for name, players in divisions:
            label = name if len(divisions) > 1 else ""
            out.append(Division(f"feeds/{path.name}", label, players, config))
    return out


def last_round(players: list[TshPlayer]) -> int:
    """The last round in which some game has both scores (the division's end as played)."""
    by_number = {p.number: p for p in players}
    last = 0
    for p in players:
        for r0, opp in enumerate(p.opponents):
            if not opp or opp not in by_number or r0 >= len(p.scores):
                continue
            q = by_number[opp]
            if p.scores[r0] is not None and r0 < len(q.scores) and q.scores[r0] is not None:
                last = max(last, r0 + 1)
    return last


def place_shares(rows, n: int) -> dict[int, np.ndarray]:
    """Player number -> share of each place 1..n (players tied on the tie key share their
    block of places equally); withdrawn players are left out."""
    ranked = [r for r in rows if r.rank is not None]
    size: dict[int, int] = {}
    for r in ranked:
        size[r.rank] = size.get(r.rank, 0) + 1
    out = {}
    for r in ranked:
        share = np.zeros(n)
        m = size[r.rank]
        share[r.rank - 1 : r.rank - 1 + m] = 1.0 / m
        out[r.number] = share
    return out


#: the systems of the replay's remaining rounds (see the module doc for the rules cited)
BEFORE_LAST = "swiss"
LAST_ROUND = "koth"


def rule_schedule(
    after: int, total: int, event_rounds: int, *, cap: Any = None, all_swiss: bool = False
) -> list[SimRound]:
    """Rounds ``after``+1..``total`` as NASPA pairs them: Swiss with no repeat, and the event's
    last round (``event_rounds``) King of the Hill with repeats allowed (a KOTH avoids repeats
    only when configured to). ``all_swiss``: every round Swiss with no repeat (the replay
    before the rules were followed, kept to measure what they change)."""
    out = []
    for r in range(after + 1, total + 1):
        koth = r == event_rounds and not all_swiss
        out.append(
            SimRound(
                number=r,
                system=LAST_ROUND if koth else BEFORE_LAST,
                gibson=True,
                gibson_spread=500,
                max_meetings=1,
                avoid_repeats=not koth,
                cap=round_spread_cap(cap, r),
            )
        )
    return out


def replay_setup(
    players: list[TshPlayer],
    after: int,
    total: int,
    *,
    repeats_seen: bool = False,
    division: Division | None = None,
    all_swiss: bool = False,
) -> SimSetup:
    """The division as if only rounds 1..``after`` had been played, ``total`` rounds in all,
    the rest paired by ``rule_schedule`` under ``division``'s config.

    ``repeats_seen``: in the rounds before the last, allow as many meetings of two players as
    the rounds played so far show (a long event where two players have already met three
    times evidently allows repeats); otherwise a second meeting is a repeat the pairing avoids
    (the engine's default). Chosen after seeing the data: kept for comparison only."""
    division = division or Division("", "", players)
    cap = division.spread_cap
    splayers, rounds = standings_input(players)
    rows = {
        r.number: r for r in compute_standings(splayers, rounds, after_round=after, spread_cap=cap)
    }
    sim_players = [
        SimPlayer.from_standing(sp, rows[sp.number], ranked=not is_withdrawn_after(sp, total))
        for sp in splayers
    ]
    order = sorted(
        range(len(splayers)),
        key=lambda i: (-splayers[i].rating, name_tiebreak(splayers[i].name), splayers[i].number),
    )
    met = []
    for p in players:
        for opp in p.opponents[:after]:
            if opp and p.number < opp:
                met.append((p.number, opp))
    meetings: dict[tuple[int, int], int] = {}
    for pair in met:
        meetings[pair] = meetings.get(pair, 0) + 1
    schedule = rule_schedule(
        after, total, division.event_rounds(total), cap=cap, all_swiss=all_swiss
    )
    if repeats_seen:
        allowed = max(meetings.values(), default=1)
        for rnd in schedule:
            rnd.max_meetings = allowed
    return SimSetup(
        players=sim_players,
        rounds=schedule,
        win_prob=expectancy_matrix(division.rating_system, [p.rating for p in splayers]),
        prize_places=DEFAULT_PRIZE_PLACES,
        tiebreak=order,
        met=met,
    )


def coin_flip(setup: SimSetup) -> SimSetup:
    """The same division with every game a coin flip, whatever the ratings (COP's model)."""
    n = len(setup.players)
    return replace(setup, win_prob=np.full((n, n), 0.5))


@dataclass
class Score:
    """Sums over scored forecasts: Brier (squared error) and log loss, per question."""

    n: int = 0
    brier: dict[str, float] = field(default_factory=lambda: dict.fromkeys(QUESTIONS, 0.0))
    log_loss: dict[str, float] = field(default_factory=lambda: dict.fromkeys(QUESTIONS, 0.0))

    def add(self, question: str, p: float, outcome: float) -> None:
        self.brier[question] += (p - outcome) ** 2
        q = min(max(p, CLIP), 1 - CLIP)
        self.log_loss[question] -= outcome * math.log(q) + (1 - outcome) * math.log(1 - q)

    def merge(self, other: Score) -> None:
        self.n += other.n
        for k in QUESTIONS:
            self.brier[k] += other.brier[k]
            self.log_loss[k] += other.log_loss[k]

    def as_dict(self) -> dict:
        d = max(1, self.n)
        return {
            "forecasts": self.n,
            "brier_first": round(self.brier["first"] / d, 5),
            "brier_cash": round(self.brier["cash"] / d, 5),
            "log_loss_first": round(self.log_loss["first"] / d, 5),
            "log_loss_cash": round(self.log_loss["cash"] / d, 5),
        }


def score_forecasts(
    forecast: dict[int, tuple[float, float]], outcome: dict[int, tuple[float, float]]
) -> Score:
    """Score player -> (P(1st), P(cash)) against player -> (share of 1st, share of cash)."""
    s = Score()
    for number, (y_first, y_cash) in outcome.items():
        p_first, p_cash = forecast.get(number, (0.0, 0.0))
        s.add("first", p_first, y_first)
        s.add("cash", p_cash, y_cash)
        s.n += 1
    return s


def _as_first_cash(shares: dict[int, np.ndarray], places: int) -> dict[int, tuple[float, float]]:
    return {k: (float(v[0]), float(v[:places].sum())) for k, v in shares.items()}


@dataclass
class Row:
    """One division replayed from one round: its three forecasters' scores."""

    event: str
    after: int
    total: int
    players: int
    rated: bool
    scores: dict[str, Score]

    def as_dict(self) -> dict:
        return {
            "event": self.event,
            "after_round": self.after,
            "rounds": self.total,
            "players": self.players,
            "rated": self.rated,
            **{f: self.scores[f].as_dict() for f in FORECASTERS},
        }


def is_rated(players: list[TshPlayer]) -> bool:
    """At least half the players have a rating and the ratings differ: otherwise every game is
    a coin flip to the simulation too (unrated players get the median rating; some feeds give
    everyone a placeholder 1000), and the division cannot tell Gibson's model from the coin
    flip."""
    rated = [p.rating for p in players if p.rating]
    return 2 * len(rated) >= len(players) and len(set(rated)) > 1


def replay(
    division: Division,
    after: int,
    total: int,
    model: GameModel,
    sims: int,
    seed: int,
    *,
    repeats_seen: bool = False,
    all_swiss: bool = False,
) -> Row:
    """The three forecasters' scores for one division replayed from after round ``after``."""
    players = division.players
    places = DEFAULT_PRIZE_PLACES
    splayers, rounds = standings_input(players)
    n = len(splayers)
    cap = division.spread_cap
    final = compute_standings(splayers, rounds, after_round=total, spread_cap=cap)
    outcome = _as_first_cash(place_shares(final, n), places)
    now = compute_standings(splayers, rounds, after_round=after, spread_cap=cap)
    # a player withdrawn by the end is not scored (the engine does not rank them either)
    hold = _as_first_cash(place_shares(now, n), places)
    setup = replay_setup(
        players,
        after,
        total,
        repeats_seen=repeats_seen,
        division=division,
        all_swiss=all_swiss,
    )
    forecasts = {"standings_hold": hold}
    for name, s in (("gibson", setup), ("coin_flip", coin_flip(setup))):
        result = chances(s, model, sims, seed, prize_places=places)
        forecasts[name] = {c.number: (c.p_first, c.p_cash) for c in result}
    return Row(
        event=division.label,
        after=after,
        total=total,
        players=len(outcome),
        rated=is_rated(players),
        scores={f: score_forecasts(forecasts[f], outcome) for f in FORECASTERS},
    )


def _totals(rows: list[Row]) -> dict:
    """Per forecaster, the mean over every player-forecast of ``rows``."""
    totals = {f: Score() for f in FORECASTERS}
    for row in rows:
        for f in FORECASTERS:
            totals[f].merge(row.scores[f])
    return {f: totals[f].as_dict() for f in FORECASTERS}


def calibration(
    divisions: Iterable[Division],
    model: GameModel,
    *,
    sims: int,
    seed: int,
    back: Iterable[int] = BACK,
    repeats_seen: bool = False,
    all_swiss: bool = False,
) -> dict:
    """Every division replayed from R-k for each k in ``back`` (skipped when R-k < 1), with
    totals per forecaster (means over every scored player-forecast) and the verdict."""
    back = tuple(back)
    rows = []
    for division in divisions:
        total = last_round(division.players)
        for k in back:
            after = total - k
            if after < 1:
                continue
            rows.append(
                replay(
                    division,
                    after,
                    total,
                    model,
                    sims,
                    seed,
                    repeats_seen=repeats_seen,
                    all_swiss=all_swiss,
                )
            )
    t = _totals(rows)
    keys = ("brier_first", "brier_cash", "log_loss_first", "log_loss_cash")
    beats = {
        base: {k: t["gibson"][k] < t[base][k] for k in keys}
        for base in ("coin_flip", "standings_hold")
    }
    return {
        "sims": sims,
        "seed": seed,
        "clip": CLIP,
        "prize_places": DEFAULT_PRIZE_PLACES,
        "rows": [r.as_dict() for r in rows],
        "repeats_seen": repeats_seen,
        "schedule": "all_swiss" if all_swiss else "rules",
        "totals": t,
        "totals_rated": _totals([r for r in rows if r.rated]),
        "totals_by_back": {
            f"R-{k}": _totals([r for r in rows if r.total - r.after == k]) for k in back
        },
        "gibson_beats": beats,
        "gibson_beats_both": all(v for b in beats.values() for v in b.values()),
    }
