"""Every overlay renders at 1920x1080 on a transparent page (an OBS browser source shows the
video through it) with its cards opaque, and passes axe-core with no serious violation; the
commentators' page passes axe too. Real chromium through Playwright (skipped without)."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from tests.a11y.test_axe import AXE, FAILING, TAGS
from tests.core.browser import BROWSER_MARKS
from tests.core.conftest import browser  # noqa: F401 (a fixture)
from tournament import services
from tournament.services.broadcast import feature_boards
from tournament.services.clock import post_announcement

pytestmark = [*BROWSER_MARKS, pytest.mark.slow(seconds=15)]

SIZE = {"width": 1920, "height": 1080}


def _violations(page) -> list[str]:
    page.add_script_tag(content=AXE.read_text(encoding="utf-8"))
    found = page.evaluate(
        "tags => axe.run(document, {runOnly: {type: 'tag', values: tags}})"
        ".then(r => r.violations.map(v => v.impact + ' ' + v.id + ': ' + v.help + ' ' +"
        " v.nodes.slice(0, 2).map(n => n.target.join(' ')).join(', ')))",
        TAGS,
    )
    return [v for v in found if v.split(" ", 1)[0] in FAILING]


def test_each_overlay_is_a_transparent_1920x1080_picture_that_passes_axe(
    live_server,
    browser,  # noqa: F811
    event,
    tmp_path,
):
    t, d = event
    feature_boards(t, [("A", "1")], actor="cmd")
    services.record_result(d, 2, 1, 400, 300)
    post_announcement(t, "Round 3 starts at 2 pm in the main hall", actor="cmd")
    page = browser.new_context(viewport=SIZE, bypass_csp=True).new_page()
    problems: list[str] = []
    for name, path in (
        ("featured board", "board/1/"),
        ("head to head", "board/1/h2h/"),
        ("standings ticker", f"{d.slug}/ticker/"),
        ("prize race", f"{d.slug}/prizes/"),
        ("lower third", "announcement/"),
        ("pairings slides", f"{d.slug}/pairings/"),
    ):
        answer = page.goto(f"{live_server.url}/t/{t.slug}/broadcast/{path}")
        assert answer is not None and answer.status == 200, name
        size = page.evaluate(
            "() => [document.documentElement.scrollWidth, document.documentElement.scrollHeight]"
        )
        assert size == [1920, 1080], (name, size)
        shot = page.screenshot(omit_background=True)
        (tmp_path / f"{name.replace(' ', '-')}.png").write_bytes(shot)
        image = Image.open(io.BytesIO(shot)).convert("RGBA")
        assert image.size == (1920, 1080), name
        assert image.getpixel((4, 4))[3] == 0, f"{name}: the page is not transparent"
        card = page.evaluate(
            "() => { const r = document.querySelector('.card').getBoundingClientRect();"
            " return [Math.round(r.left + 8), Math.round(r.top + r.height / 2)]; }"
        )
        assert image.getpixel(tuple(card))[3] == 255, f"{name}: the card is not opaque"
        problems += [f"{name}: {v}" for v in _violations(page)]
    page.goto(f"{live_server.url}/t/{t.slug}/broadcast/")
    problems += [f"commentators: {v}" for v in _violations(page)]
    assert not problems, "\n".join(problems)
