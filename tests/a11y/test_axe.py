"""Every kind of page passes axe-core with no serious or critical violation, and fits a phone.

Issue 17 item 9. axe-core (vendored in tests/a11y/vendor/, see its README; never served by the
site) runs in Debian's chromium on one page of each kind (public, player, club, console, desk,
sign-in) of the demo database, and on pages that answer a form with a flash message (issue 31).
The test fails on any serious or critical violation and prints
the list (rule, impact, page, the first offending elements), so a new one names itself. At
360 px no page scrolls sideways: a wide table scrolls inside its own box instead.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse
from django.utils import timezone

from tests.core.browser import BROWSER_MARKS
from tournament.clubs.models import Club, Night, Season
from tournament.demo import DEMO_SLUG, ensure_director, load_demo
from tournament.interchange.imports import import_tsh
from tournament.models import Division, Entry, Game, Tournament
from tournament.services import create_division, online_entries, publish_tournament
from tournament.services.results import record_result

pytestmark = BROWSER_MARKS

AXE = Path(__file__).parent / "vendor" / "axe.min.js"
REPO = Path(__file__).resolve().parents[2]
# WCAG 2.0-2.2 A and AA, plus axe's best practices (landmarks, headings, skip links).
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"]
FAILING = {"serious", "critical"}
PHONE = {"width": 360, "height": 780}
# words a page must say in a language: the weekend's "Move" button once read "Coup" (a move
# in a game) and its start date "Débuts" (who starts games), one msgid for two meanings
SAID = {"fr": {"console weekend": (["Déplacer", "Début"], ["Coup", "Débuts"])}}


def _pages() -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """(kind, path) of the public and player pages, then of the signed-in pages."""
    load_demo()
    entry = Entry.objects.filter(division__tournament__slug=DEMO_SLUG, division__slug="a").first()
    entry.entry_token = entry.entry_token or "a11y-test-token-" + "0" * 32
    entry.save(update_fields=["entry_token"])
    club = Club.objects.get(slug="riverside")
    season = Season.objects.filter(club=club).first()
    night = Night.objects.filter(club=club).first()
    from ratings.models import RatingList

    rating_list = RatingList.objects.order_by("pk").first()
    # Division B's round 5 complete, so its pairing page shows the engine's round-6 proposal.
    b = Division.objects.get(tournament__slug=DEMO_SLUG, slug="b")
    for game in Game.objects.filter(round__division=b, round__number=5, score1__isnull=True):
        if game.player2_id:
            record_result(b, 5, game.player1.number, 400, 350, actor="a11y test")
    # a division of teams of players (TSH's 'team' field): the standings carry team standings
    teams = import_tsh(REPO / "fixtures" / "teams" / "interclub.t", rounds=3)
    publish_tournament(teams, True, actor="a11y test")
    # entries online open, with an entrant on a waiting list (issue 22)
    import datetime as dt

    from django.utils import timezone

    from tournament.models import Tournament
    from tournament.services import online_entries

    demo = Tournament.objects.get(slug=DEMO_SLUG)
    now = timezone.now()
    online_entries.open_entries(demo, now, now + dt.timedelta(days=2), actor="a11y test")
    from tournament.services import create_division

    late = create_division(demo, name="Late", rounds=3)  # a division not started yet
    online_entries.set_division_rule(
        late, cap=0, fee_amount="40", fee_currency="USD", actor="a11y test"
    )
    waiting = online_entries.submit_entry(late, name="Waiting, Wanda", email="wanda@example.org")
    online_entries.confirm_entry(waiting.confirm_token)
    from tournament.models import Player

    # an entry in a registry player's name, awaiting their confirmation (issue 31)
    pat = Player.objects.create(name="Pending, Pat", email="pat@example.org")
    pending = online_entries.submit_entry(late, player_id=pat.pk, email="maker@example.org")
    from tournament.services.weekends import create_weekend

    weekend = create_weekend("a11y test", "Demo Weekend", demo, slug="demo-weekend")
    from tournament.clubs.services import create_organiser_invite

    _invite, join_token = create_organiser_invite(club, actor="a11y test")
    t, d = DEMO_SLUG, "a"
    public = [
        ("home", "/"),
        ("tournament", f"/t/{t}/"),
        ("standings", f"/t/{t}/{d}/standings/"),
        ("team standings", f"/t/{teams.slug}/{teams.divisions.get().slug}/standings/"),
        ("round", f"/t/{t}/{d}/round/4/"),
        ("cross table", f"/t/{t}/{d}/crosstable/"),
        ("player", f"/t/{t}/{d}/player/1/"),
        ("rating lists", "/ratings/"),
        ("rating list", f"/ratings/{rating_list.slug}/"),
        ("player search", "/players/?q=a"),
        ("player profile", f"/players/{entry.player_id}/"),
        ("events calendar", "/events/"),
        ("past events", "/events/past/"),
        ("contact the directors", f"/t/{t}/contact/"),
        ("pairing quality", f"/t/{t}/{d}/round/4/quality/"),
        ("what if", f"/t/{t}/{d}/player/1/what-if/?spread=%2B100&spread=-20&opponent=1500"),
        ("clubs", "/clubs/"),
        ("club", f"/clubs/{club.slug}/"),
        ("seasons", f"/clubs/{club.slug}/seasons/"),
        ("season", f"/clubs/{club.slug}/seasons/{season.pk}/"),
        ("club night", f"/clubs/{club.slug}/nights/{night.pk}/"),
        ("self-entry", f"/e/{entry.entry_token}/"),
        ("entries", f"/t/{t}/entries/?q=a"),
        ("sign-up sent, with its resend form", "/accounts/signup/sent/"),
        ("entrant's page", f"/entry/{waiting.link_token}/"),
        ("pending entrant's page", f"/entry/{pending.link_token}/"),
        ("weekend", f"/weekends/{weekend.slug}/"),
        ("venue screen", f"/t/{t}/screen/"),
        ("sign-in", reverse("accounts:login")),
    ]
    console = f"/t/{t}/console/"
    signed_in = [
        ("console tournaments", "/console/"),
        ("console home", console),
        ("console division", f"{console}{d}/"),
        ("console players", f"{console}{d}/players/"),
        ("console pairing", f"{console}b/round/6/pair/?system=swiss"),
        ("console results", f"{console}{d}/round/5/results/"),
        ("console round in play", f"{console}{d}/round/5/pair/"),
        ("console setup", f"{console}setup/"),
        ("console staff", f"{console}staff/"),
        ("console entries", f"{console}setup/entries/"),
        ("console check-in", f"{console}setup/checkin/"),
        ("console notices", f"{console}notices/"),
        ("console weekend", f"{console}weekend/"),
        ("console federation files", f"{console}federation/"),
        ("console venue mode", f"{console}venue-mode/"),
        ("console venue take", "/console/venue/take/"),
        ("console rating lists", "/console/rating-lists/"),
        ("desk", f"/t/{t}/desk/"),
        ("club manage", f"/clubs/{club.slug}/manage/"),
        ("club nights", f"/clubs/{club.slug}/nights/"),
        ("club organiser invitation", f"/clubs/join/{join_token}/"),
    ]
    return public, signed_in


def _audit(page, base: str, kind: str, path: str, found: list[str], wide: list[str]) -> None:
    response = page.goto(base + path)
    # a paired round's pairing page answers 400 (it cannot be paired again) and shows the
    # round in play with its change controls (swap, add/remove a bye, re-pair)
    expected = 400 if kind == "console round in play" else 200
    assert response is not None and response.status == expected, (kind, path, response)
    _check(page, kind, path, found, wide)


def _check(page, kind: str, path: str, found: list[str], wide: list[str]) -> None:
    """Run axe-core on the page as it is now and measure its width at 360 px."""
    page.add_script_tag(content=AXE.read_text(encoding="utf-8"))
    result = page.evaluate(
        "tags => axe.run(document, {runOnly: {type: 'tag', values: tags}})"
        ".then(r => r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,"
        " nodes: v.nodes.slice(0, 3).map(n => n.target.join(' ') + ' :: ' + "
        "(n.failureSummary || '').split('\\n').slice(1, 2).join(''))})))",
        TAGS,
    )
    for v in result:
        line = f"{v['impact']:9} {v['id']} on {kind} ({path}): {v['help']}\n    " + "\n    ".join(
            v["nodes"]
        )
        if v["impact"] in FAILING:
            found.append(line)
        print(line)
    width = page.evaluate("document.documentElement.scrollWidth")
    if width > PHONE["width"]:
        culprits = page.evaluate(
            "w => [...document.querySelectorAll('main *, header *')]"
            ".filter(e => e.getBoundingClientRect().right > w)"
            ".filter(e => !e.parentElement.closest('.scroll, .chart'))"
            ".slice(0, 3).map(e => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') +"
            " (e.className ? '.' + e.className : '') + ' ' +"
            " Math.round(e.getBoundingClientRect().right))",
            PHONE["width"],
        )
        wide.append(f"{kind} ({path}): {width} px wide at {PHONE['width']} px: {culprits}")


def test_every_page_kind_passes_axe_and_fits_a_phone(live_server, browser, tmp_path):
    _every_page_kind(live_server, browser, tmp_path, locale=None)


@pytest.mark.slow(seconds=40)  # the demo database, then chromium through 50 pages with axe-core
def test_every_page_kind_in_french_passes_axe_and_fits_a_phone(live_server, browser, tmp_path):
    """The same pages read by a French browser (its Accept-Language): longer words (French
    headings, column names, buttons) must wrap, not widen the page; the venue screen keeps the
    tournament's language (English here), as it does for every visitor."""
    _every_page_kind(live_server, browser, tmp_path, locale="fr")


