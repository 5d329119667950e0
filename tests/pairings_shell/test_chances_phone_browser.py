"""Acceptance (issue 21): a player sees their prize chances and "What you need" on a 390 px
phone, in Debian's chromium: both sections visible, no sideways scroll, and axe-core finds no
serious or critical violation on the page."""

from __future__ import annotations

from pathlib import Path

from pairings.services.store import PlannedGame, save_round_pairings
from tests.core.browser import BROWSER_MARKS
from tests.core.conftest import browser  # noqa: F401 (a fixture)
from tournament import services

pytestmark = BROWSER_MARKS

AXE = Path(__file__).resolve().parents[1] / "a11y" / "vendor" / "axe.min.js"
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"]
PHONE = {"width": 390, "height": 844}


def _event() -> None:
    """Six players, three rounds: rounds 1 and 2 scored, the last round paired, no result."""
    t = services.create_tournament(name="Phone Open", slug="phone-open")
    services.publish_tournament(t, True, None)
    d = services.create_division(t, name="A", rounds=3)
    names = ("Able, Ann", "Baker, Bo", "Cole, Cy", "Dunn, Di", "Ebbs, Eve", "Fane, Flo")
    for n, name in enumerate(names):
        services.register_player(d, name=name, rating=1800 - 50 * n)
    save_round_pairings(d, 1, [PlannedGame(1, 2), PlannedGame(3, 4), PlannedGame(5, 6)])
    for first, scores in ((1, (420, 380)), (3, (350, 410)), (5, (400, 399))):
        services.record_result(d, 1, first, *scores)
    save_round_pairings(d, 2, [PlannedGame(1, 4), PlannedGame(2, 5), PlannedGame(3, 6)])
    for first, scores in ((1, (390, 370)), (2, (455, 300)), (3, (380, 420))):
        services.record_result(d, 2, first, *scores)
    save_round_pairings(d, 3, [PlannedGame(1, 6), PlannedGame(2, 4), PlannedGame(3, 5)])


def test_a_player_sees_chances_and_needs_on_a_phone(live_server, browser):  # noqa: F811
    _event()
    # axe is injected past the site's CSP (inline scripts are forbidden); the page is unchanged
    context = browser.new_context(viewport=PHONE, bypass_csp=True)
    page = context.new_page()
    response = page.goto(f"{live_server.url}/t/phone-open/a/player/1/")
    assert response is not None and response.status == 200
    chances = page.locator("#chances")
    needs = page.locator("#needs")
    assert chances.is_visible() and "Prize chances" in chances.inner_text()
    assert needs.is_visible() and "What you need" in needs.inner_text()
    assert "%" in chances.inner_text()
    # both are named regions, so a screen reader's landmark list offers them
    assert page.get_by_role("region", name="Prize chances").is_visible()
    assert page.get_by_role("region", name="What you need").is_visible()
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"the page is {width} px wide on a {PHONE['width']} px phone"
    for section in (chances, needs):
        box = section.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
    page.add_script_tag(content=AXE.read_text(encoding="utf-8"))
    found = page.evaluate(
        "tags => axe.run(document, {runOnly: {type: 'tag', values: tags}})"
        ".then(r => r.violations.filter(v => ['serious', 'critical'].includes(v.impact))"
        ".map(v => v.id + ': ' + v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(', ')))",
        TAGS,
    )
    context.close()
    assert not found, "serious/critical axe-core violations:\n" + "\n".join(found)
