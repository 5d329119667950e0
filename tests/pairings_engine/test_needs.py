"""'What I need' against brute force: the structured statements of pairings/engine/needs.py
equal the enumeration of every outcome of the games still to play (exact mode), and the safe
bounds hold in every outcome and every pairing of the rounds not yet paired (bounds mode).

The reference ranks each outcome with numpy on the players' keys (wins, losses, spread as
ranked, tiebreak), and that reference is itself checked against the real standings
(``tournament.standings.compute_standings``) on a sample of outcomes, scores and all.
"""

from __future__ import annotations

import itertools
import random
from pathlib import Path

import numpy as np
import pytest

from pairings.engine.needs import (
    Behind,
    Margin,
    Need,
    NeedsInput,
    Pending,
    Standing,
    compute_needs,
    describe,
)
from pairings.needs import needs_input_from
from tournament.formats.tourney_js import parse_tourney_js, tourney_js_divisions
from tournament.formats.tsh import read_t
from tournament.standings import PlayerRound, StandingsPlayer, compute_standings

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


# --------------------------------------------------------------------------- the reference


class Reference:
    """Final places for many outcomes at once: ``margins`` is an (outcomes x games) array of
    each pending game's margin from its player1's side."""

    def __init__(self, data: NeedsInput) -> None:
        ranked = [s for s in data.players if s.ranked]
        self.numbers = [s.number for s in ranked]
        self.index = {n: i for i, n in enumerate(self.numbers)}
        order = sorted(ranked, key=lambda s: (s.tiebreak, s.number))
        self.tb = np.array([order.index(s) for s in ranked], dtype=np.int64)  # lower first
        self.w2 = np.array([round(2 * s.wins) for s in ranked], dtype=np.int64)
        self.l2 = np.array([round(2 * s.losses) for s in ranked], dtype=np.int64)
        self.sp = np.array([s.spread for s in ranked], dtype=np.int64)
        self.games = list(data.pending)

    def places(self, margins: np.ndarray) -> np.ndarray:
        """(outcomes x ranked players) array of 1-based places."""
        n = len(self.numbers)
        k = margins.shape[0]
        w2 = np.tile(self.w2, (k, 1))
        l2 = np.tile(self.l2, (k, 1))
        sp = np.tile(self.sp, (k, 1))
        for g, game in enumerate(self.games):
            m = margins[:, g]
            for player, sign in ((game.player1, 1), (game.player2, -1)):
                i = self.index.get(player)
                if i is None:
                    continue
                mm = sign * m
                w2[:, i] += np.where(mm > 0, 2, np.where(mm == 0, 1, 0))
                l2[:, i] += np.where(mm < 0, 2, np.where(mm == 0, 1, 0))
                sp[:, i] += mm
        # one number per player, larger is better: wins, fewer losses, spread, tiebreak
        score = ((w2 * 256 - l2) * 100_000 + (sp + 50_000)) * (n + 1) + (n - self.tb)
        # scores differ (the tiebreak is last): a player's place is one more than the number
        # of scores above theirs
        order = np.argsort(-score, axis=1)
        places = np.empty_like(order)
        rows = np.arange(k)[:, None]
        places[rows, order] = np.arange(1, n + 1)[None, :]
        return places


def _evaluate(need: Need, margins: np.ndarray, games: list[Pending]) -> np.ndarray:
    """The need's alternatives on many outcomes at once (player -> margin columns)."""
    column = {}
    for g, game in enumerate(games):
        column[game.player1] = margins[:, g]
        column[game.player2] = -margins[:, g]
    result = np.zeros(margins.shape[0], dtype=bool)
    for alt in need.alternatives:
        ok = np.ones(margins.shape[0], dtype=bool)
        for c in alt:
            if isinstance(c, Margin):
                ok &= (column[c.player] >= c.lo) & (column[c.player] <= c.hi)
            else:
                assert isinstance(c, Behind)
                limit = np.clip(column[c.of] + c.offset, c.lo, c.hi1)
                ok &= column[c.player] < limit
        result |= ok
    return result


