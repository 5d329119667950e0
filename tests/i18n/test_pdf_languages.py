"""The printed sheets follow the tournament's language (docs/languages.md): their words from
the catalogue, their dates as the language writes them; names print as typed, in any of the
shipped languages' letters. Under English every sheet reads as before."""

from __future__ import annotations

import datetime as dt
import io
import shutil
import subprocess

import pypdf
import pytest
from django.utils import translation

from tournament import services
from tournament.reports.build import build_report

pytestmark = pytest.mark.django_db
NAME = "Łódź Żółć Éèçà ñ"


def _text(pdf: bytes) -> str:
    reader = pypdf.PdfReader(io.BytesIO(pdf))
    return " ".join(" ".join(page.extract_text().split()) for page in reader.pages)


@pytest.fixture
def division():
    t = services.create_tournament(name="Open de Lyon", slug="lyon")
    t.start_date, t.end_date = dt.date(2026, 4, 4), dt.date(2026, 4, 5)
    t.save()
    a = services.create_division(t, name="A", rounds=3)
    services.register_player(a, name="Martin, Jeanne", rating=1500)
    services.register_player(a, name=NAME, rating=0)
    return a


def test_a_director_prints_scorecards_in_french(division, settings):
    division.tournament.language = "fr"
    division.tournament.save(update_fields=["language"])
    text = _text(build_report(division, "scorecards", per_page=2).pdf)
    for words in (
        "Feuilles de match",
        "Division A",
        "page 1 sur 1",
        "4 avril 2026 - 5 avril 2026",
        "Adversaire",
        "Écart cumulé",
        "Gagnées-Perdues",
        "sans classement",
        "deuxième rencontre avec cet adversaire",
    ):
        assert words in text, words
    assert "Scorecards" not in text and "Opponent" not in text


def test_pairings_and_standings_print_in_polish(division, settings):
    division.tournament.language = "pl"
    division.tournament.save(update_fields=["language"])
    services.publish_tournament(division.tournament, True, actor="test")
    standings = _text(build_report(division, "standings", round_number=0).pdf)
    assert "Klasyfikacja przed rundą 1" in standings and "Gracz" in standings
    assert "4 kwietnia 2026" in standings  # the month in the genitive, as Polish dates say it
    assert "strona 1 z 1" in standings


def test_in_english_the_scorecards_read_as_before(division):
    text = _text(build_report(division, "scorecards", per_page=2).pdf)
    for words in ("Scorecards", "page 1 of 1", "4 April 2026 - 5 April 2026", "Opponent"):
        assert words in text, words


def test_the_fonts_carry_polish_french_and_spanish_letters(division, tmp_path):
    if shutil.which("pdftotext") is None:
        pytest.skip("pdftotext (poppler-utils) is not installed: the PDF cannot be read back")
    pdf = tmp_path / "cards.pdf"
    pdf.write_bytes(build_report(division, "scorecards", per_page=2).pdf)
    done = subprocess.run(
        ["pdftotext", "-enc", "UTF-8", str(pdf), "-"], capture_output=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert NAME in done.stdout.decode("utf-8")


def test_the_prize_list_names_its_prizes_in_the_tournaments_language() -> None:
    import tournament.reports.build  # noqa: F401  (installs Django's translations in reports)
    from tournament.reports import PrizeGame, StandingLine, prizes_from

    standings = [
        StandingLine(1, 1, "Martin, Jeanne", 2, 0, 120, 1500),
        StandingLine(2, 2, "Nowak, Łucja", 1, 1, 10, 1400),
        StandingLine(3, 3, "García, José", 0, 2, -130, 1300),
    ]
    games = [
        PrizeGame(1, 1, 450, 2, 380),
        PrizeGame(2, 2, 420, 3, 410),
        PrizeGame(2, 1, 400, 3, 350),
    ]
    with translation.override("fr"):
        labels = [p.label for p in prizes_from(standings, games, places=2)]
    assert labels[:3] == ["1er prix", "2e prix", "Meilleur score"]
    assert [p.label for p in prizes_from(standings, games, places=2)][:3] == [
        "1st place",
        "2nd place",
        "High game",
    ]
