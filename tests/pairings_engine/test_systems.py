"""Each pairing system does what the spec says on small hand-made fields."""

from __future__ import annotations

import itertools

import pytest

from pairings.engine import PairingError, PairingOptions, check_round, pair_round
from pairings.engine.generator import simulate
from pairings.engine.tables import circle_round, fontes_groups

from .helpers import bye_of, field, fresh, games, met, player


@pytest.mark.parametrize("n", [4, 6, 8, 10, 14])
def test_circle_table_meets_everyone_once(n):
    seen = set()
    for r in range(n - 1):
        rnd = circle_round(n, r)
        slots = [x for pair in rnd for x in pair]
        assert sorted(slots) == list(range(n))
        seen |= {frozenset(p) for p in rnd}
    assert seen == {frozenset(p) for p in itertools.combinations(range(n), 2)}


def _play(n, rounds, system, opts=None, **kw):
    opts = opts or PairingOptions(seed=5)
    log = []

    def on_round(f, p):
        rep = check_round(f, p, opts)
        assert rep.errors == [], (f.round, rep.errors)
        log.append((f, p, rep))

    t = simulate(n, rounds, lambda f: pair_round(f, system, opts), seed=11, on_round=on_round, **kw)
    return t, log


@pytest.mark.parametrize("n", [6, 7])
def test_round_robin_everyone_meets_once_and_firsts_balance(n):
    slots = n + n % 2
    t, log = _play(n, slots - 1, "rr")
    for p in t.players:
        opps = [o for o in p.opponents if o]
        assert sorted(opps) == [q for q in range(1, n + 1) if q != p.number]
        assert p.opponents.count(0) == (1 if n % 2 else 0)
    for f, pairing, rep in log:
        assert rep.quality["max_imbalance"] <= (1 if f.round % 2 == 0 else 2)
        assert len([g for g in pairing.games if not g.second]) == n % 2
    # Every player's starts and replies differ by at most one at the end of the cycle.
    for p in t.players:
        starts = sum(1 for o, f in zip(p.opponents, p.firsts, strict=False) if o and f == 1)
        replies = sum(1 for o, f in zip(p.opponents, p.firsts, strict=False) if o and f == 2)
        assert abs(starts - replies) <= 1


def test_double_round_robin_repeats_the_cycle_with_a_note():
    t, log = _play(4, 6, "rr")
    for p in t.players:
        assert sorted(p.opponents) == sorted([q for q in range(1, 5) if q != p.number] * 2)
        starts = sum(1 for f in p.firsts if f == 1)
        assert starts == 3
    assert any("cycle 2" in note for _, pairing, _ in log for note in pairing.notes)


def test_round_robin_withdrawn_player_gives_opponent_a_bye():
    f = fresh(6, rnd=1, total=5)
    f.players[2].active = False
    p = pair_round(f, "rr")
    byes = [g for g in p.games if not g.second]
    assert len(byes) == 1 and "withdrawn" in byes[0].explanation
    assert 3 not in {x for g in p.games for x in (g.first, g.second)}


