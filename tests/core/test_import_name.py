"""``import_tsh --name`` names the event everywhere it is written back, not only on the site.

The imported ``config.tsh`` carried ``event_name``; the tournament took the name the director
gave, but ``config.tsh`` and ``tourney.js`` exports wrote the file's old name, so TSH and the
broadcast overlays showed another event than the site. The tournament's name is the one truth.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tournament.formats.config import parse_config
from tournament.interchange.exports import export_files, export_tourney_js
from tournament.interchange.imports import import_tsh

pytestmark = pytest.mark.django_db

DEMO = Path(__file__).resolve().parents[2] / "fixtures" / "demo" / "config.tsh"


def test_exports_carry_the_name_given_at_import():
    tournament = import_tsh(DEMO, name="Spring Open")
    assert tournament.name == "Spring Open"
    config = parse_config(export_files(tournament)["config.tsh"])
    assert config.settings["event_name"] == "Spring Open"
    assert export_tourney_js(tournament)["config"]["event_name"] == "Spring Open"


def test_a_renamed_tournament_exports_its_new_name():
    from tournament.models import Tournament

    tournament = import_tsh(DEMO)
    assert "Gibson Demo Open" in export_files(tournament)["config.tsh"]
    Tournament.objects.filter(pk=tournament.pk).update(name="Autumn Open")
    tournament.refresh_from_db()
    text = export_files(tournament)["config.tsh"]
    assert "config event_name = 'Autumn Open'" in text and "Gibson Demo Open" not in text
