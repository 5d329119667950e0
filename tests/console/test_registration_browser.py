"""Registration in a real browser: type a name, pick a suggestion with the keyboard, paste a list.

Debian's chromium through Playwright (tests/core/browser.py); skipped with the reason when
either is missing.
"""

from __future__ import annotations

import os
from pathlib import Path

from ratings.services import create_rating_list, import_ratings
from tests.core.browser import BROWSER_MARKS
from tests.core.conftest import browser, make_director  # noqa: F401 (browser: a fixture)
from tournament import services
from tournament.models import Entry

pytestmark = BROWSER_MARKS


def test_type_pick_with_keyboard_and_paste_a_list(live_server, browser):  # noqa: F811
    t = services.create_tournament(name="Browser Open", actor="test")
    d = services.create_division(t, name="A", rounds=5, actor="test")
    for name, rating in [("Able, Ann", 1800), ("Baker, Bo", 1700), ("Cole, Cy", 1600)]:
        services.register_player(d, name=name, rating=rating, actor="test")
    services.find_or_create_player("Smith, John", naspa_id="NA1234", email="js@example.org")
    services.find_or_create_player("Smithers, Wayland", absp_id="AB9")
    nwl = create_rating_list("NASPA NWL", slug="nwl")
    import_ratings(nwl, 'name,rating\n"Smith, John",1734\n"Smithers, Wayland",1210\n')
    make_director(t, "reg-td")

    page = browser.new_page(viewport={"width": 390, "height": 800})
    players = f"{live_server.url}/t/{t.slug}/console/{d.slug}/players/"
    page.goto(players)
    page.wait_for_url("**/accounts/login/**")
    page.fill("#id_username", "reg-td")
    page.fill("#id_password", "pw-long-enough-1")
    page.click("main button[type=submit]")
    page.wait_for_url(players)

    # type, wait for the suggestions, choose with the keyboard
    page.locator("#id_name").press_sequentially("smi")
    first = page.locator("#suggestions button.pick").first
    first.wait_for(timeout=10_000)
    assert "NASPA NA1234" in first.inner_text() and "1734" in first.inner_text()
    assert "js@example.org" not in page.content()
    page.locator("#id_name").press("ArrowDown")
    assert page.evaluate("document.activeElement.classList.contains('pick')")
    page.keyboard.press("Enter")
    notice = page.locator("#notice")
    notice.wait_for(timeout=10_000)
    assert "Registered #4 Smith, John (seed 1734 on NASPA NWL)" in notice.inner_text()
    assert Entry.objects.get(division=d, number=4).seed_rating == 1734

    # paste a list of three
    page.locator("#paste summary").click()
    page.fill("#id_lines", "Dunn, Di 1500\nEvans, Ed,1400,C\nFox, Fay 0")
    page.locator("#paste-form button[type=submit]").click()
    page.locator("#notice", has_text="Registered 3 players").wait_for(timeout=10_000)
    assert page.locator("#entries tbody tr").count() == 7
    assert list(d.entries.order_by("number").values_list("number", "player__name"))[-3:] == [
        (5, "Dunn, Di"),
        (6, "Evans, Ed"),
        (7, "Fox, Fay"),
    ]
    # a bad list shows its line at the field and registers nothing
    page.locator("#paste summary").click()  # the fresh panel shows the list form closed
    page.fill("#id_lines", "Gray, Gus 1300\nHale, Hal x1")
    page.locator("#paste-form button[type=submit]").click()
    error = page.locator("#id_lines_error")
    error.wait_for(timeout=10_000)
    assert "line 2" in error.inner_text()
    assert d.entries.count() == 7
    # the page fits a phone: nothing wider than the screen but the scrolling table
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    if shots := os.environ.get("GIBSON_RENDER_DIR"):
        page.screenshot(path=str(Path(shots) / "console-players-390.png"), full_page=True)
