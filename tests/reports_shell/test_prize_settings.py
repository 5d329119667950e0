"""Issue 17 item 6: the prize list follows the division's prize places, and by default is
after the last fully scored round, titled with what it includes."""

from __future__ import annotations

import datetime
import json
from io import StringIO

import pytest
from django.core.management import call_command

from pairings.services.store import PlannedGame, save_round_pairings
from tournament import services

from ..reports.conftest import joined, pdf_pages

pytestmark = pytest.mark.django_db


def _division(prize_places: int):
    """Six players; round 1 fully scored (player 1 best, then 2, 3, ...), round 2 paired
    with one game of three scored."""
    t = services.create_tournament(name="Prize Test", start_date=datetime.date(2025, 5, 1))
    d = services.create_division(t, name="A", rounds=3, prize_places=prize_places)
    for i in range(6):
        services.register_player(d, name=f"Player {chr(65 + i)}", rating=1500 - 10 * i)
    save_round_pairings(
        d,
        1,
        [PlannedGame(1, 6, board=1), PlannedGame(2, 5, board=2), PlannedGame(3, 4, board=3)],
        system="manual",
    )
    services.record_result(d, 1, 1, 500, 300)
    services.record_result(d, 1, 2, 450, 310)
    services.record_result(d, 1, 3, 420, 320)
    save_round_pairings(
        d,
        2,
        [PlannedGame(1, 2, board=1), PlannedGame(3, 6, board=2), PlannedGame(4, 5, board=3)],
        system="manual",
    )
    services.record_result(d, 2, 4, 300, 600)
    return t


def report(t, tmp_path, *extra: str) -> tuple[dict, str]:
    out = tmp_path / "prizes.pdf"
    data = json.loads(
        _run("report", t.slug, "--kind", "prizes", "--out", str(out), *extra, "--json")
    )
    return data, joined(pdf_pages(out.read_bytes())[0])


def _run(*args: str) -> str:
    buf = StringIO()
    call_command(*args, stdout=buf, stderr=StringIO())
    return buf.getvalue()


def test_default_is_after_the_last_fully_scored_round_and_says_so(tmp_path):
    t = _division(prize_places=0)
    data, text = report(t, tmp_path)
    assert data["round"] == 1  # round 2 is paired but only one of its games is in
    assert "Prize list after round 1, every game scored" in text
    assert "1st place #1 Player A" in text


def test_a_round_still_being_scored_is_titled_with_how_much_is_in(tmp_path):
    t = _division(prize_places=0)
    data, text = report(t, tmp_path, "--round", "2")
    assert data["round"] == 2
    assert "after round 2, 1 of 3 games of round 2 in" in text


@pytest.mark.parametrize("places, shown", [(0, 3), (4, 4), (2, 2)])
def test_places_come_from_the_division(tmp_path, places, shown):
    t = _division(prize_places=places)
    _, text = report(t, tmp_path)
    labels = ["1st", "2nd", "3rd", "4th", "5th"]
    for i, label in enumerate(labels):
        assert (f"{label} place" in text) == (i < shown), label