def _every_page_kind(live_server, browser, tmp_path, locale: str | None) -> None:
    public, signed_in = _pages()
    get_user_model().objects.filter(username="director").delete()
    from tournament.demo import ensure_director

    ensure_director(password="pw-long-enough-1")
    # the site forbids inline scripts (CSP); the test injects axe past it, the site is unchanged
    options = {"locale": locale} if locale else {}
    page = browser.new_context(viewport=PHONE, bypass_csp=True, **options).new_page()
    found: list[str] = []
    wide: list[str] = []
    read_in: dict[str, str | None] = {}
    for kind, path in public:
        _audit(page, live_server.url, kind, path, found, wide)
        read_in[kind] = page.get_attribute("html", "lang")
    page.goto(live_server.url + reverse("accounts:login"))
    page.fill("#id_username", "director")
    page.fill("#id_password", "pw-long-enough-1")
    page.locator("main button[type=submit], main input[type=submit]").first.click()
    page.wait_for_load_state()
    for kind, path in signed_in:
        _audit(page, live_server.url, kind, path, found, wide)
        read_in[kind] = page.get_attribute("html", "lang")
        said, not_said = SAID.get(locale or "en", {}).get(kind, ([], []))
        text = page.locator("main").inner_text()
        assert all(w in text for w in said) and not any(w in text for w in not_said), (kind, text)
    if locale:  # every page in the browser's language but the room's screen
        assert read_in.pop("venue screen") == "en"
        assert {k: v for k, v in read_in.items() if v != locale} == {}
    (tmp_path / "axe.json").write_text(json.dumps(found, indent=1))
    assert not found, "serious/critical axe-core violations:\n" + "\n".join(found)
    assert not wide, "pages that scroll sideways at 360 px:\n" + "\n".join(wide)


