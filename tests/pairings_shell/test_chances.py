"""Prize chances of a real division: ``manage.py chances`` and the shell under it."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from tournament.interchange.imports import import_tsh
from tournament.selectors import division_standings

pytestmark = pytest.mark.django_db


@pytest.fixture
def event(real_data: Path):
    return import_tsh(real_data / "naspa-2023-a.t", rounds=23)


def chances_json(*args: str) -> list[dict]:
    out = StringIO()
    call_command("chances", *args, "--json", stdout=out, stderr=StringIO())
    return json.loads(out.getvalue())


def test_a_finished_event_puts_certainty_on_the_actual_places(event) -> None:
    division = event.divisions.get()
    rows = {r["number"]: r for r in chances_json(event.slug, "--sims", "200")}
    standings = [s for s in division_standings(division) if s.rank]
    assert len(rows) == 26
    for s in standings:
        tied = [o for o in standings if o.rank == s.rank]
        places = range(s.rank, s.rank + len(tied))
        expected = sum(places) / len(tied)
        got = rows[s.number]
        assert got["expected_rank"] == pytest.approx(expected)
        assert got["best_rank"] == got["worst_rank"] == s.rank
        assert got["p_first"] == pytest.approx(1 / len(tied) if s.rank == 1 else 0)
        # prize places default to 3 (the division has none set)
        for k, p in enumerate(got["p_places"], start=1):
            assert p == pytest.approx(1 / len(tied) if k in places else 0)
    assert sum(r["p_first"] for r in rows.values()) == pytest.approx(1)
    withdrawn = [r for r in rows.values() if r["expected_rank"] is None]
    assert [r["number"] for r in withdrawn] == [16]  # Lydia Keras: not ranked at the end


def test_a_replay_is_a_distribution_and_seeded(event) -> None:
    args = (event.slug, "--after-round", "18", "--sims", "4000", "--seed", "5")
    first = chances_json(*args)
    assert sum(r["p_first"] for r in first) == pytest.approx(1)
    assert sum(r["p_cash"] for r in first) == pytest.approx(3)
    assert all(0 <= r["p_first"] <= r["p_cash"] <= 1 for r in first)
    assert chances_json(*args) == first
    assert chances_json(*args[:-1], "6") != first
    keys = {"number", "name", "p_first", "p_places", "p_cash", "p_class", "expected_rank",
            "best_rank", "worst_rank"}  # fmt: skip
    assert set(first[0]) == keys


def test_the_text_table_names_the_players(event) -> None:
    out = StringIO()
    call_command("chances", event.slug, "--after-round", "20", "--sims", "500", stdout=out)
    assert "Smylie, Jackson" in out.getvalue() and "%" in out.getvalue()


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("--division", "Z"), "no division 'Z'"),
        (("--after-round", "24"), "after round: 24 is out of range (0..23)"),
        (("--after-round", "-1"), "after round must be at least 0, not -1"),
        (("--after-round", "x"), "after round"),
        (("--sims", "0"), "simulations: 0 is out of range (1..1000000)"),
        (("--sims", "5000000"), "simulations: 5000000 is out of range"),
        (("--sims", "many"), "simulations"),
    ],
)
def test_bad_input_is_refused_by_name(event, args, words) -> None:
    with pytest.raises(CommandError, match=None) as caught:
        call_command("chances", event.slug, *args, stdout=StringIO(), stderr=StringIO())
    assert words in str(caught.value)


def test_unknown_tournament_is_refused() -> None:
    with pytest.raises(CommandError, match="no-such"):
        call_command("chances", "no-such", stdout=StringIO(), stderr=StringIO())
