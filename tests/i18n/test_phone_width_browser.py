"""The tournaments' list (the home page) fits a 360 px phone in Spanish and Polish.

Its headings are one word each ("Divisiones", "Miejsce") beside dates whose month is a long
word ("15 de septiembre de 2026"): Spanish made the page 372 px wide with the demo's club
nights. The headings wrap now, as the player card's do (templates/tournament/player.html);
the French pass of every page kind is in tests/a11y/test_axe.py.
"""

from __future__ import annotations

import datetime as dt

import pytest

from tests.a11y.test_axe import PHONE, _check
from tests.core.browser import BROWSER_MARKS
from tournament import services

pytestmark = BROWSER_MARKS


@pytest.mark.slow(seconds=2)  # chromium: one page in two languages, axe-core on each
def test_the_tournaments_list_fits_a_phone_in_spanish_and_polish(live_server, browser):
    open_ = services.create_tournament(name="Gibson Demo Open", published=True)
    open_.venue, open_.start_date = "Riverside Community Hall, Portland", dt.date(2026, 11, 21)
    open_.save(update_fields=["venue", "start_date"])
    for name in ("A", "B", "Late"):
        services.create_division(open_, name=name, rounds=3)
    for day in (15, 8, 1):
        night = services.create_tournament(
            name=f"Riverside Scrabble Club night 2026-09-{day:02d}", published=True
        )
        night.venue = "Tuesdays 7 pm, Riverside Community Hall"
        night.start_date = dt.date(2026, 9, day)
        night.save(update_fields=["venue", "start_date"])
        services.create_division(night, name="Club", rounds=3)
    found: list[str] = []
    wide: list[str] = []
    for language in ("es", "pl"):
        context = browser.new_context(viewport=PHONE, locale=language, bypass_csp=True)
        page = context.new_page()
        page.goto(live_server.url + "/")
        assert page.get_attribute("html", "lang") == language
        assert "2026" in page.locator("main table").inner_text()
        _check(page, f"tournaments in {language}", "/", found, wide)
        context.close()
    assert not found, "serious/critical axe-core violations:\n" + "\n".join(found)
    assert not wide, "pages that scroll sideways at 360 px:\n" + "\n".join(wide)
