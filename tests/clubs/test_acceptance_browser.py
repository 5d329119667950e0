"""Issue 11's acceptance run, in Debian's chromium through Playwright, through the pages alone.

An organiser signs in, founds a club, adds ten members, creates a season and runs three weekly
nights of three games each (a random draw, then King of the Hill twice): one night has a guest,
one has two latecomers whose game is logged without a draw, and every result is typed in the
run page's one box (by numbers, TSH's four numbers, and by names). After each night is closed
the public club page shows it: its ladder and its club ratings change. The ladder shown (on
the club page and the season page) must equal ``season_ladder`` row by row.

The organiser of another club signs in: while the third night is being played, each of its
forms answers 403; after the nights, every organiser page of this club answers 403 and every
form the first organiser was shown (posted with the other organiser's own session and CSRF
token, plain and as htmx, its values made into a write that would succeed for an organiser)
answers 403 with nothing written; the public pages answer 200 and show the ladder to that
organiser and to an anonymous visitor.

The test only reads the database (to find the club it created and to check what was stored);
after the two accounts and the other club exist, every write goes through the browser.
"""

from __future__ import annotations

import datetime
import random
import re
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.utils import timezone

from tests.core.browser import BROWSER_MARKS
from tests.core.conftest import browser  # noqa: F401 (a fixture)
from tournament.clubs import selectors
from tournament.clubs import services as club_services
from tournament.clubs.models import Night, Season
from tournament.models import AuditEvent, Club, Entry, Game, Membership, Player

pytestmark = BROWSER_MARKS

PW = "pw-long-enough-1"
CLUB = "Riverside Scrabble Club"
MEMBERS = [
    "Ann Lee",
    "Bob Ray",
    "Cat Fox",
    "Dan Poe",
    "Eve Kim",
    "Fay Orr",
    "Gil Day",
    "Hal Ng",
    "Ivy Wu",
    "Jon Lake",
]
GUEST = "Gus Guest"
LATECOMERS = ["Ivy Wu", "Jon Lake"]
WAIT = 15_000

# The forms an organiser is shown, collected from the page: every POST form of this club's
# pages, its action (path) and the values it would send (with the submit button's name).
COLLECT_FORMS = """(prefix) => Array.from(document.querySelectorAll('form'))
  .filter(f => (f.getAttribute('method') || '').toLowerCase() === 'post')
  .map(f => {
    const button = f.querySelector('button[type=submit][name]');
    const data = button ? new FormData(f, button) : new FormData(f);
    return {
      action: new URL(f.getAttribute('action') || location.pathname, location.href).pathname,
      fields: Array.from(data.entries())
        .filter(([k]) => k !== 'csrfmiddlewaretoken').map(([k, v]) => [k, String(v)]),
    };
  })
  .filter(f => f.action.startsWith(prefix))"""

# A post from inside the page (so the browser sends its own cookies and origin), as a plain
# form or as htmx would send it.
POST = """async ([url, pairs, htmx]) => {
  const headers = {'Content-Type': 'application/x-www-form-urlencoded'};
  if (htmx) headers['HX-Request'] = 'true';
  const r = await fetch(url, {method: 'POST', body: new URLSearchParams(pairs), headers,
                              credentials: 'same-origin', redirect: 'manual'});
  return [r.status, await r.text()];
}"""

TABLE = """(selector) => Array.from(document.querySelectorAll(selector + ' tr'))
  .filter(tr => tr.querySelector('td'))
  .map(tr => Array.from(tr.querySelectorAll('td')).map(td => td.innerText.trim()))"""


