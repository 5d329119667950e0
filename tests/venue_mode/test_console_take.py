"""Venue mode from the laptop's console (issue 23): a tournament is taken with the hosted
site's address and the link's token in the browser, so ``serve_demo`` and a browser are
enough; bad input (a wrong address, a site that cannot be reached, an unknown or revoked
token) is answered with a clear message and takes nothing; the link's state refreshes by
htmx.

The hosted site is this test's own database, reached through its real door (the test client)
with the downloaded tournament renamed, as both sides share the database here.
"""

from __future__ import annotations

import socket

import pytest
from django.contrib.auth import get_user_model

from tournament.errors import ServiceError
from tournament.models import AuditEvent, Tournament, VenueLink, VenueTake
from tournament.services import venue
from tournament.services.staff import grant_create_tournaments
from tournament.sync import client as sync_client

from .test_link import STATE, auth, event

pytestmark = pytest.mark.django_db

TAKE = "/console/venue/take/"


@pytest.fixture
def laptop(client, monkeypatch):
    """The venue's director signed in, and the hosted site's download door wired in."""
    user = get_user_model().objects.create_user("venue-td", "td@example.org", "pw-long-enough-1")
    grant_create_tournaments(user, actor="test")
    client.force_login(user)

    def fetch_state(base, token):
        answer = client.get(STATE, **auth(token))
        if answer.status_code != 200:
            error = answer.json()["errors"][0]
            raise ServiceError(
                "venue_refused",
                url=base,
                detail=error["message"],
                remote=error["code"],
                remote_params=error.get("params") or {},
            )
        state = answer.json()
        state["tournament"] = "venue-" + state["tournament"]
        return state

    monkeypatch.setattr(sync_client, "fetch_state", fetch_state)
    return user


def nothing_taken(before: int) -> None:
    assert Tournament.objects.count() == before
    assert not VenueTake.objects.exists()


def test_the_console_takes_a_tournament_and_its_page_shows_the_link(client, laptop):
    hosted, _d = event("Console Take Open")
    _link, token = venue.create_link("test", hosted, "Hall B")
    answer = client.post(TAKE, {"url": "http://hosted.example/", "token": token}, follow=True)
    assert answer.status_code == 200, answer.content
    page = answer.content.decode()
    assert "Console Take Open taken from http://hosted.example: 1 divisions, 4 players" in page
    local = Tournament.objects.get(slug="venue-" + hosted.slug)
    assert local.directors.filter(pk=laptop.pk).exists()
    assert AuditEvent.objects.filter(tournament=local, action="venue_take").count() == 1
    # the link's state refreshes itself by htmx, and a later failure shows on the next read
    assert 'hx-trigger="every 5s"' in page and 'hx-select="#venue-link-live"' in page
    venue.note_push_error(VenueTake.objects.get(tournament=local), "the hosted site is down")
    again = client.get(f"/t/{local.slug}/console/venue-mode/", HTTP_HX_REQUEST="true")
    assert "the hosted site is down" in again.content.decode()
    # the tournaments page offers the take
    assert TAKE in client.get("/console/").content.decode()


@pytest.mark.parametrize(
    "url, words",
    [
        ("hosted.example", "is not a hosted site&#x27;s address"),
        ("ftp://hosted.example", "is not a hosted site&#x27;s address"),
        ("", "is not a hosted site&#x27;s address"),
    ],
)
def test_a_wrong_address_is_refused_and_takes_nothing(client, laptop, url, words):
    hosted, _d = event("Wrong Address Open")
    _link, token = venue.create_link("test", hosted, "Hall B")
    before = Tournament.objects.count()
    answer = client.post(TAKE, {"url": url, "token": token})
    assert answer.status_code == 400 and words in answer.content.decode()
    nothing_taken(before)
    assert VenueLink.objects.get(tournament=hosted).taken is None  # the hosted side untouched


def test_an_unreachable_site_is_refused_and_takes_nothing(client, laptop, monkeypatch):
    monkeypatch.undo()  # the real HTTP client, to a port nobody listens on
    client.force_login(laptop)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    before = Tournament.objects.count()
    answer = client.post(TAKE, {"url": f"http://127.0.0.1:{port}", "token": "gv_x"})
    page = answer.content.decode()
    assert answer.status_code == 400 and f"http://127.0.0.1:{port} cannot be reached" in page
    nothing_taken(before)


def test_an_unknown_missing_or_revoked_token_is_refused_and_takes_nothing(client, laptop):
    hosted, _d = event("Revoked Open")
    _link, token = venue.create_link("test", hosted, "Hall B")
    venue.reclaim("test", hosted)
    before = Tournament.objects.count()
    revoked = client.post(TAKE, {"url": "http://hosted.example", "token": token})
    assert revoked.status_code == 400 and "was revoked on" in revoked.content.decode()
    unknown = client.post(TAKE, {"url": "http://hosted.example", "token": "gv_nobody"})
    assert unknown.status_code == 400 and "token is not known" in unknown.content.decode()
    missing = client.post(TAKE, {"url": "http://hosted.example", "token": "  "})
    assert missing.status_code == 400 and "token is needed" in missing.content.decode()
    nothing_taken(before)


def test_only_an_account_that_may_create_tournaments_takes_one(client):
    user = get_user_model().objects.create_user("nobody", "n@example.org", "pw-long-enough-1")
    client.force_login(user)
    assert client.get(TAKE).status_code == 403
    assert client.post(TAKE, {"url": "http://hosted.example", "token": "x"}).status_code == 403
    assert not VenueTake.objects.exists()


def test_the_command_refuses_a_wrong_address_too():
    from io import StringIO

    from django.core.management import call_command

    from tournament.management.base import CommandFailure

    with pytest.raises(CommandFailure) as failure:
        call_command("venue_take", "nowhere", "gv_x", stdout=StringIO())
    assert failure.value.code == "venue_bad_url"
