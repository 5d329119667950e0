"""Standings as a pure function of the recorded games.

Standings are never stored as the source of truth: they are recomputed from each player's view
of each round, for any round ("standings after round 7"), including the round being played while
some of its results are still missing. No Django here: dataclasses in, dataclasses out.

Results (docs/rules.md):

- a game with both scores counts: win 1, tie half a win and half a loss, spread = own - opponent;
- a round with no opponent is a bye when its score is positive (a win with that spread), a
  forfeit when negative (a loss with that spread), and neither when 0;
- a round whose score, or whose opponent's score, is still missing does not count yet.

Ranking order: wins (desc), losses (asc), optionally total points scored (desc), spread (desc),
pre-tournament rating (desc), a fixed per-player random value derived from the name (so that
the order never changes between two computations), then player number. Players equal on wins,
losses and spread (and points, when they are a criterion) share a competition rank (1, 2, 2, 4).

Before any result counts (after round 0, or a first round not yet scored) everyone is 0-0, so
the standings are the seeding: pre-tournament rating (desc), then player number, players of
equal rating sharing a rank. This is TSH's ``rrank[0]`` (in ``naspa-2023-a.t`` players 18 and
21, both rated 1380, are both 20th). It depends only on the counted results, like every other
ranking, so "after round 0" and "no games yet" agree.

Withdrawn players. ``StandingsPlayer.withdrawn_round`` is the first round the player no longer
plays; TSH records every round from then on as a forfeit (``off -50``). The rule, derived from
the only real withdrawal we have (Lydia Keras, player 16 of ``naspa-2023-a.t``: forfeits in
rounds 20-23):

- after every round *before* ``withdrawn_round`` she is an ordinary active player: after round
  19 she is 24th of 26 and Buma and Sinanan, below her, are 25th and 26th;
- from ``withdrawn_round`` itself on she is no longer ranked among the active players. After
  round 20 (her first forfeit) Sinanan, still below her on wins and spread, is ranked 25th,
  i.e. last of the 25 active players: the active ranks are computed without her. TSH still
  printed a rank for her after round 20 (``rrank[20] = 25``, her place had she been counted)
  and none after rounds 21-23; we give ``rank = None`` from round 20 on and put her row after
  every active row, with her record (the forfeits count as losses) still shown.

A player who withdrew before playing at all (``withdrawn_round`` 1: every round a forfeit) is
out from the seeding on: in the 2024 SPC feed (``fixtures/feeds/liwords-2024-spc-a.js``) player
5, rated 2045 with 31 forfeits, has ``rrank = [5]`` and player 6, rated 2040, is also 5th
before round 1: TSH ranked the seeding without him and printed only his shared place there.

So a player is out of the ranking after round ``R`` exactly when ``R >= withdrawn_round``, or
from round 0 on when ``withdrawn_round`` is 1.
"""

from __future__ import annotations

import hashlib
from bisect import bisect_left
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass

__all__ = [
    "PlayerRound",
    "StandingsPlayer",
    "StandingsRow",
    "compute_standings",
    "is_withdrawn_after",
    "name_tiebreak",
    "ranks_by_round",
]


@dataclass(frozen=True)
class StandingsPlayer:
    number: int
    name: str
    rating: int
    withdrawn_round: int | None = None  # first round the player no longer plays; None = active


@dataclass(frozen=True)
class PlayerRound:
    """One player's own view of one round."""

    round: int
    player: int
    opponent: int | None  # None = bye / forfeit (no opponent)
    score: int | None  # None = not yet scored (paired only)
    opponent_score: int | None


@dataclass
class StandingsRow:
    rank: int | None  # competition rank among active players; None for withdrawn players
    number: int
    name: str
    rating: int
    wins: float
    losses: float
    spread: int
    points_for: int
    points_against: int
    games: int
    byes: int
    forfeits: int
    withdrawn: bool


def name_tiebreak(name: str) -> int:
    """A fixed pseudo-random value per player, seeded from the name.

    Python's ``hash()`` is salted per process, so it would reorder tied players between two
    page loads; a digest of the name is the same on every machine and every run.
    """
    return int.from_bytes(hashlib.sha256(name.encode("utf-8")).digest()[:8], "big")


def is_withdrawn_after(player: StandingsPlayer, after_round: int | None) -> bool:
    """Whether the player is left out of the ranking in the standings after ``after_round``.

    See the module docstring for the rule and the data it was derived from. ``after_round``
    ``None`` means "after everything recorded", where any withdrawal applies.
    """
    if player.withdrawn_round is None:
        return False
    if after_round is None:
        return True
    return after_round >= _out_from(player.withdrawn_round)


def _out_from(withdrawn_round: int) -> int:
    """The first standings (after round R) without the player: a player who never played is
    out from the seeding (round 0) on, as TSH ranks it; see the module docstring."""
    return 0 if withdrawn_round <= 1 else withdrawn_round