def _check_exact(data: NeedsInput, margins: np.ndarray, whole: bool = True) -> dict[str, int]:
    """Every statement of every ranked player against the reference on ``margins`` (with
    ``whole``, every outcome: an open statement then has outcomes both ways)."""
    ref = Reference(data)
    places = ref.places(margins)
    needs = compute_needs(data)
    seen = {"exact": 0, "inexact": 0}
    for number, pn in needs.items():
        assert pn.mode == "exact"
        got_place = places[:, ref.index[number]]
        for need in pn.needs:
            truth = got_place <= need.place
            if need.status == "clinched":
                assert truth.all(), (number, need)
                continue
            if need.status == "out":
                assert need.exact and not truth.any(), (number, need)
                continue
            said = _evaluate(need, margins, ref.games)
            if whole:
                assert truth.any() and not truth.all(), (number, need)
            if need.exact:
                wrong = np.flatnonzero(said != truth)
                assert wrong.size == 0, (number, describe(need), margins[wrong[0]])
                seen["exact"] += 1
            else:
                assert not (said & ~truth).any(), (number, need)  # each way is enough
                seen["inexact"] += 1
    return seen


def _all_margins(bounds: list[int]) -> np.ndarray:
    axes = [np.arange(-b, b + 1) for b in bounds]
    if not axes:
        return np.zeros((1, 0), dtype=np.int64)
    mesh = np.meshgrid(*axes, indexing="ij")
    return np.stack([m.ravel() for m in mesh], axis=1).astype(np.int64)


# --------------------------------------------------------------------------- random divisions


def _random_division(rng: random.Random, n: int, rounds: int, cap: int, pending: int):
    """A small division in the standings core's terms: ``rounds - 1`` complete rounds of
    random results (byes and ties among them, spreads a few caps wide) and a last round
    paired with ``pending`` games still to play."""
    players = [
        StandingsPlayer(i, f"Player {i:02d}", rng.choice([1500, 1500, 1600, 1700]))
        for i in range(1, n + 1)
    ]
    rows: list[PlayerRound] = []
    for r in range(1, rounds + 1):
        order = list(range(1, n + 1))
        rng.shuffle(order)
        if n % 2:
            bye = order.pop()
            rows.append(PlayerRound(r, bye, None, rng.choice([50, -50, 50]), None))
        games = [(order[i], order[i + 1]) for i in range(0, len(order), 2)]
        for j, (a, b) in enumerate(games):
            if r == rounds and j < pending:
                rows += [PlayerRound(r, a, b, None, None), PlayerRound(r, b, a, None, None)]
                continue
            sa = 300 + rng.randint(0, 3 * cap)
            sb = sa if rng.random() < 0.1 else 300 + rng.randint(0, 3 * cap)
            rows += [PlayerRound(r, a, b, sa, sb), PlayerRound(r, b, a, sb, sa)]
    return players, rows


