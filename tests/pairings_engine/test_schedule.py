"""Schedules: which system (and lag) pairs each round."""

from __future__ import annotations

import pytest

from pairings.engine import PairingOptions, Schedule


def test_parse_ranges():
    s = Schedule.parse("1-3:fontes,4-20:swiss,21-23:koth")
    assert [s.system_for(r) for r in (1, 3, 4, 20, 21, 23)] == [
        "fontes",
        "fontes",
        "swiss",
        "swiss",
        "koth",
        "koth",
    ]
    assert s.lag_for(10) == 0
    assert s.entry_for(5).options(PairingOptions(seed=3)).system_start_round == 4


def test_parse_settings_per_range():
    s = Schedule.parse("1:rr, 2-9:swiss/lag=1/max_meetings=2")
    e = s.entry_for(5)
    assert (e.system, e.lag) == ("swiss", 1)
    opts = e.options()
    assert opts.max_meetings == 2 and opts.system_start_round == 2


@pytest.mark.parametrize(
    "text, message",
    [
        ("1-3:dutch", "unknown system 'dutch'"),
        ("1-3 swiss", "expected 'FIRST-LAST:system'"),
        ("5-3:swiss", "bad round range 5-3"),
        ("1-5:swiss,5-9:koth", "overlap"),
        ("1-5:swiss/colour=1", "unknown setting 'colour'"),
    ],
)
def test_parse_errors_name_the_item(text, message):
    with pytest.raises(ValueError, match=message):
        Schedule.parse(text)


def test_round_outside_the_schedule():
    with pytest.raises(ValueError, match="no pairing system scheduled for round 9"):
        Schedule.parse("1-8:swiss").system_for(9)


def test_tsh_autopair_lines():
    s = Schedule.from_autopair(
        """
        autopair A 0 1 if 3 A
        autopair A 3 4 ns 0 3 A   # plain swiss, no repeats
        autopair A 3 5 ns 1 3 A
        autopair A 5 6 ns 1 5 A
        autopair A 5 7 koth 0 5 A
        autopair A 6 8 cp 6 A
        autopair A 7 9 fp 0 7 A
        autopair A 8 10 rr 1 A
        """
    )
    assert [s.system_for(r) for r in range(1, 11)] == [
        "fontes",
        "fontes",
        "fontes",
        "swiss",
        "swiss",
        "swiss",
        "koth",
        "contention",
        "factor",
        "rr",
    ]
    assert s.entry_for(2).params == {"fontes_rounds": 3}
    assert s.entry_for(1).options().fontes_rounds == 3
    assert s.lag_for(4) == 0 and s.lag_for(5) == 1 and s.lag_for(6) == 0 and s.lag_for(7) == 1
    assert s.entry_for(4).options().max_meetings == 1
    assert s.entry_for(6).options().max_meetings == 2


@pytest.mark.parametrize(
    "line, message",
    [
        ("autopair A 0 1 zz 3 A", "unknown TSH command 'zz'"),
        ("autopair A x 1 if 3 A", "must be numbers"),
        ("autopair A 4 4 ns 0 4 A", "must be before target"),
        ("pair A 0 1 if 3 A", "expected 'autopair DIV"),
        ("autopair A 0 1 if A", "InitFontes needs a round count"),
    ],
)
def test_autopair_errors_name_the_line(line, message):
    with pytest.raises(ValueError, match=message):
        Schedule.from_autopair(["# header", line])
