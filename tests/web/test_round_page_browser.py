"""A player's phone during play: from the home page to their table in three taps, in a real
headless chromium (skipped, with the reason, without chromium or Playwright)."""

from __future__ import annotations

import urllib.request

from tests.core.browser import BROWSER_MARKS
from tests.core.conftest import browser  # noqa: F401  (the fixture)
from tournament.demo import DEMO_SLUG, load_demo
from tournament.models import Game
from tournament.selectors import last_round_number

pytestmark = BROWSER_MARKS


def test_a_player_finds_their_board_in_three_taps_on_a_phone(live_server, browser, tmp_path):  # noqa: F811
    load_demo()
    division = (
        Game.objects.filter(round__division__tournament__slug=DEMO_SLUG)
        .select_related("round__division")
        .first()
        .round.division
    )
    current = last_round_number(division)
    game = (
        Game.objects.filter(
            round__division=division,
            round__number=current,
            player2__isnull=False,
            board__isnull=False,
        )
        .select_related("player1__player")
        .order_by("-board")
        .first()
    )
    name = game.player1.player.name
    round_url = f"{live_server.url}/t/{DEMO_SLUG}/{division.slug}/round/{current}/"
    # an earlier visitor's request: the phone gets the page from the shared cache, so the
    # filter must work in a cached copy too (no nonce of someone else's response)
    urllib.request.urlopen(round_url).read()

    phone = browser.new_page(viewport={"width": 390, "height": 844})
    errors: list[str] = []
    phone.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    phone.goto(f"{live_server.url}/")
    taps = 0
    phone.click(f"a[href='/t/{DEMO_SLUG}/']")
    taps += 1
    phone.wait_for_url(f"{live_server.url}/t/{DEMO_SLUG}/")
    link = phone.locator(f"a.pairings[href$='/{division.slug}/round/{current}/']")
    assert f"Round {current} pairings" in link.inner_text()
    link.click()
    taps += 1
    phone.wait_for_url(round_url)
    assert taps <= 3
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390

    rows = phone.locator("table.boards tr[data-names]")
    assert rows.count() > 1
    surname = name.split(",")[0].strip()
    phone.fill("#find-name", surname[: max(3, len(surname) - 1)].lower())
    phone.wait_for_function(
        "() => [...document.querySelectorAll('table.boards tr[data-names]')]"
        ".filter(r => !r.hidden).length === 1"
    )
    visible = phone.locator("table.boards tr[data-names]:visible")
    assert visible.count() == 1
    assert name in visible.inner_text()
    board = visible.locator("td.board")
    assert board.is_visible() and board.inner_text() == str(game.board)
    box = board.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 390
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390
    phone.screenshot(path=str(tmp_path / "round-phone.png"), full_page=True)
    assert not [e for e in errors if "Content Security Policy" in e], errors

    phone.fill("#find-name", "")
    phone.wait_for_function(
        "() => [...document.querySelectorAll('table.boards tr[data-names]')].every(r => !r.hidden)"
    )


def test_the_cross_table_scrolls_inside_its_box_on_a_phone(live_server, browser):  # noqa: F811
    load_demo()
    game = Game.objects.filter(round__division__tournament__slug=DEMO_SLUG).first()
    division = game.round.division
    phone = browser.new_page(viewport={"width": 390, "height": 844})
    phone.goto(f"{live_server.url}/t/{DEMO_SLUG}/{division.slug}/crosstable/")
    assert phone.locator("table.cross tr[data-player]").count() > 1
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390