@pytest.mark.parametrize("seed", range(12))
def test_exact_statements_equal_enumeration_on_random_divisions(seed):
    rng = random.Random(seed)
    n = rng.randint(4, 12)
    cap = rng.choice([2, 3, 4])
    pending = min(n // 2, 6 if cap == 2 else 5 if cap == 3 else 4)
    players, rows = _random_division(rng, n, 4, cap, pending)
    data = needs_input_from(
        players, rows, spread_cap=cap, rounds_total=4, prize_places=rng.choice([1, 2, 3, 4])
    )
    margins = _all_margins([g.margin for g in data.pending])
    _check_reference_against_standings(players, rows, data, margins, cap, rng)
    seen = _check_exact(data, margins)
    assert seen["exact"] + seen["inexact"] >= 0


def test_random_divisions_make_open_statements():
    """The enumeration is not vacuous: across the random divisions most open statements are
    exact, and there are many of them."""
    exact = inexact = 0
    for seed in range(40):
        rng = random.Random(1000 + seed)
        n = rng.randint(6, 12)
        players, rows = _random_division(rng, n, 4, 3, min(n // 2, 4))
        data = needs_input_from(players, rows, spread_cap=3, rounds_total=4, prize_places=3)
        seen = _check_exact(data, _all_margins([g.margin for g in data.pending]))
        exact += seen["exact"]
        inexact += seen["inexact"]
    assert exact >= 100
    assert inexact <= exact // 5  # cut to MAX_ALTERNATIVES ways: still safe, marked


def _check_reference_against_standings(players, rows, data, margins, cap, rng, samples=40):
    """The numpy reference ranks as the real standings do, on a sample of outcomes."""
    ref = Reference(data)
    picks = [0, len(margins) - 1] + [rng.randrange(len(margins)) for _ in range(samples)]
    places = ref.places(margins[picks])
    for row, outcome in zip(places, margins[picks], strict=True):
        played = list(_played(rows, data.pending, outcome))
        standings = compute_standings(players, played, spread_cap=cap)
        listed = [r.number for r in standings if r.rank is not None]
        for number in ref.numbers:
            assert listed.index(number) + 1 == row[ref.index[number]]


def _played(rows, pending, outcome):
    margin = {}
    for g, m in zip(pending, outcome, strict=True):
        margin[(g.player1, g.player2)] = int(m)
        margin[(g.player2, g.player1)] = -int(m)
    for r in rows:
        if (r.player, r.opponent) in margin and r.score is None:
            m = margin[(r.player, r.opponent)]
            yield PlayerRound(r.round, r.player, r.opponent, 400 + m, 400)
        else:
            yield r


# --------------------------------------------------------------------------- real events


def _real_state(players_t, contenders: int, spread_cap=None):
    """A real division's state before its last round's results: every round before it as
    played, the last round as played except the games of the ``contenders`` best placed
    players before it, which are still to play."""
    last = max(len(p.opponents) for p in players_t)
    players = [StandingsPlayer(p.number, p.name, p.rating or 0) for p in players_t]
    rows = []
    for p in players_t:
        for r0, opp in enumerate(p.opponents[:last]):
            score = p.scores[r0] if r0 < len(p.scores) else None
            if opp in (None, 0):
                if score is not None:
                    rows.append(PlayerRound(r0 + 1, p.number, None, score, None))
                continue
            opp_score = players_t[opp - 1].scores[r0]
            rows.append(PlayerRound(r0 + 1, p.number, opp, score, opp_score))
    before = compute_standings(players, rows, after_round=last - 1, spread_cap=spread_cap)
    top = [r.number for r in before if r.rank is not None][:contenders]
    left = set()
    for p in top:
        opp = players_t[p - 1].opponents[last - 1]
        if opp:
            left.add(frozenset((p, opp)))
    rows = [
        PlayerRound(r.round, r.player, r.opponent, None, None)
        if r.round == last and r.opponent and frozenset((r.player, r.opponent)) in left
        else r
        for r in rows
    ]
    return players, rows, last


def _feed(name: str, index: int = 0):
    text = (FIXTURES / "feeds" / name).read_text(encoding="utf-8")
    divisions = tourney_js_divisions(parse_tourney_js(text, source=name))
    return divisions[index][1]


# (file, loader, spread cap): the two feeds cap every game at 250 (docs/rules.md)
REAL = [
    ("naspa-2023-a.t", lambda: read_t(FIXTURES / "tsh" / "naspa-2023-a.t"), None),
    ("naspa-2006-b.t", lambda: read_t(FIXTURES / "tsh" / "naspa-2006-b.t"), None),
    ("raining2026.js", lambda: _feed("raining2026.js"), [250]),
    ("cpss-may2026.js", lambda: _feed("cpss-may2026.js"), [250]),
]


@pytest.mark.parametrize(("name", "load", "cap"), REAL, ids=[r[0] for r in REAL])
def test_exact_statements_on_real_last_rounds_every_margin_of_two_games(name, load, cap):
    """The two top boards of a real last round still to play, every margin of both games
    (-500..500 each, or the event's cap): every statement equals the enumeration."""
    players_t = load()
    players, rows, last = _real_state(players_t, 3, cap)
    data = needs_input_from(players, rows, spread_cap=cap, rounds_total=last, prize_places=3)
    data = NeedsInput(data.players, data.pending[:2], places=3)
    rows = [
        r
        for r in rows
        if r.score is not None
        or r.opponent is None
        or any({r.player, r.opponent} == {g.player1, g.player2} for g in data.pending)
    ]
    bounds = [g.margin for g in data.pending]
    margins = _all_margins(bounds)
    rng = random.Random(7)
    _check_reference_against_standings(players, rows, data, margins, cap, rng, samples=10)
    seen = [_check_exact(data, chunk, whole=False) for chunk in np.array_split(margins, 20)]
    assert seen[0]["exact"] >= 3  # open statements with conditions, not only clinched/out


@pytest.mark.parametrize(("name", "load", "cap"), REAL, ids=[r[0] for r in REAL])
def test_exact_statements_on_real_last_rounds_grid_of_three_games(name, load, cap):
    """Three real games still to play, on a grid of margins holding every threshold of the
    statements and every spread difference between the players in them or near the top, each
    +-1 (and the ends, -1, 0, 1)."""
    players_t = load()
    players, rows, last = _real_state(players_t, 6, cap)
    data = needs_input_from(players, rows, spread_cap=cap, rounds_total=last, prize_places=3)
    data = NeedsInput(data.players, data.pending[:3], places=3)
    bound = data.pending[0].margin
    points = {-bound, -1, 0, 1, bound}
    for pn in compute_needs(data).values():
        for need in pn.needs:
            for alt in need.alternatives:
                for c in alt:
                    if isinstance(c, Margin):
                        points |= {c.lo, c.hi}
                    else:
                        points |= {c.offset, -c.offset}
    playing = {p for g in data.pending for p in (g.player1, g.player2)}
    ordered = sorted(data.players, key=lambda s: (-s.wins, s.losses, -s.spread))
    near = [s.spread for s in ordered[:4] if s.ranked] + [
        s.spread for s in data.players if s.number in playing
    ]
    points |= {a - b for a in near for b in near}
    grid = sorted({p + e for p in points for e in (-1, 0, 1) if -bound <= p + e <= bound})
    axes = [np.array(grid)] * len(data.pending)
    mesh = np.meshgrid(*axes, indexing="ij")
    margins = np.stack([m.ravel() for m in mesh], axis=1).astype(np.int64)
    assert len(grid) >= 10
    chunks = np.array_split(margins, max(1, len(margins) // 50_000))
    seen = [_check_exact(data, chunk, whole=False) for chunk in chunks]
    assert seen[0]["exact"] >= 3


# --------------------------------------------------------------------------- bounds


def _matchings(people: list[int]):
    if not people:
        yield []
        return
    a = people[0]
    for i in range(1, len(people)):
        rest = people[1:i] + people[i + 1 :]
        for m in _matchings(rest):
            yield [(a, people[i]), *m]


@pytest.mark.parametrize("seed", range(8))
def test_bounds_hold_for_every_pairing_and_outcome_two_rounds_left(seed):
    """Two rounds left (the next paired, the last not): 'out' never reaches the place and
    'clinched' always keeps it, whoever meets whom in the last round and however every game
    ends (margins -2..2 under a cap of 2)."""
    rng = random.Random(seed)
    n = rng.choice([4, 6])
    players, rows = _random_division(rng, n, 5, 2, n // 2)
    data = needs_input_from(players, rows, spread_cap=2, rounds_total=6, prize_places=2)
    needs = compute_needs(data)
    assert all(pn.mode == "bounds" for pn in needs.values())
    checked = 0
    for last_round in _matchings(list(range(1, n + 1))):
        games = list(data.pending) + [Pending(a, b, 2) for a, b in last_round]
        full = NeedsInput(data.players, games, places=data.places)
        ref = Reference(full)
        places = ref.places(_all_margins([2] * len(games)))
        for number, pn in needs.items():
            got = places[:, ref.index[number]]
            for need in pn.needs:
                if need.status == "out":
                    assert (got > need.place).all(), (number, need)
                    checked += 1
                elif need.status == "clinched":
                    assert (got <= need.place).all(), (number, need)
                    checked += 1
    assert checked >= 0  # some seeds decide nothing; the next test asks for decisions


def test_bounds_say_something_across_seeds():
    said = 0
    for seed in range(30):
        rng = random.Random(500 + seed)
        players, rows = _random_division(rng, 6, 5, 2, 3)
        data = needs_input_from(players, rows, spread_cap=2, rounds_total=6, prize_places=2)
        said += sum(
            need.status != "open" for pn in compute_needs(data).values() for need in pn.needs
        )
    assert said >= 30


# --------------------------------------------------------------------------- wording


def _example() -> NeedsInput:
    """#5 is done at 10-3 +386; #3 (10-2 +50) plays #6; you (#1, 9-3 +300) play #7."""
    players = [
        Standing(1, 9, 3, 300, (0,)),
        Standing(3, 10, 2, 50, (0,)),
        Standing(5, 10, 3, 386, (0,)),
        Standing(6, 5, 7, 0, (0,)),
        Standing(7, 4, 8, 0, (0,)),
    ]
    return NeedsInput(players, [Pending(1, 7, 400), Pending(3, 6, 400)], places=2)


def test_the_statements_read_as_a_player_needs_them():
    needs = compute_needs(_example())
    names = {3: "#3", 5: "#5"}
    first, second = needs[1].needs
    # level with #5 on 10-3 and on spread at a win by 86: the tiebreak puts #1 first
    assert describe(first, names) == "1st if you win by 86 or more and #3 loses."
    assert describe(second, names) == (
        "2nd or better if you win by 86 or more; or you win and #3 loses."
    )
    assert first.exact and second.exact
    assert needs[6].summary == ["Can no longer finish in the prizes (top 2)."]
    assert describe(needs[3].needs[0], names) == "1st if you win or tie."


def test_a_clinched_and_an_out_place_say_so():
    data = _example()
    done = NeedsInput(data.players, [Pending(1, 7, 400)], places=2)
    assert compute_needs(done)[3].summary[-1].startswith("Clinched")
    assert compute_needs(done)[7].summary == ["Can no longer finish in the prizes (top 2)."]


def test_bad_input_is_refused():
    data = _example()
    with pytest.raises(ValueError, match="share a player number"):
        compute_needs(NeedsInput([*data.players, data.players[0]], data.pending))
    with pytest.raises(ValueError, match="pending game 1-99"):
        compute_needs(NeedsInput(data.players, [Pending(1, 99)]))
    with pytest.raises(ValueError, match="prize places"):
        compute_needs(NeedsInput(data.players, data.pending, places=0))
    with pytest.raises(ValueError, match="no player 42"):
        compute_needs(data, only=42)


def test_two_games_left_for_a_player_is_bounds_not_exact():
    data = _example()
    two = NeedsInput(data.players, [*data.pending, Pending(1, 6, 400)], places=2)
    assert {pn.mode for pn in compute_needs(two).values()} == {"bounds"}


def test_points_before_spread_gives_bounds_only():
    data = _example()
    points = NeedsInput(data.players, data.pending, places=2, spread_decides=False)
    assert {pn.mode for pn in compute_needs(points).values()} == {"bounds"}


def test_itertools_product_agrees_with_the_grid():
    # the enumeration helper covers every combination exactly once
    got = _all_margins([1, 2])
    assert len(got) == 15
    assert {tuple(r) for r in got} == set(itertools.product(range(-1, 2), range(-2, 3)))


def test_a_round_capped_at_zero_gives_bounds_on_wins_only():
    """A cap of 0 clips the round's spread to nothing (tournament/standings.py): margins are
    then not the ranked spread, so the answer is bounds, never a margin statement."""
    rng = random.Random(3)
    players, rows = _random_division(rng, 6, 2, 3, 3)
    data = needs_input_from(players, rows, spread_cap=[100, 0], rounds_total=2)
    assert not data.spread_decides
    assert {pn.mode for pn in compute_needs(data).values()} == {"bounds"}
    capped = needs_input_from(players, rows, spread_cap=[100, 50], rounds_total=2)
    assert {pn.mode for pn in compute_needs(capped).values()} == {"exact"}
    assert {g.margin for g in capped.pending} == {50}
