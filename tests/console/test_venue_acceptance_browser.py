"""Venue-proof (issue 17): a two-division event, one division odd, run through the console in
Debian's chromium, where the director makes each mistake of a real day and fixes it the way the
correction table (docs/run-an-event.md) says.

Division A (8 players) and B (5, odd), three rounds each. The mistakes and their fixes:

* A round 1: a forfeit typed by mistake (`P f`), then the real scores (`P 400 380: REASON`).
* B round 1: a result typed on the wrong game, cleared (`P clear: REASON`), then typed right.
* B: a player of division A entered on B's players page: refused, nothing changes.
* A round 2: a wrong table (a repeat pinned by mistake) found after two results: the rest
  re-paired (**Re-pair the unscored games**), the two scored games kept exactly.
* B round 2: a late arrival registered while the round is in play, given the bye's game
  (**Pair them** on Change this round).
* B round 2: a forfeit typed when neither came, fixed to a double forfeit (`P ff: REASON`).
* A round 3 paired, then a round 1 result corrected in round 1's box: the warning names the
  rounds paired from the old result.

Every fix is exactly one audit event (a refusal none). Each time a division's round is
complete, ``standings --json``, the public standings page, the API and ``tourney.js`` agree,
and equal a tally made here from the stored games alone.
"""

from __future__ import annotations

import json
import re
from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from tests.console.trail import Trail
from tests.core.browser import BROWSER_MARKS
from tests.core.conftest import browser  # noqa: F401 (a fixture)
from tournament.formats import parse_tourney_js
from tournament.models import AuditEvent, Division, Entry, Game, Tournament

pytestmark = BROWSER_MARKS

A_PLAYERS = """Able, Ann 1905
Baker, Bo 1820
Cole, Cy 1750
Dunn, Di 1690
Eve, Ed 1604
Fox, Flo 1588
Gill, Gus 1512
Hart, Hal 1433"""
B_PLAYERS = """Ives, Ida 1290
Jay, Jo 1210
Kent, Kim 1150
Lowe, Lu 1080
Moss, Mo 1010"""


