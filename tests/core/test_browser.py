"""The director's loop in a real headless browser: sign in, correct a score, see standings move.

Runs Debian's chromium through Playwright (no browser download); skipped with the reason when
chromium or playwright is missing. .ci/run installs chromium, so CI runs it.
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.urls import reverse

from tournament.demo import DEMO_SLUG, load_demo
from tournament.models import Game

from .browser import BROWSER_MARKS

pytestmark = BROWSER_MARKS


def test_director_corrects_a_score_and_public_standings_follow(live_server, browser, tmp_path):
    load_demo()
    get_user_model().objects.create_superuser("td", "td@example.org", "pw-long-enough-1")
    game = (
        Game.objects.filter(round__division__name="A", round__number=1)
        .select_related("player1__player")
        .order_by("board")
        .first()
    )
    page = browser.new_page()
    page.goto(f"{live_server.url}/admin/login/")
    page.fill("#id_username", "td")
    page.fill("#id_password", "pw-long-enough-1")
    page.click("input[type=submit]")
    page.wait_for_url(f"{live_server.url}/admin/")
    page.goto(live_server.url + reverse("admin:tournament_game_change", args=[game.pk]))
    page.fill("#id_score1", str(game.score2 + 300))
    page.fill("#id_reason", "scorecard misread")
    page.click("input[name=_save]")
    assert "was changed successfully" in page.inner_text("ul.messagelist")
    game.refresh_from_db()
    assert game.score1 == game.score2 + 300

    phone = browser.new_page(viewport={"width": 390, "height": 844})
    phone.goto(f"{live_server.url}/t/{DEMO_SLUG}/a/standings/?after=1")
    row = phone.locator("tr", has_text=game.player1.player.name)
    assert "+300" in row.inner_text()
    assert phone.locator("table").bounding_box()["width"] <= 390
    phone.screenshot(path=str(tmp_path / "standings-phone.png"), full_page=True)
