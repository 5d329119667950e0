"""Issue 31's doors, end to end in Debian's chromium: a capped division stays full and fair.

A prankster enters a registry player in his name: the entry holds no place. The real player
enters and confirms at the address the registry holds for him. The division fills, three wait
(notices ticked); on the day two of the waiting check in "if a place frees" from their own
pages, two entrants do not come, and the director's one confirmation removes them and moves
the two checked-in waiting entrants into their places, in list order, each told by the
promotion mail. Round 1 then pairs everyone with no bye. Skipped with the reason when chromium
or Playwright is missing; every wait is on a condition, never a fixed sleep.
"""

from __future__ import annotations

import datetime as dt
import re
import time

import pytest
from django.core import mail
from django.test import Client
from django.utils import timezone

from pairings.services.rounds import pair_round
from tests.core.browser import BROWSER_MARKS
from tests.core.conftest import browser, make_director  # noqa: F401 (browser: a fixture)
from tournament import services
from tournament.models import Game, OnlineEntry, Player
from tournament.services import online_entries as oe

pytestmark = BROWSER_MARKS

PHONE = {"width": 360, "height": 740}
WIDE = {"width": 1280, "height": 900}
PLACED = ["Adams, Ada", "Brook, Ben", "Chu, Cara"]  # with Quill: the cap of 4
WAITING = ["Diaz, Dev", "Evans, Eve", "Fong, Fay"]


