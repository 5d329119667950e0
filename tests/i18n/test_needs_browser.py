"""What a player needs, in Polish and French, on a 360 px phone: the translated statements
(longer than the English ones) wrap inside the page, their ways open by keyboard, and the
page passes axe like every other page (tests/a11y)."""

from __future__ import annotations

import pytest

from tests.a11y.test_axe import PHONE, _check
from tests.builders import last_round_paired
from tests.core.browser import BROWSER_MARKS

pytestmark = BROWSER_MARKS


@pytest.mark.slow(seconds=8)  # a browser, two languages, axe on each page
def test_needs_in_longer_languages_fit_a_phone(live_server, browser):
    last_round_paired("Need Words", "need-words")
    words = {"pl": ("Czego potrzebujesz", "lub wyższe"), "fr": ("Ce qu'il vous faut", "ou mieux")}
    for language, (heading, better) in words.items():
        context = browser.new_context(viewport=PHONE, locale=language, bypass_csp=True)
        page = context.new_page()
        url = f"{live_server.url}/t/need-words/a/player/8/"
        page.goto(url)
        assert page.get_attribute("html", "lang") == language
        assert page.inner_text("#needs-heading") == heading
        assert better in page.inner_text("#needs")
        # every way behind its tap, opened from the keyboard
        summaries = page.locator("#needs summary")
        assert summaries.count() >= 1
        for i in range(summaries.count()):
            summaries.nth(i).focus()
            page.keyboard.press("Enter")
        assert page.locator("#needs details[open]").count() == summaries.count()
        found: list[str] = []
        wide: list[str] = []
        _check(page, f"player's needs ({language})", url, found, wide)
        assert not found, "\n".join(found)
        assert not wide, "\n".join(wide)
        context.close()
