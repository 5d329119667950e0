"""Acceptance of the live stream in a real browser: a result typed on the console shows on an
open standings page and an open overlay within a second, with no reload; after the stream's
server restarts, the pages catch up on the result written while it was down (EventSource
reconnects with Last-Event-ID). Debian's chromium through Playwright (skipped without)."""

from __future__ import annotations

import copy
import time

import pytest

from tests.core.browser import BROWSER_MARKS
from tests.core.conftest import browser, make_director  # noqa: F401 (browser: a fixture)
from tests.web.test_live_stream import free_port
from tournament.services.broadcast import feature_boards
from tournament.stream import StreamThread

pytestmark = [*BROWSER_MARKS, pytest.mark.slow(seconds=20)]

MARK = "() => { window.__notReloaded = true; }"


@pytest.fixture(autouse=True)
def fast_passwords(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def stream(settings):
    """The stream on a port of its own, which the pages are told about (as ``serve --stream``
    tells them) and their security policy allows."""
    port = free_port()
    settings.GIBSON_STREAM_URL = f":{port}"
    policy = copy.deepcopy(settings.CONTENT_SECURITY_POLICY)
    policy["DIRECTIVES"]["connect-src"] = ["'self'", f"*:{port}"]
    settings.CONTENT_SECURITY_POLICY = policy
    server = StreamThread("127.0.0.1", port).start()
    holder = {"server": server, "port": port}
    yield holder
    holder["server"].stop()


def _type_line(page, line: str) -> None:
    page.fill("#id_line", line)
    page.keyboard.press("Enter")
    page.wait_for_function(
        "(line) => { const e = document.querySelector('#answer .echo');"
        " return e && e.dataset.line === line; }",
        arg=line,
        timeout=10_000,
    )


def _open(browser, url: str, errors: list[str]):  # noqa: F811
    page = browser.new_context(viewport={"width": 1920, "height": 1080}).new_page()
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(url)
    page.wait_for_function("() => document.documentElement.dataset.live === 'open'", timeout=10_000)
    page.evaluate(MARK)
    return page


def test_a_console_result_reaches_open_pages_at_once_and_after_a_restart(
    live_server,
    browser,  # noqa: F811
    event,
    stream,
):
    t, d = event
    make_director(t, "live-td")
    feature_boards(t, [("A", "1")], actor="cmd")  # round 2 board 1: #1 Able v #4 Dunn
    errors: list[str] = []
    standings = _open(browser, f"{live_server.url}/t/{t.slug}/{d.slug}/standings/", errors)
    overlay = _open(browser, f"{live_server.url}/t/{t.slug}/broadcast/board/1/", errors)
    assert ">vs<" in overlay.content()

    console = browser.new_page()
    results = f"{live_server.url}/t/{t.slug}/console/{d.slug}/round/2/results/"
    console.goto(results)
    console.fill("#id_username", "live-td")
    console.fill("#id_password", "pw-long-enough-1")
    console.click("main button[type=submit]")
    console.wait_for_url(results)

    _type_line(console, "1 400 300")
    written = time.monotonic()
    overlay.wait_for_function(
        "() => document.querySelector('[data-score]').textContent.includes('400–300')",
        timeout=5_000,
    )
    standings.wait_for_function(
        "() => document.querySelector('#standings').textContent.includes('+140')", timeout=5_000
    )
    took = time.monotonic() - written
    print(f"result on the standings page and the overlay {took:.2f} s after the console's echo")
    assert took < 1.0
    assert overlay.evaluate("() => window.__notReloaded")
    assert standings.evaluate("() => window.__notReloaded")

    # the stream's server goes down; a result is written meanwhile; the server comes back
    stream["server"].stop()
    standings.wait_for_function("() => document.documentElement.dataset.live === 'closed'")
    _type_line(console, "2 410 390")  # #2 Baker beats #3 Cole: Cole -60 -> -80
    stream["server"] = StreamThread("127.0.0.1", stream["port"]).start()
    back = time.monotonic()
    standings.wait_for_function(
        "() => document.querySelector('#standings').textContent.includes('-80')", timeout=8_000
    )
    caught_up = time.monotonic() - back
    print(f"caught up {caught_up:.2f} s after the restart")
    assert caught_up < 5  # the stream's reconnect (1 s), not the 15 s poll
    assert standings.evaluate("() => window.__notReloaded")
    assert not [e for e in errors if "Content Security Policy" in e], errors
