"""A whole round entered from the keyboard in a real browser, at a phone's width.

Each game must cost exactly its digits, its spaces and Enter: the test counts every keydown
the page sees while a line is typed, so a lost focus (a click needed) or an extra key would
fail it. Debian's chromium through Playwright, skipped with the reason when either is missing.
"""

from __future__ import annotations

import os

import pytest

from pairings.services.store import PlannedGame, save_round_pairings
from tests.core.browser import BROWSER_MARKS
from tests.core.conftest import browser, make_director  # noqa: F401 (browser: a fixture)
from tournament import services
from tournament.models import AuditEvent, Game

pytestmark = BROWSER_MARKS

COUNT_KEYS = "window.__keys = 0; document.addEventListener('keydown', () => window.__keys++, true);"


@pytest.fixture(autouse=True)
def fast_passwords(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def _event():
    t = services.create_tournament(name="Keyboard Open")
    d = services.create_division(t, name="A", rounds=4)
    names = ["Able, Ann", "Baker, Bo", "Cole, Cy", "Dunn, Di", "Eve, Ed", "Fox, Flo", "Gill, Gus"]
    for name in names:
        services.register_player(d, name=name, rating=1500)
    save_round_pairings(
        d,
        1,
        [
            PlannedGame(1, 2, board=1),
            PlannedGame(3, 4, board=2),
            PlannedGame(6, 5, board=3),
            PlannedGame(7, 0),
        ],
        system="manual",
    )
    return t, d


def _type_line(page, line: str) -> None:
    """Type one line and Enter, then wait for the page's answer to that line."""
    page.evaluate("window.__keys = 0")
    page.keyboard.type(line)
    page.keyboard.press("Enter")
    page.wait_for_function(
        "(line) => { const e = document.querySelector('#answer .echo');"
        " return e && e.dataset.line === line; }",
        arg=line,
        timeout=10_000,
    )


def test_a_whole_round_from_the_keyboard(live_server, browser, tmp_path):  # noqa: F811
    t, d = _event()
    make_director(t, "keys-td")
    page = browser.new_page(viewport={"width": 390, "height": 844})
    results = f"{live_server.url}/t/{t.slug}/console/{d.slug}/round/1/results/"
    page.goto(results)
    page.wait_for_url("**/accounts/login/**")
    page.fill("#id_username", "keys-td")
    page.fill("#id_password", "pw-long-enough-1")
    page.click("main button[type=submit]")
    page.wait_for_url(results)
    page.evaluate(COUNT_KEYS)
    assert page.evaluate("document.activeElement.id") == "id_line"  # focused on load

    expected = {
        "3 412 389": ["#3 Cole, Cy wins by 23", "now 1-0, spread +23", "now 0-1, spread -23"],
        "1 350 2 402": ["#2 Baker, Bo wins by 52", "now 1-0, spread +52"],
        "b3 401 377": ["#6 Fox, Flo wins by 24", "#5 Eve, Ed", "now 0-1, spread -24"],
    }
    for line, shown in expected.items():
        _type_line(page, line)
        keys = page.evaluate("window.__keys")
        digits_and_spaces = len(line)
        assert keys == digits_and_spaces + 1, (line, keys)
        echo = page.inner_text("#answer .echo")
        for text in shown:
            assert text in echo, (line, echo)
        assert page.evaluate("document.activeElement.id") == "id_line"
        assert page.input_value("#id_line") == ""
    assert page.evaluate("window.__keys") == 1 + len("b3 401 377")
    assert "3 of 3 games entered" in page.inner_text("#progress")
    assert len("3 412 389") + 1 == 10  # the example: 10 keystrokes for a game
    scores = {
        g.player1.number: (g.score1, g.score2)
        for g in Game.objects.filter(round__division=d, player2__isnull=False)
    }
    assert scores == {3: (412, 389), 1: (350, 402), 6: (401, 377)}
    # each answer replaced only its game's row (out of band): every row now shows its scores,
    # the last one alone highlighted, each with what it now shows for the next line's seen
    rows = page.eval_on_selector_all(
        "table.round tr[data-game]",
        "trs => trs.map(tr => [tr.dataset.state, tr.classList.contains('just'),"
        " tr.cells[3].innerText.trim()])",
    )
    assert rows == [
        ["done", False, "350-402"],
        ["done", False, "412-389"],
        ["done", True, "401-377"],
        ["bye", False, "+50"],
    ], rows
    seen = page.eval_on_selector_all("input[name=seen]", "ins => ins.map(i => i.value)")
    assert seen == ["1=350 402|2=402 350", "3=412 389|4=389 412", "5=377 401|6=401 377"], seen

    # A refusal stays beside the box with the line given back, selected to retype.
    page.keyboard.type("3 400 5 300")
    page.keyboard.press("Enter")
    page.wait_for_selector("#id_line_error")
    assert "plays #4 Dunn, Di, not #5" in page.inner_text("#id_line_error")
    assert page.input_value("#id_line") == "3 400 5 300"
    assert page.evaluate("document.activeElement.id") == "id_line"
    page.keyboard.press("Escape")
    assert page.input_value("#id_line") == ""

    # ArrowUp in the empty box brings back the last line sent.
    page.keyboard.press("ArrowUp")
    assert page.input_value("#id_line") == "3 400 5 300"
    page.screenshot(path=str(tmp_path / "results.png"), full_page=True)
    if os.environ.get("GIBSON_RENDER_DIR"):
        page.screenshot(path=os.path.join(os.environ["GIBSON_RENDER_DIR"], "console-results.png"))


def test_reopening_the_last_line_corrects_it_with_a_reason(live_server, browser):  # noqa: F811
    t, d = _event()
    make_director(t, "fix-td")
    page = browser.new_page(viewport={"width": 390, "height": 844})
    results = f"{live_server.url}/t/{t.slug}/console/{d.slug}/round/1/results/"
    page.goto(results)
    page.fill("#id_username", "fix-td")
    page.fill("#id_password", "pw-long-enough-1")
    page.click("main button[type=submit]")
    page.wait_for_url(results)
    page.evaluate(COUNT_KEYS)
    _type_line(page, "3 412 389")
    page.keyboard.press("ArrowUp")
    assert page.input_value("#id_line") == "3 412 389"
    page.keyboard.press("Backspace")
    page.keyboard.type("8")  # 3 412 388
    page.keyboard.press("Enter")
    page.wait_for_selector("form.correction")
    # a function, not an expression string: the page's CSP refuses Playwright's eval of one
    page.wait_for_function(
        "() => document.activeElement && document.activeElement.id === 'id_reason'"
    )
    assert page.input_value("#id_score1") == "412" and page.input_value("#id_score2") == "388"
    page.keyboard.type("slip misread")
    page.keyboard.press("Enter")
    page.wait_for_selector("#answer .echo[data-kind=corrected]")
    assert "Corrected (was 412-389)" in page.inner_text("#answer .echo")
    assert page.evaluate("document.activeElement.id") == "id_line"
    assert page.input_value("#id_line") == ""
    g = Game.objects.get(round__division=d, player1__number=3)
    assert (g.score1, g.score2) == (412, 388)
    assert AuditEvent.objects.get(action="correct_result").reason == "slip misread"

    # Typing ahead: the next line goes in while the last is on its way; neither is lost.
    page.keyboard.type("1 400 300")
    page.keyboard.press("Enter")
    page.keyboard.type("b3 401 377")
    page.keyboard.press("Enter")
    page.wait_for_function(
        "() => { const e = document.querySelector('#answer .echo');"
        " return e && e.dataset.line === 'b3 401 377'; }",
        timeout=10_000,
    )
    recorded = {
        g.player1.number: (g.score1, g.score2)
        for g in Game.objects.filter(round__division=d, player2__isnull=False)
    }
    assert recorded == {3: (412, 388), 1: (400, 300), 6: (401, 377)}


def test_a_correction_typed_over_a_stale_page_is_refused(live_server, browser):  # noqa: F811
    """The result box sends the round as the page showed it: a game corrected at another desk
    meanwhile is refused with the scores now stored, and the refreshed page then corrects."""
    t, d = _event()
    services.record_result(d, 1, 1, 400, 300)
    make_director(t, "stale-td")
    page = browser.new_page(viewport={"width": 390, "height": 844})
    results = f"{live_server.url}/t/{t.slug}/console/{d.slug}/round/1/results/"
    page.goto(results)
    page.fill("#id_username", "stale-td")
    page.fill("#id_password", "pw-long-enough-1")
    page.click("main button[type=submit]")
    page.wait_for_url(results)
    game = Game.objects.get(round__division=d, round__number=1, player1__number=1)
    services.correct_result(game, 400, 310, reason="other desk", actor="other-td")
    page.keyboard.type("1 410 300: card")
    page.keyboard.press("Enter")
    page.wait_for_selector("#id_line_error")
    assert "it now holds 400 310 (you saw 400 300)" in page.inner_text("#id_line_error")
    game.refresh_from_db()
    assert (game.score1, game.score2) == (400, 310)
    page.fill("#id_line", "1 410 300: card")
    page.keyboard.press("Enter")
    page.wait_for_function(
        "() => { const e = document.querySelector('#answer .echo');"
        " return e && e.dataset.kind === 'corrected'; }",
        timeout=10_000,
    )
    game.refresh_from_db()
    assert (game.score1, game.score2) == (410, 300)
