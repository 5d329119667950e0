"""``cop``: contention pairing from simulated prize chances (pairings/engine/cop.py)."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

from pairings.engine import (
    PAIRING_SYSTEMS,
    Field,
    FieldPlayer,
    PairingOptions,
    check_round,
    pair_round,
)
from pairings.engine import generator as gen
from pairings.engine.cop import _CopRound, field_chances
from pairings.engine.schedule import Schedule
from pairings.engine.simulate import approximate_pairs
from pairings.engine.standing import gibsonized, ordered_active
from tournament.formats.tourney_js import parse_tourney_js, tourney_js_divisions
from tournament.formats.tsh import decode_bytes, read_t

REPLAY = Path(__file__).resolve().parents[1] / "benchmarks" / "replay_2006.py"


def _field(records, rnd: int, total: int, met=()) -> Field:
    """Players (number, wins, spread) ranked in that order; ``met``: pairs already played."""
    players = []
    for number, wins, spread in records:
        opps = [o for a, b in met for o in ((b,) if a == number else (a,) if b == number else ())]
        players.append(
            FieldPlayer(
                number=number,
                rating=1500,
                wins=wins,
                losses=rnd - 1 - wins,
                spread=spread,
                opponents=opps,
                firsts=[1 + (k % 2) for k in range(len(opps))],
            )
        )
    return Field(players=players, round=rnd, rounds_total=total)


def _chances(table: dict[int, float], places: int = 3) -> dict[int, tuple[float, ...]]:
    """P(cash) spread evenly over the paid places (enough for contention tests)."""
    return {n: tuple([p / places] * places) for n, p in table.items()}


def test_registered_and_tsh_commands_stay_contention() -> None:
    cop = PAIRING_SYSTEMS["cop"]
    assert cop.uses_gibson and not cop.tsh_commands
    assert [e.system for e in Schedule.parse("1-9:swiss,10-10:cop").entries] == ["swiss", "cop"]
    from pairings.engine.systems import tsh_commands

    assert tsh_commands()["cp"] == "contention"
    assert tsh_commands()["chewpair"] == "contention"
    assert "cop" not in tsh_commands().values()


def test_last_round_contenders_play_king_of_the_hill() -> None:
    records = [(n, 7 - (n - 1) // 2, 100 - n) for n in range(1, 11)]
    f = _field(records, rnd=10, total=10)
    table = {1: 0.9, 2: 0.8, 3: 0.6, 4: 0.4, 5: 0.2, 6: 0.05}
    opts = PairingOptions(prize_bands=[1, 3], cop_chances=_chances(table), gibson=False)
    p = pair_round(f, "cop", opts)
    pairs = {frozenset((g.first, g.second)) for g in p.games}
    assert {frozenset((1, 2)), frozenset((3, 4)), frozenset((5, 6))} <= pairs
    for g in p.games:
        if {g.first, g.second} <= set(table):
            assert "KOTH among cash contenders" in g.explanation
            assert re.search(r"P\(cash\) \d+%", g.explanation), g.explanation
    assert check_round(f, p, opts).errors == []


def test_last_round_repeat_within_contenders_is_avoided_by_the_limit() -> None:
    records = [(n, 7 - (n - 1) // 2, 100 - n) for n in range(1, 9)]
    f = _field(records, rnd=10, total=10, met=[(1, 2)])
    table = {1: 0.9, 2: 0.8, 3: 0.6, 4: 0.4}
    opts = PairingOptions(prize_bands=[1, 3], cop_chances=_chances(table), gibson=False)
    p = pair_round(f, "cop", opts)
    pairs = {frozenset((g.first, g.second)) for g in p.games}
    assert frozenset((1, 2)) not in pairs
    assert {frozenset((1, 3)), frozenset((2, 4))} <= pairs
    assert check_round(f, p, opts).errors == []


def test_gibsonized_player_meets_only_players_who_cannot_cash() -> None:
    # 1 leads by 3 wins with 1 round left: Gibsonized. 2-5 may still cash, 6-8 cannot.
    records = [(1, 9, 500), (2, 6, 300), (3, 6, 200), (4, 5, 100), (5, 5, 50)]
    records += [(6, 3, 0), (7, 3, -10), (8, 2, -20)]
    f = _field(records, rnd=10, total=10)
    table = {1: 1.0, 2: 0.7, 3: 0.6, 4: 0.4, 5: 0.3, 6: 0.005}
    opts = PairingOptions(prize_bands=[1, 3], cop_chances=_chances(table))
    assert gibsonized(f, opts, ordered_active(f)) == [1]
    p = pair_round(f, "cop", opts)
    opp = p.opponent_of()[1]
    assert table.get(opp, 0) < 0.01
    board = next(g for g in p.games if 1 in (g.first, g.second))
    assert "Gibsonized" in board.explanation and "cannot cash" in board.explanation
    assert check_round(f, p, opts).errors == []


def test_control_of_first_cites_the_probabilities() -> None:
    # 3 rounds left: the leader (1) plays the nearest contender for first (3: highest P(1st)).
    records = [(n, 5 - (n - 1) // 3, 90 - n) for n in range(1, 9)]
    f = _field(records, rnd=7, total=9)
    chances = {1: (0.61, 0.2, 0.1), 2: (0.05, 0.3, 0.3), 3: (0.24, 0.3, 0.2)}
    chances |= {n: (0.02, 0.05, 0.1) for n in range(4, 9)}
    opts = PairingOptions(prize_bands=[1, 3], cop_chances=chances, gibson=False)
    p = pair_round(f, "cop", opts)
    board = next(g for g in p.games if 1 in (g.first, g.second))
    assert {board.first, board.second} == {1, 3}
    assert "control of first place" in board.explanation
    assert "P(1st) 24%" in board.explanation and "P(1st) 61%" in board.explanation
    assert check_round(f, p, opts).errors == []


def test_no_control_early_in_the_event() -> None:
    records = [(n, 1 - (n - 1) // 4, 90 - n) for n in range(1, 9)]
    f = _field(records, rnd=3, total=12)
    chances = {n: (0.125, 0.125, 0.125) for n in range(1, 9)}
    opts = PairingOptions(prize_bands=[1, 3], cop_chances=chances, gibson=False)
    p = pair_round(f, "cop", opts)
    assert not any("control" in g.explanation for g in p.games)
    assert not any("control" in n for n in p.notes)
    assert check_round(f, p, opts).errors == []


def test_bad_cop_settings_are_refused_clearly() -> None:
    f = _field([(n, 1, 0) for n in range(1, 5)], rnd=2, total=3)
    with pytest.raises(ValueError, match="cop_threshold"):
        pair_round(f, "cop", PairingOptions(cop_threshold=0))
    with pytest.raises(ValueError, match="cop_chances"):
        pair_round(f, "cop", PairingOptions(cop_chances=5))


def test_forbidden_pairs_and_hard_repeat_limit_hold() -> None:
    records = [(n, 7 - (n - 1) // 2, 100 - n) for n in range(1, 7)]
    f = _field(records, rnd=10, total=10, met=[(1, 2)])
    f.forbidden = {frozenset((3, 4))}
    table = {1: 0.9, 2: 0.8, 3: 0.6, 4: 0.4}
    opts = PairingOptions(
        prize_bands=[1, 3], cop_chances=_chances(table), gibson=False, hard_repeat_limit=True
    )
    p = pair_round(f, "cop", opts)
    pairs = {frozenset((g.first, g.second)) for g in p.games}
    assert frozenset((1, 2)) not in pairs and frozenset((3, 4)) not in pairs
    assert check_round(f, p, opts).errors == []


def test_bye_by_the_rules_and_explained() -> None:
    records = [(n, 6 - (n - 1) // 2, 50 - n) for n in range(1, 8)]
    f = _field(records, rnd=9, total=10)
    opts = PairingOptions(prize_bands=[1], cop_chances={n: (0.3,) for n in range(1, 8)})
    p = pair_round(f, "cop", opts)
    byes = [g for g in p.games if g.second == 0]
    assert [g.first for g in byes] == [7]
    assert "P(cash) 30%" in byes[0].explanation
    assert check_round(f, p, opts).errors == []


def test_without_chances_the_field_is_simulated_reproducibly() -> None:
    records = [(n, 6 - (n - 1) // 3, 60 - n) for n in range(1, 13)]
    f = _field(records, rnd=9, total=10)
    opts = PairingOptions(prize_bands=[1, 3], seed=5)
    a, b = pair_round(f, "cop", opts), pair_round(f, "cop", opts)
    assert a.pairs() == b.pairs()
    got = field_chances(f, opts, sims=2000)
    assert abs(sum(c[0] for c in got.values()) - 1) < 1e-6
    assert any("simulated from the field" in n for n in a.notes)


def test_simulation_approximates_cop_by_king_of_the_hill() -> None:
    import numpy as np

    order = np.array([[4, 2, 7, 1, 0, 3]])
    a, b, bye = approximate_pairs(order, "cop")
    assert a.tolist() == [[4, 7, 0]] and b.tolist() == [[2, 1, 3]] and bye is None


def _load_replay():
    spec = importlib.util.spec_from_file_location("replay_2006", REPLAY)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _players(real_data: Path, name: str, division: str):
    if name.endswith(".t"):
        return read_t(real_data / name)
    path = real_data.parent / "feeds" / name
    data = parse_tourney_js(decode_bytes(path.read_bytes()), source=name)
    return dict(tourney_js_divisions(data))[division]


@pytest.mark.parametrize(
    ("name", "division", "rnd", "meetings"),
    [
        ("naspa-2006-b.t", "", 12, 2),
        ("naspa-2023-a.t", "", 16, 2),
        ("cpss-may2026.js", "A", 7, 1),
        ("raining2026.js", "D", 10, 1),
        ("liwords-2024-spc-a.js", "1", 24, 2),
    ],
)
def test_real_mid_event_last_round(
    real_data: Path, name: str, division: str, rnd: int, meetings: int
) -> None:
    """A real division stopped after round rnd - 1 and finished with one cop round."""
    players = _players(real_data, name, division)
    f = _load_replay().field_before(players, rnd, rnd)
    opts = PairingOptions(prize_bands=[1, 3, 5], max_meetings=meetings, seed=1)
    opts.cop_chances = field_chances(f, opts, sims=4000)
    p = pair_round(f, "cop", opts)
    assert check_round(f, p, opts).errors == []
    rnd_state = _CopRound(f, opts, opts.cop_chances)
    contenders = {rnd_state.ordered[i].number for i in rnd_state.cash_order}
    gib = set(rnd_state.gib)
    opp = p.opponent_of()
    for g in gib:
        assert opp.get(g, 0) not in contenders, (g, opp.get(g))
    floated = [c for c in contenders if opp.get(c, 0) not in contenders]
    assert len(floated) <= len(contenders) % 2 + 2  # odd count, or a repeat over the limit
    # KOTH: the top contender plays the next contender it may still meet
    top = rnd_state.cash_order[0]
    met = rnd_state.met[top]
    mate = next(
        rnd_state.ordered[i].number
        for i in rnd_state.cash_order[1:]
        if met.get(rnd_state.ordered[i].number, 0) < meetings
    )
    assert opp[rnd_state.ordered[top].number] == mate
    for game in p.games:
        if game.second:
            assert "%" in game.explanation, game.explanation


@pytest.mark.parametrize(
    ("players", "seed", "withdraw"), [(24, 2, 0.0), (25, 3, 0.02), (41, 4, 0.01)]
)
def test_simulated_event_paired_with_cop_passes_the_checker(
    players: int, seed: int, withdraw: float
) -> None:
    """Swiss, then cop for the last rounds (chances simulated from the field each round):
    the independent checker confirms every round, Gibsonized players never meet a contender
    in the last round and the contenders pair among themselves."""
    opts = PairingOptions(seed=seed, prize_bands=[1, 3, 5], max_meetings=1, gibson_spread=250)
    reports = []

    def pair(f: Field):
        return pair_round(f, "cop" if f.round > 6 else "swiss", opts)

    def on_round(f: Field, p) -> None:
        reports.append((f.round, p.system, check_round(f, p, opts).errors))
        if p.system == "cop" and f.round == f.rounds_total:
            state = _CopRound(f, opts, field_chances(f, opts))
            contenders = {state.ordered[i].number for i in state.cash_order}
            opp = p.opponent_of()
            assert not any(opp.get(g, 0) in contenders for g in state.gib)
            floated = [c for c in contenders if opp.get(c, 0) not in contenders]
            assert len(floated) <= len(contenders) % 2 + 2, (floated, p.games)

    gen.simulate(players, 10, pair, seed=seed, on_round=on_round, withdraw_rate=withdraw)
    assert [r[1] for r in reports][-4:] == ["cop"] * 4
    assert all(errors == [] for _, _, errors in reports), reports


@pytest.mark.parametrize("seed", range(6))
def test_bulk_edges_equal_the_specification(seed: int) -> None:
    """``edge_arrays`` (what pairs) gives exactly ``edges`` (``costs``, one game at a time)."""
    import random

    rng = random.Random(seed)
    n, total = rng.choice((7, 12, 19)), 8
    rounds_done = total - rng.choice((1, 2, 4))

    def pair(f: Field):
        return pair_round(f, "swiss", PairingOptions(seed=seed))

    t = gen.simulate(n, rounds_done, pair, seed=seed, rounds_total=total)
    f = t.field()
    if seed % 2:
        a, b = (p.number for p in f.players[:2])
        f.forbidden = {frozenset((a, b))}
    opts = PairingOptions(
        seed=seed,
        prize_bands=[1, 3],
        gibson_spread=100,
        hard_repeat_limit=seed % 3 == 0,
        max_meetings=1 + seed % 2,
    )
    state = _CopRound(f, opts, field_chances(f, opts, sims=500))
    u, v, costs = state.edge_arrays()
    bulk = list(zip(u.tolist(), v.tolist(), map(tuple, costs.tolist()), strict=True))
    assert bulk == state.edges()