@pytest.fixture(autouse=True)
def fast_passwords(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


# --------------------------------------------------------------------------- the games' truth


def tally(division: Division) -> dict[int, tuple[float, float, int]]:
    """Wins, losses and spread per player number from the stored games alone.

    A game between two players counts when scored (a tie is half a win each); a game of one
    player (a bye, a forfeit's side, a missed round) is a win when its score is positive, a
    loss when negative, and counts its score as spread.
    """
    record = {n: [0.0, 0.0, 0] for n in division.entries.values_list("number", flat=True)}
    games = Game.objects.filter(round__division=division).select_related("player1", "player2")
    for g in games:
        if g.score1 is None:
            continue
        one = record[g.player1.number]
        if g.player2_id is None:
            one[0] += g.score1 > 0
            one[1] += g.score1 < 0
            one[2] += g.score1
            continue
        two = record[g.player2.number]
        diff = g.score1 - g.score2
        for side, d in ((one, diff), (two, -diff)):
            side[0] += 1.0 if d > 0 else 0.5 if d == 0 else 0.0
            side[1] += 1.0 if d < 0 else 0.5 if d == 0 else 0.0
            side[2] += d
    return {n: (w, lo, s) for n, (w, lo, s) in record.items()}


def feed_tally(players: list) -> dict[int, tuple[float, float, int]]:
    """The same tally read from tourney.js's arrays (TSH's: opponent 0 = a game alone)."""
    out = {}
    for p in players:
        if not p:
            continue
        wins = losses = 0.0
        spread = 0
        for r, score in enumerate(p["scores"]):
            opp = p["pairings"][r]
            diff = score if opp == 0 else score - players[opp]["scores"][r]
            wins += 1.0 if diff > 0 else 0.5 if diff == 0 and opp else 0.0
            losses += 1.0 if diff < 0 else 0.5 if diff == 0 and opp else 0.0
            spread += diff
        out[p["id"]] = (wins, losses, spread)
    return out


def agree(page, base: str, t: Tournament, d: Division) -> None:
    """standings --json, the public page, the API and tourney.js against the games' tally."""
    truth = tally(d)
    out = StringIO()
    call_command("standings", t.slug, "--division", d.name, "--json", stdout=out)
    data = json.loads(out.getvalue())
    command = {
        r["number"]: (r["rank"], (float(r["wins"]), float(r["losses"]), int(r["spread"])))
        for r in (data["rows"] if isinstance(data, dict) else data)
    }
    api = page.request.get(f"{base}/api/v1/tournaments/{t.slug}/divisions/{d.slug}/standings/")
    assert api.status == 200
    by_api = {
        r["number"]: (r["rank"], (float(r["wins"]), float(r["losses"]), int(r["spread"])))
        for r in api.json()["rows"]
    }
    public = page.request.get(f"{base}/t/{t.slug}/{d.slug}/standings/")
    assert public.status == 200
    shown = {
        int(number): (int(rank), (float(w), float(lo), int(spread)))
        for rank, number, w, lo, spread in re.findall(
            r'<td class="num">(\d+)</td><td class="num wide">(\d+)</td><td><a [^>]*>[^<]*</a>'
            r'</td>\s*<td class="num">([\d.]+)</td><td class="num">([\d.]+)</td>\s*'
            r'<td class="num">([+-]?\d+)</td>',
            public.text(),
        )
    }
    feed = page.request.get(f"{base}/t/{t.slug}/tourney.js")
    assert feed.status == 200
    (division,) = [
        x for x in parse_tourney_js(feed.text())["divisions"] if x["name"].lower() == d.slug
    ]
    from_feed = feed_tally(division["players"])
    assert len(truth) == d.entries.count()
    assert {n: rec for n, (_, rec) in command.items()} == truth
    assert by_api == command
    assert shown == command
    assert from_feed == truth


# --------------------------------------------------------------------------- the console


def type_line(page, line: str, kind: str) -> None:
    """Type a line in the focused result box and Enter; wait for its echo of that kind."""
    assert page.evaluate("document.activeElement.id") == "id_line"
    page.keyboard.type(line)
    page.keyboard.press("Enter")
    shown = " ".join(line.split(":")[0].split())  # the echo names the line without its reason
    page.wait_for_function(
        "([line, kind]) => { const e = document.querySelector('#answer .echo');"
        " return e && e.dataset.line === line && e.dataset.kind === kind; }",
        arg=[shown, kind],
        timeout=15_000,
    )


def games(d: Division, rnd: int) -> list[Game]:
    return list(
        Game.objects.filter(round__division=d, round__number=rnd)
        .select_related("player1", "player2")
        .order_by("board", "pk")
    )


def played(d: Division, rnd: int) -> list[Game]:
    return [g for g in games(d, rnd) if g.player2_id is not None]


def pairs(d: Division, rnd: int) -> set[frozenset[int]]:
    return {frozenset((g.player1.number, g.player2.number)) for g in played(d, rnd)}


def score_line(g: Game, k: int) -> str:
    """A result for a game, the first player's score first (never a tie)."""
    return f"{g.player1.number} {360 + 7 * k} {341 + 5 * k}"


def pair_round(page, base: str, t: Tournament, d: Division, rnd: int) -> None:
    page.goto(f"{base}/t/{t.slug}/console/{d.slug}/round/{rnd}/pair/")
    if page.locator("form.publish").count() == 0:  # no system scheduled: choose one
        page.select_option("#id_system", "swiss")
        page.click("form.system button[type=submit]")
    page.wait_for_selector("form.publish")


def publish(page, d: Division) -> None:
    page.click("form.publish button[type=submit]")
    page.wait_for_url(f"**/console/{d.slug}/")


def results_page(page, base: str, t: Tournament, d: Division, rnd: int) -> None:
    page.goto(f"{base}/t/{t.slug}/console/{d.slug}/round/{rnd}/results/")
    page.wait_for_function(
        "() => document.activeElement && document.activeElement.id === 'id_line'"
    )


def enter_rest(page, trail: Trail, d: Division, rnd: int) -> None:
    """Type every result still missing in the round, one audit event each."""
    for k, g in enumerate(played(d, rnd)):
        if g.score1 is None:
            type_line(page, score_line(g, k), "recorded")
            trail.after(f"{d.name} round {rnd}: result {k}", 1, "record_result")
    assert not Game.objects.filter(round__division=d, round__number=rnd, score1__isnull=True)


def test_a_venue_day_of_mistakes_each_fixed_the_documented_way(live_server, browser):  # noqa: F811
    from django.contrib.auth.models import Permission

    td = get_user_model().objects.create_user("td", "td@example.org", "pw-long-enough-1")
    # a site administrator granted this director the right to create tournaments (issue 19)
    td.user_permissions.add(Permission.objects.get(codename="create_tournament"))
    trail = Trail()
    page = browser.new_page(viewport={"width": 1024, "height": 900})
    base = live_server.url

    # ---- sign in, create the event (A: 8 players, B: 5), publish it, register everyone
    page.goto(f"{base}/console/")
    page.wait_for_url("**/accounts/login/**")
    page.fill("#id_username", "td")
    page.fill("#id_password", "pw-long-enough-1")
    page.click("main button[type=submit]")
    page.wait_for_url(f"{base}/console/")
    page.click("#new-tournament")
    page.fill("#id_name", "Venue Open")
    page.fill("#id_start_date", "2026-11-28")
    for k, name in enumerate(("A", "B")):
        page.fill(f"#id_divisions-{k}-name", name)
        page.fill(f"#id_divisions-{k}-rounds", "3")
    page.click("form#new-tournament button[type=submit]")
    page.wait_for_url("**/console/setup/")
    t = Tournament.objects.get()
    a, b = t.divisions.get(name="A"), t.divisions.get(name="B")
    trail.after("create the tournament and two divisions", 3)
    page.click("#publish button[type=submit]")
    page.wait_for_function("() => document.querySelector('#publish').textContent.includes('draft')")
    t.refresh_from_db()
    assert t.published
    trail.after("publish", 1)
    for d, pasted, count in ((a, A_PLAYERS, 8), (b, B_PLAYERS, 5)):
        page.goto(f"{base}/t/{t.slug}/console/{d.slug}/players/")
        page.click("#paste summary")
        page.fill("#paste-form textarea", pasted)
        page.click("#paste-form button[type=submit]")
        page.wait_for_selector(f"#entry-{count}")
        trail.after(f"paste division {d.name}", count)

    # ---- A round 1: a forfeit typed by mistake, then the real scores
    pair_round(page, base, t, a, 1)
    publish(page, a)
    trail.after("publish A round 1", 1)
    results_page(page, base, t, a, 1)
    first = played(a, 1)[0]
    p = first.player1.number
    type_line(page, f"{p} f", "forfeit")  # the mistake: the game was played
    trail.after("A round 1: forfeit typed by mistake", 1, "record_forfeit")
    type_line(page, f"{p} 400 380: forfeit typed by mistake, the game was played", "corrected")
    trail.after("A round 1: the real scores (the fix)", 1, "correct_result")
    first = played(a, 1)[0]
    assert (first.player1.number, first.score1, first.score2) == (p, 400, 380)
    assert not [g for g in games(a, 1) if g.player2_id is None]  # the forfeit's rows are gone
    enter_rest(page, trail, a, 1)
    agree(page, base, t, a)

    # ---- B round 1 (odd: a bye): a result typed on the wrong game, cleared
    pair_round(page, base, t, b, 1)
    publish(page, b)
    trail.after("publish B round 1", 1)
    one, two = played(b, 1)
    (bye,) = [g for g in games(b, 1) if g.player2_id is None]
    assert bye.score1 == 50  # the bye scores the bye spread, before any result
    results_page(page, base, t, b, 1)
    wrong = two.player1.number
    type_line(page, f"{wrong} 421 380", "recorded")  # board 1's slip typed for board 2
    trail.after("B round 1: result on the wrong game", 1, "record_result")
    type_line(page, f"{wrong} clear: result on the wrong game", "cleared")
    trail.after("B round 1: cleared (the fix)", 1, "clear_result")
    two.refresh_from_db()
    assert (two.score1, two.score2) == (None, None)
    type_line(page, f"{one.player1.number} 421 380", "recorded")
    trail.after("B round 1: the slip on its game", 1, "record_result")
    enter_rest(page, trail, b, 1)
    agree(page, base, t, b)

    # ---- B: a player of division A entered on B's page is refused
    page.goto(f"{base}/t/{t.slug}/console/{b.slug}/players/")
    entries = Entry.objects.count()
    page.fill("#id_name", "Cole, Cy")
    page.press("#id_name", "Enter")  # "add a new player": the server shows the near names
    page.wait_for_selector("#near button.pick")
    assert "entered in division A as #3" in page.inner_text("#near")
    page.click("#near button.pick")  # the same person, picked
    page.wait_for_selector("#id_name_error")
    refusal = page.inner_text("#id_name_error")
    assert "already entered in division A (#3)" in refusal, refusal
    assert "move them to B" in refusal
    assert Entry.objects.count() == entries
    trail.after("refused: a player of A entered in B", 0)

    # ---- A round 2: a wrong table (a repeat pinned by mistake) after two results
    pair_round(page, base, t, a, 2)
    met = next(iter(pairs(a, 1)))
    x, y = sorted(met)
    page.fill("#id_pin-a", str(x))
    page.fill("#id_pin-b", str(y))
    with page.expect_response(lambda r: r.request.method == "POST" and "/pair/" in r.url):
        page.click("form.pin button[type=submit]")
    page.wait_for_selector("#proposal tr.pinned")
    publish(page, a)
    trail.after("publish A round 2 (with the wrong table)", 1)
    assert met in pairs(a, 2)  # the repeat is stored
    results_page(page, base, t, a, 2)
    # two results come in from games that are no repeat (the pin's swap of opponents may
    # have made a second one); then the mistake is seen
    repeats = pairs(a, 1)
    others = [
        g for g in played(a, 2) if frozenset((g.player1.number, g.player2.number)) not in repeats
    ]
    assert len(others) >= 2
    for k, g in enumerate(others[:2]):
        type_line(page, score_line(g, k), "recorded")
        trail.after(f"A round 2: result {k}", 1, "record_result")
    for g in others[:2]:
        g.refresh_from_db()
    scored = {(g.pk, g.player1.number, g.player2.number, g.score1, g.score2) for g in others[:2]}
    page.goto(f"{base}/t/{t.slug}/console/{a.slug}/round/2/pair/")
    page.wait_for_selector("section.in-play")
    assert page.locator("section.in-play strong", has_text="locked").count() == 2
    page.click("form.change-repair button[type=submit]")
    page.wait_for_selector("#repair-confirm")  # the changes first, then the confirmation
    page.click("#repair-confirm button[type=submit]")
    page.wait_for_selector("ul.messages")
    assert "its unscored games re-paired" in page.inner_text("ul.messages")
    trail.after("A round 2: the rest re-paired (the fix)", 1, "repair_unscored")
    kept = {
        (g.pk, g.player1.number, g.player2.number, g.score1, g.score2)
        for g in played(a, 2)
        if g.score1 is not None
    }
    assert kept == scored  # the two results stand exactly
    assert len(played(a, 2)) == 4 and not pairs(a, 2) & pairs(a, 1)  # no repeat left
    results_page(page, base, t, a, 2)
    enter_rest(page, trail, a, 2)
    agree(page, base, t, a)

    # ---- B round 2: a late arrival given the bye's game; a double forfeit
    pair_round(page, base, t, b, 2)
    publish(page, b)
    trail.after("publish B round 2", 1)
    (bye,) = [g for g in games(b, 2) if g.player2_id is None]
    waiting = bye.player1.number
    page.goto(f"{base}/t/{t.slug}/console/{b.slug}/players/")
    page.fill("#id_name", "Late, Lou")
    page.fill("#add-form input[name=rating]", "1111")
    page.click("#add-new")
    page.wait_for_selector("#entry-6")
    trail.after("register the late arrival", 1, "register")
    assert "Round 2 is in play: to give them a game in it, use Pair them" in page.inner_text(
        "#notice"
    )
    late = 6
    page.goto(f"{base}/t/{t.slug}/console/{b.slug}/round/2/pair/")
    page.wait_for_selector("section.in-play")
    page.fill("#id_pin_a", str(late))
    page.fill("#id_pin_b", str(waiting))
    page.click("form.change-pin button[type=submit]")
    page.wait_for_selector("ul.messages")
    assert f"#{late} plays #{waiting}" in page.inner_text("ul.messages")
    trail.after(
        "B round 2: the late arrival plays the bye's player (the fix)", 1, "repair_unscored"
    )
    assert frozenset((late, waiting)) in pairs(b, 2)
    assert not [g for g in games(b, 2) if g.player2_id is None]  # no bye, no missed round
    missed = [g for g in games(b, 1) if g.player1.number == late]
    assert [(g.player2_id, g.score1, g.explanation) for g in missed] == [(None, -50, "late entry")]
    results_page(page, base, t, b, 2)
    absent = next(g for g in played(b, 2) if late not in (g.player1.number, g.player2.number))
    q = absent.player1.number
    type_line(page, f"{q} f", "forfeit")  # the mistake: neither came
    trail.after("B round 2: a forfeit typed", 1, "record_forfeit")
    type_line(page, f"{q} ff: neither came", "double_forfeit")
    trail.after("B round 2: a double forfeit (the fix)", 1, "correct_result")
    both = [
        g.score1
        for g in games(b, 2)
        if g.player2_id is None and g.player1.number in (q, absent.player2.number)
    ]
    assert both == [-50, -50]
    enter_rest(page, trail, b, 2)
    agree(page, base, t, b)

    # ---- A round 3 paired, then a round 1 result corrected: the warning names rounds 2, 3
    pair_round(page, base, t, a, 3)
    publish(page, a)
    trail.after("publish A round 3", 1)
    results_page(page, base, t, a, 1)
    g = played(a, 1)[1]
    type_line(page, f"{g.player1.number} 352 377: winner misread on the slip", "corrected")
    trail.after("A round 1 corrected after round 3 was paired (the fix)", 1, "correct_result")
    warning = page.inner_text("#answer .later-pairings")
    assert "Rounds 2, 3 were paired from the old result of round 1." in warning, warning
    assert "Round 2: every game is scored" in warning and "Round 3: 4 unscored games" in warning
    g.refresh_from_db()
    assert (g.score1, g.score2) == (352, 377)
    results_page(page, base, t, a, 3)
    enter_rest(page, trail, a, 3)
    agree(page, base, t, a)

    # ---- B round 3 (six players now) to the end
    pair_round(page, base, t, b, 3)
    publish(page, b)
    trail.after("publish B round 3", 1)
    assert len(played(b, 3)) == 3
    results_page(page, base, t, b, 3)
    enter_rest(page, trail, b, 3)
    agree(page, base, t, b)

    # one audit event per action, nothing else
    assert AuditEvent.objects.filter(tournament=t).count() == trail.expected
    assert AuditEvent.objects.count() == trail.expected
