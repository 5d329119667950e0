"""Game records on two phones at 360 px: a player attaches a GCG file from their own link
(a wrong one first, refused with its line named), steps through it with buttons, arrow keys
and a swipe, and the opponent sees it from theirs and on the public round page. axe-core finds
no serious violation on the player's page, the refusal or the viewer."""

from __future__ import annotations

import pytest

from tests.a11y.test_axe import AXE, FAILING, TAGS
from tests.core.browser import BROWSER_MARKS
from tests.core.conftest import browser, make_director  # noqa: F401 (browser: a fixture)
from tournament.models import Entry, GameRecord
from tournament.services.selfentry import ensure_tokens

from .conftest import two_player_event
from .test_service import GOOD

pytestmark = BROWSER_MARKS

PHONE = {"width": 360, "height": 780}


def phone(browser, url: str):  # noqa: F811
    context = browser.new_context(viewport=PHONE, has_touch=True, bypass_csp=True)
    page = context.new_page()
    page.goto(url)
    return page


def axe_serious(page) -> list[str]:
    page.add_script_tag(content=AXE.read_text(encoding="utf-8"))
    found = page.evaluate(
        "tags => axe.run(document, {runOnly: {type: 'tag', values: tags}})"
        ".then(r => r.violations.map(v => ({id: v.id, impact: v.impact,"
        " nodes: v.nodes.slice(0, 3).map(n => n.target.join(' '))})))",
        TAGS,
    )
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    return [f"{v['id']} {v['nodes']}" for v in found if v["impact"] in FAILING]


def status(page) -> str:
    return page.locator("#gcg-status").inner_text()


def square(page, name: str) -> str:
    """The letter on a square ("H8": column H, row 8)."""
    col, row = "ABCDEFGHIJKLMNO".index(name[0]) + 2, int(name[1:]) + 1
    return page.locator(f"#gcg-board tr:nth-child({row}) > :nth-child({col})").inner_text()


@pytest.mark.slow(seconds=8)  # chromium through six pages in two contexts, axe on three
def test_a_player_attaches_steps_through_and_the_opponent_sees_it(live_server, browser, tmp_path):  # noqa: F811
    t, d, game = two_player_event("Del Solar, Cesar", "Able, Ann", (24, 0), "Phone Records")
    ensure_tokens(d, "test")
    tokens = dict(Entry.objects.filter(division=d).values_list("number", "entry_token"))
    base = live_server.url
    wrong, right = tmp_path / "wrong.gcg", tmp_path / "ours.gcg"
    wrong.write_text(GOOD.replace("+14 24", "+14 25"))
    right.write_text(GOOD)

    cesar = phone(browser, f"{base}/e/{tokens[1]}/")
    cesar.set_input_files("#record-file", str(wrong))
    cesar.click("#record-form button[type=submit]")
    refusal = cesar.locator("#record-refused").inner_text()
    assert "wrong.gcg line 5: cesar's total 25 is not 10 +14 = 24" in refusal
    assert axe_serious(cesar) == []
    assert not GameRecord.objects.exists()

    cesar.set_input_files("#record-file", str(right))
    cesar.click("#record-form button[type=submit]")
    assert "your game record is attached (3 turns)" in cesar.locator("ul.messages").inner_text()
    assert axe_serious(cesar) == []
    cesar.click("#record-list a")
    assert status(cesar) == "Turn 3 of 3"
    cesar.screenshot(path="/tmp/gcg-viewer.png", full_page=True)
    assert axe_serious(cesar) == []
    cesar.click("#gcg-first")
    assert status(cesar) == "Start of the game" and square(cesar, "H8") == "★"
    cesar.click("#gcg-next")
    assert status(cesar) == "Turn 1 of 3: César Del Solar 8H CAB +10"
    assert [square(cesar, s) for s in ("H8", "I8", "J8")] == ["C", "A", "B"]
    cesar.keyboard.press("ArrowRight")
    assert status(cesar).startswith("Turn 2 of 3: Ann Able exchanged DEF")
    cesar.keyboard.press("ArrowLeft")
    assert status(cesar).startswith("Turn 1 of 3")
    # a swipe to the left on the board goes forward
    cesar.evaluate(
        """() => {
        const box = document.getElementById('gcg-board-box');
        const touch = x => new Touch({identifier: 1, target: box, clientX: x, clientY: 200});
        const send = (type, x) =>
            box.dispatchEvent(new TouchEvent(type, {changedTouches: [touch(x)], bubbles: true}));
        send('touchstart', 300);
        send('touchend', 100);
        }"""
    )
    assert status(cesar).startswith("Turn 2 of 3")
    cesar.keyboard.press("End")
    assert cesar.locator("#gcg-score-0 strong").inner_text() == "24"

    ann = phone(browser, f"{base}/e/{tokens[2]}/")
    ann.click("#record-list a")
    assert ann.locator("h1").inner_text() == "César Del Solar 24 – 0 Ann Able"
    ann.goto(f"{base}/t/{t.slug}/{d.slug}/round/1/")
    ann.click("a.gcg")
    assert status(ann) == "Turn 3 of 3"
    assert "rack left (ABC)" in ann.locator("#gcg-sheet").inner_text()


@pytest.mark.slow(seconds=6)  # chromium: the sign-in, the console page, one upload, axe twice
def test_the_console_records_page_attaches_and_passes_axe(live_server, browser, tmp_path):  # noqa: F811
    t, d, game = two_player_event("Del Solar, Cesar", "Able, Ann", (24, 0), "Console Records")
    make_director(t, "boss")
    path = tmp_path / "r1.gcg"
    path.write_text(GOOD)
    page = phone(browser, f"{live_server.url}/accounts/login/")
    page.fill("#id_username", "boss")
    page.fill("#id_password", "pw-long-enough-1")
    page.locator("main button[type=submit], main input[type=submit]").first.click()
    page.wait_for_load_state()
    page.goto(f"{live_server.url}/t/{t.slug}/console/{d.slug}/records/")
    assert axe_serious(page) == []
    page.set_input_files(f"#file-{game.pk}", str(path))
    page.locator(f"tr[data-game='{game.pk}'] button[type=submit]").click()
    assert "record attached (3 turns)" in page.locator("ul.messages").inner_text()
    assert axe_serious(page) == []
    assert GameRecord.objects.get(game=game).file_name == "r1.gcg"
