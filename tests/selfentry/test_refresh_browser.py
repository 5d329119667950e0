"""A player's open self-entry page follows their opponent (issue 31, "players on phones"): in a
real headless chromium, the page showing the player's own report is loaded again, showing
the recorded game, when the opponent confirms and the phone comes back to the page (the
15-second poll does the same without the phone's help). Skipped, with the reason, without
chromium or Playwright."""

from __future__ import annotations

from tests.core.browser import BROWSER_MARKS
from tests.core.conftest import browser  # noqa: F401  (the fixture)
from tournament.models import PendingResult
from tournament.services.selfentry import confirm_report, report_own_result

from .conftest import build_event, token

pytestmark = BROWSER_MARKS


def test_the_page_shows_the_result_once_the_opponent_confirms(live_server, browser):  # noqa: F811
    t, d = build_event()
    report_own_result(token(d, 1), 412, 380)
    phone = browser.new_page(viewport={"width": 360, "height": 740})
    errors: list[str] = []
    phone.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    phone.goto(f"{live_server.url}/e/{token(d, 1)}/")
    phone.wait_for_selector("#my-report")
    phone.wait_for_function("() => window.htmx !== undefined")
    # nothing changed: the page asks and stays as it is
    phone.evaluate("window.dispatchEvent(new Event('focus'))")
    phone.wait_for_timeout(500)
    assert phone.locator("#my-report").count() == 1
    pending = PendingResult.objects.get(reporter__division=d, reporter__number=1).pk
    confirm_report(token(d, 2), pending)  # the opponent, from their own phone
    phone.evaluate("window.dispatchEvent(new Event('focus'))")  # back to the page
    phone.wait_for_selector("#all-scored", timeout=10_000)
    assert "412" in phone.locator('tr[data-round="1"]').inner_text()
    assert phone.url == f"{live_server.url}/e/{token(d, 1)}/"
    assert not [e for e in errors if "Content Security Policy" in e], errors
