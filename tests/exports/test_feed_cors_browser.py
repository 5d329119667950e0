"""TSH's scoreboard on another origin keeps polling tourney.js, in a real headless chromium
(skipped, with the reason, without chromium or Playwright).

The scoreboard page is served by a small server of its own on another port (another origin on
the same machine: a browser keeps a page on a public address from reading a local one at all),
the feed by the live server. A poll with ``If-Modified-Since`` or ``If-None-Match`` is a
request the browser sends only after an ``OPTIONS`` preflight is answered; before the fix the
preflight got 405 and the poll failed as a network error, so the scoreboard froze.
"""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from pairings.services.store import PlannedGame, save_round_pairings
from tests.core.browser import BROWSER_MARKS
from tests.core.conftest import browser  # noqa: F401  (the fixture)
from tournament import services

pytestmark = BROWSER_MARKS

POLL = """async (url) => {
  const first = await fetch(url, {cache: "no-store"});
  const out = {first: first.status, since: first.headers.get("Last-Modified"),
               etag: first.headers.get("ETag")};
  try {
    const again = await fetch(url, {headers: {"If-Modified-Since": out.since}});
    out.again = again.status;
    const tagged = await fetch(url, {headers: {"If-None-Match": out.etag}});
    out.tagged = tagged.status;
  } catch (error) {
    out.error = String(error);
  }
  return out;
}"""


class _Board(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = b"<!doctype html><title>scoreboard</title>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args) -> None:  # quiet
        pass


@pytest.fixture
def scoreboard_origin():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Board)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_a_scoreboard_on_another_origin_polls_the_feed_conditionally(
    live_server,
    scoreboard_origin,
    browser,  # noqa: F811
):
    t = services.create_tournament(name="Cross Origin Open", published=True)
    d = services.create_division(t, name="A", rounds=2)
    for name in ("Able, Ann", "Baker, Bo"):
        services.register_player(d, name=name, rating=1500)
    save_round_pairings(d, 1, [PlannedGame(1, 2)])

    page = browser.new_page()
    logs: list[str] = []
    page.on("console", lambda m: logs.append(m.text))
    page.goto(f"{scoreboard_origin}/board.html")
    seen = page.evaluate(POLL, f"{live_server.url}/t/{t.slug}/tourney.js")
    assert seen["first"] == 200 and seen["since"], logs
    assert "error" not in seen, (seen, logs)  # the preflight was answered: the polls went out
    assert seen["etag"]  # exposed to the page, so it can send it back
    assert seen["again"] in (200, 304)  # 200 within the second the version was first served
    assert seen["tagged"] == 304