def test_pages_after_an_action_pass_axe(live_server, browser, tmp_path):
    """A page that answers a form shows its flash message (success or refusal) above its
    content; that message list passes axe-core too (issue 31: the list once carried
    role=status on the <ul>, so its items were list items outside any list)."""
    load_demo()
    demo = Tournament.objects.get(slug=DEMO_SLUG)
    now = timezone.now()
    online_entries.open_entries(demo, now, now + dt.timedelta(days=2), actor="a11y test")
    late = create_division(demo, name="Late", rounds=3)  # a division not started yet
    online_entries.set_division_rule(
        late, cap=0, fee_amount="40", fee_currency="USD", actor="a11y test"
    )
    wanda = online_entries.submit_entry(late, name="Waiting, Wanda", email="wanda@example.org")
    online_entries.confirm_entry(wanda.confirm_token)
    get_user_model().objects.filter(username="director").delete()
    ensure_director(password="pw-long-enough-1")
    page = browser.new_context(viewport=PHONE, bypass_csp=True).new_page()
    base = live_server.url
    found: list[str] = []
    wide: list[str] = []
    shown: list[str] = []

    def after(kind: str) -> None:
        page.wait_for_load_state()
        shown.append(kind + ": " + page.locator("main .messages").inner_text())
        _check(page, kind, page.url, found, wide)

    # a player's own entry page: withdrawing answers with a success message
    page.goto(f"{base}/entry/{wanda.link_token}/")
    page.check("input[name=sure]")
    page.click("#withdraw-button")
    after("entrant's page after withdrawing")
    # a new entrant's "check your e-mail" page, then its "send the link again" answer (issue 33)
    page.goto(f"{base}/t/{DEMO_SLUG}/entries/")
    page.select_option("#id_division", "late")
    page.fill("#id_name", "Newcomer, Nell")
    page.fill("#id_email", "nell@example.org")
    page.locator("#entry-form button[type=submit]").click()
    page.wait_for_load_state()
    _check(page, "check your e-mail", page.url, found, wide)
    page.click("text=Send the link again")
    page.wait_for_load_state()
    assert page.locator("#resent").count() == 1
    _check(page, "check your e-mail after sending the link again", page.url, found, wide)
    page.goto(base + reverse("accounts:login"))
    page.fill("#id_username", "director")
    page.fill("#id_password", "pw-long-enough-1")
    page.locator("main button[type=submit], main input[type=submit]").first.click()
    page.wait_for_load_state()
    # the console's division page: starting the clock (success), then a refused round length
    # (a browser without form checks sends 0 minutes: the refusal is an error message)
    page.goto(f"{base}/t/{DEMO_SLUG}/console/a/")
    page.click("#round-clock button[value=start]")
    after("console division after starting the clock")
    page.fill("#round-minutes", "0")
    page.evaluate("document.querySelector('#round-minutes').form.noValidate = true")
    page.locator("#round-minutes").press("Enter")
    after("console division after a refused round length")
    assert "Your entry is withdrawn" in shown[0], shown
    assert "clock: started" in shown[1] and "Round length" in shown[2], shown
    (tmp_path / "axe.json").write_text(json.dumps(found, indent=1))
    assert not found, "serious/critical axe-core violations:\n" + "\n".join(found)
    assert not wide, "pages that scroll sideways at 360 px:\n" + "\n".join(wide)


