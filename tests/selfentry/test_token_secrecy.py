"""The self-entry token appears on the scorecard only: the QR code's link carries it, and no
export, feed, public page, other report or console page of the event does."""

from __future__ import annotations

import io
import zipfile

import pypdf
import pytest

from tests.core.conftest import make_director
from tournament.interchange.exports import export_formats, render_export
from tournament.models import Entry
from tournament.reports.build import (
    KINDS,
    DivisionData,
    build_report,
    player_url,
    scorecards,
)
from tournament.services.selfentry import report_own_result, revoke_token

from .conftest import token

pytestmark = pytest.mark.django_db


def pdf_text(data: bytes) -> str:
    reader = pypdf.PdfReader(io.BytesIO(data))
    return "\n".join(page.extract_text() for page in reader.pages)


def pdf_links(data: bytes) -> str:
    """Every string of the PDF's objects, uncompressed: a token hidden in any object shows."""
    reader = pypdf.PdfReader(io.BytesIO(data))
    out = []
    for page in reader.pages:
        contents = page.get_contents()
        if contents is not None:
            out.append(contents.get_data().decode("latin-1"))
        for annot in page.get("/Annots") or []:
            out.append(str(annot.get_object()))
    return "\n".join(out)


def test_the_scorecard_qr_carries_the_players_link(event, settings):
    t, d = event
    settings.SITE_URL = "https://gibson.example.org"
    cards = scorecards(DivisionData(d))
    for card in cards:
        assert card.url == f"https://gibson.example.org/e/{token(d, card.number)}/"
    report = build_report(d, "scorecards", per_page=2)
    text = pdf_text(report.pdf)
    for number in range(1, 7):
        assert f"https://gibson.example.org/e/{token(d, number)}/" in text.splitlines()
    # a revoked link is not printed again: that card opens the public page instead
    revoke_token(Entry.objects.get(division=d, number=2), "td")
    report = build_report(d, "scorecards")
    text = pdf_text(report.pdf)
    assert player_url(t, d, 2) in text.splitlines()
    assert f"https://gibson.example.org/e/{token(d, 1)}/" in text.splitlines()


def test_no_export_feed_public_page_or_other_report_carries_a_token(client, event):
    t, d = event
    report_own_result(token(d, 1), 412, 389, round_number=1)  # an open report too
    tokens = list(Entry.objects.values_list("entry_token", flat=True))
    assert len(tokens) == 6 and all(tokens)

    def clean(where: str, data: bytes | str) -> None:
        text = data if isinstance(data, str) else data.decode("utf-8", "replace")
        for tok in tokens:
            assert tok not in text, f"{where} carries a self-entry token"

    for fmt in export_formats():
        data = render_export(t, fmt).data
        clean(fmt, data)
        if data[:2] == b"PK":
            with zipfile.ZipFile(io.BytesIO(data)) as z:
                for name in z.namelist():
                    clean(f"{fmt}:{name}", z.read(name))
    for kind in KINDS:
        if kind == "scorecards":
            continue
        built = build_report(d, kind, round_number=1)
        clean(kind, pdf_text(built.pdf))
        clean(kind, pdf_links(built.pdf))

    public = [
        "/",
        f"/t/{t.slug}/",
        f"/t/{t.slug}/tourney.js",
        f"/t/{t.slug}/{d.slug}/standings/",
        f"/t/{t.slug}/{d.slug}/standings/?after=0",
    ]
    public += [f"/t/{t.slug}/{d.slug}/player/{n}/" for n in range(1, 7)]
    public += [f"/players/{e.player_id}/" for e in Entry.objects.all()]
    public += ["/ratings/", "/players/?q=Able"]
    for path in public:
        response = client.get(path)
        assert response.status_code in (200, 404), path  # a page another helper may not add
        clean(path, response.content)

    client.force_login(make_director(t, "secrecy-td"))
    console = [
        f"/t/{t.slug}/console/?stay=1",
        f"/t/{t.slug}/console/{d.slug}/",
        f"/t/{t.slug}/console/{d.slug}/players/",
        f"/t/{t.slug}/console/{d.slug}/round/1/results/",
        f"/t/{t.slug}/console/{d.slug}/standings/",
        f"/t/{t.slug}/desk/",
    ]
    for fmt in ("all.tsh", "tou", "csv"):
        console.append(f"/t/{t.slug}/desk/export/{fmt}")
    for path in console:
        response = client.get(path)
        assert response.status_code == 200, path
        clean(path, response.content)