@pytest.fixture(autouse=True)
def fast_passwords(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def _sign_in(page, base: str, path: str, username: str) -> None:
    """Ask for an organiser page, get the sign-in page, sign in, land back on the page."""
    page.goto(f"{base}{path}")
    page.wait_for_url(re.compile(r".*/accounts/login/.*"))
    page.fill("#id_username", username)
    page.fill("#id_password", PW)
    page.click("main button[type=submit]")
    page.wait_for_url(f"{base}{path}")


def _visitor(chromium, previous=None):
    """A new anonymous visitor at a phone's width. Public pages may be kept 10 s by the
    browser (Cache-Control max-age), so each look after a change is a new visitor's."""
    if previous is not None:
        previous.context.close()
    page = chromium.new_context(viewport={"width": 390, "height": 844}).new_page()
    page.set_default_timeout(WAIT)
    return page


def _forms(page, slug: str) -> list[dict[str, Any]]:
    return page.evaluate(COLLECT_FORMS, f"/clubs/{slug}/")


def _score_pair(rng: random.Random) -> tuple[int, int]:
    """Two different scores (no ties: W-L stays whole numbers), sometimes a big margin."""
    a = rng.randint(300, 520)
    b = rng.choice([x for x in range(280, 500) if x != a])
    return a, b


def _drawn_games(page) -> list[tuple[int, str, int, str]]:
    """The current game's boards as the run page shows them: (number, name) first, second."""
    out = []
    for first, second in page.evaluate(
        """() => Array.from(document.querySelectorAll('table.games tr[data-game]'))
          .map(tr => [tr.cells[1].innerText, tr.cells[2].innerText])"""
    ):
        a = re.match(r"#(\d+) ([^(]+)", first.strip())
        b = re.match(r"#(\d+) ([^(]+)", second.strip())
        assert a and b, (first, second)  # no byes: every night has an even number here
        out.append((int(a[1]), a[2].strip(), int(b[1]), b[2].strip()))
    return out


def _type_result(page, line: str) -> None:
    """One line in the result box and Enter; wait for its echo (or fail with the refusal)."""
    page.fill("#id_line", line)
    page.press("#id_line", "Enter")
    page.wait_for_function(
        """(line) => {
          const code = document.querySelector('#answer .echo code');
          return (code && code.textContent === line) || document.querySelector('#id_line_error');
        }""",
        arg=line,
        timeout=WAIT,
    )
    error = page.locator("#id_line_error")
    assert error.count() == 0, (line, error.inner_text())
    assert page.input_value("#id_line") == ""  # the box is empty for the next line


class NightRun:
    """One night run through its page, counting the games it records (by number per game)."""

    def __init__(self, page, rng: random.Random, division_id: int) -> None:
        self.page = page
        self.rng = rng
        self.division_id = division_id
        self.expected: dict[tuple[int, int, int], tuple[int, int]] = {}
        self.k = 0

    def draw(self, number: int) -> None:
        self.page.click("#draw-button")
        self.page.wait_for_selector(f'#live[data-round="{number}"]', timeout=WAIT)
        self.page.wait_for_selector(f"#answer >> text=Game {number} drawn.", timeout=WAIT)

    def results(self, number: int) -> None:
        """Every board's result in the box, in four ways: ``n s s``, ``n s n s``, both names,
        and one name (the second player's score first)."""
        for n1, name1, n2, name2 in _drawn_games(self.page):
            s1, s2 = _score_pair(self.rng)
            first1, first2 = name1.split()[0].lower(), name2.split()[0].lower()
            line = [
                f"{n1} {s1} {s2}",
                f"{n1} {s1} {n2} {s2}",
                f"{first1} {s1} {first2} {s2}",
                f"{first2} {s2} {s1}",
            ][self.k % 4]
            self.k += 1
            _type_result(self.page, line)
            self.expected[(number, n1, n2)] = (s1, s2)
        assert self.page.locator("table.games tr.missing").count() == 0

    def check_stored(self) -> None:
        """Every typed score stored for the right player, and no other game."""
        stored = {}
        for g in Game.objects.filter(round__division_id=self.division_id).select_related(
            "round", "player1", "player2"
        ):
            a, b = g.player1.number, g.player2.number
            stored[(g.round.number, a, b)] = (g.score1, g.score2)
        flipped = {}
        for (r, a, b), (sa, sb) in self.expected.items():
            key = (r, a, b) if (r, a, b) in stored else (r, b, a)
            flipped[key] = (sa, sb) if key == (r, a, b) else (sb, sa)
        assert stored == flipped

    def close(self) -> None:
        self.page.click("#closing button[type=submit]")
        self.page.wait_for_selector("#answer >> text=The night is closed", timeout=WAIT)


def _ladder(page, selector: str = "#ladder table.ladder") -> list[list[str]]:
    return page.evaluate(TABLE, selector)


def _ratings(page) -> dict[str, int]:
    return {row[1]: int(row[2]) for row in page.evaluate(TABLE, "#ratings table.ratings")}


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def _expected_ladder(season: Season) -> list[list[str]]:
    """season_ladder as the page prints it: rank, name, points, W-L, spread, nights."""
    return [
        [
            str(r.rank) if r.rank is not None else "*",
            r.name,
            _number(r.points),
            f"{_number(r.wins)}-{_number(r.losses)}",
            f"{r.spread:+d}",
            str(r.nights),
        ]
        for r in selectors.season_ladder(season)
    ]


def _snapshot() -> dict[str, Any]:
    """Everything an organiser's action could write, for 'nothing written'."""
    return {
        "counts": [
            m.objects.count()
            for m in (Game, Entry, Membership, Season, Night, AuditEvent, Player, Club)
        ],
        "games": list(Game.objects.order_by("pk").values_list("pk", "score1", "score2")),
        "members": list(Membership.objects.order_by("pk").values_list("pk", "active", "guest")),
        "seasons": list(
            Season.objects.order_by("pk").values_list(
                "pk", "name", "start_date", "end_date", "preset", "archived_at"
            )
        ),
        "nights": list(Night.objects.order_by("pk").values_list("pk", "closed_at")),
        "clubs": list(Club.objects.order_by("pk").values_list("pk", "name", "city", "meets")),
        "organisers": sorted(Club.organisers.through.objects.values_list("club_id", "user_id")),
    }


def _hostile_values(
    action: str, fields: list[list[str]], slug: str, today: datetime.date, member_ids: list[int]
) -> list[list[str]]:
    """The form's own values, made into a write that would succeed for an organiser: an
    empty form would be refused anyway, and then a missing permission check went unseen."""
    rest = action.removeprefix(f"/clubs/{slug}/")
    later = (today + datetime.timedelta(days=400)).isoformat()
    fill: dict[str, list[str]] = {
        "manage/members/add/": ["name", "Ivan Intruder"],
        "seasons/manage/": ["name", "Hijacked"],
        "nights/new/": ["guests", "Ivan Intruder"],
    }.get(rest, [])  # type: ignore[assignment]
    pairs = [list(p) for p in fields]
    if fill:
        pairs = [p for p in pairs if p[0] != fill[0]] + [fill]
    if rest == "manage/":
        pairs = [[k, "Taken Over" if k == "name" else v] for k, v in pairs]
    if rest == "seasons/manage/":
        pairs = [[k, v] for k, v in pairs if k not in ("start_date", "end_date")]
        pairs += [["start_date", later], ["end_date", later]]
    if re.fullmatch(r"seasons/manage/\d+/", rest):
        pairs = [[k, "Renamed" if k == "name" else v] for k, v in pairs]
    if rest == "nights/new/":
        pairs = [[k, v] for k, v in pairs if k not in ("players", "date")]
        pairs += [["players", str(p)] for p in member_ids[:4]]
        pairs += [["date", (today + datetime.timedelta(days=1)).isoformat()]]
    if rest.endswith("/results/"):
        pairs = [["line", "1 400 300"]]
    if rest.endswith("/log/"):
        pairs = [["player", "1"], ["opponent", "2"], ["score", "400"], ["opp_score", "300"]]
    if rest.endswith("/players/"):
        pairs = [["name", "Ivan Intruder"], ["guest", "on"]]
    if rest.endswith("/reopen/"):
        pairs = [["reason", "taken over"]]
    return pairs


def test_an_organiser_runs_three_club_nights_through_the_browser(live_server, browser):  # noqa: F811
    base = live_server.url
    User.objects.create_user("org", password=PW)
    hill = User.objects.create_user("hill", password=PW)
    other_club = club_services.create_club(name="Hillside", actor=hill)
    today = timezone.localdate()
    dates = [today - datetime.timedelta(days=14), today - datetime.timedelta(days=7), today]
    rng = random.Random(11)

    organiser = browser.new_context(viewport={"width": 1024, "height": 900})
    page = organiser.new_page()
    page.set_default_timeout(WAIT)
    public = _visitor(browser)
    forms: list[dict[str, Any]] = []  # every organiser form of the club, as shown
    organiser_pages: list[str] = []  # every organiser page of the club

    # ------------------------------------------------------------------ found the club
    _sign_in(page, base, "/clubs/new/", "org")
    page.fill("#id_name", CLUB)
    page.fill("#id_city", "Riverside")
    page.fill("#id_meets", "Tuesdays 7pm, Library")
    page.click("#new-club-form button[type=submit]")
    page.wait_for_url(re.compile(r".*/clubs/[\w-]+/manage/$"))
    club = Club.objects.get(name=CLUB)
    slug = club.slug
    assert page.url == f"{base}/clubs/{slug}/manage/"
    assert club.is_organiser(User.objects.get(username="org"))
    assert club.rating_list is not None and club.rating_list.system == "club-third"

    # ------------------------------------------------------------------ ten members
    for name in MEMBERS:
        page.fill("#id_member_name", name)
        page.click("#member-add")
        page.locator("#member-list tbody tr", has_text=name).wait_for()
    assert page.locator("#member-list tbody tr").count() == 10
    assert sorted(
        Membership.objects.filter(club=club, guest=False, active=True).values_list(
            "player__name", flat=True
        )
    ) == sorted(MEMBERS)
    organiser_pages += [f"/clubs/{slug}/manage/", f"/clubs/{slug}/manage/members/search/?name=an"]
    forms += _forms(page, slug)

    # ------------------------------------------------------------------ a season
    page.goto(f"{base}/clubs/{slug}/seasons/manage/")
    page.fill("#id_name", "Spring")
    page.fill("#id_start_date", (today - datetime.timedelta(days=30)).isoformat())
    page.fill("#id_end_date", (today + datetime.timedelta(days=60)).isoformat())
    page.select_option("#id_preset", "margin-bonus")
    page.click("#season-form button[type=submit]")
    page.wait_for_selector("#notice >> text=Season Spring created.")
    season = Season.objects.get(club=club)
    assert season.preset == "margin-bonus"
    forms += _forms(page, slug)
    page.goto(f"{base}/clubs/{slug}/seasons/manage/{season.pk}/")
    forms += _forms(page, slug)
    organiser_pages += [
        f"/clubs/{slug}/seasons/manage/",
        f"/clubs/{slug}/seasons/manage/{season.pk}/",
    ]

    # the other club's organiser signs in now (the night being played is tried below)
    other = browser.new_context(viewport={"width": 1024, "height": 900}).new_page()
    other.set_default_timeout(WAIT)
    _sign_in(other, base, f"/clubs/{other_club.slug}/manage/", "hill")
    token = other.locator("input[name=csrfmiddlewaretoken]").first.get_attribute("value")
    # the session and token are good: the other club's own season form takes them (and
    # refuses the empty form at its fields, 400, rather than the token, 403)
    own_season_form = f"/clubs/{other_club.slug}/seasons/manage/"
    status, _ = other.evaluate(POST, [own_season_form, [["csrfmiddlewaretoken", token]], False])
    assert status == 400
    refusal = f"only the organisers of {CLUB} may do this"
    member_ids = list(
        Membership.objects.filter(club=club, guest=False).values_list("player_id", flat=True)
    )

    def refused(collected: list[dict[str, Any]]) -> None:
        """Each form posted by the other organiser, plain and as htmx: 403, nothing written."""
        before = _snapshot()
        actions: dict[str, list[list[str]]] = {}
        for f in collected:
            actions.setdefault(f["action"], f["fields"])
        for action, fields in actions.items():
            pairs = _hostile_values(action, fields, slug, today, member_ids)
            for htmx in (False, True):
                status, body = other.evaluate(
                    POST, [action, [["csrfmiddlewaretoken", token], *pairs], htmx]
                )
                assert status == 403, (action, htmx, status)
                assert refusal in body, (action, htmx)
        assert _snapshot() == before

    public.goto(f"{base}/clubs/{slug}/")
    assert _ladder(public) == []
    assert "No closed nights in this season yet" in public.inner_text("#ladder")
    assert _ratings(public) == {}

    # ------------------------------------------------------------------ three nights
    ladders: list[list[list[str]]] = [[]]
    ratings: list[dict[str, int]] = [{}]
    nights: list[Night] = []
    for i, day in enumerate(dates):
        here = {0: MEMBERS, 1: MEMBERS[:9], 2: MEMBERS[:8]}[i]
        page.goto(f"{base}/clubs/{slug}/nights/new/")
        if i == 0:
            forms += _forms(page, slug)
            organiser_pages.append(f"/clubs/{slug}/nights/new/")
        form = page.locator("#night-form")
        for name in here:
            form.get_by_text(name, exact=True).click()
        assert page.inner_text("#here-count") == str(len(here))
        if i == 1:
            page.fill("#id_guests", GUEST)
        assert page.input_value("#id_games") == "3"
        assert [s.input_value() for s in page.locator("#draws select").all()] == [
            "random",
            "koth",
            "koth",
        ]
        page.fill("#id_date", day.isoformat())
        page.click("#night-form button.submit")
        page.wait_for_url(re.compile(r".*/nights/[0-9]+/$"))
        night = Night.objects.get(club=club, date=day)
        nights.append(night)
        assert page.url == f"{base}/clubs/{slug}/nights/{night.pk}/"
        assert night.draw == "random,koth,koth" and night.games == 3
        division = night.tournament.divisions.get()
        assert division.entries.count() == len(here) + (i == 1)
        organiser_pages.append(f"/clubs/{slug}/nights/{night.pk}/")
        run = NightRun(page, rng, division.pk)

        run.draw(1)
        if i == 2:
            # a night being played: its forms (result, draw, log, players, close), each one
            # refused to the other organiser while game 1's results are being typed
            playing = _forms(page, slug)
            refused(playing)
            forms += playing
        run.results(1)
        if i == 2:
            # two latecomers come after the draw and play each other without one
            for name in LATECOMERS:
                page.fill("#id_name", name)
                page.click("#latecomer-form button[type=submit]")
                page.wait_for_selector(f"#answer >> text={name} joins the night")
            page.fill("#id_player", "ivy")
            page.fill("#id_score", "433")
            page.fill("#id_opponent", "Jon Lake")
            page.fill("#id_opp_score", "401")
            page.click("#log button[type=submit]")
            page.wait_for_selector(".echo[data-kind=logged]")
            numbers = dict(division.entries.values_list("player__name", "number"))
            run.expected[(1, numbers["Ivy Wu"], numbers["Jon Lake"])] = (433, 401)
            assert division.entries.count() == 10
        for number in (2, 3):
            run.draw(number)
            run.results(number)
        run.check_stored()
        assert (
            Game.objects.filter(round__division=division).count()
            == ({0: 15, 1: 15, 2: 4 + 1 + 5 + 5}[i])
        )
        run.close()
        night.refresh_from_db()
        assert night.closed
        if i == 2:
            forms += _forms(page, slug)  # a closed night: reopen

        # the public page shows the night: its ladder and the club ratings change
        public = _visitor(browser, public)
        public.goto(f"{base}/clubs/{slug}/")
        ladder = _ladder(public)
        assert ladder != ladders[-1]
        games_so_far = sum(
            Game.objects.filter(round__division__tournament__club_night=n).count() for n in nights
        )
        assert sum(int(row[3].split("-")[0]) for row in ladder) == games_so_far
        assert sum(int(row[3].split("-")[1]) for row in ladder) == games_so_far
        assert sum(int(row[4]) for row in ladder) == 0  # every spread has its opposite
        assert max(int(row[5]) for row in ladder) == i + 1  # someone played every night
        assert {row[1] for row in ladder} == set(MEMBERS) | ({GUEST} if i >= 1 else set())
        when = f"{day:%a} {day.day} {day:%b %Y}"
        assert "winner" in public.locator("#nights details", has_text=when).inner_text()
        rated = _ratings(public)
        assert set(rated) == {row[1] for row in ladder}
        changed = [name for name in rated if rated[name] != ratings[-1].get(name)]
        assert changed and len(set(rated.values())) > 1, rated
        ladders.append(ladder)
        ratings.append(rated)

    # the whole rating list answers with the same ratings
    public.goto(f"{base}/ratings/{club.rating_list.slug}/")
    listed = public.inner_text("main")
    for name, value in ratings[-1].items():
        assert name in listed and str(value) in listed

    # ------------------------------------------------------------------ the ladder is right
    expected = _expected_ladder(season)
    assert len(expected) == 11
    assert ladders[-1] == expected
    public.goto(f"{base}/clubs/{slug}/seasons/{season.pk}/")
    assert _ladder(public, "table.ladder") == expected

    # ------------------------------------------------------------------ another organiser
    before = _snapshot()
    for path in organiser_pages:
        response = other.goto(f"{base}{path}")
        assert response.status == 403, path
        assert refusal in other.inner_text("main"), path
    actions = {f["action"] for f in forms}
    expected_actions = {
        "manage/",
        "manage/organisers/invite/",
        "manage/organisers/remove/",
        "manage/members/add/",
        "manage/members/change/",
        "seasons/manage/",
        f"seasons/manage/{season.pk}/",
        f"seasons/manage/{season.pk}/archive/",
        "nights/new/",
        *(f"nights/{nights[2].pk}/{w}/" for w in ("results", "draw", "log", "players", "close")),
        f"nights/{nights[2].pk}/reopen/",
    }
    assert {a.removeprefix(f"/clubs/{slug}/") for a in actions} >= expected_actions
    refused(forms)
    assert _snapshot() == before

    # ------------------------------------------------------------------ public to anyone
    public = _visitor(browser, public)
    night_screen = f"/clubs/{slug}/nights/{nights[-1].pk}/screen/"
    for viewer in (other, public):
        for path in (
            f"/clubs/{slug}/",
            f"/clubs/{slug}/seasons/",
            f"/clubs/{slug}/seasons/{season.pk}/",
            f"/clubs/{slug}/nights/",
            night_screen,
        ):
            response = viewer.goto(f"{base}{path}")
            assert response.status == 200, path
        viewer.goto(f"{base}/clubs/{slug}/")
        assert _ladder(viewer) == expected
        viewer.goto(f"{base}/clubs/{slug}/seasons/{season.pk}/")
        assert _ladder(viewer, "table.ladder") == expected
        viewer.goto(f"{base}/clubs/{slug}/seasons/")
        assert "Spring" in viewer.inner_text("main")
        viewer.goto(f"{base}/clubs/{slug}/nights/")
        assert viewer.locator("table.nights tbody tr").count() == 3
        assert viewer.locator("table.nights a", has_text="run").count() == 0
    assert _snapshot() == before
