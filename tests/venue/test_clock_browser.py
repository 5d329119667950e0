"""The round clock in Debian's chromium: a director starts it from the console, the venue
screen counts it down at 1280 px and on a phone at 360 px, even on a device whose clock is
ten minutes wrong (the page corrects with the server's time), and axe-core finds no serious
violation on the screen, the console's clock panel or the tournament page with its strip."""

from __future__ import annotations

import re
import time
from pathlib import Path

from django.contrib.auth import get_user_model

from pairings.services.store import PlannedGame, save_round_pairings
from tests.core.browser import BROWSER_MARKS
from tests.core.conftest import browser  # noqa: F401 (a fixture)
from tournament import services
from tournament.models import AuditEvent, RoundClock

pytestmark = BROWSER_MARKS

AXE = Path(__file__).resolve().parents[1] / "a11y" / "vendor" / "axe.min.js"
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"]
PHONE = {"width": 360, "height": 780}
# the device's clock runs ten minutes fast: a countdown trusting it would show 15:00, not 25:00
SKEWED_CLOCK = """(() => { const real = Date.now.bind(Date);
  Date.now = () => real() + 10 * 60 * 1000; })();"""


def _event():
    t = services.create_tournament(name="Screen Open", slug="screen-open")
    a = services.create_division(t, name="A", rounds=3)
    b = services.create_division(t, name="B", rounds=3)
    for n in range(1, 7):
        services.register_player(a, name=f"Able, Ann{n}", rating=1800 - 10 * n)
        services.register_player(b, name=f"Baker, Bo{n}", rating=1700 - 10 * n)
    save_round_pairings(
        a, 1, [PlannedGame(1, 2, board=1), PlannedGame(3, 4, board=2), PlannedGame(5, 6, board=3)]
    )
    save_round_pairings(
        b, 1, [PlannedGame(1, 2, board=4), PlannedGame(3, 4, board=5), PlannedGame(5, 6, board=6)]
    )
    services.record_result(b, 1, 1, 400, 300)
    user = get_user_model().objects.create_user("td", "td@example.org", "pw-long-enough-1")
    t.directors.add(user)
    return t


def _seconds(text: str) -> int:
    m = re.fullmatch(r"(\d+):(\d\d)", text.strip())
    assert m, text
    return int(m.group(1)) * 60 + int(m.group(2))


def _axe(browser, url: str, viewport: dict, what: str, storage: dict | None = None) -> list[str]:  # noqa: F811
    """axe-core's serious and critical findings on ``url``, in a context of its own that lets
    the test inject axe past the site's CSP (the countdown itself is checked under the CSP)."""
    context = browser.new_context(viewport=viewport, bypass_csp=True, storage_state=storage)
    page = context.new_page()
    page.goto(url)
    page.add_script_tag(content=AXE.read_text(encoding="utf-8"))
    found = page.evaluate(
        "tags => axe.run(document, {runOnly: {type: 'tag', values: tags}})"
        ".then(r => r.violations.filter(v => ['serious', 'critical'].includes(v.impact))"
        ".map(v => v.id + ': ' + v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(', ')))",
        TAGS,
    )
    context.close()
    return [f"{what}: {v}" for v in found]


def test_a_director_starts_the_clock_and_the_screen_counts_down(live_server, browser, settings):  # noqa: F811
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    t = _event()
    base = live_server.url
    console = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    console.goto(f"{base}/accounts/login/")
    console.fill("#id_username", "td")
    console.fill("#id_password", "pw-long-enough-1")
    console.click("main button[type=submit]")
    console.wait_for_load_state()
    console.goto(f"{base}/t/{t.slug}/console/a/")
    # keyboard only: the minutes box, then Tab to the start button and Enter
    console.fill("#clock-minutes", "25")
    console.focus("#clock-minutes")
    console.keyboard.press("Tab")
    assert console.evaluate("document.activeElement.value") == "start"
    console.keyboard.press("Enter")
    console.wait_for_selector("text=Round 1 clock: started, 25 minutes.")
    assert RoundClock.objects.get().started_at is not None

    screen = browser.new_context(viewport={"width": 1280, "height": 800})
    screen.add_init_script(SKEWED_CLOCK)
    tv = screen.new_page()
    tv.goto(f"{base}/t/{t.slug}/screen/")
    clock = tv.locator("#screen-div-a ~ .clock .clock-time")
    first = _seconds(clock.text_content())
    time.sleep(2.2)
    later = _seconds(clock.text_content())
    assert 24 * 60 + 50 <= first <= 25 * 60 and 1 <= first - later <= 3, (first, later)
    assert "#1 Able, Ann1" in tv.text_content("#screen")
    assert "standings after round 1" not in tv.text_content("#screen")  # B still in play
    wide = {"width": 1280, "height": 800}
    problems = _axe(browser, f"{base}/t/{t.slug}/screen/", wide, "screen 1280")

    # the director extends by a minute with a reason, from the keyboard; the screen's next
    # poll (every 5 s) brings the new end
    console.fill("#clock-reason", "late start")
    console.focus("#clock-reason")
    console.keyboard.press("Tab")
    assert console.evaluate("document.activeElement.value") == "1"
    console.keyboard.press("Enter")
    console.wait_for_selector("text=+1 min (late start) by td")
    tv.wait_for_function(
        "() => { const [m, s] = document.querySelector('#screen .clock-time')"
        ".textContent.split(':'); return Number(m) * 60 + Number(s) > 25 * 60; }",
        timeout=9000,
    )
    assert AuditEvent.objects.filter(action="extend_clock", reason="late start").count() == 1
    signed_in = console.context.storage_state()
    division_page = f"{base}/t/{t.slug}/console/a/"
    problems += _axe(browser, division_page, wide, "console division panel", signed_in)

    phone = browser.new_context(viewport=PHONE)
    phone.add_init_script(SKEWED_CLOCK)
    p = phone.new_page()
    p.goto(f"{base}/t/{t.slug}/screen/")
    left = _seconds(p.locator("#screen .clock-time").first.text_content())
    assert 25 * 60 < left <= 26 * 60, left
    assert p.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    problems += _axe(browser, f"{base}/t/{t.slug}/screen/", PHONE, "screen 360")
    # the tournament page and a player's page fetch the fresh strip and count down too
    for path in (f"/t/{t.slug}/", f"/t/{t.slug}/a/player/1/"):
        p.goto(base + path)
        p.wait_for_selector("#live-strip [data-clock]")
        shown = _seconds(p.locator("#live-strip .clock-time").first.text_content())
        assert 25 * 60 < shown <= 26 * 60, (path, shown)
        assert p.evaluate("document.documentElement.scrollWidth") <= PHONE["width"], path
    problems += _axe(browser, base + path, PHONE, "player page with the strip, 360")
    cp = browser.new_context(viewport=PHONE, storage_state=signed_in).new_page()
    cp.goto(division_page)
    assert cp.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    problems += _axe(browser, division_page, PHONE, "console division panel 360", signed_in)
    assert not problems, "\n".join(problems)
