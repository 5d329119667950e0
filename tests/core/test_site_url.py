"""Printed cards point where players' phones reach the site, and the director keeps signing in.

Issue 17 item 6 (printing): ``serve_demo --addr HOST:PORT`` with a concrete host and no
GIBSON_SITE_URL puts that address in every scorecard QR code; a site served to the room with a
loopback site URL says so at start and on the desk. Item 7: a restart keeps the director's
password (and session) unless ``--new-password`` asks for a new one.
"""

from __future__ import annotations

import io

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command

from tournament.demo import DEMO_SLUG, ensure_director
from tournament.models import Entry
from tournament.reports import scorecards
from tournament.siteurl import is_loopback, site_url_from_addr, unreachable_warning

pytestmark = pytest.mark.django_db


@pytest.fixture
def clean_env(monkeypatch, settings, tmp_path):
    """serve_demo changes the process environment and settings: put both back afterwards."""
    monkeypatch.delenv("GIBSON_SITE_URL", raising=False)
    monkeypatch.delenv("GIBSON_LISTEN_ADDR", raising=False)
    monkeypatch.delenv("GIBSON_DEMO_PASSWORD", raising=False)
    monkeypatch.delenv("GIBSON_ALLOWED_HOSTS", raising=False)
    settings.SITE_URL = "http://127.0.0.1:8000"
    settings.LISTEN_ADDR = ""
    settings.DATA_DIR = tmp_path
    return monkeypatch


def _serve_demo(*args: str) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command("serve_demo", "--no-serve", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


@pytest.mark.parametrize(
    ("addr", "url"),
    [
        ("192.168.7.9:8123", "http://192.168.7.9:8123"),
        ("gibson.local:80", "http://gibson.local:80"),
        ("[fe80::1]:8000", "http://[fe80::1]:8000"),
        ("0.0.0.0:8000", None),
        ("[::]:8000", None),
    ],
)
def test_site_url_from_a_concrete_address_only(addr, url):
    assert site_url_from_addr(addr) == url


@pytest.mark.parametrize(
    ("listen", "site", "warned"),
    [
        ("0.0.0.0:8000", "http://127.0.0.1:8000", True),
        ("192.168.7.9:8000", "http://localhost:8000", True),
        ("[::]:8000", "http://[::1]:8000", True),
        ("127.0.0.1:8000", "http://127.0.0.1:8000", False),
        ("localhost:8000", "http://127.0.0.1:8000", False),
        ("0.0.0.0:8000", "http://192.168.7.9:8000", False),
        ("", "http://127.0.0.1:8000", False),
    ],
)
def test_warning_only_when_the_room_is_served_a_loopback_url(listen, site, warned):
    warning = unreachable_warning(listen, site)
    assert (warning is not None) == warned
    if warned:
        assert site in warning and "phones" in warning
    assert is_loopback("127.0.0.5") and not is_loopback("10.0.0.1")


def test_scorecards_from_a_non_default_address_carry_it_in_every_qr(clean_env, client):
    out, err = _serve_demo("--addr", "192.168.7.9:8123")
    assert settings.SITE_URL == "http://192.168.7.9:8123"
    assert "Scorecard QR codes open http://192.168.7.9:8123" in out
    assert "WARNING" not in err
    assert "192.168.7.9" in settings.ALLOWED_HOSTS  # phones opening the cards are answered
    payloads: list[str] = []
    original = scorecards.draw_qr

    def recording(c, data, *args, **kwargs):
        payloads.append(data)
        return original(c, data, *args, **kwargs)

    clean_env.setattr(scorecards, "draw_qr", recording)
    client.force_login(get_user_model().objects.get(username="director"))
    pdf = client.get(f"/t/{DEMO_SLUG}/desk/a/report.pdf?kind=scorecards")
    assert pdf.status_code == 200 and pdf["Content-Type"] == "application/pdf"
    entries = Entry.objects.filter(division__tournament__slug=DEMO_SLUG, division__name="A")
    assert len(payloads) == entries.count() > 0
    assert all(p.startswith("http://192.168.7.9:8123/e/") for p in payloads), payloads[:3]
    desk = client.get(f"/t/{DEMO_SLUG}/desk/", HTTP_HOST="192.168.7.9:8123")
    assert b"Scorecard QR codes open http://192.168.7.9:8123" in desk.content
    assert b'class="site-url-warning"' not in desk.content


def test_given_site_url_wins_over_the_address(clean_env):
    clean_env.setenv("GIBSON_SITE_URL", "https://gibson.example.org")
    settings.SITE_URL = "https://gibson.example.org"
    out, _ = _serve_demo("--addr", "192.168.7.9:8123")
    assert settings.SITE_URL == "https://gibson.example.org"
    assert "Scorecard QR codes open https://gibson.example.org" in out


def test_room_wide_address_with_loopback_url_is_said_at_start_and_on_the_desk(clean_env, client):
    _, err = _serve_demo("--addr", "0.0.0.0:8123")
    assert settings.SITE_URL == "http://127.0.0.1:8000"  # a wildcard says nothing of the host
    assert "WARNING" in err and "would not open on players' phones" in err
    client.force_login(get_user_model().objects.get(username="director"))
    desk = client.get(f"/t/{DEMO_SLUG}/desk/", HTTP_HOST="127.0.0.1:8123")
    assert b'class="site-url-warning"' in desk.content
    assert b"would not open on players&#x27; phones" in desk.content


def test_desk_on_the_laptop_itself_has_no_warning(clean_env, client):
    _serve_demo("--addr", "127.0.0.1:8123")
    client.force_login(get_user_model().objects.get(username="director"))
    desk = client.get(f"/t/{DEMO_SLUG}/desk/", HTTP_HOST="127.0.0.1:8123")
    assert desk.status_code == 200
    assert b'class="site-url-warning"' not in desk.content


def test_restart_keeps_the_password_and_the_signed_in_director(clean_env, client):
    out, _ = _serve_demo()
    first = out.split("as director / ")[1].split()[0]
    user = get_user_model().objects.get(username="director")
    assert user.check_password(first)
    client.force_login(user)
    stored = user.password
    out, _ = _serve_demo()
    assert "password unchanged" in out and first not in out
    user.refresh_from_db()
    assert user.password == stored
    # still signed in: the session's password hash still matches
    assert client.get(f"/t/{DEMO_SLUG}/console/").status_code == 200
    out, _ = _serve_demo("--new-password")
    second = out.split("as director / ")[1].split()[0]
    user.refresh_from_db()
    assert second != first and user.check_password(second) and not user.check_password(first)
    assert client.get(f"/t/{DEMO_SLUG}/console/").status_code == 302  # signed out, as asked


def test_a_given_password_is_set_once_and_kept_after(clean_env):
    name, shown = ensure_director(password="given-password-9")
    assert shown == "given-password-9"
    stored = get_user_model().objects.get(username=name).password
    assert ensure_director(password="given-password-9") == (name, "given-password-9")
    assert get_user_model().objects.get(username=name).password == stored  # no new hash
    assert ensure_director() == (name, None)
