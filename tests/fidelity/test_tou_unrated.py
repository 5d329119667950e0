"""A ``.TOU`` carries no ratings: its players show unrated, not estimates of 500-2999.

With no rated player in a division, NASPA's and WESPA's newcomer iteration (TSH's
``RateNewcomersCorrectly``) has no scale: it spreads its seed between the 500 floor and its caps,
so a re-imported ``.TOU`` showed "estimates" of 500 to 2999 for players nobody ever rated.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from django.test import Client

from ratings.division import division_estimates, rating_estimates
from tournament import services
from tournament.interchange.exports import render_export
from tournament.interchange.imports import import_tsh

pytestmark = pytest.mark.django_db

TOU = Path(__file__).resolve().parents[2] / "fixtures" / "tou" / "isropn20.tou"


def test_a_tou_reimport_shows_its_players_unrated(tmp_path):
    first = import_tsh(TOU)
    again = tmp_path / "again.tou"
    again.write_bytes(render_export(first, "tou").data)
    tournament = import_tsh(again)
    services.publish_tournament(tournament, True, None)
    division = tournament.divisions.get()
    rows = division_estimates(division)
    assert len(rows) == 35 and all(r["old"] == 0 for r in rows)
    assert all(set(r["by_round"]) == {0} and r["new"] == 0 for r in rows)
    assert set(rating_estimates(division, 5).values()) == {0}
    page = Client().get(f"/t/{tournament.slug}/{division.slug}/standings/").content.decode()
    cells = page.count('<td class="num">unrated</td>')
    assert cells == 35  # the estimate column, a row a player (the rating column is "wide")


def test_one_rated_player_gives_the_newcomers_a_scale(tmp_path):
    """The rule is narrow: a newcomer among rated players is rated by performance, as TSH."""
    tournament = import_tsh(TOU)
    division = tournament.divisions.get()
    entry = division.entries.get(number=1)
    entry.seed_rating = 1500
    entry.save(update_fields=["seed_rating"])
    rows = {r["number"]: r for r in division_estimates(division)}
    assert rows[1]["new"] and rows[2]["new"] and rows[2]["new"] != 0
