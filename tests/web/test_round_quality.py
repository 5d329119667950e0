"""The public pairing-quality report of a paired round (issue 36, item 5)."""

from __future__ import annotations

import re

import pytest

from pairings.services.store import PlannedGame, save_round_pairings
from tournament import services

pytestmark = pytest.mark.django_db


def _text(response) -> str:
    return re.sub(r"<[^>]+>", " ", response.content.decode())


def test_a_clean_round_and_a_repeat(client, event):
    t, d = event  # round 1 scored (1 v 2, 3 v 4), round 2 paired (1 v 4, 2 v 3)
    services.publish_tournament(t, True, actor=None)
    page = _text(client.get(f"/t/{t.slug}/{d.slug}/round/2/quality/"))
    assert "Repeats 0" in " ".join(page.split())
    assert "Going first" in page and "Win gaps" in page
    # what the going-first line counts, in plain words (it said "Starts" and "2 players two
    # or more starts off even")
    said = " ".join(page.split())
    assert "who goes first is set in" in said
    assert "is set in 2 of 2 games; 2 players' firsts and seconds differ by two or more" in said
    # round 2 scored, round 3 paired as a repeat of round 1: the report names it by board
    services.record_result(d, 2, 1, 400, 300)
    services.record_result(d, 2, 2, 400, 300)
    save_round_pairings(d, 3, [PlannedGame(1, 2), PlannedGame(3, 4)], system="manual")
    page = " ".join(_text(client.get(f"/t/{t.slug}/{d.slug}/round/3/quality/")).split())
    assert "Repeats 2" in page
    assert "met in round 1" in page


@pytest.mark.parametrize("number", ["4", "0", "x", "99999999999"])
def test_an_unpaired_round_is_404(client, event, number):
    t, d = event
    services.publish_tournament(t, True, actor=None)
    response = client.get(f"/t/{t.slug}/{d.slug}/round/{number}/quality/")
    assert response.status_code == 404
    assert "is not paired" in response.content.decode()


def test_a_draft_or_unknown_division_is_404(client, event):
    t, d = event
    services.publish_tournament(t, False, actor=None)  # a draft: hidden from the public
    assert client.get(f"/t/{t.slug}/{d.slug}/round/1/quality/").status_code == 404
    services.publish_tournament(t, True, actor=None)
    response = client.get(f"/t/{t.slug}/zz/round/1/quality/")
    assert response.status_code == 404
    # worded, not Django's bare 404 (division_by_slug raises Http404, which the page once
    # let through while catching a ServiceError it never raises)
    assert "has no division &#x27;zz&#x27;" in response.content.decode()
    assert client.get("/t/nope/a/round/1/quality/").status_code == 404


def test_the_round_page_links_its_quality_report(client, event):
    t, d = event
    services.publish_tournament(t, True, actor=None)
    page = client.get(f"/t/{t.slug}/{d.slug}/round/2/").content.decode()
    assert f'href="/t/{t.slug}/{d.slug}/round/2/quality/"' in page
