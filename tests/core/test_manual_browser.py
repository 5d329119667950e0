"""The manual at /docs/ works in a real browser under the site's Content-Security-Policy: its
search finds a page, nothing it loads comes from another host, no script is blocked.

Seconds: one MkDocs build (shared with nothing else here), a live server and chromium.
"""

from __future__ import annotations

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
