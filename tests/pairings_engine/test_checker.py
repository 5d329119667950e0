"""The checker catches broken rounds (it must fail on bad pairings, not only pass good ones)."""

from __future__ import annotations

from pairings.engine import PairedGame, PairingOptions, RoundPairing, check_round, pair_round

from .helpers import field, fresh, met, player

OPTS = PairingOptions()


def _rp(pairs, system="swiss", rnd=1):
    games = [PairedGame(k, a, b, "") for k, (a, b) in enumerate(pairs, start=1)]
    return RoundPairing(rnd, system, games)


def test_a_good_round_passes_with_quality_numbers():
    f = fresh(6)
    rep = check_round(f, pair_round(f, "swiss"), OPTS)
    assert rep.ok
    assert rep.quality == {"repeats": 0, "win_diff": 0, "floats": 0, "max_imbalance": 1}


def test_double_booking_missing_and_unknown_players():
    f = fresh(6)
    rep = check_round(f, _rp([(1, 2), (2, 3), (5, 9)]), OPTS)
    joined = " | ".join(rep.errors)
    assert "player 2 is paired twice" in joined
    assert "unknown player 9" in joined
    assert "active player 4 is not paired" in joined
    assert "active player 6 is not paired" in joined


def test_withdrawn_player_paired_and_wrong_bye_count():
    f = fresh(4)
    f.players[3].active = False
    rep = check_round(f, _rp([(1, 2), (3, 4)]), OPTS)
    assert any("withdrawn player 4 is paired" in e for e in rep.errors)
    rep = check_round(fresh(4), _rp([(1, 2), (3, 0), (4, 0)]), OPTS)
    assert any("2 byes for 4 active players" in e for e in rep.errors)


def test_avoidable_repeat_is_an_error_unavoidable_is_not():
    ps = [player(k) for k in range(1, 5)]
    met(ps[0], ps[1])
    met(ps[2], ps[3])
    f = field(ps, 2)
    rep = check_round(f, _rp([(1, 2), (3, 4)], rnd=2), OPTS)
    assert any("beyond the repeat limit where 0 were unavoidable" in e for e in rep.errors)
    ps = [player(k) for k in range(1, 3)]
    met(ps[0], ps[1])
    f = field(ps, 2)
    rep = check_round(f, _rp([(2, 1)], rnd=2), OPTS)
    assert rep.ok, rep.errors
    assert rep.quality["repeats"] == 1


def test_forbidden_pair_is_an_error():
    f = fresh(4)
    f.forbidden = {frozenset((1, 3))}
    rep = check_round(f, _rp([(1, 3), (2, 4)]), OPTS)
    assert any("forbidden pair" in e for e in rep.errors)


def test_wrong_first_is_an_error():
    ps = [player(k) for k in range(1, 5)]
    met(ps[0], ps[1], first=ps[0])  # 1 went first, 2 second
    met(ps[2], ps[3], first=ps[2])
    f = field(ps, 2)
    rep = check_round(f, _rp([(1, 3), (2, 4)], rnd=2), OPTS)
    assert rep.ok  # 1 and 3 both have one start: the rule does not decide
    rep = check_round(f, _rp([(1, 4), (3, 2)], rnd=2), OPTS)
    assert any("4 should go first" in e for e in rep.errors)
    assert any("2 should go first" in e for e in rep.errors)


def test_bye_to_the_wrong_player_is_an_error():
    f = fresh(5)
    rep = check_round(f, _rp([(1, 0), (2, 4), (3, 5)]), OPTS)
    assert any("bye went to 1 although 5 comes first" in e for e in rep.errors)


def test_gibson_violations():
    ps = [player(1, wins=11, losses=1, spread=900), player(2, wins=10, losses=2)]
    ps += [player(k, wins=5, losses=7) for k in range(3, 8)]
    f = field(ps, 13, 13)
    # Odd field: the Gibsonized leader must take the bye.
    rep = check_round(f, _rp([(1, 2), (3, 4), (5, 6), (7, 0)], rnd=13), OPTS)
    assert any("Gibsonized [1] could take it" in e for e in rep.errors)
    ps.append(player(8, wins=5, losses=7))
    f = field(ps, 13, 13)
    opts = PairingOptions(prize_bands=[1, 2])
    rep = check_round(f, _rp([(1, 2), (3, 4), (5, 6), (7, 8)], rnd=13), opts)
    assert any("Gibsonized 1 plays contender 2" in e for e in rep.errors)
    assert check_round(f, pair_round(f, "swiss", opts), opts).ok


def test_each_repeat_is_named_by_board_players_and_rounds():
    ps = [player(k, name=n) for k, n in enumerate(["Ann", "Bob", "Cat", "Dan", "Eve", "Fay"], 1)]
    met(ps[0], ps[1])  # round 1: 1 v 2, 3 v 4, 5 v 6
    met(ps[2], ps[3])
    met(ps[4], ps[5])
    met(ps[0], ps[2])  # round 2: 1 v 3, 2 v 5, 4 v 6
    met(ps[1], ps[4])
    met(ps[3], ps[5])
    met(ps[0], ps[1])  # round 3: 1 v 2 again, 3 v 5, 4 v 6 again
    met(ps[2], ps[4])
    met(ps[3], ps[5])
    f = field(ps, 4)
    rep = check_round(f, _rp([(3, 4), (1, 2), (5, 6)], rnd=4), PairingOptions(max_meetings=3))
    assert rep.quality["repeats"] == 3
    assert rep.repeats == [
        "board 1: #3 Cat v #4 Dan, met in round 1",
        "board 2: #1 Ann v #2 Bob, met in rounds 1, 3",
        "board 3: #5 Eve v #6 Fay, met in round 1",
    ]
    # a fresh pairing names none
    assert check_round(fresh(6), pair_round(fresh(6), "swiss"), OPTS).repeats == []


def test_repeats_since_round_names_only_the_meetings_that_count():
    a, b = player(1), player(2)
    met(a, b)
    a.opponents.append(0)  # round 2: both had byes (no meeting)
    b.opponents.append(0)
    a.firsts.append(0)
    b.firsts.append(0)
    met(a, b)  # round 3
    f = field([a, b], 4)
    rep = check_round(f, _rp([(1, 2)], rnd=4), PairingOptions(repeats_since_round=2))
    assert rep.repeats == ["board 1: #1 v #2, met in round 3"]