def _cap_for(spread_cap: int | Mapping[int, int] | Sequence[int] | None, rnd: int) -> int | None:
    """The cap of one round. TSH writes caps as a number, a hash by round, or a list by round
    (``[250]``, ``[100, 100, 150]``); a list shorter than the event keeps its last cap for the
    later rounds, which is how a one-element list caps every round."""
    if spread_cap is None:
        return None
    if isinstance(spread_cap, Mapping):
        # config.tsh hashes have string keys ({5 => 300} reads as {"5": 300}); accept both.
        cap = spread_cap.get(rnd, spread_cap.get(str(rnd)))  # type: ignore[call-overload]
    elif isinstance(spread_cap, Sequence) and not isinstance(spread_cap, str):
        if not spread_cap:
            return None
        cap = spread_cap[min(rnd, len(spread_cap)) - 1] if rnd >= 1 else None
    else:
        cap = spread_cap
    if cap is not None and cap < 0:
        raise ValueError(f"round {rnd}: spread cap {cap} is negative")
    return cap


#: the public name (the calibration replays cap their simulated rounds as the event did)
round_spread_cap = _cap_for


def _clip(spread: int, cap: int | None) -> int:
    if cap is None:
        return spread
    return max(-cap, min(cap, spread))


@dataclass
class _Tally:
    wins: float = 0.0
    losses: float = 0.0
    spread: int = 0
    ranking_spread: int = 0
    points_for: int = 0
    points_against: int = 0
    games: int = 0
    byes: int = 0
    forfeits: int = 0

    def add(self, r: PlayerRound, cap: int | None, standings_spread_cap: bool) -> None:
        """Count one scored round of this player's (a half-entered game counts nothing)."""
        if r.score is None:
            return
        if r.opponent is None:
            if r.score > 0:
                self.wins += 1
                self.byes += 1
            elif r.score < 0:
                self.losses += 1
                self.forfeits += 1
            shown = r.score
        else:
            if r.opponent_score is None:
                return  # the other half of the result is not in yet
            shown = r.score - r.opponent_score
            self.games += 1
            self.points_for += r.score
            self.points_against += r.opponent_score
            if shown > 0:
                self.wins += 1
            elif shown < 0:
                self.losses += 1
            else:
                self.wins += 0.5
                self.losses += 0.5
        clipped = _clip(shown, cap)
        self.ranking_spread += clipped
        self.spread += shown if standings_spread_cap else clipped


def _seeding(tallies: Mapping[int, _Tally]) -> bool:
    """No result counts yet: the standings are the seeding (rating order)."""
    return not any(t.wins or t.losses or t.ranking_spread for t in tallies.values())


def _tie_key(p: StandingsPlayer, t: _Tally, seeding: bool, sum_before_spread: bool) -> tuple:
    """What players sharing a rank have equal: wins, losses, [points,] spread (or the rating,
    in the seeding)."""
    if seeding:
        return (-p.rating,)
    if sum_before_spread:
        return (-t.wins, t.losses, -t.points_for, -t.ranking_spread)
    return (-t.wins, t.losses, -t.ranking_spread)


def compute_standings(
    players: list[StandingsPlayer],
    rounds: Iterable[PlayerRound],
    *,
    after_round: int | None = None,
    spread_cap: int | Mapping[int, int] | Sequence[int] | None = None,
    standings_spread_cap: bool = False,
    sum_before_spread: bool = False,
) -> list[StandingsRow]:
    """Rank the players on the games of rounds ``1..after_round`` (all rounds when ``None``).

    ``spread_cap`` clips each game's spread to +-cap (an int for every round, a mapping
    round -> cap for some rounds, or a list by round whose last cap holds on). With
    ``standings_spread_cap`` the clipped spread is used only to rank; the row shows the real
    spread. Byes and forfeits are not points scored in a game, so they add to spread but not
    to ``points_for``/``points_against``.

    Raises ``ValueError`` for a round of an unknown player or two entries for the same player
    and round, because either would silently double or lose a result.
    """
    by_number = {p.number: p for p in players}
    if len(by_number) != len(players):
        raise ValueError("two players share a player number")
    tallies = {p.number: _Tally() for p in players}
    for r in _checked(by_number, rounds):
        if after_round is not None and r.round > after_round:
            continue
        if r.score is None:
            continue
        if r.opponent is not None and r.opponent not in by_number:
            raise ValueError(f"round {r.round}: player {r.player} has unknown opponent")
        tallies[r.player].add(r, _cap_for(spread_cap, r.round), standings_spread_cap)

    seeding = _seeding(tallies)

    def tie_key(p: StandingsPlayer) -> tuple:
        return _tie_key(p, tallies[p.number], seeding, sum_before_spread)

    def order_key(p: StandingsPlayer) -> tuple:
        if seeding:
            return (-p.rating, p.number)
        return (*tie_key(p), -p.rating, name_tiebreak(p.name), p.number)

    active = sorted((p for p in players if not is_withdrawn_after(p, after_round)), key=order_key)
    withdrawn = sorted((p for p in players if is_withdrawn_after(p, after_round)), key=order_key)

    rows: list[StandingsRow] = []
    previous = None
    rank = 0
    for index, p in enumerate(active, start=1):
        key = tie_key(p)
        if key != previous:
            rank, previous = index, key
        rows.append(_row(p, tallies[p.number], rank, withdrawn=False))
    rows.extend(_row(p, tallies[p.number], None, withdrawn=True) for p in withdrawn)
    return rows


