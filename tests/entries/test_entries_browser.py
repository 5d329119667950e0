"""A player enters from a 360 px phone (finding themself in the registry, confirming by the
mailed link) and a director checks players in with the keyboard on a 360 px screen: Debian's
chromium through Playwright, skipped with the reason when either is missing."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.core import mail
from django.utils import timezone

from tests.core.browser import BROWSER_MARKS
from tests.core.conftest import browser, make_director  # noqa: F401 (browser: a fixture)
from tournament import services
from tournament.models import Entry, Player
from tournament.services import online_entries as oe

pytestmark = BROWSER_MARKS

SMALL = {"width": 360, "height": 740}


def fits(page) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= SMALL["width"]


@pytest.fixture
def mailbox(settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    mail.outbox = []
    return mail.outbox


def test_a_player_enters_on_a_phone_and_a_director_checks_in_by_keyboard(
    live_server,
    browser,  # noqa: F811
    mailbox,
    tmp_path,
):
    t = services.create_tournament(name="Phone Entries Open", slug="phone-entries")
    a = services.create_division(t, name="A", rounds=3)
    director = make_director(t, "entries-td")
    now = timezone.now()
    oe.open_entries(t, now - dt.timedelta(hours=1), now + dt.timedelta(days=3), actor=director)
    oe.set_division_rule(a, cap=12, fee_amount="40", fee_currency="USD", actor=director)
    Player.objects.create(name="Quill, Quentin", naspa_id="NA7788", email="qq@example.org")
    services.register_player(a, name="Hand, Harriet", actor=director)  # registered by hand
    base = live_server.url

    phone = browser.new_context(viewport=SMALL).new_page()
    phone.goto(f"{base}/t/{t.slug}/")
    phone.click("#entries-link")
    fits(phone)
    phone.fill("#id_q", "quill")
    phone.click("#find-form button")
    phone.click("#found a")
    assert "Quill, Quentin" in phone.locator("#picked").inner_text()
    assert "qq@example.org" not in phone.content()
    phone.fill("#id_email", "qq@example.org")
    phone.check("#id_notices")
    fits(phone)
    phone.click("#entry-form button[type=submit]")
    # a registry player: the entry waits for the link mailed to the registry's address
    phone.wait_for_selector("#pending")
    assert Entry.objects.filter(player__name="Quill, Quentin").count() == 0
    confirm = re.search(r"http://\S+/entry/confirm/\S+/", mailbox[-1].body).group(0)
    phone.goto(confirm)
    phone.click("#confirm-button")
    assert "as #2" in phone.locator("#confirmed").inner_text()
    phone.screenshot(path=str(tmp_path / "entered.png"), full_page=True)
    phone.goto(f"{base}/t/{t.slug}/entries/")
    assert "Quill, Quentin" in phone.locator("section.division").inner_text()
    assert "@example.org" not in phone.content()

    desk = browser.new_context(viewport=SMALL).new_page()
    checkin = f"{base}/t/{t.slug}/console/setup/checkin/"
    desk.goto(checkin)
    desk.wait_for_url("**/accounts/login/**")
    desk.fill("#id_username", "entries-td")
    desk.fill("#id_password", "pw-long-enough-1")
    desk.click("main button[type=submit]")
    desk.wait_for_url(checkin)
    fits(desk)
    assert desk.evaluate("document.activeElement.id") == "filter"
    desk.keyboard.type("quill")
    desk.keyboard.press("Enter")
    desk.wait_for_selector("ul.messages")
    assert "checked in" in desk.locator("ul.messages").inner_text()
    desk.keyboard.type("2")  # a number finds one player: #2 (the filter has the focus again)
    assert desk.locator("ul.checkin li:not([hidden])").count() == 1
    desk.keyboard.press("Backspace")
    desk.keyboard.type("harriet")
    desk.keyboard.press("Enter")
    desk.wait_for_selector("#here-count:has-text('2 of 2')")
    # Enter with no one or several left says so (it did nothing, silently)
    desk.keyboard.type("zebra")
    desk.keyboard.press("Enter")
    assert desk.locator("#find-answer").inner_text() == "No one matches zebra."
    desk.fill("#filter", "n")
    desk.press("#filter", "Enter")
    assert (
        desk.locator("#find-answer")
        .inner_text()
        .startswith("2 players match n: A #1 Hand, Harriet; A #2 Quill, Quentin.")
    )
    fits(desk)
    desk.screenshot(path=str(tmp_path / "checkin.png"), full_page=True)
    assert Entry.objects.filter(checked_in_at__isnull=False).count() == 2
    phone.goto(f"{base}/t/{t.slug}/")
    assert "2 of 2" in phone.locator("#who-is-here").inner_text()
