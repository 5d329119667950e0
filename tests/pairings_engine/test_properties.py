"""Property tests: random tournaments through every system, every round checked.

The FIDE-endorsement discipline in small: a seeded generator plays whole events (withdrawals,
byes, lagged pairing, varied settings) and the independent checker must accept every round.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pairings.engine import PairingOptions, Schedule, check_round, pair_round
from pairings.engine.generator import simulate

WEIGHTED = ["swiss", "koth", "factor", "contention", "random", "australian"]

common = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _run(n, rounds, pair, opts, seed, withdraw_rate=0.0, lag=0, rounds_total=None):
    checked = []

    def on_round(f, p):
        rep = check_round(f, p, opts)
        assert rep.errors == [], (f.round, p.system, rep.errors, p.games)
        active = [x for x in f.players if x.active]
        paired = [x for g in p.games for x in (g.first, g.second) if x]
        assert sorted(paired) == sorted(x.number for x in active)
        checked.append(rep)

    simulate(
        n,
        rounds,
        pair,
        seed=seed,
        withdraw_rate=withdraw_rate,
        lag=lag,
        on_round=on_round,
        rounds_total=rounds_total,
    )
    return checked


@common
@given(
    system=st.sampled_from(WEIGHTED),
    n=st.integers(2, 22),
    rounds=st.integers(1, 9),
    extra=st.integers(0, 3),
    seed=st.integers(0, 10_000),
    max_meetings=st.sampled_from([1, 1, 2]),
    bye_method=st.sampled_from(["bottom_up", "top_down", "always_bottom"]),
    gibson_spread=st.sampled_from([0, 100, 500]),
    withdraw_rate=st.sampled_from([0.0, 0.0, 0.05]),
    lag=st.sampled_from([0, 0, 1]),
    bands=st.sampled_from([[1], [1, 3], [2, 4]]),
)
def test_weighted_systems_always_pass_the_checker(
    system,
    n,
    rounds,
    extra,
    seed,
    max_meetings,
    bye_method,
    gibson_spread,
    withdraw_rate,
    lag,
    bands,
):
    opts = PairingOptions(
        seed=seed,
        max_meetings=max_meetings,
        bye_method=bye_method,
        gibson_spread=gibson_spread,
        prize_bands=bands,
        factor_distance=1 + seed % 3,
    )
    reps = _run(
        n,
        rounds,
        lambda f: pair_round(f, system, opts),
        opts,
        seed,
        withdraw_rate,
        lag,
        rounds + extra,
    )
    assert len(reps) == rounds


@common
@given(
    n=st.integers(2, 16),
    cycles=st.integers(1, 2),
    seed=st.integers(0, 1000),
    withdraw_rate=st.sampled_from([0.0, 0.05]),
)
def test_round_robin_passes_the_checker_and_balances_starts(n, cycles, seed, withdraw_rate):
    opts = PairingOptions(seed=seed)
    slots = n + n % 2
    rounds = cycles * (slots - 1)
    reps = _run(n, rounds, lambda f: pair_round(f, "rr", opts), opts, seed, withdraw_rate)
    if withdraw_rate == 0 and cycles == 2:
        assert reps[-1].quality["max_imbalance"] == 0


@common
@given(n=st.integers(2, 30), fontes=st.sampled_from([1, 3, 5]), seed=st.integers(0, 1000))
def test_initial_fontes_then_swiss_passes_the_checker(n, fontes, seed):
    schedule = Schedule.parse(f"1-{fontes}:fontes,{fontes + 1}-{fontes + 4}:swiss")
    base = PairingOptions(seed=seed, fontes_rounds=fontes)

    def pair(f):
        entry = schedule.entry_for(f.round)
        return pair_round(f, entry.system, entry.options(base))

    reps = _run(n, fontes + 4, pair, base, seed)
    if n > fontes:  # big enough field: no repeats inside the Fontes rounds
        assert all(r.quality["repeats"] == 0 for r in reps[:fontes])
