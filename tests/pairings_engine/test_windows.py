"""Score-group windows give the whole graph's optimum (``_Round.solve_windows``).

The windows' proof (in ``solve_windows``) says their union costs what one matching of the
whole graph of the day costs. These tests hold it to that on many generated fields (10-200
players, varied rounds, repeats, byes, odd fields, withdrawals, forbidden pairs, lagged
rounds, hard repeat limits, sparse and complete graphs) and on every round of the real events
in fixtures/tsh and fixtures/feeds: the total cost is compared band by band, which for packed
weights is the same as comparing the one integer the solver maximises. Equal cost also means
the same pairing wherever the optimum is unique. The windows must also actually be used on
most of these fields, or the comparison would prove nothing.
"""

from __future__ import annotations

import functools
import importlib.util
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from pairings.engine import PairingOptions, matching, pair_round
from pairings.engine import weighted as weighted_module
from pairings.engine.generator import fast_history_pairing, simulate
from pairings.engine.weighted import _Round

REPO = Path(__file__).resolve().parents[2]
REPLAY = REPO / "tests" / "benchmarks" / "replay_2006.py"


def _replay():
    spec = importlib.util.spec_from_file_location("replay_2006", REPLAY)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def windows_and_full(f, opts: PairingOptions) -> tuple[str, object, object]:
    """("windows" | "fallback" | "infeasible", windows' cost, whole graph's cost).

    Both are priced on the same graph of the day (sparse or complete as ``solve`` chooses)."""
    rnd = _Round(f, "swiss", opts)
    sparse = rnd.n > opts.sparse_above
    nodes = rnd.n + rnd.n % 2
    found = rnd.solve_windows(sparse)
    u, v, costs, _ = rnd._packed(sparse)
    edges = list(zip(u.tolist(), v.tolist(), map(tuple, costs.tolist()), strict=True))
    full = matching.solve_packed(nodes, rnd._packed(sparse)[3])
    if found is None:
        return ("fallback" if full is not None else "infeasible"), None, None
    assert full is not None, "windows paired a graph with no perfect matching"
    assert sorted(x for pair in found for x in pair) == list(range(nodes))
    return (
        "windows",
        matching.matching_cost(nodes, edges, found),
        matching.matching_cost(nodes, edges, full),
    )


def generated_field(seed: int):
    """A Swiss event some rounds in, paired by the engine itself (so repeats, floats and byes
    look like a real event's), with the options varied."""
    rng = random.Random(seed)
    n = rng.randrange(10, 201)
    played = rng.randrange(0, 13)
    opts = PairingOptions(
        seed=seed,
        max_meetings=rng.choice([1, 1, 2]),
        repeats_since_round=rng.choice([None, None, 4]),
        hard_repeat_limit=rng.random() < 0.2,
        avoid_last_opponent=rng.random() < 0.8,
        bye_method=rng.choice(["bottom_up", "top_down", "always_bottom"]),
        gibson=rng.random() < 0.5,
        sparse_above=rng.choice([20, 60, 300]),
    )
    history = rng.choice(["engine", "greedy"])

    def pair(f):
        if history == "greedy":
            return fast_history_pairing(f, seed)
        return pair_round(f, "swiss", opts)

    t = simulate(
        n,
        played,
        pair,
        seed=seed,
        withdraw_rate=rng.choice([0.0, 0.0, 0.03]),
        lag=rng.choice([0, 0, 1]) if played > 2 else 0,
        rounds_total=played + rng.choice([1, 3, 8]),
    )
    f = t.field()
    numbers = [p.number for p in f.players]
    for _ in range(rng.randrange(0, 5)):
        f.forbidden.add(frozenset(rng.sample(numbers, 2)))
    return f, opts


SEEDS = range(240)


@pytest.fixture(scope="module")
def generated_outcomes():
    return {seed: windows_and_full(*generated_field(seed)) for seed in SEEDS}


@pytest.mark.parametrize("seed", SEEDS)
def test_windows_cost_what_the_whole_graph_costs(generated_outcomes, seed):
    kind, ours, full = generated_outcomes[seed]
    assert ours == full, (seed, kind)


