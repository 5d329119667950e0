"""A refusal answered to htmx lands where the person sees and hears it (issue 33).

base.html's htmx config swaps only 2xx and 400 answers; refusals.js swaps a refusal of any
status (409 here) into the page's #refusal region, a role="alert" that a screen reader reads
out. The refusal page and the page with the alert pass axe-core with no serious violation.
"""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from tests.a11y.test_axe import PHONE, _check
from tests.core.browser import BROWSER_MARKS
from tests.core.conftest import browser  # noqa: F401 (a fixture)
from tournament.clubs import services as club_services

pytestmark = BROWSER_MARKS
PW = "pw-long-enough-1"


@pytest.mark.slow(seconds=8)  # chromium: a sign-in, a page, an htmx post and axe-core twice
def test_an_htmx_refusal_shows_as_an_alert_on_the_page_and_passes_axe(live_server, browser):  # noqa: F811
    ann = get_user_model().objects.create_user("ann", password=PW)
    club = club_services.create_club(name="Riverside", actor=ann)
    season = club_services.create_season(
        club, name="Spring", start_date="2025-01-01", end_date="2025-06-30", actor=ann
    )
    page = browser.new_context(viewport=PHONE, bypass_csp=True).new_page()
    page.on("dialog", lambda dialog: dialog.accept())  # the archive button's hx-confirm
    found: list[str] = []
    wide: list[str] = []
    response = page.goto(live_server.url + "/t/no-such-event/")
    assert response is not None and response.status == 404
    assert page.locator("main h1").inner_text() == "Not found"
    _check(page, "refusal page", "/t/no-such-event/", found, wide)
    page.goto(live_server.url + "/accounts/login/")
    page.fill("#id_username", "ann")
    page.fill("#id_password", PW)
    page.locator("main button[type=submit], main input[type=submit]").first.click()
    page.wait_for_load_state()
    url = f"/clubs/{club.slug}/seasons/manage/"
    page.goto(live_server.url + url)
    assert page.locator("#refusal").inner_text() == ""
    club_services.archive_season(season, actor=ann)  # meanwhile, from another tab
    page.locator("#seasons-panel button", has_text="archive").click()
    alert = page.locator("#refusal [role=alert]")
    alert.wait_for()
    assert "is archived" in alert.inner_text() and "Not possible now" in alert.inner_text()
    assert page.locator("#seasons-panel").count() == 1  # the panel stays as it was
    _check(page, "page with an htmx refusal", url, found, wide)
    assert not found, "serious/critical axe-core violations:\n" + "\n".join(found)
    assert not wide, "pages that scroll sideways at 360 px:\n" + "\n".join(wide)
