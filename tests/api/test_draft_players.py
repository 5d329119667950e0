"""/api/v1/players/ID/ shows what the public profile shows: a player seen only in draft
tournaments is unknown (404), as on /players/ID/ (issue "Authority in one place")."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from tournament import services

pytestmark = pytest.mark.django_db


def test_a_draft_only_player_is_not_found_until_the_tournament_is_published():
    t = services.create_tournament(name="Draft Open")
    d = services.create_division(t, name="A")
    player = services.register_player(d, name="Hidden, Hal", rating=1500).player
    services.publish_tournament(t, False, actor="td")  # back to a draft
    seen = APIClient().get(f"/api/v1/players/{player.pk}/")
    assert seen.status_code == 404
    assert b"Hidden" not in seen.content
    assert APIClient().get(f"/players/{player.pk}/").status_code == 404
    services.publish_tournament(t, True, actor="td")
    assert APIClient().get(f"/api/v1/players/{player.pk}/").status_code == 200
