"""``manage.py chances_calibration``: prize chances scored against real events (issue 21).

The test checks the report's shape, the scoring rules and that a seed reproduces it; whether
Gibson's chances beat the baselines is a measurement (docs/chances.md), not asserted here.
"""

from __future__ import annotations

import json
from io import StringIO

import numpy as np
import pytest
from django.core.management import CommandError, call_command

from pairings.calibration import (
    CLIP,
    FORECASTERS,
    place_shares,
    real_divisions,
    replay_setup,
    rule_schedule,
    score_forecasts,
)
from tournament.standings import StandingsRow

EVENT = "liwords-test22"  # 12 players, 11 rounds: small and real


def _run(*args: str) -> dict:
    out = StringIO()
    call_command(
        "chances_calibration", "--event", EVENT, "--sims", "300", *args, "--json", stdout=out
    )
    return json.loads(out.getvalue())


def test_report_shape_and_seed_reproduces():
    first = _run("--seed", "5")
    assert [r["after_round"] for r in first["rows"]] == [5, 8, 10]
    assert {r["rounds"] for r in first["rows"]} == {11}
    for row in first["rows"]:
        assert row["players"] == 12 and row["rated"] is True
        for f in FORECASTERS:
            s = row[f]
            assert s["forecasts"] == 12
            for key in ("brier_first", "brier_cash", "log_loss_first", "log_loss_cash"):
                assert 0 <= s[key]
    assert first["totals"]["gibson"]["forecasts"] == 36
    assert set(first["gibson_beats"]) == {"coin_flip", "standings_hold"}
    assert isinstance(first["gibson_beats_both"], bool)
    assert set(first["totals_by_back"]) == {"R-6", "R-3", "R-1"}
    assert first["totals_rated"] == first["totals"]
    assert _run("--seed", "5") == first
    repeats = _run("--seed", "5", "--repeats-seen")
    assert repeats["repeats_seen"] is True and len(repeats["rows"]) == 3
    assert first["schedule"] == "rules"
    assert _run("--seed", "5", "--all-swiss")["schedule"] == "all_swiss"


def test_text_report_names_the_forecasters():
    out = StringIO()
    call_command("chances_calibration", "--event", EVENT, "--sims", "200", stdout=out)
    text = out.getvalue()
    for word in ("Gibson", "coin flip", "standings hold", "Brier", "clipped", "King of the Hill"):
        assert word in text


def test_a_perfect_forecast_scores_zero_brier():
    outcome = {1: (1.0, 1.0), 2: (0.0, 1.0), 3: (0.0, 0.0)}
    s = score_forecasts(outcome, outcome).as_dict()
    assert s["brier_first"] == 0 and s["brier_cash"] == 0
    # the log loss of a certain, right forecast is that of the clipped probability
    assert s["log_loss_first"] == pytest.approx(-np.log(1 - CLIP), abs=1e-5)
    wrong = score_forecasts({1: (0.0, 0.0)}, {1: (1.0, 1.0)}).as_dict()
    assert wrong["brier_first"] == 1
    assert wrong["log_loss_first"] == pytest.approx(-np.log(CLIP), abs=1e-5)


def _row(number: int, rank: int | None) -> StandingsRow:
    return StandingsRow(rank, number, f"P{number}", 1500, 1, 0, 0, 0, 0, 1, 0, 0, rank is None)


def test_tied_players_share_their_places():
    shares = place_shares([_row(1, 1), _row(2, 1), _row(3, 3), _row(4, None)], 4)
    assert shares[1][0] == 0.5 and shares[2][1] == 0.5
    assert shares[3][2] == 1
    assert 4 not in shares  # a withdrawn player is not scored


def test_every_real_event_is_read():
    labels = {d.label for d in real_divisions()}
    assert "tsh/naspa-2023-a.t" in labels and "feeds/liwords-test22.js" in labels


@pytest.mark.parametrize(
    "args",
    [("--event", "no-such-event"), ("--sims", "zero"), ("--sims", "0")],
)
def test_bad_input_is_refused_with_a_message(args):
    with pytest.raises(CommandError) as err:
        call_command("chances_calibration", *args, stdout=StringIO(), stderr=StringIO())
    assert "Traceback" not in str(err.value)
    assert ("--event" in str(err.value)) or ("simulations" in str(err.value))


def test_the_replay_pairs_the_remaining_rounds_by_the_rules():
    """NASPA's rules, not one system throughout: Swiss with no repeat, and the event's last
    round King of the Hill with repeats allowed; a round that is not the event's last (an
    event replayed part-way) stays Swiss."""
    rounds = rule_schedule(20, 23, 23, cap=[250])
    assert [(r.number, r.system, r.avoid_repeats) for r in rounds] == [
        (21, "swiss", True),
        (22, "swiss", True),
        (23, "koth", False),
    ]
    assert {r.cap for r in rounds} == {250} and all(r.gibson for r in rounds)
    assert {r.system for r in rule_schedule(5, 11, 22)} == {"swiss"}
    assert {r.system for r in rule_schedule(20, 23, 23, all_swiss=True)} == {"swiss"}


def test_a_feed_s_config_is_followed():
    by_label = {d.label: d for d in real_divisions()}
    raining = by_label["feeds/raining2026.js A"]
    assert raining.spread_cap == [250] and raining.event_rounds(12) == 18
    assert by_label["feeds/liwords-test22.js"].rating_system == "naspa-csw"
    naspa = by_label["tsh/naspa-2023-a.t"]
    assert naspa.spread_cap is None and naspa.event_rounds(23) == 23
    assert naspa.rating_system == "nsa2008"


def test_a_koth_allowing_repeats_pairs_a_rematch():
    """naspa-2023-a after round 22: #1 and #2 had met three times; the real last round paired
    them again. The replay's last round is KOTH with repeats allowed, so it does too (the old
    all-Swiss replay swapped the repeat away)."""
    division = next(d for d in real_divisions() if d.label == "tsh/naspa-2023-a.t")
    setup = replay_setup(division.players, 22, 23, division=division)
    (final,) = setup.rounds
    assert final.system == "koth" and final.avoid_repeats is False
    swiss = replay_setup(division.players, 22, 23, division=division, all_swiss=True)
    assert swiss.rounds[0].system == "swiss" and swiss.rounds[0].avoid_repeats
