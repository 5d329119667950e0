"""Writes: results recorded and corrected through the services, by the tournament's staff
with an API token; every refusal in the one error shape with nothing written."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from tests.core.conftest import make_director
from tournament import services
from tournament.models import AuditEvent, Game

from .conftest import token_client

DIV = "/api/v1/tournaments/api-open/divisions/a/"
RESULTS = DIV + "results/"
CORRECTIONS = DIV + "corrections/"


def counts() -> tuple:
    return (
        Game.objects.count(),
        AuditEvent.objects.count(),
        list(Game.objects.order_by("pk").values_list("score1", "score2")),
    )


def refused(response, status: int, code: str, field: str | None = None) -> dict:
    assert response.status_code == status, response.content
    assert response["Content-Type"] == "application/json"
    errors = response.json()["errors"]
    assert errors and set(errors[0]) == {"code", "field", "message", "params"}
    assert errors[0]["code"] == code, errors
    if field is not None:
        assert errors[0]["field"] == field, errors
    assert errors[0]["message"]
    return errors[0]


def test_anonymous_write_is_401(event):
    before = counts()
    r = APIClient().post(
        RESULTS, {"round": 2, "player": 1, "score": 400, "opp_score": 300}, format="json"
    )
    refused(r, 401, "not_authenticated")
    assert r["WWW-Authenticate"].startswith("Token")
    assert counts() == before


def test_a_bad_token_is_401(event):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Token not-a-real-token")
    refused(client.post(RESULTS, {}, format="json"), 401, "not_authenticated")


def test_another_tournaments_director_is_403(event):
    other = services.create_tournament(name="Other", slug="other")
    before = counts()
    client = token_client(make_director(other, "stranger"))
    r = client.post(
        RESULTS, {"round": 2, "player": 1, "score": 400, "opp_score": 300}, format="json"
    )
    refused(r, 403, "permission_denied")
    r = client.post(
        CORRECTIONS,
        {"round": 1, "player": 1, "score": 400, "opp_score": 300, "reason": "typo"},
        format="json",
    )
    refused(r, 403, "permission_denied")
    assert counts() == before


def test_the_director_records_a_result_with_one_audit_event(event, director):
    t, d = event
    audits = AuditEvent.objects.count()
    r = token_client(director).post(
        RESULTS, {"round": 2, "player": 4, "score": 410, "opp_score": 390}, format="json"
    )
    assert r.status_code == 201, r.content
    game = r.json()
    assert (game["player1"]["number"], game["player2"]["number"]) == (1, 4)
    assert (game["score1"], game["score2"]) == (390, 410)  # turned to the game's own order
    assert AuditEvent.objects.count() == audits + 1
    event_ = AuditEvent.objects.latest("pk")
    assert event_.action == "record_result"
    assert event_.actor == director.username


def test_any_paired_round_may_be_written_and_twice_is_refused(event, director):
    client = token_client(director)
    body = {"round": 2, "player": 2, "score": 380, "opp_score": 370}
    assert client.post(RESULTS, body, format="json").status_code == 201
    before = counts()
    refused(client.post(RESULTS, body, format="json"), 400, "already_recorded")
    assert counts() == before
    r = client.post(RESULTS, {"round": 3, "player": 1, "score": 1, "opp_score": 2}, format="json")
    refused(r, 400, "player_not_paired", "player")
    assert counts() == before


def test_a_scorekeeper_may_write_results(event, django_user_model):
    t, d = event
    keeper = django_user_model.objects.create_user("keeper", password="pw-long-enough-1")
    t.scorekeepers.add(keeper)
    client = token_client(keeper)
    r = client.post(
        RESULTS, {"round": 2, "player": 1, "score": 400, "opp_score": 350}, format="json"
    )
    assert r.status_code == 201, r.content
    audits = AuditEvent.objects.count()
    r = client.post(
        CORRECTIONS,
        {"round": 2, "player": 1, "score": 401, "opp_score": 350, "reason": "misread the card"},
        format="json",
    )
    assert r.status_code == 200, r.content
    assert (r.json()["score1"], r.json()["score2"]) == (401, 350)
    assert AuditEvent.objects.count() == audits + 1
    latest = AuditEvent.objects.latest("pk")
    assert (latest.action, latest.reason) == ("correct_result", "misread the card")


@pytest.mark.parametrize("reason", [None, "", "   "])
def test_a_correction_without_a_reason_is_refused(event, director, reason):
    body = {"round": 1, "player": 1, "score": 430, "opp_score": 380}
    if reason is not None:
        body["reason"] = reason
    before = counts()
    refused(
        token_client(director).post(CORRECTIONS, body, format="json"),
        400,
        "reason_needed",
        "reason",
    )
    assert counts() == before


def test_malformed_json_is_refused(event, director):
    before = counts()
    r = token_client(director).post(
        RESULTS, '{"round": 2, "player":', content_type="application/json"
    )
    refused(r, 400, "malformed_json")
    assert counts() == before


def test_an_unknown_field_is_refused(event, director):
    before = counts()
    r = token_client(director).post(
        RESULTS, {"round": 2, "player": 1, "score": 400, "opp_scroe": 300}, format="json"
    )
    refused(r, 400, "unknown_field", "opp_scroe")
    assert counts() == before


@pytest.mark.parametrize(
    "body, field",
    [
        ({"round": "2", "player": 1, "score": 400, "opp_score": 300}, "round"),
        ({"round": 2, "player": True, "score": 400, "opp_score": 300}, "player"),
        ({"round": 2, "player": 1, "score": 40.5, "opp_score": 300}, "score"),
        ({"round": 2, "player": 1, "score": 400, "opp_score": [300]}, "opp_score"),
        ({"round": 2, "player": 1, "score": 10**40, "opp_score": 300}, "score"),
        ([1, 2], ""),
    ],
)
def test_a_wrong_type_is_refused(event, director, body, field):
    before = counts()
    r = token_client(director).post(RESULTS, body, format="json")
    refused(r, 400, "wrong_type", field)
    assert counts() == before


def test_a_missing_field_and_bad_scores_are_refused_at_their_fields(event, director):
    client = token_client(director)
    before = counts()
    refused(
        client.post(RESULTS, {"round": 2, "score": 400}, format="json"),
        400,
        "field_required",
        "player",
    )
    r = client.post(RESULTS, {"round": 2, "player": 1, "score": 400}, format="json")
    refused(r, 400, "both_scores_needed", "opp_score")
    r = client.post(RESULTS, {"round": 2, "player": 9, "score": 400, "opp_score": 1}, format="json")
    assert r.status_code == 400
    assert counts() == before


def test_unknown_division_or_tournament_is_404(event, director):
    client = token_client(director)
    body = {"round": 2, "player": 1, "score": 400, "opp_score": 300}
    refused(
        client.post("/api/v1/tournaments/api-open/divisions/zz/results/", body, format="json"),
        404,
        "not_found",
    )
    refused(
        client.post("/api/v1/tournaments/nope/divisions/a/results/", body, format="json"),
        404,
        "not_found",
    )


def test_method_and_media_type_refusals_keep_the_shape(event, director):
    client = token_client(director)
    refused(client.get(RESULTS), 405, "method_not_allowed")
    refused(
        client.post(RESULTS, "round=2", content_type="application/x-www-form-urlencoded"),
        415,
        "unsupported_media_type",
    )
    refused(APIClient().delete("/api/v1/tournaments/api-open/"), 401, "not_authenticated")


def test_throttled_requests_get_429_in_the_shape(event, settings):
    from rest_framework.throttling import AnonRateThrottle

    rates = {"anon": "2/minute", "user": "2/minute"}
    original = AnonRateThrottle.THROTTLE_RATES
    AnonRateThrottle.THROTTLE_RATES = rates
    try:
        client = APIClient()
        for _ in range(2):
            assert client.get("/api/v1/rating-lists/").status_code == 200
        r = client.get("/api/v1/rating-lists/")
        err = refused(r, 429, "throttled")
        assert err["params"]["wait"] >= 1
        assert int(r["Retry-After"]) >= 1
    finally:
        AnonRateThrottle.THROTTLE_RATES = original