def _checked(
    by_number: Mapping[int, StandingsPlayer], rounds: Iterable[PlayerRound]
) -> Iterator[PlayerRound]:
    """The rounds, refusing one of an unknown player or a second result for a player's round:
    either would silently lose or double a result in every ranking built on them."""
    seen: set[tuple[int, int]] = set()
    for r in rounds:
        if r.player not in by_number:
            raise ValueError(f"round {r.round}: unknown player {r.player}")
        if (r.player, r.round) in seen:
            raise ValueError(f"round {r.round}: player {r.player} has two results")
        seen.add((r.player, r.round))
        yield r


def ranks_by_round(
    players: list[StandingsPlayer],
    rounds: Iterable[PlayerRound],
    *,
    last_round: int,
    spread_cap: int | Mapping[int, int] | Sequence[int] | None = None,
    standings_spread_cap: bool = False,
    sum_before_spread: bool = False,
) -> dict[int, list[int | None]]:
    """Every player's rank after rounds ``0..last_round`` (index 0: the seeding), TSH's
    ``rrank``: the rank ``compute_standings`` gives after each round, in one pass.

    The feed needs every round's ranks of every player (500 players, 23 rounds): the results
    are counted once, round by round, and each round only ranked, instead of counting all the
    earlier rounds again for each round. A withdrawn player, no longer ranked from
    ``withdrawn_round`` on, still gets the place they would share among the ranked players
    after that round, and ``None`` after later rounds: TSH's ``rrank`` of Lydia Keras in
    ``naspa-2023-a.t`` (withdrawn from round 20) is 25th after round 20, the rank of the
    active player just below her, and ends there. Same arguments and refusals as
    ``compute_standings``.
    """
    by_number = {p.number: p for p in players}
    if len(by_number) != len(players):
        raise ValueError("two players share a player number")
    per_round: dict[int, list[PlayerRound]] = {}
    for r in _checked(by_number, rounds):
        if r.opponent is not None and r.score is not None and r.opponent not in by_number:
            raise ValueError(f"round {r.round}: player {r.player} has unknown opponent")
        per_round.setdefault(r.round, []).append(r)
    tallies = {p.number: _Tally() for p in players}
    ranks: dict[int, list[int | None]] = {p.number: [] for p in players}
    # rounds numbered below 1 count from the start, as in compute_standings(after_round=0)
    early = [r for n, rs in per_round.items() if n < 1 for r in rs]
    for after in range(0, last_round + 1):
        for r in early if after == 0 else per_round.get(after, ()):
            tallies[r.player].add(r, _cap_for(spread_cap, r.round), standings_spread_cap)
        seeding = _seeding(tallies)
        keys = {
            p.number: _tie_key(p, tallies[p.number], seeding, sum_before_spread) for p in players
        }
        ranked = sorted(keys[p.number] for p in players if not is_withdrawn_after(p, after))
        for p in players:
            if p.withdrawn_round is not None and after > _out_from(p.withdrawn_round):
                ranks[p.number].append(None)
                continue
            # competition rank: one more than the ranked players strictly ahead
            ranks[p.number].append(bisect_left(ranked, keys[p.number]) + 1)
    return ranks


def _row(p: StandingsPlayer, t: _Tally, rank: int | None, *, withdrawn: bool) -> StandingsRow:
    return StandingsRow(
        rank=rank,
        number=p.number,
        name=p.name,
        rating=p.rating,
        wins=t.wins,
        losses=t.losses,
        spread=t.spread,
        points_for=t.points_for,
        points_against=t.points_against,
        games=t.games,
        byes=t.byes,
        forfeits=t.forfeits,
        withdrawn=withdrawn,
    )


def format_wins(value: float) -> str:
    """``5`` for whole numbers, ``5.5`` for ties (half a win), so a record reads the way
    directors write it; the one formatter every page, report and command uses."""
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def format_record(wins: float, losses: float) -> str:
    """``5-2``, ``4.5-2.5``."""
    return f"{format_wins(wins)}-{format_wins(losses)}"


def spread_cap_fields(caps: Sequence[int]) -> tuple[int | None, list[int]]:
    """A tournament's ``(spread_cap, spread_caps)`` for TSH's caps as a list by round.

    One cap for every round (``[250]``, ``[250, 250]``) is the single ``spread_cap`` (what the
    API and older callers read); caps that vary keep the list, ``spread_cap`` then None.
    """
    caps = [int(c) for c in caps]
    if not caps:
        return None, []
    if len(set(caps)) == 1:
        return caps[0], []
    return None, caps
