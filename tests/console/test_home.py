"""Console home, round status and standings: who may see them and what they show."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command

from pairings.services.store import PlannedGame, save_round_pairings
from tests.core.conftest import make_director
from tournament import services
from tournament.models import AuditEvent

pytestmark = pytest.mark.django_db


@pytest.fixture
def event():
    t = services.create_tournament(name="Home Open", gibson=True)
    d = services.create_division(t, name="A", rounds=3)
    for name, rating in [("Ann", 1900), ("Bob", 1800), ("Cat", 1700), ("Dan", 1600)]:
        services.register_player(d, name=name, rating=rating)
    save_round_pairings(
        d, 1, [PlannedGame(1, 4, board=1), PlannedGame(2, 3, board=2)], system="manual"
    )
    return t, d


def _login(client, t, name="home-td"):
    user = make_director(t, name)
    client.force_login(user)
    return user


def test_one_division_with_a_round_in_play_opens_on_result_entry(client, event):
    t, d = event
    _login(client, t)
    response = client.get(f"/t/{t.slug}/console/")
    assert response.status_code == 302
    assert response["Location"] == f"/t/{t.slug}/console/a/round/1/results/"
    # ?stay=1 shows the overview instead
    page = client.get(f"/t/{t.slug}/console/", {"stay": 1})
    assert page.status_code == 200 and "Division" in page.content.decode()


def test_several_divisions_each_one_key_away(client, event):
    t, d = event
    services.create_division(t, name="B Lite", rounds=3)
    _login(client, t)
    body = client.get(f"/t/{t.slug}/console/").content.decode()
    assert 'data-key="1"' in body and 'data-key="2"' in body
    assert f"/t/{t.slug}/console/b-lite/" in body


def test_round_status_lists_missing_games_and_offers_undo(client, event):
    t, d = event
    _login(client, t)
    body = client.get(f"/t/{t.slug}/console/a/").content.decode()
    assert "2 games missing" in body
    assert "#1 Ann" in body and "#4 Dan" in body
    assert 'id="undo"' in body
    services.record_result(d, 1, 1, 400, 350)
    body = client.get(f"/t/{t.slug}/console/a/").content.decode()
    assert "1 game missing" in body and 'id="undo"' not in body
    assert "record_result" in body  # the audit trail's last actions


def test_console_standings_equal_the_command(client, event):
    t, d = event
    services.record_result(d, 1, 1, 400, 350)
    services.record_result(d, 1, 3, 420, 380)
    _login(client, t)
    body = client.get(f"/t/{t.slug}/console/a/standings/").content.decode()
    out = StringIO()
    call_command("standings", t.slug, "--division", "A", "--json", stdout=out)
    rows = json.loads(out.getvalue())
    rows = rows["rows"] if isinstance(rows, dict) else rows
    for row in rows:
        assert f'data-number="{row["number"]}"' in body
        sign = "+" if row["spread"] > 0 else ""
        assert f'data-spread="{row["spread"]}">{sign}{row["spread"]}<' in body


def test_bad_after_round_is_a_clear_400(client, event):
    t, d = event
    _login(client, t)
    for bad in ("9", "x", "²", "-1"):
        response = client.get(f"/t/{t.slug}/console/a/standings/", {"after": bad})
        assert response.status_code == 400, bad
        assert "give a round number from 0 to 1" in response.content.decode()


@pytest.mark.parametrize("path", ["", "a/", "a/standings/"])
def test_denials(client, event, path):
    t, d = event
    url = f"/t/{t.slug}/console/{path}"
    other = services.create_tournament(name="Other Open")
    before = AuditEvent.objects.count()
    anonymous = client.get(url)
    assert anonymous.status_code == 302 and anonymous["Location"].startswith("/accounts/login/")
    client.force_login(make_director(other, "other-td"))
    denied = client.get(url)
    assert denied.status_code == 403
    assert "only the directors and scorekeepers of Home Open" in denied.content.decode()
    assert AuditEvent.objects.count() == before


def test_scorekeeper_sees_the_console_but_no_director_links(client, event):
    from django.contrib.auth import get_user_model

    t, d = event
    keeper = get_user_model().objects.create_user("keeper", password="pw-long-enough-1")
    t.scorekeepers.add(keeper)
    client.force_login(keeper)
    body = client.get(f"/t/{t.slug}/console/a/").content.decode()
    assert "Division A" in body
    assert 'id="undo"' not in body and "Print &amp; export" not in body


def test_unknown_division_is_404_and_old_name_redirects(client, event):
    t, d = event
    services.create_division(t, name="Open B", rounds=3)
    _login(client, t)
    assert client.get(f"/t/{t.slug}/console/zzz/").status_code == 404
    response = client.get(f"/t/{t.slug}/console/Open B/")
    assert response.status_code == 301 and response["Location"] == f"/t/{t.slug}/console/open-b/"
