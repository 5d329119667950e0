"""The director's print & export desk: one-click PDFs and files, for its directors only."""

from __future__ import annotations

import io
import os
import time
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from pypdf import PdfReader

from tests.core.conftest import name_admin_officer
from tournament import services
from tournament.demo import DEMO_SLUG, load_demo
from tournament.formats.archive import parse_archive
from tournament.formats.tou import parse_tou
from tournament.selectors import division_standings, last_round_number, last_scored_round

pytestmark = pytest.mark.django_db

DESK = f"/t/{DEMO_SLUG}/desk/"


@pytest.fixture(autouse=True)
def data_dir(settings, tmp_path):
    """Job files land in a folder of this test's own."""
    settings.DATA_DIR = tmp_path
    return tmp_path


@pytest.fixture
def demo():
    tournament, _ = load_demo()
    return tournament


def _user(name: str, *, staff: bool = True):
    return get_user_model().objects.create_user(
        name, f"{name}@example.org", "pw-long-enough-1", is_staff=staff
    )


@pytest.fixture
def director(client, demo):
    user = name_admin_officer(_user("desk-td"))  # the admin page test needs a named officer
    demo.directors.add(user)
    client.force_login(user)
    return client


def _text(pdf: bytes) -> str:
    return "\n".join(page.extract_text() for page in PdfReader(io.BytesIO(pdf)).pages)


# --- what a director gets ---------------------------------------------------------------------


def test_desk_lists_every_division_with_one_click_reports(director, demo):
    page = director.get(DESK)
    body = page.content.decode()
    assert page.status_code == 200
    for division in demo.divisions.all():
        last = last_round_number(division)
        assert f"Division {division.name}" in body
        scored = last_scored_round(division)
        assert f"paired through round {last}, scored through round {scored}" in body
        report = f"/t/{DEMO_SLUG}/desk/{division.slug}/report.pdf"
        assert f"{report}?kind=scorecards" in body
        assert f"{report}?kind=pairings" in body
        for kind in ("standings", "wallchart", "prizes"):
            assert f"{report}?kind={kind}&amp;round={scored}" in body
    for fmt in ("all.tsh", "tou", "csv"):
        assert f"/t/{DEMO_SLUG}/desk/export/{fmt}" in body


def test_standings_pdf_carries_the_standings_numbers(director, demo):
    division = demo.divisions.get(name="A")
    response = director.get(f"{DESK}A/report.pdf", {"kind": "standings", "round": 3})
    assert response.status_code == 200
    assert response["Content-Type"] == "application/pdf"
    assert 'filename="gibson-demo-open-A-standings-3.pdf"' in response["Content-Disposition"]
    text = _text(response.content)
    assert "after round 3" in text
    for row in division_standings(division, 3)[:5]:
        assert row.name in text
        spread = f"+{row.spread}" if row.spread > 0 else str(row.spread)
        assert spread in text


@pytest.mark.parametrize("kind", ["scorecards", "pairings", "wallchart", "prizes"])
def test_every_kind_downloads(director, demo, kind):
    response = director.get(f"{DESK}B/report.pdf", {"kind": kind, "paper": "a4", "per_page": 4})
    assert response.status_code == 200, response.content[:300]
    reader = PdfReader(io.BytesIO(response.content))
    width, height = float(reader.pages[0].mediabox.width), float(reader.pages[0].mediabox.height)
    assert round(min(width, height), 1) == 595.3  # A4 as asked, not the tournament's Letter


def test_exports_download_and_read_back(director, demo):
    archive = director.get(f"{DESK}export/all.tsh")
    assert archive.status_code == 200
    assert 'filename="all.tsh"' in archive["Content-Disposition"]
    _, files = parse_archive(archive.content.decode("utf-8"))
    assert sorted(files) == sorted(f"{d.name.lower()}.t" for d in demo.divisions.all())
    tou = director.get(f"{DESK}export/tou")
    assert tou.status_code == 200
    name, date, divisions = parse_tou(tou.content.decode("ascii"))
    assert name == demo.name and date == demo.start_date
    assert [d for d, _ in divisions] == [
        d.name for d in demo.divisions.order_by("position", "name")
    ]
    csv = director.get(f"{DESK}export/csv")
    assert csv.status_code == 200 and csv.content.decode().startswith("division,rank,number,name")


def test_scorecards_job_runs_and_its_file_downloads(director, demo):
    started = director.post(f"{DESK}A/scorecards/", {"per_page": "2", "round": "3"})
    assert started.status_code == 202, started.content
    job = started.json()
    status = director.get(job["status"]).json()
    assert status == {"ok": True, "state": "done", "file": job["file"]}
    pdf = director.get(job["file"])
    assert pdf.status_code == 200 and pdf["Content-Type"] == "application/pdf"
    text = _text(b"".join(pdf.streaming_content))
    assert "pre-filled through round 3" in text


def test_old_job_files_are_cleared_when_a_new_job_starts(director, demo):
    folder = Path(settings.DATA_DIR) / "reports" / DEMO_SLUG
    folder.mkdir(parents=True, exist_ok=True)
    stale = folder / ("0" * 32 + ".pdf")
    stale.write_bytes(b"%PDF old")
    three_days = time.time() - 3 * 24 * 3600
    os.utime(stale, (three_days, three_days))
    assert director.post(f"{DESK}A/scorecards/").status_code == 202
    assert not stale.exists()


