"""Rules every system respects: repeats, forbidden pairs, withdrawals, byes, Gibson, firsts."""

from __future__ import annotations

import random

import pytest

from pairings.engine import (
    Field,
    FieldPlayer,
    PairingError,
    PairingOptions,
    assign_firsts,
    check_round,
    first_by_rule,
    pair_round,
)
from pairings.engine.standing import best_finishes, gibsonized, ordered_active

from .helpers import bye_of, field, fresh, games, met, player


def _round_robin_history(ps):
    """Everyone in ps has met everyone else once (a full round robin, one game per pair)."""
    for i, a in enumerate(ps):
        for b in ps[i + 1 :]:
            met(a, b)


# -- repeats -------------------------------------------------------------------------------


def test_three_players_all_met_hard_limit_names_the_rule_and_the_fix():
    ps = [player(k) for k in (1, 2, 3)]
    _round_robin_history(ps)
    f = field(ps, 4, total=6)
    with pytest.raises(PairingError) as exc:
        pair_round(f, "swiss", PairingOptions(hard_repeat_limit=True))
    msg = str(exc.value)
    assert "repeats forbidden: players 1, 2, 3 have all met" in msg
    assert "max_meetings=2" in msg
    assert exc.value.rule == "max_meetings"


def test_unavoidable_repeat_is_made_and_explained_when_the_limit_is_soft():
    ps = [player(k) for k in (1, 2, 3)]
    _round_robin_history(ps)
    p = pair_round(field(ps, 4, total=6), "swiss")
    [game] = [g for g in p.games if g.second]
    assert game.explanation.startswith("repeat 2nd meeting: unavoidable")
    assert check_round(field(ps, 4, total=6), p, PairingOptions()).ok


def test_allowed_repeat_is_not_called_unavoidable():
    ps = [player(k) for k in (1, 2)]
    met(ps[0], ps[1])
    p = pair_round(field(ps, 2), "swiss", PairingOptions(max_meetings=2))
    assert p.games[0].explanation.startswith("repeat 2nd meeting;")


def test_swiss_avoids_an_avoidable_repeat():
    ps = [player(k) for k in range(1, 5)]
    met(ps[0], ps[2])
    met(ps[1], ps[3])
    p = pair_round(field(ps, 2), "swiss")
    assert not games(p) & {frozenset((1, 3)), frozenset((2, 4))}


def test_repeats_since_round_forgets_earlier_meetings():
    ps = [player(k) for k in range(1, 5)]
    for a, b in ((0, 2), (1, 3)):
        met(ps[a], ps[b])
    for a, b in ((0, 1), (2, 3)):
        met(ps[a], ps[b])
    f = field(ps, 3)
    assert frozenset((1, 3)) not in games(pair_round(f, "swiss"))
    late = pair_round(f, "swiss", PairingOptions(repeats_since_round=2, avoid_last_opponent=False))
    assert games(late) == {frozenset((1, 3)), frozenset((2, 4))}


def test_last_round_opponent_avoided_when_repeats_are_allowed():
    ps = [player(k) for k in range(1, 5)]
    met(ps[0], ps[2])
    met(ps[1], ps[3])
    met(ps[0], ps[1])
    met(ps[2], ps[3])
    # Round 3: pairs (1,3),(2,4) met in round 1, (1,2),(3,4) last round; (1,4),(2,3) fresh.
    met(ps[0], ps[3])
    met(ps[1], ps[2])
    f = field(ps, 4)
    opts = PairingOptions(max_meetings=2)
    p = pair_round(f, "koth", opts)
    assert frozenset((1, 4)) not in games(p) and frozenset((2, 3)) not in games(p)


# -- forbidden pairs and withdrawn players --------------------------------------------------


def test_forbidden_pair_never_meets():
    f = fresh(8)
    f.forbidden = {frozenset((1, 5))}
    p = pair_round(f, "swiss")
    assert frozenset((1, 5)) not in games(p)
    assert check_round(f, p, PairingOptions()).ok


def test_forbidden_pairs_that_leave_no_pairing_raise():
    f = fresh(2)
    f.forbidden = {frozenset((1, 2))}
    with pytest.raises(PairingError, match="forbidden pairs leave players 1, 2"):
        pair_round(f, "swiss")


def test_withdrawn_players_are_never_paired():
    f = fresh(9)
    f.players[0].active = False
    f.players[4].active = False
    for system in ("swiss", "koth", "contention", "cop", "random", "australian", "factor"):
        p = pair_round(f, system)
        paired = {x for g in p.games for x in (g.first, g.second)}
        assert not paired & {1, 5}
        assert bye_of(p) is not None  # 7 active players
        assert check_round(f, p, PairingOptions()).ok, system