def test_fontes_groups_take_one_player_from_each_rating_band():
    f = fresh(16, total=10)
    groups = fontes_groups(f, PairingOptions(fontes_rounds=3))
    assert len(groups) == 4
    # Players are numbered by rating: band b holds numbers 4b+1..4b+4.
    for g in groups:
        assert sorted((x - 1) // 4 for x in g) == [0, 1, 2, 3]
    assert groups[0] == [1, 8, 9, 16]  # snake: bands 2 and 4 reversed


def test_fontes_three_rounds_no_repeats_and_stays_in_group():
    f_groups = fontes_groups(fresh(20, total=10), PairingOptions(fontes_rounds=3))
    group_of = {x: k for k, g in enumerate(f_groups) for x in g}
    t, log = _play(20, 3, "fontes", PairingOptions(fontes_rounds=3))
    for p in t.players:
        assert len(set(p.opponents)) == 3
        assert all(group_of[o] == group_of[p.number] for o in p.opponents)
    assert {g.explanation for _, pairing, _ in log for g in pairing.games} >= {"Fontes group 1"}


def test_fontes_odd_field_and_leftovers_pair_everyone():
    t, log = _play(13, 3, "fontes", PairingOptions(fontes_rounds=3))
    for _f, pairing, _rep in log:
        assert len([g for g in pairing.games if not g.second]) == 1
    for p in t.players:
        real = [o for o in p.opponents if o]
        assert len(real) == len(set(real))


def test_fontes_rejects_even_round_count():
    with pytest.raises(PairingError, match="odd number of rounds"):
        pair_round(fresh(8), "fontes", PairingOptions(fontes_rounds=4))


def test_swiss_pairs_top_half_against_bottom_half_of_a_score_group():
    p = pair_round(fresh(8), "swiss")
    assert games(p) == {frozenset(x) for x in [(1, 5), (2, 6), (3, 7), (4, 8)]}
    assert all(g.explanation == "score group 0 wins" for g in p.games)


def test_swiss_floats_one_player_between_odd_groups():
    ps = [player(k, wins=1 if k <= 3 else 0, losses=0 if k <= 3 else 1) for k in range(1, 7)]
    p = pair_round(field(ps, 2), "swiss")
    floats = [g for g in p.games if "float" in g.explanation]
    assert len(floats) == 1 and floats[0].explanation == "1-win float down"
    assert frozenset((3, 4)) in games(p)  # bottom of the 1-win group v top of the 0-win group


def test_swiss_prefers_two_one_win_floats_over_one_two_win_float():
    # Groups of 3 wins (1), 2 wins (2,3... odd), etc. Build 2/1/1-shaped groups where one
    # 2-win float could replace two 1-win floats.
    ps = [
        player(1, wins=2),
        player(2, wins=1, losses=1),
        player(3, wins=1, losses=1),
        player(4, wins=0, losses=2),
    ]
    ps[1].opponents, ps[2].opponents = [3], [2]  # 2 and 3 have met
    ps[0].opponents, ps[3].opponents = [4], [1]
    for q in ps:
        q.firsts = [1]
    p = pair_round(field(ps, 2, total=10), "swiss")
    assert games(p) == {frozenset((1, 2)), frozenset((3, 4))}


def test_koth_pairs_by_standings():
    ps = [player(k, wins=10 - k, losses=k) for k in range(1, 9)]
    p = pair_round(field(ps, 11, total=12), "koth", PairingOptions(gibson=False))
    assert games(p) == {frozenset(x) for x in [(1, 2), (3, 4), (5, 6), (7, 8)]}
    assert p.games[0].explanation == "KOTH 1 v 2"


def test_factor_pairing_distance_two():
    ps = [player(k, wins=10 - k, losses=k) for k in range(1, 9)]
    opts = PairingOptions(gibson=False, factor_distance=2)
    p = pair_round(field(ps, 11, total=12), "factor", opts)
    assert games(p) == {frozenset(x) for x in [(1, 3), (2, 4), (5, 7), (6, 8)]}


def test_koth_avoids_repeat_by_moving_down():
    ps = [player(k, wins=10 - k, losses=k) for k in range(1, 7)]
    f = field(ps, 11, total=12)
    for q in ps:
        q.opponents, q.firsts = [0] * 9, [0] * 9
    met(ps[0], ps[1])
    for q in ps[2:]:
        q.opponents.append(0)
        q.firsts.append(0)
    p = pair_round(f, "koth", PairingOptions(gibson=False))
    assert frozenset((1, 2)) not in games(p)
    assert frozenset((1, 3)) in games(p)


def test_contention_pairs_contenders_who_can_catch_each_other():
    # One round left, 1st place only: players 1-3 can still win, the rest cannot.
    ps = [
        player(1, wins=9, losses=2, spread=300),
        player(2, wins=9, losses=2, spread=200),
        player(3, wins=8, losses=3, spread=500),
    ]
    ps += [player(k, wins=5, losses=6) for k in range(4, 9)]
    f = field(ps, 12, total=12)
    p = pair_round(f, "contention", PairingOptions(gibson=False))
    top = next(g for g in p.games if 1 in (g.first, g.second))
    assert {top.first, top.second} == {1, 2}
    assert top.explanation == "contention for 1st"


def test_contention_cap_is_two_with_one_round_left():
    ps = [player(k, wins=9, losses=2, spread=100 - k) for k in range(1, 7)]
    ps += [player(k, wins=3, losses=8) for k in range(7, 11)]
    p = pair_round(field(ps, 12, total=12), "contention", PairingOptions(gibson=False))
    labelled = [g for g in p.games if g.explanation.startswith("contention")]
    assert len(labelled) == 1


def test_australian_top_player_meets_highest_available():
    ps = [player(k, wins=6 - k // 2, losses=k // 2) for k in range(1, 9)]
    f = field(ps, 4, total=10)
    for q in ps:
        q.opponents, q.firsts = [0, 0], [0, 0]
    met(ps[0], ps[1])
    p = pair_round(f, "australian", PairingOptions(gibson=False))
    assert frozenset((1, 3)) in games(p)
    assert frozenset((2, 4)) in games(p)


def test_australian_looks_ahead_to_keep_the_rest_pairable():
    # 1 v 2 is fine for 1, but would leave 3 and 4 who have met: the draw must avoid that.
    ps = [player(k, wins=4 - k // 2, losses=k // 2) for k in range(1, 5)]
    f = field(ps, 3, total=5)
    for q in ps:
        q.opponents, q.firsts = [0], [0]
    met(ps[2], ps[3])
    p = pair_round(f, "australian", PairingOptions(gibson=False))
    assert games(p) == {frozenset((1, 3)), frozenset((2, 4))}


def test_random_is_reproducible_per_seed_and_differs_between_seeds():
    draws = {
        seed: [
            sorted(games(pair_round(fresh(20), "random", PairingOptions(seed=seed))))
            for _ in range(2)
        ]
        for seed in (1, 2, 3)
    }
    for a, b in draws.values():
        assert a == b
    assert len({str(v[0]) for v in draws.values()}) > 1


def test_manual_pairing_is_checked():
    f = fresh(5)
    ok = pair_round(f, "manual", PairingOptions(manual_pairs=[(1, 2), (3, 4), (5, 0)]))
    assert games(ok) == {frozenset((1, 2)), frozenset((3, 4))} and bye_of(ok) == 5
    with pytest.raises(PairingError, match="already paired"):
        pair_round(f, "manual", PairingOptions(manual_pairs=[(1, 2), (2, 3)]))
    with pytest.raises(PairingError, match="no player 9"):
        pair_round(f, "manual", PairingOptions(manual_pairs=[(1, 9)]))
    f.players[3].active = False
    with pytest.raises(PairingError, match="withdrawn"):
        pair_round(f, "manual", PairingOptions(manual_pairs=[(1, 4)]))


def test_manual_pairing_warns_about_repeats_and_left_out_players():
    ps = [player(k) for k in range(1, 5)]
    met(ps[0], ps[1])
    met(ps[2], ps[3])
    f = field(ps, 2, total=5)
    p = pair_round(f, "manual", PairingOptions(manual_pairs=[(1, 2)]))
    assert any("meeting number 2" in n for n in p.notes)
    assert any("not paired: 3, 4" in n for n in p.notes)
    assert "repeat 2nd meeting" in p.games[0].explanation


def test_unknown_system_is_refused():
    with pytest.raises(ValueError, match="unknown pairing system 'dutch'"):
        pair_round(fresh(4), "dutch")