# --- bad input: a message naming what is wrong, nothing written --------------------------------


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ({"kind": "poster"}, "kind=&#x27;poster&#x27;: choose one of scorecards, pairings"),
        ({"kind": "pairings", "round": "9"}, "round 9"),
        ({"kind": "pairings", "round": "three"}, "round=&#x27;three&#x27;: give a whole number"),
        ({"kind": "pairings", "round": "²"}, "round=&#x27;²&#x27;: give a whole number"),
        ({"kind": "standings", "paper": "a5"}, "paper=&#x27;a5&#x27;"),
        ({"kind": "scorecards", "per_page": "3"}, "per_page=&#x27;3&#x27;: must be one of 1, 2, 4"),
    ],
)
def test_bad_report_parameters_are_named(director, demo, query, message):
    response = director.get(f"{DESK}A/report.pdf", query)
    assert response.status_code == 400
    body = response.content.decode()
    assert message in body and "division A" in body


def test_a_report_for_a_round_not_yet_paired_names_the_rounds(director, demo):
    division = demo.divisions.get(name="A")
    last = last_round_number(division)
    response = director.get(f"{DESK}A/report.pdf", {"kind": "pairings", "round": last + 1})
    assert response.status_code == 400
    assert f"round {last + 1}" in response.content.decode()


def test_unknown_division_export_and_job(director, demo):
    assert director.get(f"{DESK}Z/report.pdf", {"kind": "standings"}).status_code == 404
    assert director.get(f"{DESK}export/pdf").status_code == 404
    assert director.get(f"{DESK}jobs/{'a' * 32}/").status_code == 404
    assert director.get(f"{DESK}jobs/{'a' * 32}/file").status_code == 404
    assert director.get(f"{DESK}jobs/..%2Fsecret_key/file").status_code == 404


def test_bad_scorecards_job_is_refused_before_queuing(director, demo):
    folder = Path(settings.DATA_DIR) / "reports" / DEMO_SLUG
    before = set(folder.glob("*.pdf")) if folder.exists() else set()
    for form, message in [
        ({"per_page": "5"}, "per_page='5': must be one of 1, 2, 4"),
        ({"round": "99"}, "round 99"),
        ({"paper": "tabloid"}, "paper='tabloid'"),
    ]:
        response = director.post(f"{DESK}A/scorecards/", form)
        assert response.status_code == 400
        assert message in response.json()["error"]
    assert (set(folder.glob("*.pdf")) if folder.exists() else set()) == before


def test_tou_without_an_event_date_says_where_to_set_it(director, demo):
    demo.start_date = None
    demo.save(update_fields=["start_date"])
    response = director.get(f"{DESK}export/tou")
    assert response.status_code == 400
    assert "no start date (set it in the admin)" in response.content.decode()


# --- denials ------------------------------------------------------------------------------------


def _every_desk_request(client):
    return [
        client.get(DESK),
        client.get(f"{DESK}A/report.pdf", {"kind": "standings"}),
        client.get(f"{DESK}export/all.tsh"),
        client.post(f"{DESK}A/scorecards/"),
        client.get(f"{DESK}jobs/{'a' * 32}/"),
        client.get(f"{DESK}jobs/{'a' * 32}/file"),
    ]


def test_anonymous_visitors_are_sent_to_sign_in(client, demo):
    for response in _every_desk_request(client):
        assert response.status_code == 302
        assert response["Location"].startswith("/accounts/login/?next=")
    assert not (Path(settings.DATA_DIR) / "reports" / DEMO_SLUG).exists()


def test_directors_of_another_tournament_and_players_are_refused(client, demo):
    other = services.create_tournament(name="Other Open")
    stranger = _user("other-td")
    other.directors.add(stranger)
    player = _user("player", staff=False)
    for user in (stranger, player):
        client.force_login(user)
        for response in _every_desk_request(client):
            assert response.status_code == 403
    assert not (Path(settings.DATA_DIR) / "reports" / DEMO_SLUG).exists()


def test_desk_is_read_only_where_it_should_be(director, demo):
    assert director.post(f"{DESK}A/report.pdf", {"kind": "standings"}).status_code == 405
    assert director.post(f"{DESK}export/csv").status_code == 405
    assert director.get(f"{DESK}A/scorecards/").status_code == 405


def test_the_admin_tournament_page_links_to_the_desk(director, demo):
    page = director.get(f"/admin/tournament/tournament/{demo.pk}/change/")
    assert page.status_code == 200
    assert f'href="{DESK}"' in page.content.decode()


def test_the_public_tournament_page_offers_the_desk_to_its_directors_only(client, demo):
    assert f'href="{DESK}"' not in client.get(f"/t/{DEMO_SLUG}/").content.decode()
    user = _user("page-td")
    demo.directors.add(user)
    client.force_login(user)
    assert f'href="{DESK}"' in client.get(f"/t/{DEMO_SLUG}/").content.decode()


def test_report_links_carry_the_division_slug_never_its_name(director, demo):
    from tournament.models import Division

    Division.objects.filter(tournament=demo, name="B").update(name="../../admin")
    body = director.get(DESK).content.decode()
    assert "/desk/b/report.pdf?kind=standings" in body
    assert "../../admin/report.pdf" not in body
    response = director.get(f"{DESK}b/report.pdf", {"kind": "standings"})
    assert response.status_code == 200 and response.content.startswith(b"%PDF")
