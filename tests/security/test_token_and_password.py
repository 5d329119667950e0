"""An API token ends with the password it was issued under (issue "Authority in one place":
a token survived a password change or reset, so whoever learnt the old password kept access)."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from rest_framework.authtoken.models import Token

from tournament.services.api_tokens import issue_api_token

pytestmark = pytest.mark.django_db


@pytest.fixture
def user():
    return get_user_model().objects.create_user("td", "td@example.org", "old-password-long-1")


def test_a_new_password_ends_the_token(user):
    issue_api_token(user)
    user.set_password("new-password-long-2")
    user.save()
    assert not Token.objects.filter(user=user).exists()


def test_other_saves_keep_it(user):
    key = issue_api_token(user)
    user.email = "new@example.org"
    user.save()
    user.last_login = None
    user.save(update_fields=["last_login"])
    assert Token.objects.get(user=user).key == key


def test_the_password_change_page_ends_it(client, user):
    key = issue_api_token(user)
    client.force_login(user)
    done = client.post(
        "/accounts/password/",
        {
            "old_password": "old-password-long-1",
            "new_password1": "another-password-long-3",
            "new_password2": "another-password-long-3",
        },
    )
    assert done.status_code == 302
    assert not Token.objects.filter(key=key).exists()
    api = client.get("/api/v1/tournaments/", HTTP_AUTHORIZATION=f"Token {key}")
    assert api.status_code == 401
