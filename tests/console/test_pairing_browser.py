"""Pairing a round in a real headless browser, on a phone-wide screen: sign in, swap, publish.

Debian's chromium through Playwright (tests/core/browser.py); skipped with the reason when
either is missing.
"""

from __future__ import annotations

from pairings.models import ScheduleRange
from pairings.services.store import PlannedGame, save_round_pairings
from tests.core.browser import BROWSER_MARKS
from tests.core.conftest import browser, make_director  # noqa: F401  (browser: a fixture)
from tournament import services
from tournament.models import Game

pytestmark = BROWSER_MARKS


def _event():
    t = services.create_tournament(name="Browser Pair Open", gibson=False)
    d = services.create_division(t, name="A", rounds=5)
    for k, name in enumerate(["Ann", "Bob", "Cat", "Dan", "Eve", "Fay", "Gus", "Hal", "Ida"]):
        services.register_player(d, name=name, rating=2000 - 50 * k)
    ScheduleRange.objects.create(division=d, first_round=1, last_round=5, system="swiss")
    save_round_pairings(
        d,
        1,
        [PlannedGame(a, a + 1, board=k) for k, a in enumerate((1, 3, 5, 7), start=1)]
        + [PlannedGame(9, 0)],
        system="manual",
    )
    for a in (1, 3, 5, 7):
        services.record_result(d, 1, a, 400 + a, 350)
    make_director(t, "browser-td")
    return t, d


def _pairs(text: str) -> list[tuple[int, int]]:
    return [tuple(map(int, p.split("-"))) for p in text.split()]


def _opponent(pairs, n):
    return next((b if a == n else a) for a, b in pairs if n in (a, b))


def _fits(page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def test_director_pairs_a_round_with_one_swap_on_a_phone(live_server, browser):  # noqa: F811
    t, d = _event()
    page = browser.new_page(viewport={"width": 390, "height": 844})
    pair_url = f"{live_server.url}/t/{t.slug}/console/{d.slug}/round/2/pair/"
    page.goto(pair_url)
    page.wait_for_url("**/accounts/login/**")
    page.fill("#id_username", "browser-td")
    page.fill("#id_password", "pw-long-enough-1")
    page.click("main button[type=submit]")
    page.wait_for_url(pair_url)
    assert "Pair round 2" in page.inner_text("h1")
    assert "No rule broken." in page.inner_text("#checker")
    assert "bye: " in page.inner_text("table.pairs")
    assert _fits(page)

    games = _pairs(page.input_value("input[name='publish-games']"))
    x = _opponent(games, 1)
    page.fill("#id_swap-a", str(x))
    page.fill("#id_swap-b", "2")  # 1 met 2 in round 1: the checker must call it a repeat
    page.click("form.swap button[type=submit]")
    page.locator("#proposal td.why", has_text="repeat 2nd meeting").wait_for(timeout=10_000)
    assert page.url == pair_url  # swapped in place by htmx, no page load
    assert "Rules broken:" in page.inner_text("#checker")
    assert page.inner_text("[data-measure=repeats] dd").startswith("1")
    edited = _pairs(page.input_value("input[name='publish-games']"))
    assert _opponent(edited, 1) == 2
    assert _fits(page)

    # a refused swap shows its message at the field, in place
    page.fill("#id_swap-a", "42")
    page.fill("#id_swap-b", "1")
    page.click("form.swap button[type=submit]")
    page.locator("#id_swap-a_error").wait_for(timeout=10_000)
    assert "#42 is not a player of this round" in page.inner_text("#id_swap-a_error")
    assert not Game.objects.filter(round__division=d, round__number=2).exists()

    page.click("form.publish button[type=submit]")
    page.wait_for_url(f"{live_server.url}/t/{t.slug}/console/{d.slug}/")
    stored = [
        (g.player1.number, g.player2.number if g.player2_id else 0)
        for g in Game.objects.filter(round__division=d, round__number=2)
    ]
    assert sorted(map(frozenset, stored), key=sorted) == sorted(map(frozenset, edited), key=sorted)
    assert _opponent(stored, 1) == 2
