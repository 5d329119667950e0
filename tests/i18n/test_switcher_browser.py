"""The language switcher in a real browser: chosen once by keyboard at 360 px, without any
script, and remembered on the next page (Django's set_language and its cookie); the French
page passes axe like every other page (tests/a11y)."""

from __future__ import annotations

from django.urls import reverse

from pairings.services.store import PlannedGame, save_round_pairings
from tests.a11y.test_axe import PHONE, _check
from tests.core.browser import BROWSER_MARKS
from tournament import services

pytestmark = BROWSER_MARKS


def test_francais_chosen_by_keyboard_is_remembered_across_pages(live_server, browser):
    t = services.create_tournament(name="Switch Open", slug="switch-open")
    d = services.create_division(t, name="A", rounds=3)
    for name in ("Able, Ann", "Baker, Bo", "Cole, Cy", "Dunn, Di"):
        services.register_player(d, name=name, rating=1500)
    save_round_pairings(d, 1, [PlannedGame(1, 2), PlannedGame(3, 4)])
    services.record_result(d, 1, 1, 420, 380)
    context = browser.new_context(
        viewport=PHONE, locale="en-US", java_script_enabled=False, bypass_csp=True
    )
    page = context.new_page()
    page.goto(live_server.url + reverse("public:standings", args=[t.slug, d.slug]))
    assert page.get_attribute("html", "lang") == "en"
    # keyboard only: focus the labelled list, pick Français, submit with Enter
    page.focus("#language-choice")
    page.keyboard.press("End")  # the last language is Polski; Français is two up
    page.keyboard.press("ArrowUp")
    page.keyboard.press("ArrowUp")
    assert page.eval_on_selector("#language-choice", "s => s.value") == "fr"
    page.keyboard.press("Tab")  # to the button
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert page.get_attribute("html", "lang") == "fr"
    assert page.url.endswith(reverse("public:standings", args=[t.slug, d.slug]))
    assert "Aller au contenu" in page.content()
    # follow a link: still French, remembered by the cookie
    player = reverse("public:player", args=[t.slug, d.slug, 1])
    page.focus(f"main a[href='{player}']")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert page.url.endswith(player)
    assert page.get_attribute("html", "lang") == "fr"
    assert page.eval_on_selector("#language-choice", "s => s.value") == "fr"
    # axe on the French page (scripts on again for axe itself), and no sideways scroll
    checked = browser.new_context(viewport=PHONE, locale="en-US", bypass_csp=True)
    checked.add_cookies(context.cookies())
    french = checked.new_page()
    french.goto(page.url)
    assert french.get_attribute("html", "lang") == "fr"
    found: list[str] = []
    wide: list[str] = []
    _check(french, "French tournament page", page.url, found, wide)
    assert not found, "\n".join(found)
    assert not wide, "\n".join(wide)
