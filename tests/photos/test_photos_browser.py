"""Photos on a phone at 360 px: the player sends one from their link (a wrong file refused
first), the director approves it on the console by keyboard, and the player's public card
shows it. axe-core finds no serious violation on any of those pages."""

from __future__ import annotations

import pytest

from tests.core.browser import BROWSER_MARKS
from tests.core.conftest import browser, make_director  # noqa: F401 (browser: a fixture)
from tests.gcg.test_gcg_browser import axe_serious, phone
from tournament.models import PlayerPhoto

from .test_photos import event, image_bytes

pytestmark = BROWSER_MARKS


@pytest.mark.slow(seconds=8)  # chromium: two contexts, six pages, axe on five
def test_send_refuse_approve_and_show_a_photo_by_keyboard(live_server, browser, tmp_path):  # noqa: F811
    t, d, entries = event("Phone Photos")
    make_director(t, "boss")
    base = live_server.url
    wrong, right = tmp_path / "me.gif", tmp_path / "me.jpg"
    wrong.write_bytes(b"GIF89a not a photo")
    right.write_bytes(image_bytes(size=(900, 1200)))
    player = phone(browser, f"{base}/e/{entries[1].entry_token}/")
    assert axe_serious(player) == []
    player.set_input_files("#photo-file", str(wrong))
    player.locator("#photo-form button[type=submit]").click()
    player.wait_for_load_state()
    assert (
        "me.gif: a photo must be a JPEG or PNG image"
        in player.locator("#photo-refused").inner_text()
    )
    assert axe_serious(player) == []
    player.set_input_files("#photo-file", str(right))
    player.locator("#photo-form button[type=submit]").click()
    player.wait_for_load_state()
    assert player.locator("#photo-pending").count() == 1
    photo = PlayerPhoto.objects.get()
    # the director, on the console: the preview, then Approve reached by keyboard alone
    console = phone(browser, f"{base}/accounts/login/")
    console.fill("#id_username", "boss")
    console.fill("#id_password", "pw-long-enough-1")
    console.locator("main button[type=submit], main input[type=submit]").first.click()
    console.wait_for_load_state()
    console.goto(f"{base}/t/{t.slug}/console/photos/")
    assert (
        console.locator(f"li[data-photo='{photo.pk}'] img").evaluate("i => i.naturalWidth") == 450
    )
    assert axe_serious(console) == []
    console.focus(f"#reason-{photo.pk}")
    console.keyboard.press("Tab")  # to Approve
    console.keyboard.press("Enter")
    console.wait_for_load_state()
    assert "Able, Ann's photo is approved" in console.locator("ul.messages").inner_text()
    assert console.locator("#no-photos").count() == 1
    assert axe_serious(console) == []
    card = phone(browser, f"{base}/t/{t.slug}/{d.slug}/player/1/")
    assert card.locator("#player-photo").evaluate("i => i.complete && i.naturalWidth") == 450
    assert axe_serious(card) == []
