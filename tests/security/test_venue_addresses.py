"""The venue "take" page fetches only a hosted site on the internet (issue 31, item 5g).

The laptop's server requests the address a director types; it must not become a way to
reach what only the server reaches (itself, its network, a cloud's metadata address). A
non-public address is refused before anything is sent, and the address actually connected
to is checked again, so neither a name that resolves anew nor a redirect gets round it;
GIBSON_VENUE_ALLOW_PRIVATE (settings.VENUE_ALLOW_PRIVATE_ADDRESSES) lets a site on the
venue's own network through. Only loopback servers of this test are ever contacted.
"""

from __future__ import annotations

import http.client
import http.server
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from django.contrib.auth import get_user_model

from tournament.errors import ServiceError
from tournament.models import Tournament, VenueTake
from tournament.services.staff import grant_create_tournaments
from tournament.sync import client as sync_client
from tournament.sync.take import take_from_hosted

pytestmark = pytest.mark.django_db

TAKE = "/console/venue/take/"
GIBSON_STATE = {"tournament": "x", "divisions": []}


@contextmanager
def loopback_site(host: str, redirect_to: str = "") -> Iterator[tuple[str, list[str]]]:
    """A tiny HTTP server on ``host`` (a loopback address): answers like a Gibson site's state
    door, or redirects; yields its URL and the paths it was asked for."""
    asked: list[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            asked.append(self.path)
            if redirect_to:
                self.send_response(302)
                self.send_header("Location", redirect_to + self.path)
                self.end_headers()
                return
            body = json.dumps(GIBSON_STATE).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer((host, 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://{host}:{server.server_address[1]}", asked
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def laptop(client):
    user = get_user_model().objects.create_user("venue-td", "td@example.org", "pw-long-enough-1")
    grant_create_tournaments(user, actor="test")
    client.force_login(user)
    return client


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:8000",
        "http://localhost",
        "http://[::1]:8000",
        "http://10.1.2.3",
        "http://192.168.0.10",
        "http://169.254.169.254",  # a cloud's metadata address
        "http://[fe80::1%25lo]",
        "http://0.0.0.0",
        "http://[::ffff:127.0.0.1]",
    ],
)
def test_a_local_or_private_address_is_refused_before_anything_is_sent(laptop, monkeypatch, url):
    connected: list[object] = []

    def no_connection(address, *args, **kwargs):
        # were the check ever lost, this test still sends nothing to any of these addresses
        connected.append(address)
        raise OSError("the test allows no connection")

    monkeypatch.setattr(http.client.socket, "create_connection", no_connection)
    before = Tournament.objects.count()
    answer = laptop.post(TAKE, {"url": url, "token": "gv_x"})
    page = answer.content.decode()
    assert connected == []
    assert answer.status_code == 400
    assert "an address of this machine or its local network" in page
    assert "GIBSON_VENUE_ALLOW_PRIVATE" in page
    assert Tournament.objects.count() == before and not VenueTake.objects.exists()


def test_a_real_loopback_site_is_not_asked(laptop):
    with loopback_site("127.0.0.1") as (url, asked):
        answer = laptop.post(TAKE, {"url": url, "token": "gv_x"})
    assert answer.status_code == 400
    assert "an address of this machine or its local network" in answer.content.decode()
    assert asked == []


def test_only_http_and_https(laptop):
    for url in ("file:///etc/passwd", "ftp://127.0.0.1/", "gopher://example.org/"):
        answer = laptop.post(TAKE, {"url": url, "token": "gv_x"})
        assert answer.status_code == 400
        assert "is not a hosted site" in answer.content.decode()


def test_the_connected_address_is_checked_too(monkeypatch):
    """A name checked as public that connects elsewhere (DNS answering anew) is refused at the
    socket, before the request is sent."""
    monkeypatch.setattr(sync_client, "check_host", lambda url: None)  # the first look passed
    with loopback_site("127.0.0.1") as (url, asked):
        with pytest.raises(ServiceError) as refused:
            take_from_hosted(url, "gv_x")
    assert refused.value.code == "venue_private_address"
    assert asked == []


def test_a_redirect_to_a_local_address_is_refused(monkeypatch):
    """127.0.0.2 plays a public site here (and only it): it redirects to 127.0.0.1."""
    monkeypatch.setattr(sync_client, "public_address", lambda address: address == "127.0.0.2")
    with loopback_site("127.0.0.1") as (inside, inside_asked):
        with loopback_site("127.0.0.2", redirect_to=inside) as (outside, outside_asked):
            with pytest.raises(ServiceError) as refused:
                take_from_hosted(outside, "gv_x")
    assert refused.value.code == "venue_private_address"
    assert outside_asked == ["/api/v1/venue/state/"] and inside_asked == []


def test_the_setting_lets_a_site_on_the_venues_network_through(settings):
    """With the setting on, the same loopback site is asked and answers as a Gibson site (an
    empty tournament, refused as such by the take, after the fetch)."""
    settings.VENUE_ALLOW_PRIVATE_ADDRESSES = True
    with loopback_site("127.0.0.1") as (url, asked):
        assert sync_client.fetch_state(url, "gv_x") == GIBSON_STATE
    assert asked == ["/api/v1/venue/state/"]


@pytest.mark.parametrize(
    "address, public",
    [
        ("8.8.8.8", True),
        ("2001:4860:4860::8888", True),
        ("100.64.0.1", False),  # carrier-grade NAT
        ("224.0.0.1", False),
        ("::ffff:10.0.0.1", False),
        ("fd00::1", False),
    ],
)
def test_what_counts_as_public(address, public):
    assert sync_client.public_address(address) is public
