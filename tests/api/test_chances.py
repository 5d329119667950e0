"""GET .../divisions/D/chances/: public, the command's shape, refusals as 400 JSON, hidden
when the director says so (tournament.services.set_chances_visibility, audited)."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from tournament import services
from tournament.errors import ServiceError
from tournament.models import AuditEvent

URL = "/api/v1/tournaments/api-open/divisions/a/chances/"
KEYS = {"number", "name", "p_first", "p_places", "p_cash", "p_class", "expected_rank",
        "best_rank", "worst_rank"}  # fmt: skip


def test_public_read_in_the_command_shape(event):
    r = APIClient().get(URL)
    assert r.status_code == 200, r.content
    rows = r.json()
    assert [row["number"] for row in rows] == [1, 2, 3, 4]
    assert set(rows[0]) == KEYS
    assert sum(row["p_first"] for row in rows) == pytest.approx(1)
    assert APIClient().get(URL).json() == rows  # kept per version, seeded per division


def test_a_replay_after_round_one(event):
    rows = APIClient().get(URL, {"after_round": 1}).json()
    assert sum(row["p_first"] for row in rows) == pytest.approx(1)
    # round 2's real pairing is ignored in a replay, so the figures may differ from live
    assert len(rows) == 4


@pytest.mark.parametrize("value", ["9", "-1", "x"])
def test_a_bad_round_is_a_400_naming_the_field(event, value):
    r = APIClient().get(URL, {"after_round": value})
    assert r.status_code == 400
    error = r.json()["errors"][0]
    expected = {"9": "number_too_large", "-1": "below_minimum", "x": "not_a_number"}[value]
    assert (error["field"], error["code"]) == ("after_round", expected)


def test_unknown_division_is_a_404(event):
    r = APIClient().get(URL.replace("/a/", "/zz/"))
    assert r.status_code == 404 and r.json()["errors"][0]["code"] == "not_found"


def test_hidden_by_the_director_audited_and_still_seen_by_staff(event, director):
    t, d = event
    services.set_chances_visibility(d, actor=director, hide=True)
    event_row = AuditEvent.objects.filter(action="division_chances").get()
    assert event_row.after == {"hide": True, "hide_last": 0}
    r = APIClient().get(URL)
    assert r.status_code == 400 and r.json()["errors"][0]["code"] == "chances_hidden"
    staff = APIClient()
    staff.force_authenticate(director)
    assert staff.get(URL).status_code == 200
    services.set_chances_visibility(d, actor=director, hide=False, hide_last=2)
    # a 3-round event with round 2 paired: round 2 is one of the last two
    assert APIClient().get(URL).json()["errors"][0]["code"] == "chances_hidden"
    services.set_chances_visibility(d, actor=director, hide=False, hide_last=1)
    assert APIClient().get(URL).status_code == 200


def test_the_setting_is_refused_to_others_and_checked(event, django_user_model):
    t, d = event
    stranger = django_user_model.objects.create_user("stranger", password="x-long-password")
    with pytest.raises(ServiceError):
        services.set_chances_visibility(d, actor=stranger, hide=True)
    with pytest.raises(ServiceError) as caught:
        services.set_chances_visibility(d, actor="test", hide_last=-1)
    assert caught.value.field == "chances_hide_last"
    assert not AuditEvent.objects.filter(action="division_chances").exists()


def test_in_the_openapi_schema(event):
    schema = APIClient().get("/api/schema/", HTTP_ACCEPT="application/json").json()
    op = schema["paths"]["/api/v1/tournaments/{slug}/divisions/{division}/chances/"]["get"]
    assert any(p["name"] == "after_round" for p in op["parameters"])
    assert "200" in op["responses"]
