"""The manual at /docs/ works in a real browser under the site's Content-Security-Policy: its
search finds a page, nothing it loads comes from another host, no script is blocked.

Seconds: one MkDocs build (shared with nothing else here), a live server and chromium.
"""

from __future__ import annotations

import re
from io import StringIO
from urllib.parse import urlsplit

import pytest
from django.core.management import call_command

from tests.a11y.test_axe import PHONE, _audit

from .browser import BROWSER_MARKS

pytestmark = BROWSER_MARKS


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("manual") / "site"
    call_command("build_manual", "--out", str(out), stdout=StringIO())
    return out


@pytest.mark.slow(seconds=8)
def test_the_manual_searches_offline_under_the_sites_policy(browser, live_server, settings, built):
    """A director at a venue without internet looks up "venue" in the manual's search box."""
    settings.MANUAL_DIR = built
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    hosts, errors = set(), []
    page.on("request", lambda request: hosts.add(urlsplit(request.url).netloc))
    page.on("console", lambda message: message.type == "error" and errors.append(message.text))
    page.goto(f"{live_server.url}/docs/")
    assert page.title() == "Gibson manual"
    page.keyboard.press("/")  # the theme's key for its search box: by keyboard alone
    page.keyboard.type("venue link")
    page.wait_for_selector(".md-search-result__item", timeout=15_000)
    results = page.inner_text(".md-search-result")
    assert "Venue mode" in results
    page.click(".md-search-result__item a")
    page.wait_for_url("**/docs/venue/**", timeout=10_000)
    assert hosts == {urlsplit(live_server.url).netloc}
    assert errors == []


@pytest.mark.slow(seconds=10)
def test_the_manuals_pages_pass_axe_at_phone_width(browser, live_server, settings, built):
    """axe-core on the manual's start page, the longest task page and the widest reference
    tables, at 360 px: no serious or critical violation, no page scrolling sideways."""
    settings.MANUAL_DIR = built
    page = browser.new_context(viewport=PHONE, bypass_csp=True).new_page()
    found: list[str] = []
    wide: list[str] = []
    for kind, path in [
        ("manual start", "/docs/"),
        ("manual task", "/docs/run-an-event/"),
        ("manual reference", "/docs/reference/"),
    ]:
        _audit(page, live_server.url, kind, path, found, wide)
    assert not found, "serious/critical axe-core violations:\n" + "\n".join(found)
    assert not wide, "pages that scroll sideways at 360 px:\n" + "\n".join(wide)


@pytest.mark.slow(seconds=6)
def test_the_screenshot_tool_takes_a_phone_page_of_the_demo(browser, live_server, tmp_path):
    """``build_manual --screenshots`` on one page: the demo's standings at 360 px, written as a
    small palette picture. Seconds: the demo's load and chromium."""
    from PIL import Image

    from tournament.demo import load_demo
    from tournament.manual_screenshots import SHOTS, take

    load_demo()
    shot = next(s for s in SHOTS if s.name == "phone-standings")
    page = browser.new_page()
    picture = take(page, live_server.url, shot, tmp_path / "img")
    assert picture == tmp_path / "img" / "phone-standings.png"
    with Image.open(picture) as image:
        assert image.size == (360, 720) and image.mode == "P"
        colours = image.convert("RGB").getcolors(maxcolors=256)
    assert colours is not None and len(colours) > 8  # a page, not a blank
    assert picture.stat().st_size < 40_000
    assert "Yamamoto" in page.inner_text("main")  # the demo's division A, as in the manual


# A new director's tasks: (the words they would search for, the start page's link to it, the
# page and heading it is under).
TASKS = [
    ("open entries", "open entries", "run-an-event/#entries-online-waiting-lists-and-check-in"),
    ("check in", "check players in", "run-an-event/#entries-online-waiting-lists-and-check-in"),
    ("pair round 1", "pair round 1", "run-an-event/#pair-a-round"),
    ("fix a wrong score", "fix a wrong score", "run-an-event/#corrections-fix-a-wrong-score"),
    ("late arrival", "a late arrival", "run-an-event/#a-late-arrival"),
    ("print", "print pairings and standings", "run-an-event/#print-what-a-venue-needs"),
    ("submit ratings", "submit ratings", "rating-lists/#submit-ratings"),
]


def _landed(page, target: str) -> str:
    """The heading the browser shows after a click, checked to be ``target``'s."""
    path, anchor = target.split("#")
    page.wait_for_url(  # a search result adds ?h=WORDS, which the theme highlights
        lambda url: urlsplit(url)[2:5:2] == (f"/docs/{path}", anchor), timeout=10_000
    )
    heading = page.locator(f"#{anchor}")
    heading.wait_for(state="visible", timeout=5_000)
    return heading.inner_text()


@pytest.mark.slow(seconds=30)
def test_a_new_director_finds_each_task_within_two_clicks(browser, live_server, settings, built):
    """Tried as a new director would, with only the served manual: from the start page each
    task of the day is one click through the page's links, and two through the search box
    (a click in the box, the words, a click on a result). Seconds: chromium, 14 walks, the
    search index loaded 7 times."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    settings.MANUAL_DIR = built
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    base = live_server.url
    lost = []
    for words, link_text, target in TASKS:
        # by the start page's links: one click
        page.goto(f"{base}/docs/")
        page.locator("article a", has_text=re.compile(rf"^{link_text}$")).first.click()
        by_link = _landed(page, target)
        # by the search box: a click in it, the words, a click on a result
        page.goto(f"{base}/docs/")
        page.click(".md-search__input")
        page.keyboard.type(words)
        page.wait_for_selector(".md-search-result__item", timeout=15_000)
        path, anchor = target.split("#")
        # a result shown at once (not folded under "more on this page", a click more)
        shown = page.locator(
            f'.md-search-result a[href*="/docs/{path}?"][href$="#{anchor}"]:visible'
        )
        try:  # the results come while the words are typed: wait for the last words'
            shown.first.wait_for(state="visible", timeout=5_000)
        except PlaywrightTimeout:
            links = page.eval_on_selector_all(".md-search-result a", "e => e.map(a => a.href)")
            lost.append(f"{words!r}: no result shown opens {target}: {links}")
            continue
        shown.first.click()
        by_search = _landed(page, target)
        assert by_link == by_search
    assert lost == []
