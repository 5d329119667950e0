"""Refusals: one place for the web face (tournament/web/refusals.py, issue 33).

A refusal a view lets through is answered by RefusalMiddleware: the refusal page for a person,
a role="alert" fragment for htmx (sent to the page's #refusal region), JSON for a script; the
status from the code's class (tournament.refusals.refusal_status). Each is checked on a real
view whose service refuses, including a denial across tournaments.
"""

from __future__ import annotations

import datetime
import json

import pytest
from django import forms
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile

from tests.core.conftest import make_director
from tests.gcg.conftest import two_player_event
from tests.gcg.test_service import GOOD
from tournament import services
from tournament.clubs import services as club_services
from tournament.errors import CODES, ServiceError
from tournament.models import AuditEvent, GameRecord
from tournament.refusals import REFUSAL_STATUS, refusal_status, refuse
from tournament.services import gcg as gcg_services

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}
JSON = {"HTTP_ACCEPT": "application/json"}


@pytest.fixture
def two_events(client):
    """A director of the Home Open signed in; the Away Open's game has a record."""
    home, home_div, _ = two_player_event("Del Solar, Cesar", "Able, Ann", (24, 0), "Home Open")
    away, _, away_game = two_player_event("Del Solar, Cesar", "Able, Ann", (24, 0), "Away Open")
    gcg_services.attach_record(away_game, GOOD, actor="test", file_name="away.gcg")
    client.force_login(make_director(home, "boss"))
    url = f"/t/{home.slug}/console/{home_div.slug}/records/{away_game.pk}/remove/"
    return client, home, away_game, url


def _unchanged(away_game, before: int) -> None:
    assert GameRecord.objects.filter(game=away_game).exists()
    assert AuditEvent.objects.count() == before


def test_another_tournaments_game_is_refused_as_a_page_with_a_way_back(two_events):
    client, home, away_game, url = two_events
    before = AuditEvent.objects.count()
    came_from = f"http://testserver/t/{home.slug}/console/"
    response = client.post(url, HTTP_REFERER=came_from)
    assert response.status_code == 403
    page = response.content.decode()
    assert "<h1>Not allowed</h1>" in page
    assert "division A" in page and "Away Open" not in page
    assert f'<a href="{came_from}">Back to the page you came from</a>' in page
    assert 'id="refusal"' in page  # the page keeps base.html's refusal region
    _unchanged(away_game, before)


def test_a_back_link_to_another_site_is_not_followed(two_events):
    client, _, _, url = two_events
    page = client.post(url, HTTP_REFERER="https://evil.example/x").content.decode()
    assert "evil.example" not in page and '<a href="/">Back to the page you came from</a>' in page


def test_another_tournaments_game_is_refused_to_htmx_as_an_alert_in_the_page_region(two_events):
    client, _, away_game, url = two_events
    before = AuditEvent.objects.count()
    response = client.post(url, **HTMX)
    assert response.status_code == 403
    assert response["HX-Retarget"] == "#refusal"
    assert response["HX-Reswap"].startswith("innerHTML")
    assert response["Gibson-Refusal"] == "gcg_not_your_game"
    fragment = response.content.decode()
    assert fragment.strip().startswith('<div role="alert"')
    assert "<html" not in fragment and "Not allowed" in fragment and "division A" in fragment
    _unchanged(away_game, before)


def test_another_tournaments_game_is_refused_to_a_script_in_json(two_events):
    client, _, away_game, url = two_events
    before = AuditEvent.objects.count()
    response = client.post(url, **JSON)
    assert response.status_code == 403
    body = response.json()
    assert body["ok"] is False and body["code"] == "gcg_not_your_game"
    assert "division A" in body["error"]
    _unchanged(away_game, before)


def test_a_draft_of_another_tournament_is_not_found_for_a_director_of_one(client):
    mine = services.create_tournament(name="Mine Open", start_date=datetime.date(2026, 5, 3))
    draft = services.create_tournament(
        name="Secret Draft", start_date=datetime.date(2026, 5, 3), published=False
    )
    services.create_division(draft, name="A", rounds=3)
    client.force_login(make_director(mine, "boss"))
    response = client.get(f"/t/{draft.slug}/")
    assert response.status_code == 404
    page = response.content.decode()
    assert "<h1>Not found</h1>" in page and "Secret Draft" not in page
    response = client.get(f"/t/{draft.slug}/a/standings/", **JSON)
    assert response.status_code == 404 and response.json()["code"] == "unknown_tournament"