def test_the_generated_fields_mostly_use_the_windows(generated_outcomes):
    kinds = [kind for kind, _, _ in generated_outcomes.values()]
    assert kinds.count("windows") >= 0.6 * len(kinds), {k: kinds.count(k) for k in set(kinds)}
    assert "fallback" in kinds  # and the fall-back is reached too


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(min_value=1000, max_value=10**6))
# a window whose level above has no game into it while a float is preferred: the tie-break
# slice tie[-0:] took the whole array (found by this test in a full run)
@example(seed=48501)
def test_windows_cost_what_the_whole_graph_costs_hypothesis(seed):
    kind, ours, full = windows_and_full(*generated_field(seed))
    assert ours == full, (seed, kind)


def test_merging_windows_is_exercised_and_exact(monkeypatch):
    """Windows that cannot be completed, or whose optimum breaks the proof, are merged and
    solved again: count the window solves beyond the first split."""
    calls: list[tuple[int, int]] = []
    original = _Round._window

    def spy(self, first, last, *rest, **options):
        calls.append((first, last))
        return original(self, first, last, *rest, **options)

    monkeypatch.setattr(_Round, "_window", spy)
    merged = 0
    for seed in SEEDS:
        f, opts = generated_field(seed)
        calls.clear()
        kind, ours, full = windows_and_full(f, opts)
        assert ours == full, seed
        starts = [first for first, _ in calls]
        merged += kind == "windows" and len(starts) != len(set(starts))
    assert merged >= 1


def test_natural_windows_are_taken_without_a_matching_and_exact(monkeypatch):
    """Windows whose natural pairing (adjacent floats, each group folded) passes the checks
    of ``_forced_window`` skip the matching: they occur on these fields, and stay exact."""
    taken = []
    original = _Round._forced_window

    def spy(self, *args):
        taken.append(original(self, *args) is not None)
        return taken[-1] and original(self, *args)

    monkeypatch.setattr(_Round, "_forced_window", spy)
    for seed in SEEDS[:80]:
        kind, ours, full = windows_and_full(*generated_field(seed))
        assert ours == full, seed
    assert taken.count(True) >= 20 and taken.count(False) >= 20


def test_round_two_of_a_big_field_is_natural_in_every_window(monkeypatch):
    """Round 2 of 2,000 fresh players: winners and losers fold, no window needs a matching."""
    t = simulate(2000, 1, lambda f: fast_history_pairing(f, 5), seed=5, rounds_total=8)
    f = t.field()
    rnd = _Round(f, "swiss", PairingOptions())
    calls = []
    original = _Round._window
    monkeypatch.setattr(
        _Round, "_window", lambda self, *a, **k: calls.append(a) or original(self, *a, **k)
    )
    found = rnd.solve_windows(True)
    assert found is not None and calls == []
    u, v, costs, weighted = rnd._packed(True)
    nodes = rnd.n + rnd.n % 2
    edges = list(zip(u.tolist(), v.tolist(), map(tuple, costs.tolist()), strict=True))
    full = matching.solve_packed(nodes, weighted)
    assert matching.matching_cost(nodes, edges, found) == matching.matching_cost(nodes, edges, full)
    assert found == full  # the natural pairing is the unique optimum here


def test_gibsonized_fields_and_other_systems_use_the_whole_graph():
    f, opts = generated_field(3)
    assert _Round(f, "koth", opts).solve_windows(False) is None
    rnd = _Round(f, "swiss", opts)
    rnd.gib = [rnd.ordered[0].number]
    assert rnd.solve_windows(False) is None


def test_pair_round_uses_the_windows_above_the_threshold(monkeypatch):
    f, opts = generated_field(11)
    monkeypatch.setattr(weighted_module, "WINDOWS_ABOVE", 0)
    used = []
    original = _Round.solve_windows

    def spy(self, sparse):
        used.append(original(self, sparse))
        return used[-1]

    monkeypatch.setattr(_Round, "solve_windows", spy)
    pairing = pair_round(f, "swiss", opts)
    assert used and used[0] is not None
    rnd = _Round(f, "swiss", opts)
    number = [p.number for p in rnd.ordered] + [0]
    games = {frozenset((g.first, g.second)) for g in pairing.games}
    assert games == {frozenset((number[a], number[b])) for a, b in used[0]}


def _real_fields():
    """(name, field) for every round 2.. of every division of the real events."""
    from tournament.formats.tourney_js import parse_tourney_js, tourney_js_divisions
    from tournament.formats.tsh import read_t

    replay = _replay()
    events = [(path.name, read_t(path)) for path in sorted((REPO / "fixtures/tsh").glob("*.t"))]
    for path in sorted((REPO / "fixtures/feeds").glob("*.js")):
        data = parse_tourney_js(path.read_text(encoding="utf-8"), source=path.name)
        for division, players in tourney_js_divisions(data):
            events.append((f"{path.name}:{division}", players))
    for name, players in events:
        if len(players) < 4:
            continue
        total = max(len(p.opponents) for p in players)
        scored = min(len(p.scores) for p in players)  # a live feed's last rounds may be unplayed
        for rnd in range(2, min(total, scored + 1) + 1):
            yield f"{name} round {rnd}", replay.field_before(players, rnd, total)