@pytest.fixture
def mailbox(settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    mail.outbox = []
    return mail.outbox


def address(name: str) -> str:
    return name.split(",")[0].lower() + "@players.test"


def mailed(to: str, subject: str, timeout: float = 10.0) -> list:
    """The mails to ``to`` whose subject starts so (notices leave after their commit)."""
    end = time.monotonic() + timeout
    while True:
        found = [m for m in mail.outbox if m.to == [to] and m.subject.startswith(subject)]
        if found or time.monotonic() > end:
            return found
        time.sleep(0.02)


def enter_by_post(client: Client, slug: str, name: str) -> str:
    """A new player through the public form and their mailed link; answers their page."""
    answer = client.post(
        f"/t/{slug}/entries/",
        {"division": "a", "name": name, "email": address(name), "notices": "on"},
    )
    assert answer.status_code == 200, answer.content[:300]
    body = mailed(address(name), "Confirm your entry")[-1].body
    assert client.post(re.search(r"/entry/confirm/[^/\s]+/", body).group(0)).status_code == 200
    return next(p for p in re.findall(r"/entry/[^/\s]+/", body) if "/confirm/" not in p)


@pytest.mark.slow(seconds=8)  # chromium through five pages and two contexts: about 7 s
def test_a_capped_division_keeps_its_places_for_real_players_and_the_ones_who_came(
    live_server,
    browser,  # noqa: F811
    mailbox,
):
    t = services.create_tournament(name="Trust Open", slug="trust-open", published=True)
    a = services.create_division(t, name="A", rounds=3)
    director = make_director(t, "trust-td")
    now = timezone.now()
    oe.open_entries(t, now - dt.timedelta(hours=1), now + dt.timedelta(days=2), actor=director)
    oe.set_division_rule(a, cap=4, actor=director)
    quill = Player.objects.create(name="Quill, Quentin", naspa_id="NA7788", email="qq@players.test")
    base, slug = live_server.url, t.slug
    client = Client()

    # ---- a prankster enters Quentin from their own address: no place taken, and told so
    prank = browser.new_context(viewport=PHONE).new_page()
    prank.goto(f"{base}/t/{slug}/entries/")
    prank.fill("#id_q", "quill")
    prank.click("#find-form button")
    prank.click("#found a")
    prank.fill("#id_email", "prankster@elsewhere.test")
    prank.click("#entry-form button[type=submit]")
    pending = prank.locator("#pending").inner_text()
    assert "holds no place until the player confirms it" in pending
    assert prank.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    assert a.entries.count() == 0
    asked = mailed("qq@players.test", "Confirm your entry")
    assert len(asked) == 1  # the confirmation went to the registry's address, not theirs
    assert "/entry/confirm/" not in mailed("prankster@elsewhere.test", "Your entry")[0].body

    # ---- three fill places; the prankster's entry did not count against the cap of 4
    for name in PLACED:
        enter_by_post(client, slug, name)
    assert a.entries.count() == 3

    # ---- the real Quentin enters from his address and confirms: he takes the last place
    real = browser.new_context(viewport=WIDE).new_page()
    real.goto(f"{base}/t/{slug}/entries/?q=quill")
    real.click("#found a")
    real.fill("#id_email", "qq@players.test")
    real.check("#id_notices")
    real.click("#entry-form button[type=submit]")
    real.wait_for_selector("#pending")
    asked = mailed("qq@players.test", "Confirm your entry")
    real.goto(re.search(r"http://\S+/entry/confirm/\S+/", asked[-1].body).group(0))
    real.click("#confirm-button")
    assert "as #4" in real.locator("#confirmed").inner_text()
    own = real.locator("#own-page a").get_attribute("href")
    real.goto(own)
    assert "#4" in real.locator("#entry-status").inner_text()
    statuses = set(OnlineEntry.objects.filter(player=quill).values_list("status", flat=True))
    assert statuses == {"entered", "declined"}  # the prankster's entry is void

    # ---- the division is full: three wait, in order
    pages = {name: enter_by_post(client, slug, name) for name in WAITING}
    assert [w.player.name for w in oe.waiting_list(a)] == WAITING

    # ---- the day: Adams and Quentin check in; Brook and Chu do not come; Evans and Fong
    # check in from the waiting list "if a place frees" (Diaz does not come either)
    client.force_login(director)
    for entry in a.entries.filter(player__name__in=["Adams, Ada", "Quill, Quentin"]):
        client.post(f"/t/{slug}/console/setup/checkin/tap/", {"entry": entry.pk, "here": "1"})
    phone = browser.new_context(viewport=PHONE).new_page()
    for name in ("Fong, Fay", "Evans, Eve"):
        phone.goto(base + pages[name])
        phone.click("#check-in-button")
        assert "if a place frees" in phone.locator("#checked-in").inner_text()
    assert phone.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]

    desk = browser.new_context(viewport=WIDE).new_page()
    checkin = f"{base}/t/{slug}/console/setup/checkin/"
    desk.goto(checkin)
    desk.fill("#id_username", "trust-td")
    desk.fill("#id_password", "pw-long-enough-1")
    desk.click("main button[type=submit]")
    desk.wait_for_url(checkin)
    waiting = desk.locator(f"#w-{a.slug} + ul").inner_text()
    assert "Diaz, Dev" in waiting and "Evans, Eve" in waiting
    desk.click(f"#absent-{a.slug}")
    assert "Brook, Ben" in desk.locator("#absent").inner_text()
    assert desk.locator("#coming li").all_inner_texts() == ["Evans, Eve", "Fong, Fay"]
    desk.click("#remove-absent")
    done = desk.locator("ul.messages").inner_text()
    assert "2 not checked in removed" in done
    assert "#3 Evans, Eve, #4 Fong, Fay" in done  # waiting-list order, not check-in order

    # ---- the promoted are told by the promotion mail; the one who did not come still waits
    for name in ("Evans, Eve", "Fong, Fay"):
        told = mailed(address(name), "You are in")
        assert told and "off the waiting list" in told[0].body, name
    assert not mailed(address("Diaz, Dev"), "You are in", timeout=0)
    assert [w.player.name for w in oe.waiting_list(a)] == ["Diaz, Dev"]
    here = list(a.entries.order_by("number").values_list("player__name", "checked_in_at"))
    assert [n for n, _ in here] == ["Adams, Ada", "Quill, Quentin", "Evans, Eve", "Fong, Fay"]
    assert all(at is not None for _, at in here)

    # ---- round 1 pairs the four who came: two games, no bye
    pair_round(a, 1, system="koth", actor=director)
    games = list(Game.objects.filter(round__division=a, round__number=1))
    assert len(games) == 2 and all(g.player2_id is not None for g in games)
    desk.goto(f"{base}/t/{slug}/a/round/1/")
    assert "bye" not in desk.locator("main").inner_text().lower()