# -- byes ---------------------------------------------------------------------------------


def test_bye_goes_to_lowest_with_fewest_byes():
    ps = [player(k, wins=5 - k // 2, losses=k // 2) for k in range(1, 8)]
    ps[6].byes = 1  # the lowest already had a bye
    p = pair_round(field(ps, 3), "swiss")
    assert bye_of(p) == 6
    bye = next(g for g in p.games if not g.second)
    assert bye.explanation == "bye: lowest with fewest byes" and bye.board == 0


def test_bye_methods():
    ps = [player(k, wins=5 - k // 2, losses=k // 2) for k in range(1, 8)]
    ps[0].byes = 1
    f = field(ps, 3)
    assert bye_of(pair_round(f, "swiss", PairingOptions(bye_method="top_down"))) == 2
    assert bye_of(pair_round(f, "swiss", PairingOptions(bye_method="always_bottom"))) == 7
    ps[6].byes = 2
    assert bye_of(pair_round(f, "swiss", PairingOptions(bye_method="always_bottom"))) == 7
    with pytest.raises(ValueError, match="unknown bye method 'middle'"):
        pair_round(f, "swiss", PairingOptions(bye_method="middle"))


def test_bye_moves_up_when_the_preferred_player_would_force_a_repeat():
    ps = [player(k) for k in range(1, 4)]
    met(ps[0], ps[1])
    for q in ps:
        q.rank = q.number
    f = Field(players=ps, round=2, rounds_total=5)
    p = pair_round(f, "swiss")
    assert bye_of(p) == 2  # 3 is lowest, but 1 v 2 would be a repeat
    assert "would force a repeat" in next(g for g in p.games if not g.second).explanation
    assert check_round(f, p, PairingOptions()).ok


# -- Gibsonization ------------------------------------------------------------------------


def _gibson_field(lead_wins=10, rnd=12, total=13, spread=(900, 0)):
    ps = [player(1, wins=lead_wins, losses=rnd - 1 - lead_wins, spread=spread[0])]
    ps += [player(2, wins=lead_wins - 1, losses=rnd - lead_wins, spread=spread[1])]
    ps += [player(k, wins=5, losses=rnd - 6) for k in range(3, 9)]
    return field(ps, rnd, total)


def test_gibson_formula_win_gap_and_spread():
    opts = PairingOptions()
    # Pairing the last round (13 of 13): one round left, leader one win ahead.
    f = _gibson_field(lead_wins=10, rnd=13, total=13, spread=(900, 0))
    assert gibsonized(f, opts, ordered_active(f)) == [1]
    f.players[0].spread = 501
    assert gibsonized(f, opts, ordered_active(f)) == [1]
    f.players[0].spread = 500
    assert gibsonized(f, opts, ordered_active(f)) == []  # exactly 500 can still be caught
    f = _gibson_field(lead_wins=10, rnd=11, total=13)  # 3 rounds left, gap 1
    assert gibsonized(f, opts, ordered_active(f)) == []
    f = _gibson_field(lead_wins=10, rnd=13, total=13)
    assert gibsonized(f, PairingOptions(gibson=False), ordered_active(f)) == []


def test_gibson_spread_per_round_and_complete_rounds_only():
    f = _gibson_field(lead_wins=10, rnd=13, total=13)
    f.players[0].spread = 700
    assert gibsonized(f, PairingOptions(gibson_spread={13: 800}), ordered_active(f)) == []
    assert gibsonized(f, PairingOptions(gibson_spread={13: 600}), ordered_active(f)) == [1]
    f.complete_rounds = 11  # lagged: round 12 still being played, so 2 rounds left
    assert gibsonized(f, PairingOptions(gibson_spread=600), ordered_active(f)) == []


def test_gibsonized_leader_plays_highest_non_contender():
    f = _gibson_field(lead_wins=11, rnd=13, total=13)  # 1 win + 900 spread ahead, 1 left
    p = pair_round(f, "swiss", PairingOptions(prize_bands=[1, 2]))
    leader = next(g for g in p.games if 1 in (g.first, g.second))
    assert {leader.first, leader.second} == {1, 3}  # 2 can still finish 2nd
    assert leader.explanation == "Gibsonized"
    assert any(n.startswith("Gibsonized: 1") for n in p.notes)


def test_gibsonized_leader_takes_the_bye():
    f = _gibson_field(lead_wins=11, rnd=13, total=13)
    f.players.append(player(9, wins=2, losses=10))
    f = field(f.players, 13, 13)
    p = pair_round(f, "swiss")
    assert bye_of(p) == 1
    assert next(g for g in p.games if not g.second).explanation == "bye: Gibsonized"
    assert check_round(f, p, PairingOptions()).ok


def test_two_gibson_places_pair_the_gibsonized_players_together():
    ps = [player(1, wins=11, losses=1), player(2, wins=11, losses=1)]
    ps += [player(k, wins=6, losses=6) for k in range(3, 9)]
    f = field(ps, 13, 13)
    p = pair_round(f, "swiss", PairingOptions(gibson_places=2, prize_bands=[2]))
    assert frozenset((1, 2)) in games(p)
    assert (
        "Gibsonized v Gibsonized"
        in next(g for g in p.games if 1 in (g.first, g.second)).explanation
    )


def test_best_finish_counts_players_out_of_reach():
    f = _gibson_field(lead_wins=11, rnd=13, total=13)
    best = best_finishes(f, PairingOptions(), ordered_active(f))
    assert best[1] == 1 and best[2] == 2 and best[3] == 3


# -- first / second -------------------------------------------------------------------------


def _fp(n, starts, replies):
    opps = list(range(100, 100 + starts + replies))
    return FieldPlayer(number=n, rating=1500, opponents=opps, firsts=[1] * starts + [2] * replies)


def test_first_rule_fewer_starts_then_more_replies_then_draw():
    assert first_by_rule(_fp(1, 3, 2), _fp(2, 2, 3))[0].number == 2
    assert first_by_rule(_fp(1, 2, 2), _fp(2, 2, 1)) == (
        first_by_rule(_fp(1, 2, 2), _fp(2, 2, 1))[0],
        "more replies",
    )
    assert first_by_rule(_fp(1, 2, 2), _fp(2, 2, 1))[0].number == 1
    assert first_by_rule(_fp(1, 2, 2), _fp(2, 2, 2)) == (None, "drawn")


def test_byes_do_not_count_as_starts():
    a = FieldPlayer(1, 1500, opponents=[0, 5], firsts=[1, 2])
    assert (a.starts, a.replies) == (0, 1)


def test_drawn_firsts_are_seeded_and_reproducible():
    ps = [FieldPlayer(k, 1500) for k in range(1, 41)]
    f = Field(players=ps, round=1, rounds_total=5)
    pairs = [(k, k + 1) for k in range(1, 41, 2)]
    one = assign_firsts(pairs, f, random.Random("x"))
    two = assign_firsts(pairs, f, random.Random("x"))
    assert one == two
    assert {a for a, _, _ in one} != {a for a, _ in pairs}  # not always the first listed


def test_pair_round_is_deterministic():
    f = fresh(30)
    for system in ("swiss", "random", "koth"):
        assert pair_round(f, system, PairingOptions(seed=4)) == pair_round(
            f, system, PairingOptions(seed=4)
        )


# -- bad input ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda f: f.players.append(player(1)), "player 1 appears twice"),
        (lambda f: setattr(f.players[0], "opponents", [9]), "unknown opponent 9"),
        (lambda f: setattr(f.players[0], "opponents", [1]), "paired with themself"),
        (lambda f: setattr(f, "round", 0), "round must be 1 or more"),
        (lambda f: setattr(f, "rounds_total", 0), "beyond rounds_total"),
        (lambda f: f.forbidden.add(frozenset((1, 42))), "names unknown players"),
        (lambda f: setattr(f.players[1], "firsts", [1, 2]), "0 opponents but 2 firsts"),
        (lambda f: setattr(f.players[1], "number", 0), "player numbers start at 1"),
    ],
)
def test_bad_fields_are_refused_with_the_player_named(mutate, message):
    f = fresh(4)
    mutate(f)
    with pytest.raises(ValueError, match=message):
        pair_round(f, "swiss")


def test_max_meetings_below_one_is_refused():
    with pytest.raises(ValueError, match="max_meetings must be at least 1"):
        pair_round(fresh(4), "swiss", PairingOptions(max_meetings=0))


def test_empty_and_single_player_fields():
    f = fresh(1)
    p = pair_round(f, "swiss")
    assert [(g.first, g.second) for g in p.games] == [(1, 0)]
    f.players[0].active = False
    assert pair_round(f, "swiss").games == []
