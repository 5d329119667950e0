"""The player page on a phone, in a real headless browser: from standings to a player's card.

Same setup as test_browser.py (Debian's chromium through Playwright); skipped with the reason
when either is missing.
"""

from __future__ import annotations

from tournament.demo import DEMO_SLUG, load_demo
from tournament.models import Entry

from .browser import BROWSER_MARKS

pytestmark = BROWSER_MARKS


def test_phone_opens_a_player_from_standings_and_follows_an_opponent(
    live_server, browser, tmp_path
):
    load_demo()
    first = Entry.objects.select_related("player").get(division__name="A", number=1)
    phone = browser.new_page(viewport={"width": 390, "height": 844})
    phone.goto(f"{live_server.url}/t/{DEMO_SLUG}/a/standings/")
    phone.click(f"text={first.player.name}")
    phone.wait_for_url(f"{live_server.url}/t/{DEMO_SLUG}/a/player/1/")
    assert phone.locator("h1").inner_text() == f"#1 {first.player.name}"
    phone.screenshot(path=str(tmp_path / "player-phone.png"), full_page=True)
    card = phone.locator("table.card")
    assert card.bounding_box()["width"] <= 390
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390  # no sideways scroll

    opponent = card.locator("tr[data-round='1'] a")
    name = opponent.inner_text()
    opponent.click()
    phone.wait_for_load_state()
    assert phone.locator("h1").inner_text().endswith(name)
    assert "/player/" in phone.url


def test_a_23_round_card_fits_a_phone(live_server, browser, real_data, tmp_path):
    """The widest real figures (+1028 cumulative, 16-7, repeat marks) still fit 390 px."""
    from tournament.interchange.imports import import_tsh

    t = import_tsh(real_data / "naspa-2023-a.t", rounds=23)
    phone = browser.new_page(viewport={"width": 390, "height": 844})
    phone.goto(f"{live_server.url}/t/{t.slug}/naspa-2023-a/player/1/")
    phone.screenshot(path=str(tmp_path / "player-23-rounds.png"), full_page=True)
    assert phone.locator("table.card tr[data-round]").count() == 23
    last = phone.locator("table.card tr[data-round='23']").inner_text()
    assert "16-7" in last and "+1028" in last
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390
    # the header bar stays one line: a long breadcrumb is cut, "Directors" stays in the bar
    header = phone.locator("header").bounding_box()
    directors = phone.locator("header a", has_text="Directors").bounding_box()
    assert header["height"] < 50
    assert directors["y"] >= header["y"] and directors["x"] + directors["width"] <= 390
