"""The other systems' formulas, each checked against the spec's rule written out by hand."""

from __future__ import annotations

import datetime
import math

import pytest

from ratings.engine import SYSTEMS, RatedGame, RatedPlayer, rate_event, round_half_up
from ratings.engine.absp import weighted_rating
from ratings.engine.glicko2 import RD_FLOOR, glicko2_update

from .helpers import nsa_e, one_against_many


def test_registry_names_and_estimate_label():
    assert set(SYSTEMS) == {
        "nsa2008",
        "naspa2024",
        "naspa-csw",
        "club-third",
        "wespa-tsh",
        "absp",
        "aus",
        "glicko2",
    }
    assert SYSTEMS["wespa-tsh"].is_estimate and "estimate" in SYSTEMS["wespa-tsh"].label
    assert not SYSTEMS["nsa2008"].is_estimate
    for name, sys in SYSTEMS.items():
        assert sys.name == name and sys.label


def test_naspa_csw_follows_nsa2008_rules():
    players, games = one_against_many(1850, [1702, 1702, 1778, 1922, 1922, 1998, 1998], 6)
    assert rate_event("naspa-csw", players, games, 7)["x"].new == 1897


# --- wespa-tsh --------------------------------------------------------------------------------


def test_wespa_expectation():
    wespa = SYSTEMS["wespa-tsh"]
    assert wespa.expected(172) == pytest.approx(1 / (1 + math.exp(-1)))
    assert wespa.segment_plan(23) == [(1, 23)]


def test_wespa_k_fixed_by_pre_event_rating_two_thirds_bonus_feedback():
    opponents = [2050, 2000, 2000, 1950, 1900, 1900]
    players, games = one_against_many(1990, opponents, 6, games=200)
    res = rate_event("wespa-tsh", players, games, 6)
    excess = 6 - sum(1 / (1 + math.exp(-(1990 - r) / 172)) for r in opponents)
    change = 16 * excess  # K of the 1800-1999 band although the rating passes 2000
    assert 1990 + change > 2000
    accel = change - 5 * 6
    assert res["x"].new == round_half_up(1990 + change + 2 / 3 * accel)
    e0 = 1 / (1 + math.exp(-(2050 - 1990) / 172))
    assert res[0].new == round_half_up(2050 - 10 * e0 + accel / 20)


# --- aus --------------------------------------------------------------------------------------


def test_aus_expectation_is_clamped_linear():
    aus = SYSTEMS["aus"]
    assert aus.expected(0) == 0.5
    assert aus.expected(120) == pytest.approx(0.6)
    assert aus.expected(600) == 0.95 and aus.expected(2000) == 0.95
    assert aus.expected(-700) == 0.05


def test_aus_k20_no_bonus_no_feedback():
    players, games = one_against_many(1200, [1600] * 4, 4, games=10)
    res = rate_event("aus", players, games, 4)
    e = 0.5 - 400 / 1200
    assert res["x"].new == round_half_up(1200 + 20 * (4 - 4 * e))
    assert res["x"].segments[0].bonus == 0
    assert res[0].new == round_half_up(1600 - 20 * (1 - e))
    assert res[0].segments[0].feedback == 0


# --- club-third -------------------------------------------------------------------------------


def test_club_third_divides_by_three_without_bonus():
    players, games = one_against_many(1200, [1600] * 4, 4, games=60)
    res = rate_event("club-third", players, games, 4)
    full = 20 * (4 - 4 * nsa_e(-400))
    assert res["x"].new == round_half_up(1200 + full / 3)  # nsa2008 would give 1305
    assert res["x"].segments[0].bonus == 0
    assert res[0].new == round_half_up(1600 - 20 * nsa_e(400) / 3)
    assert f"1/3-rated: {full:+.1f} / 3 = {full / 3:+.1f}" in res["x"].explain()


def test_club_third_change_capped_at_50():
    players, games = one_against_many(1200, [2000] * 8, 8, games=10)
    res = rate_event("club-third", players, games, 8)
    assert 30 * (8 - 8 * nsa_e(-800)) / 3 > 50
    assert res["x"].new == 1250
    assert "held at the 50-point limit" in res["x"].explain()
    players, games = one_against_many(2000, [1200] * 8, 0, games=10)
    assert rate_event("club-third", players, games, 8)["x"].new == 1950


# --- naspa2024 --------------------------------------------------------------------------------


def test_naspa2024_counts_segment_games_toward_k():
    """45 career games: after the first 9 rounds naspa2024 uses the >= 50 games K, nsa2008 not."""
    opponents = [1500] * 17
    players, games = one_against_many(1500, opponents, 11, games=45)
    old = rate_event("nsa2008", players, games, 17)["x"]
    new = rate_event("naspa2024", players, games, 17)["x"]
    assert old.segments[0].rating_out == new.segments[0].rating_out
    r1 = old.segments[0].rating_out
    excess2 = 2 - sum(nsa_e(r1 - 1500) for _ in range(8))  # rounds 10-11 won, 12-17 lost
    assert old.segments[1].multipliers[0][0] == 30
    assert new.segments[1].multipliers[0][0] == 20
    for seg, k in ((old.segments[1], 30), (new.segments[1], 20)):
        gain = k * excess2
        # The six opponents who beat x each earned a bonus, and feed back a twentieth of it.
        accel = 20 * (1 - nsa_e(1500 - r1)) - 5
        assert seg.feedback == pytest.approx(6 * accel / 20)
        assert seg.rating_out == round_half_up(r1 + gain + 6 * accel / 20)
    assert new.new > old.new  # a smaller K loses less


