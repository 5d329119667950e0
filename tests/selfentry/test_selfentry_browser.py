"""Self-entry on two phones: each player opens their own scorecard link in their own browser.

Ann reports, Bo confirms, the public standings show the game; Cy reports, Di disputes, and
the director's console lists the dispute. Debian's chromium through Playwright at 390x844,
skipped with the reason when either is missing.
"""

from __future__ import annotations

import re

import pytest

from tests.core.browser import BROWSER_MARKS
from tests.core.conftest import browser, make_director  # noqa: F401 (browser: a fixture)
from tournament.models import AuditEvent, Game, PendingResult

from .conftest import build_event, token

pytestmark = BROWSER_MARKS

PHONE = {"width": 390, "height": 844}


def phone(browser, url: str):  # noqa: F811
    """A new browser context (its own cookies: one player's phone) opened at ``url``."""
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    page.goto(url)
    return page


def fits(page) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]


@pytest.mark.usefixtures("clean_cache")
def test_two_players_report_confirm_and_dispute(live_server, browser, tmp_path):  # noqa: F811
    t, d = build_event("Phone Open")
    base = live_server.url

    ann = phone(browser, f"{base}/e/{token(d, 1)}/")
    assert ann.locator("h1").inner_text() == "#1 Able, Ann"
    assert "Round 1: you v #2 Baker, Bo" in ann.locator("#current").inner_text()
    fits(ann)
    ann.fill("#id_score", "412")
    ann.fill("#id_opp_score", "389")
    ann.click("#report-form button[type=submit]")
    ann.wait_for_selector("#my-report")
    assert "Reported: you 412, Baker, Bo 389" in ann.locator("ul.messages").inner_text()
    ann.screenshot(path=str(tmp_path / "ann-reported.png"), full_page=True)
    assert game_scores(d, 1) == (None, None)

    bo = phone(browser, f"{base}/e/{token(d, 2)}/")
    their = bo.locator("#their-report").inner_text()
    assert "Able, Ann reported 412-389" in their
    fits(bo)
    bo.screenshot(path=str(tmp_path / "bo-confirms.png"), full_page=True)
    bo.click("#confirm-form button[type=submit]")
    bo.wait_for_selector("#all-scored")
    assert "Recorded: round 1, you 389, Able, Ann 412" in bo.locator("ul.messages").inner_text()
    assert game_scores(d, 1) == (412, 389)
    assert AuditEvent.objects.get(action="record_result").actor == "player #2 Baker, Bo"

    ann.reload()
    assert ann.locator("#report-form").count() == 0
    row = ann.locator("table.card tr[data-round='1']").inner_text()
    assert "412" in row and "389" in row and "+23" in row
    ann.goto(f"{base}/t/{t.slug}/{d.slug}/standings/")
    standing = ann.locator("tr", has_text="Able, Ann").first.inner_text()
    assert re.search(r"\+23", standing), standing

    # a dispute: Cy reports, Di read the card differently
    cy = phone(browser, f"{base}/e/{token(d, 3)}/")
    cy.fill("#id_score", "400")
    cy.fill("#id_opp_score", "350")
    cy.click("#report-form button[type=submit]")
    cy.wait_for_selector("#my-report")
    di = phone(browser, f"{base}/e/{token(d, 4)}/")
    di.click("#dispute summary")
    di.fill("#id_score", "360")
    di.fill("#id_opp_score", "400")
    fits(di)
    di.click("#dispute-form button[type=submit]")
    di.wait_for_selector("#disputed")
    assert "a director will settle the game" in di.locator("ul.messages").inner_text()
    statuses = PendingResult.objects.filter(game=game_of(d, 3)).values_list("status", flat=True)
    assert set(statuses) == {"disputed"}
    assert game_scores(d, 3) == (None, None)

    make_director(t, "phone-td")
    td = phone(browser, f"{base}/t/{t.slug}/console/{d.slug}/")
    td.wait_for_url("**/accounts/login/**")
    td.fill("#id_username", "phone-td")
    td.fill("#id_password", "pw-long-enough-1")
    td.click("main button[type=submit]")
    td.wait_for_url(f"{base}/t/{t.slug}/console/{d.slug}/")
    listed = td.locator("#self-reports").inner_text()
    assert "400-350" in listed and "400-360" in listed and "disputed" in listed
    td.click("#self-reports a")
    td.wait_for_url(f"{base}/t/{t.slug}/console/{d.slug}/round/1/results/")
    disputes = td.locator("section.disputes").inner_text()
    assert "typed by player #3 Cole, Cy" in disputes
    assert "typed by player #4 Dunn, Di" in disputes
    td.screenshot(path=str(tmp_path / "console-dispute.png"), full_page=True)


def game_of(d, p1: int) -> Game:
    return Game.objects.get(round__division=d, round__number=1, player1__number=p1)


def game_scores(d, p1: int) -> tuple[int | None, int | None]:
    g = game_of(d, p1)
    return g.score1, g.score2
