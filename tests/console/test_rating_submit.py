"""Issue 17 item 6: a finished division goes to a rating list from the console (it was only
the admin's action): an officer of the list submits at once, another director asks."""

from __future__ import annotations

import datetime

import pytest

from pairings.services.store import PlannedGame, save_round_pairings
from ratings.models import RatedEvent, SubmissionRequest
from ratings.services import create_rating_list
from tests.core.conftest import make_director
from tournament import services
from tournament.models import AuditEvent

pytestmark = pytest.mark.django_db


@pytest.fixture
def finished():
    t = services.create_tournament(name="Rated Open", start_date=datetime.date(2025, 4, 5))
    d = services.create_division(t, name="A", rounds=1)
    for i, name in enumerate(["Ann", "Bob", "Cat", "Dan"]):
        services.register_player(d, name=name, rating=1600 - 10 * i)
    save_round_pairings(
        d, 1, [PlannedGame(1, 2, board=1), PlannedGame(3, 4, board=2)], system="manual"
    )
    services.record_result(d, 1, 1, 400, 300)
    services.record_result(d, 1, 3, 380, 390)
    lst = create_rating_list("Club List", slug="club")
    return t, d, lst


def url(t, d) -> str:
    return f"/t/{t.slug}/console/{d.slug}/submit-ratings/"


def test_the_division_page_offers_the_form_to_directors(client, finished):
    t, d, _ = finished
    client.force_login(make_director(t, "td"))
    page = client.get(f"/t/{t.slug}/console/{d.slug}/").content.decode()
    assert 'id="submit-ratings"' in page and url(t, d) in page and '"club"' in page


def test_an_officer_submits_at_once_audited(client, finished):
    t, d, lst = finished
    td = make_director(t, "td-officer")
    lst.officers.add(td)
    client.force_login(td)
    response = client.post(url(t, d), {"rating_list": "club"})
    assert response.status_code == 302 and response["Location"].endswith(f"/console/{d.slug}/")
    assert RatedEvent.objects.filter(rating_list=lst, division=d).count() == 1
    assert AuditEvent.objects.filter(action="submit_ratings", user=td).count() == 1
    d.refresh_from_db()
    assert d.rating_list_id == lst.pk
    page = client.get(response["Location"]).content.decode()
    assert "Division A is rated on Club List." in page


def test_another_director_asks_and_nothing_is_rated(client, finished):
    t, d, lst = finished
    td = make_director(t, "td-plain")
    client.force_login(td)
    response = client.post(url(t, d), {"rating_list": "club"}, follow=True)
    assert "submission to Club List requested" in response.content.decode()
    assert SubmissionRequest.objects.filter(division=d, rating_list=lst).count() == 1
    assert not RatedEvent.objects.exists()
    assert AuditEvent.objects.filter(action="request_submission").count() == 1
    # a second request while the first waits is refused with its message, changing nothing
    before = AuditEvent.objects.count()
    again = client.post(url(t, d), {"rating_list": "club"}, follow=True).content.decode()
    assert "already" in again
    assert AuditEvent.objects.count() == before


def test_refusals_change_nothing(client, finished):
    t, d, _lst = finished
    client.force_login(make_director(t, "td-r"))
    before = AuditEvent.objects.count()
    page = client.post(url(t, d), {"rating_list": "nope"}, follow=True).content.decode()
    assert "has no rating list: choose one first" in page
    assert AuditEvent.objects.count() == before
    client.logout()
    assert client.post(url(t, d), {"rating_list": "club"}).status_code in (302, 403)
    assert AuditEvent.objects.count() == before
    assert client.get(url(t, d)).status_code in (302, 405)