# --- absp -------------------------------------------------------------------------------------


def test_absp_weights_newest_225_down_to_76():
    assert weighted_rating((0.0,) * 149 + (1.0,)) == pytest.approx(225 / sum(range(76, 226)))
    assert weighted_rating((1.0,) + (0.0,) * 149) == pytest.approx(76 / sum(range(76, 226)))
    # Games older than the last 150 do not count.
    assert weighted_rating((1000.0,) + (100.0,) * 150) == 100.0


def test_absp_event_performance_with_clamp():
    history = (150.0,) * 150
    players = [
        RatedPlayer("x", 150, 150, history=history),
        RatedPlayer("a", 160, 150),
        RatedPlayer("b", 100, 150),
        RatedPlayer("c", 200, 150),
    ]
    games = [
        RatedGame(1, "x", "a", 400, 300),  # win v 160
        RatedGame(2, "x", "b", 300, 400),  # loss v 100, counted as 110
        RatedGame(3, "x", "c", 350, 350),  # tie v 200, counted as 190
    ]
    res = rate_event("absp", players, games, 3)
    perf = ((160 + 50) + (110 - 50) + 190) / 3
    weights = list(range(225, 75, -1))  # newest first
    values = [perf] * 3 + [150.0] * 147
    expected = sum(w * v for w, v in zip(weights, values, strict=True)) / sum(weights)
    assert res["x"].new == round_half_up(expected)
    assert res["x"].history[-3:] == (perf,) * 3 and len(res["x"].history) == 150


def test_absp_newcomer_is_not_clamped():
    players = [RatedPlayer("n", None), RatedPlayer("a", 100, 50), RatedPlayer("b", 200, 50)]
    games = [RatedGame(1, "n", "a", 400, 300), RatedGame(2, "n", "b", 400, 300)]
    res = rate_event("absp", players, games, 2)
    assert res["n"].new == round_half_up(((100 + 50) + (200 + 50)) / 2)


# --- glicko2 ----------------------------------------------------------------------------------


def test_glickman_worked_example():
    r, rd, vol = glicko2_update(
        1500, 200, 0.06, [(1400, 30, 1.0), (1550, 100, 0.0), (1700, 300, 0.0)], tau=0.5
    )
    assert r == pytest.approx(1464.05, abs=0.01)
    assert rd == pytest.approx(151.52, abs=0.01)
    assert vol == pytest.approx(0.05999, abs=1e-5)


def test_glickman_example_through_rate_event():
    players = [
        RatedPlayer("me", 1500, 10, deviation=200, volatility=0.06),
        RatedPlayer("a", 1400, 10, deviation=30, volatility=0.06),
        RatedPlayer("b", 1550, 10, deviation=100, volatility=0.06),
        RatedPlayer("c", 1700, 10, deviation=300, volatility=0.06),
    ]
    games = [
        RatedGame(1, "me", "a", 400, 300),
        RatedGame(2, "me", "b", 300, 400),
        RatedGame(3, "me", "c", 300, 400),
    ]
    res = rate_event("glicko2", players, games, 3)
    assert res["me"].new == 1464
    assert res["me"].deviation == pytest.approx(151.52, abs=0.01)
    assert res["me"].volatility == pytest.approx(0.05999, abs=1e-5)
    assert "+-" in res["me"].explain()


def test_glicko2_deviation_floor_and_inactivity():
    players = [RatedPlayer("x", 1600, 500, deviation=31, volatility=0.06)]
    players += [RatedPlayer(i, 1600, 500, deviation=31, volatility=0.06) for i in range(30)]
    games = [RatedGame(i + 1, "x", i, 400, 300) for i in range(30)]
    res = rate_event("glicko2", players, games, 30)
    assert res["x"].deviation == RD_FLOOR
    back = [
        RatedPlayer("x", 1600, 500, 60, 0.06, last_played=datetime.date(2020, 1, 1)),
        RatedPlayer("y", 1600, 500, 60, 0.06, last_played=datetime.date(2024, 5, 1)),
    ]
    game = [RatedGame(1, "x", "y", 400, 300)]
    day = datetime.date(2024, 6, 1)
    after = rate_event("glicko2", back, game, 1, date=day)
    assert after["x"].new - 1600 > 1600 - after["y"].new  # the long-absent player moves more
    without_dates = rate_event("glicko2", back, game, 1)
    assert after["x"].deviation > without_dates["x"].deviation


def test_glicko2_newcomer_defaults():
    players = [RatedPlayer("n", None), RatedPlayer("r", 1500, 100, 50, 0.06)]
    res = rate_event("glicko2", players, [RatedGame(1, "n", "r", 400, 300)], 1)
    r, rd, _ = glicko2_update(1500, 350, 0.06, [(1500, 50, 1.0)])
    assert res["n"].new == round_half_up(r) and res["n"].deviation == pytest.approx(rd)


@pytest.mark.parametrize("name", sorted(SYSTEMS))
def test_every_system_is_zero_sum_direction(name):
    """Whatever the system: beating a stronger player never lowers your rating."""
    players, games = one_against_many(1500, [1700, 1700, 1700], 3, games=80)
    res = rate_event(name, players, games, 3)
    assert res["x"].new > 1500
    assert all(res[i].new <= 1700 for i in range(3))
    assert res["x"].explain().count("\n") >= 1