def test_windows_on_every_round_of_the_real_events():
    kinds: dict[str, int] = {}
    rounds = 0
    for name, f in _real_fields():
        if sum(p.active for p in f.players) < 2:
            continue
        rounds += 1
        for opts in (PairingOptions(), PairingOptions(sparse_above=20, max_meetings=2)):
            kind, ours, full = windows_and_full(f, opts)
            assert ours == full, (name, opts.sparse_above)
            kinds[kind] = kinds.get(kind, 0) + 1
    # Small events often fall back (few score groups, Gibsonized leaders): still most rounds.
    assert rounds >= 150 and kinds.get("windows", 0) >= 0.4 * 2 * rounds, (rounds, kinds)


@functools.cache
def _mid_event_field(n: int, seed: int):
    """The benchmark's kind of field (tests/benchmarks/bench_pairing.py): ten greedy rounds
    (cached: the tests only read it)."""
    t = simulate(n, 10, lambda f: fast_history_pairing(f, seed), seed=seed, rounds_total=20)
    return t.field()


@pytest.mark.parametrize(("n", "seed"), [(1001, 3), (1600, 7), (2400, 11)])
def test_big_fields_split_at_odd_cuts_and_cost_what_the_whole_graph_costs(monkeypatch, n, seed):
    """Mid-event fields of a few thousand: every score group is a window of its own, odd cuts
    included (copies above, a ghost below), no window merges into most of the field, and the
    union costs exactly the whole graph's optimum."""
    seen: list[tuple[int, int, bool, bool]] = []
    original = _Round._window

    def spy(self, first, last, top, bottom, *rest, **options):
        seen.append((first, last, top, bottom))
        return original(self, first, last, top, bottom, *rest, **options)

    monkeypatch.setattr(_Round, "_window", spy)
    kind, ours, full = windows_and_full(_mid_event_field(n, seed), PairingOptions(seed=1))
    assert kind == "windows" and ours == full
    assert any(top for _, _, top, _ in seen) and any(bottom for _, _, _, bottom in seen)
    rnd = _Round(_mid_event_field(n, seed), "swiss", PairingOptions(seed=1))
    biggest = max(len(m) for m in rnd.group_members.values())
    levels = sorted(set(rnd.hw), reverse=True)
    sizes = {k: len(rnd.group_members[h]) for k, h in enumerate(levels)}
    widest = max(sum(sizes.get(k, 0) for k in range(a, b + 1)) for a, b, _, _ in seen)
    assert widest <= biggest + 0.2 * n  # at most a small neighbour or two merged in


def test_windows_agree_on_their_floats_or_merge_and_stay_exact(monkeypatch):
    """Two windows that chose different floats across their odd cut are made to agree with
    another optimum of one of them (``_agree``), or merged; both happen on these fields."""
    outcomes: list[bool] = []
    original = _Round._agree

    def spy(self, *args):
        outcomes.append(original(self, *args))
        return outcomes[-1]

    monkeypatch.setattr(_Round, "_agree", spy)
    for seed in SEEDS[:120]:
        kind, ours, full = windows_and_full(*generated_field(seed))
        assert ours == full, seed
    for n, seed in ((1001, 3), (1600, 7)):
        kind, ours, full = windows_and_full(_mid_event_field(n, seed), PairingOptions(seed=1))
        assert ours == full, n
    assert outcomes.count(True) >= 1 and outcomes.count(False) >= 1, outcomes


def test_a_float_that_is_not_an_edge_of_the_day_is_not_taken(monkeypatch):
    """The copies above are the day's games across the cut only, and the ghost below joins
    only players with such a game: the windows never pair a float the graph does not hold."""
    f = _mid_event_field(1001, 3)
    rnd = _Round(f, "swiss", PairingOptions(seed=1))
    found = rnd.solve_windows(True)
    u, v, _, _ = rnd._packed(True)
    day = set(zip(u.tolist(), v.tolist(), strict=True))
    assert found is not None and all(pair in day for pair in found)