@pytest.fixture
def archived_season(client):
    ann = get_user_model().objects.create_user("ann", password="pw-long-enough-1")
    club = club_services.create_club(name="Riverside", actor=ann)
    season = club_services.create_season(
        club, name="Spring", start_date="2025-01-01", end_date="2025-06-30", actor=ann
    )
    club_services.archive_season(season, actor=ann)
    client.force_login(ann)
    return client, f"/clubs/{club.slug}/seasons/manage/{season.pk}/archive/"


def test_a_state_conflict_is_409_as_a_page_and_as_an_htmx_alert(archived_season):
    client, url = archived_season
    before = AuditEvent.objects.count()
    response = client.post(url)
    assert response.status_code == 409
    assert "<h1>Not possible now</h1>" in response.content.decode()
    response = client.post(url, **HTMX)
    assert response.status_code == 409 and response["HX-Retarget"] == "#refusal"
    assert 'role="alert"' in response.content.decode()
    assert "is archived" in response.content.decode()
    assert AuditEvent.objects.count() == before


def test_bad_input_is_400_and_the_page_is_in_the_readers_language(client):
    t = services.create_tournament(name="Photo Open", start_date=datetime.date(2026, 5, 3))
    d = services.create_division(t, name="A", rounds=3)
    entry = services.register_player(d, name="Able, Ann", rating=1500)
    services.publish_tournament(t, True, actor="test")
    user = get_user_model().objects.create_user("ann", "ann@example.org", "pw-long-enough-1")
    client.force_login(user)
    url = f"/players/{entry.player_id}/photo/"
    response = client.post(url, {})
    assert response.status_code == 400
    assert "<h1>That did not work</h1>" in response.content.decode()
    response = client.post(url, {"photo": SimpleUploadedFile("me.jpg", b"x")}, **JSON)
    assert response.status_code in (400, 403) and response.json()["ok"] is False
    french = client.post(url, {}, HTTP_ACCEPT_LANGUAGE="fr")
    assert french.status_code == 400 and 'lang="fr"' in french.content.decode()
    assert "Retour à la page précédente" in french.content.decode()


def test_every_classified_code_is_a_code_and_unclassified_codes_are_400():
    assert set(REFUSAL_STATUS) <= set(CODES)
    assert refusal_status("unknown_tournament") == 404
    assert refusal_status("not_allowed") == 403
    assert refusal_status("pairing_already_paired") == 409
    assert refusal_status("database_busy") == 503
    assert refusal_status("not_a_number") == 400


class _Form(forms.Form):
    name = forms.CharField(required=False)
    rating = forms.IntegerField(required=False)


def test_refuse_keeps_the_input_and_puts_the_message_at_its_field():
    form = _Form({"name": "Able, Ann", "rating": "12"})
    assert form.is_valid()
    refuse(form, ServiceError("below_minimum", field="rating", what="rating", minimum=0, value=-1))
    assert list(form.errors) == ["rating"] and form["name"].value() == "Able, Ann"
    form = _Form({"name": "Able, Ann"})
    form.is_valid()
    refuse(form, ServiceError("empty_name", field="elsewhere", what="name"), "name")
    assert "name must not be empty" in form.errors["name"][0]
    form = _Form({})
    form.is_valid()
    refuse(form, ServiceError("empty_name", what="name"), wording={"empty_name": "say: {message}"})
    assert form.non_field_errors() == ["say: name must not be empty"]


def test_a_busy_database_let_through_is_503_with_retry_after(rf):
    """A write whose busy_refusal raised database_busy and no view caught it: "try again"."""
    from tournament.web.refusals import refusal_response

    request = rf.post("/t/x/console/", HTTP_ACCEPT="application/json")
    response = refusal_response(request, ServiceError("database_busy"))
    assert response.status_code == 503 and response["Retry-After"] == "5"
    assert json.loads(response.content)["code"] == "database_busy"
