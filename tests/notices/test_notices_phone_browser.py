"""The console's Notices page on a director's phone: at 360 px it does not scroll sideways
(issue 31). Its two tables (subscribers, the sent log) hold long addresses and subjects that
do not wrap; they scroll inside their own box, which a keyboard reaches, as every wide table
of the site does."""

from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.test import Client

from pairings.services.store import PlannedGame, save_round_pairings
from tests.core.browser import BROWSER_MARKS
from tests.core.conftest import browser  # noqa: F401 (the fixture)
from tournament import services
from tournament.models import Player
from tournament.services import notices

pytestmark = BROWSER_MARKS

AXE = Path(__file__).resolve().parents[1] / "a11y" / "vendor" / "axe.min.js"
PHONE = {"width": 360, "height": 780}


def test_the_notices_page_fits_a_phone(event, smtp, live_server, browser):  # noqa: F811
    for i, entry in enumerate(event.entries):
        address = f"{entry.player.name.split(',')[0].lower()}.featherstonehaugh-{i}@example.org"
        Player.objects.filter(pk=entry.player_id).update(email=address)
        entry.player.refresh_from_db()
        notices.subscribe(event.tournament, entry.player, address, actor=event.director)
    # an entrant not subscribed yet: the "Add a subscriber" list shows their address
    fifth = services.register_player(event.a, name="Worthington-Smythe, Bartholomew", rating=1000)
    Player.objects.filter(pk=fifth.player_id).update(
        email="bartholomew.worthington-smythe@example.org"
    )
    # a round paired: each subscriber's pairing mail fills the sent log
    save_round_pairings(
        event.a, 1, [PlannedGame(1, 2, board=1), PlannedGame(3, 4, board=2)], actor=event.director
    )
    client = Client()
    client.force_login(event.director)
    context = browser.new_context(viewport=PHONE, bypass_csp=True)
    cookie = client.cookies[settings.SESSION_COOKIE_NAME].value
    context.add_cookies(
        [{"name": settings.SESSION_COOKIE_NAME, "value": cookie, "url": live_server.url}]
    )
    page = context.new_page()
    response = page.goto(f"{live_server.url}/t/{event.tournament.slug}/console/notices/")
    assert response is not None and response.status == 200
    assert page.locator("#subscribers tr").count() == 5
    assert page.locator("#notice-log tr").count() == 5
    assert "Worthington-Smythe, Bartholomew" in page.inner_text("#notices-player")
    scroll, client_width = page.evaluate(
        "[document.scrollingElement.scrollWidth, document.scrollingElement.clientWidth]"
    )
    wide = page.evaluate(
        "w => [...document.querySelectorAll('main *')]"
        ".filter(e => e.getBoundingClientRect().right > w)"
        ".map(e => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + ' '"
        " + Math.round(e.getBoundingClientRect().right))",
        client_width,
    )
    assert scroll <= client_width, f"{scroll} px wide at {client_width} px: {wide[:5]}"
    # the tables' own scroll boxes are reachable by keyboard (axe: scrollable-region-focusable)
    page.add_script_tag(content=AXE.read_text(encoding="utf-8"))
    serious = page.evaluate(
        "axe.run(document, {runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', "
        "'best-practice']}}).then(r => r.violations.filter(v => ['serious', 'critical']"
        ".includes(v.impact)).map(v => v.id + ': ' + v.nodes.map(n => n.target).join(' ')))"
    )
    assert serious == []
