"""No link's token reaches the server log (issue 31, item 5e).

Every route whose URL carries a secret (a self-entry link, an online entry's page and its
confirmation, an unsubscribe link, a sign-up's confirmation, a staff invite, a club's join
link, a weekend's confirmation, a password reset) is requested, and what the site's own
handlers (settings.LOGGING, as configured at start-up) write is read back: the 4xx lines
Django logs and the development server's request lines. The token never appears; the route
does, with ``<link>`` in the token's place.
"""

from __future__ import annotations

import io
import logging
from collections.abc import Iterator

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db

TOKEN = "Zq7-Hs2_kP9wLm4xTe6vBn"  # as secrets.token_urlsafe(16) makes them
SIGNED = "MTI:1tQx2v:Xq8s7-hFqZ0pW1c"  # a signed token (django.core.signing): colons too

# the route as the site serves it -> the same route as the log may show it
ROUTES = {
    f"/e/{TOKEN}/": "/e/<link>/",
    f"/e/{TOKEN}/report/": "/e/<link>/report/",
    f"/e/{TOKEN}/check-in/": "/e/<link>/check-in/",
    f"/entry/{TOKEN}/": "/entry/<link>/",
    f"/entry/{TOKEN}/withdraw/": "/entry/<link>/withdraw/",
    f"/entry/confirm/{TOKEN}/": "/entry/confirm/<link>/",
    f"/notices/unsubscribe/{TOKEN}/": "/notices/unsubscribe/<link>/",
    f"/accounts/signup/confirm/{SIGNED}/": "/accounts/signup/confirm/<link>/",
    f"/accounts/invite/{TOKEN}/": "/accounts/invite/<link>/",
    f"/accounts/reset/MQ/{TOKEN}/": "/accounts/reset/MQ/<link>/",
    f"/clubs/join/{TOKEN}/": "/clubs/join/<link>/",
    f"/weekends/spring-fling/confirm/{SIGNED}/": "/weekends/spring-fling/confirm/<link>/",
}


@pytest.fixture
def site_log() -> Iterator[io.StringIO]:
    """What the handlers the site configured write (the console's and the development
    server's), each still with its own filters and formatter."""
    stream = io.StringIO()
    handlers = [
        *logging.getLogger().handlers,
        *logging.getLogger("django.server").handlers,
    ]
    ours = [  # the site's, not pytest's own capture
        h
        for h in handlers
        if type(h) is logging.StreamHandler and not type(h).__module__.startswith("_pytest")
    ]
    assert len(ours) >= 2, handlers  # the console's and the development server's
    saved = [(h, h.setStream(stream)) for h in ours]
    levels = {name: logging.getLogger(name).level for name in ("", "django.request")}
    logging.getLogger("django.request").setLevel(logging.WARNING)
    yield stream
    for h, old in saved:
        h.setStream(old)
    for name, level in levels.items():
        logging.getLogger(name).setLevel(level)


@pytest.mark.parametrize("path", sorted(ROUTES))
def test_a_refused_link_is_logged_without_its_token(site_log, path):
    client = Client(raise_request_exception=False)
    for method in (client.get, client.post):
        answer = method(path, {"round": "x"})
        # the development server's line for the same request, as runserver writes it
        logging.getLogger("django.server").info(
            '"%s" %s %s',
            f"{method.__name__.upper()} {path} HTTP/1.1",
            str(answer.status_code),
            "512",
            extra={"request": None, "server_time": "29/Nov/2026 10:00:00"},
        )
    written = site_log.getvalue()
    assert TOKEN not in written and SIGNED not in written, written
    assert f"{ROUTES[path]} HTTP/1.1" in written, written


def test_absolute_links_and_other_paths(settings):
    from tournament.logfilters import hide_links

    assert hide_links(f"mailed https://gibson.example.org/e/{TOKEN}/ to Ann") == (
        "mailed https://gibson.example.org/e/<link>/ to Ann"
    )
    # a division slug "e", a reset's next step and the public pages are no tokens
    for path in ("/t/open/e/standings/", "/accounts/reset/MQ/set-password/", "/entry/"):
        assert hide_links(f"Not Found: {path}") == f"Not Found: {path}"
