"""config.tsh: Perl literals read as data, never evaluated; unknown lines kept with a warning."""

from __future__ import annotations

import pytest

from tournament.formats import AutoPair, FormatError, TshConfig, parse_config, write_config
from tournament.formats.config import PerlLiteralError, parse_perl_literal, perl_literal

SAMPLE = """\
# Lake George 2023, division A
division A a.t
division B b.t
config event_name = "Lake George, NY"; # trailing comment
config event_date = 'February 17-20, 2023'
config max_rounds = 23
realm nsa
config rating_system = 'nsa2008'
config bye_spread = 50
config spread_cap = {5 => 300, 6 => 250}
config prize_bands{'A'} = [2,4]
config prize_bands{B} = [1, 3,]
config track_firsts = 1
config assign_firsts = 0
config gibson = 1
config gibson_spread = [500, 250]
config director_id = "AA000000"
config tournament_id = 12345
config foo = 3
config event_name2 = system("touch /tmp/gibson-pwned")
config track_firsts = `touch /tmp/gibson-pwned`
config bye_spread = "$ENV{HOME}"
classes A 3
autopair A 0 1 if 3 A
autopair A 5 6 ns 1 5 A
prize rank 1 A "First place" $100
system("touch /tmp/gibson-pwned");
"""


@pytest.fixture
def config() -> TshConfig:
    return parse_config(SAMPLE)


def test_divisions_and_common_settings(config):
    assert config.divisions == [("A", "a.t"), ("B", "b.t")]
    s = config.settings
    assert s["event_name"] == "Lake George, NY"
    assert s["event_date"] == "February 17-20, 2023"
    assert s["max_rounds"] == 23
    assert s["realm"] == "nsa"
    assert s["rating_system"] == "nsa2008"
    assert s["bye_spread"] == 50  # the later "$ENV{HOME}" line is refused, not applied
    assert s["spread_cap"] == {"5": 300, "6": 250}  # Perl hash keys are strings
    assert s["prize_bands"] == {"A": [2, 4], "B": [1, 3]}
    assert s["track_firsts"] == 1 and s["assign_firsts"] == 0
    assert s["gibson"] == 1 and s["gibson_spread"] == [500, 250]
    assert s["director_id"] == "AA000000" and s["tournament_id"] == 12345


def test_autopair_and_classes(config):
    assert config.autopair == [
        AutoPair("A", 0, 1, "if", ["3", "A"], 0),
        AutoPair("A", 5, 6, "ns", ["1", "5", "A"], 0),
    ]
    assert [a.line for a in config.autopair] == [24, 25]
    assert config.classes == {"A": 3}


def test_unknown_and_code_lines_are_kept_verbatim_with_warnings(config, tmp_path):
    assert config.other_lines == [
        "# Lake George 2023, division A",
        "config foo = 3",
        'config event_name2 = system("touch /tmp/gibson-pwned")',
        "config track_firsts = `touch /tmp/gibson-pwned`",
        'config bye_spread = "$ENV{HOME}"',
        'prize rank 1 A "First place" $100',
        'system("touch /tmp/gibson-pwned");',
    ]
    warnings = config.warnings
    assert "config.tsh line 19: ignored unknown key 'foo'" in warnings
    assert any(w.startswith("config.tsh line 21:") and "not a Perl literal" in w for w in warnings)
    assert any(w.startswith("config.tsh line 22:") and "interpolates" in w for w in warnings)
    assert any(w.startswith("config.tsh line 27:") and "not evaluated" in w for w in warnings)
    assert len(warnings) == 5
    import os

    assert not os.path.exists("/tmp/gibson-pwned")


def test_round_trip(config):
    text = write_config(config)
    again = parse_config(text)
    assert again == config
    assert write_config(again) == text
    assert "config prize_bands{'A'} = [2, 4]" in text


def test_malformed_known_lines_are_errors():
    with pytest.raises(FormatError, match="config.tsh line 2: expected 'division NAME FILE.t'"):
        parse_config("division A a.t\ndivision B\n")
    with pytest.raises(FormatError, match="line 1: the target round must be a whole number"):
        parse_config("autopair A 0 x if 3 A\n")
    with pytest.raises(FormatError, match="line 1: expected 'autopair"):
        parse_config("autopair A 0 1\n")
    with pytest.raises(FormatError, match="number of classes"):
        parse_config("classes A three\n")
    with pytest.raises(FormatError, match="declared twice"):
        parse_config("division A a.t\ndivision A b.t\n")


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("23", 23),
        ("-7", -7),
        ("1_000", 1000),
        ("0x1F", 31),
        ("010", 8),
        ("1.5", 1.5),
        ("2e3", 2000.0),
        ("'it\\'s'", "it's"),
        ("'a\\nb'", "a\\nb"),  # single quotes do not interpret \n
        ('"a\\tb\\"c"', 'a\tb"c'),
        ('"cost \\$5 @ home"', "cost $5 @ home"),
        ("[1, 'two', [3]]", [1, "two", [3]]),
        ("{A => 1, 'B', 2, 3 => [4]}", {"A": 1, "B": 2, "3": [4]}),
        ("qw(a b c)", ["a", "b", "c"]),
        ("undef", None),
        ("[]", []),
        ("{}", {}),
        ("(1, 2)", [1, 2]),
        ("[1, 2,] ; # comment", [1, 2]),
    ],
)
def test_perl_literals(text, value):
    assert parse_perl_literal(text) == value


@pytest.mark.parametrize(
    "text",
    [
        "system('ls')",
        "`ls`",
        "$x",
        '"home is $ENV{HOME}"',
        "1 + 2",
        "[1, 2",
        "'open",
        "sub { 1 }",
        "08",
        "do { 1 }",
        "23abc",
    ],
)
def test_non_literals_are_refused(text):
    with pytest.raises(PerlLiteralError):
        parse_perl_literal(text)


def test_perl_literal_writer_round_trips():
    value = {"a": [1, -2.5, "it's \\ $x @y", None], "b": {}, "c": "", "d": {"e": [[]]}}
    assert parse_perl_literal(perl_literal(value)) == value
    with pytest.raises(ValueError):
        perl_literal(float("nan"))
    with pytest.raises(ValueError):
        perl_literal(object())


def test_nested_and_empty_hash_settings_round_trip():
    config = TshConfig(
        divisions=[("A", "a.t")],
        settings={"prize_bands": {}, "gibson_spread": {"A": {"5": 300}}, "event_name": "X"},
    )
    again = parse_config(write_config(config))
    assert again.settings == config.settings
    assert again.warnings == []
