"""/console/api-token/: a token issued (shown once) works on the API; revoked, it does not."""

from __future__ import annotations

import re

from django.test import Client
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

URL = "/console/api-token/"
BODY = {"round": 2, "player": 1, "score": 400, "opp_score": 300}
RESULTS = "/api/v1/tournaments/api-open/divisions/a/results/"


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_anonymous_is_sent_to_sign_in(db):
    r = Client().get(URL)
    assert r.status_code == 302
    assert r["Location"].startswith("/accounts/login/")
    assert Client().post(URL, {"action": "issue"}).status_code == 302
    assert Token.objects.count() == 0


def test_issue_shows_the_key_once_and_it_writes_then_revoke_stops_it(event, director):
    page = signed_in(director)
    assert "no API token" in page.get(URL).content.decode()
    r = page.post(URL, {"action": "issue"})
    assert r.status_code == 200
    key = re.search(r'id="api-token-key"[^>]*>([0-9a-f]{40})<', r.content.decode()).group(1)
    assert Token.objects.get(user=director).key == key
    assert key not in page.get(URL).content.decode()  # shown once only
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    assert api.post(RESULTS, BODY, format="json").status_code == 201
    r = page.post(URL, {"action": "revoke"})
    assert 'id="api-token-revoked"' in r.content.decode()
    assert Token.objects.filter(user=director).count() == 0
    refused = api.post(RESULTS, {**BODY, "round": 1}, format="json")
    assert refused.status_code == 401


def test_issuing_again_replaces_the_old_key(event, director):
    page = signed_in(director)
    page.post(URL, {"action": "issue"})
    first = Token.objects.get(user=director).key
    page.post(URL, {"action": "issue"})
    assert Token.objects.get(user=director).key != first
    assert Token.objects.filter(user=director).count() == 1


def test_an_unknown_action_is_400_and_changes_nothing(event, director):
    page = signed_in(director)
    r = page.post(URL, {"action": "explode"})
    assert r.status_code == 400
    assert "choose issue or revoke" in r.content.decode()
    assert Token.objects.count() == 0


def test_a_scorekeepers_token_carries_only_their_permissions(event, django_user_model):
    from tournament import services

    t, d = event
    keeper = django_user_model.objects.create_user("keeper2", password="pw-long-enough-1")
    other = services.create_tournament(name="Elsewhere", slug="elsewhere")
    other.scorekeepers.add(keeper)
    page = signed_in(keeper)
    key = re.search(
        r'id="api-token-key"[^>]*>([0-9a-f]{40})<',
        page.post(URL, {"action": "issue"}).content.decode(),
    ).group(1)
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    assert api.post(RESULTS, BODY, format="json").status_code == 403


def test_the_page_says_what_a_directors_token_does_and_it_does_it(event, director):
    """The page once said a token records results "nothing more", while the manual (docs/api.md)
    and the API let a director's token pair and register: the page names each, and a
    registration proves it."""
    page = signed_in(director)
    words = " ".join(page.get(URL).content.decode().split())
    assert "nothing more" not in words
    for power in ("records and corrects results", "pairs rounds", "registers", "revoke it"):
        assert power in words, power
    page.post(URL, {"action": "issue"})
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.get(user=director).key}")
    r = api.post(
        "/api/v1/tournaments/api-open/divisions/a/entries/",
        {"name": "Eve, Ed", "rating": 1400},
        format="json",
    )
    assert r.status_code == 201, r.content
