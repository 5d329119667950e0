"""The desk in a real headless browser: a director signs in, opens a PDF, runs a scorecards job.

Debian's chromium through Playwright, as in test_browser.py; skipped with the reason when either
is missing (.ci/run installs chromium).
"""

from __future__ import annotations

from tournament.demo import DEMO_SLUG, load_demo

from .browser import BROWSER_MARKS
from .conftest import make_director

pytestmark = BROWSER_MARKS


def test_director_opens_a_pdf_and_prepares_scorecards_with_progress(
    live_server,
    browser,
    settings,
    tmp_path,
):
    settings.DATA_DIR = tmp_path
    tournament, _ = load_demo()
    make_director(tournament, "desk-td")

    page = browser.new_page()
    desk = f"{live_server.url}/t/{DEMO_SLUG}/desk/"
    page.goto(desk)
    page.wait_for_url("**/accounts/login/**")  # signed out: sent to sign in, then back
    page.fill("#id_username", "desk-td")
    page.fill("#id_password", "pw-long-enough-1")
    page.click("main button[type=submit]")
    page.wait_for_url(desk)
    assert "Print & export" in page.inner_text("h1")

    # a one-click report answers with a PDF (fetched the way the link's new tab would)
    section = page.locator("section[data-division=A]")
    href = section.locator("a", has_text="Standings").get_attribute("href")
    response = page.request.get(live_server.url + href)
    assert response.status == 200 and response.body().startswith(b"%PDF")

    # the background job: the button turns into a link to the finished PDF
    section.locator("select[name=per_page]").select_option("4")
    section.locator("button.prepare").click()
    link = section.locator(".job a", has_text="open the PDF")
    link.wait_for(timeout=30_000)
    pdf = page.request.get(live_server.url + link.get_attribute("href"))
    assert pdf.status == 200 and pdf.body().startswith(b"%PDF")
    page.screenshot(path=str(tmp_path / "desk.png"), full_page=True)

    # a bad request shows the server's message in the page, not a silent failure
    section.locator("input[name=round]").fill("99")
    section.locator("button.prepare").click()
    error = section.locator(".job .error")
    error.wait_for(timeout=10_000)
    assert "round 99" in error.inner_text()
