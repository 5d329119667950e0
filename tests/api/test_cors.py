"""CORS: anonymous API reads carry ``Access-Control-Allow-Origin: *`` (a club's website reads
its public ladder from the browser); credentialed requests and writes carry none."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db

URL = "/api/v1/clubs/"


def test_anonymous_reads_are_open_to_other_origins():
    seen = APIClient().get(URL, HTTP_ORIGIN="https://club.example.org")
    assert seen.status_code == 200
    assert seen["Access-Control-Allow-Origin"] == "*"
    assert "ETag" in seen["Access-Control-Expose-Headers"]


def test_signed_in_and_token_requests_get_no_cors_header():
    user = get_user_model().objects.create_user("td", "td@example.org", "pw-long-enough-1")
    client = APIClient()
    client.force_login(user)
    assert "Access-Control-Allow-Origin" not in client.get(URL)
    seen = APIClient().get(URL, HTTP_AUTHORIZATION="Token nonsense")
    assert "Access-Control-Allow-Origin" not in seen


def test_writes_get_no_cors_header():
    seen = APIClient().post("/api/v1/tournaments/", {}, format="json")
    assert "Access-Control-Allow-Origin" not in seen


def test_pages_outside_the_api_get_none():
    assert "Access-Control-Allow-Origin" not in APIClient().get("/")