def test_phone_keyboard_and_touch(live_server, browser, tmp_path):
    """At 360 px: the skip link comes first and shows when focused, the focus ring shows on
    the green header, standings links are 24 px tall, rating-chart labels are 11 px or more."""
    load_demo()
    entry = Entry.objects.filter(division__tournament__slug=DEMO_SLUG, division__slug="a").first()
    page = browser.new_context(viewport=PHONE).new_page()
    page.goto(f"{live_server.url}/t/{DEMO_SLUG}/a/standings/")
    page.keyboard.press("Tab")
    skip = page.locator("a.skip")
    assert page.evaluate("document.activeElement.className") == "skip"
    box = skip.bounding_box()
    assert box is not None and box["y"] >= 0  # on screen once focused
    page.keyboard.press("Tab")  # the header's "Gibson" link
    ring = page.evaluate(
        "(() => { const s = getComputedStyle(document.activeElement);"
        " return [document.activeElement.closest('header') !== null, s.outlineStyle,"
        " s.outlineColor]; })()"
    )
    assert ring[0] and ring[1] != "none" and ring[2] == "rgb(255, 217, 90)", ring
    heights = page.evaluate(
        "[...document.querySelectorAll('main table a')].map(a => a.getBoundingClientRect().height)"
    )
    assert heights and min(heights) >= 24, sorted(heights)[:5]
    page.screenshot(path=str(tmp_path / "standings-360.png"), full_page=True)
    page.goto(f"{live_server.url}/players/{entry.player_id}/")
    sizes = page.evaluate(
        "[...document.querySelectorAll('.chart svg text')].map(t => t.getBoundingClientRect()"
        ".height)"
    )
    assert sizes, "the demo player has a rating chart"
    # a glyph box of 11 px text is about 13 px tall; 6-8 px labels measured 7-9 px
    assert min(sizes) >= 12, sorted(sizes)[:5]
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    page.screenshot(path=str(tmp_path / "profile-360.png"), full_page=True)
    print(f"screenshots in {tmp_path}")
