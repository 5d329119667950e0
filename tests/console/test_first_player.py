"""One first player per game on every surface (issue 17, item 3).

Over every game of the real NASPA events in fixtures/tsh/ (imported with their ``p12``), the
player listed first on the console's result page, the printed pairings (PDF text), the public
round page and the scorecards is the one the API's ``first`` says starts (player2 when it is 2,
else the stored player1). ``b12 412 389`` gives the first score to that same player, so a
scorekeeper typing from the printed sheet records the winner the right way round.
"""

from __future__ import annotations

import io
import re

import pypdf
import pytest
from django.urls import reverse

from tests.core.conftest import make_director
from tournament.interchange.imports import import_tsh
from tournament.models import Division, First, Game
from tournament.reports.build import DivisionData, build_report, scorecards
from tournament.services.results import enter_line

pytestmark = pytest.mark.django_db

EVENTS = [("naspa-2023-a.t", 23), ("naspa-2006-b.t", 14)]
CONSOLE_ROW = re.compile(
    r'<tr data-game="(\d+)"[^>]*>\s*<td class="num">[^<]*</td>\s*'
    r'<td class="first" data-number="(\d+)">'
)
PUBLIC_ROW = re.compile(r'<td class="num board">(\d+)</td>\s*<td>#(\d+) ')


def _api_games(client, division: Division) -> list[dict]:
    """Every game of the division as the API lists it (player1/player2/first keys)."""
    url = (
        f"/api/v1/tournaments/{division.tournament.slug}/divisions/{division.slug}/games/"
        "?limit=1000"
    )
    out: list[dict] = []
    while url:
        body = client.get(url).json()
        out.extend(body["results"])
        url = body["next"]
    return out


def _expected(game: dict) -> int:
    """Who the API says is listed first: player2 when it starts (first == 2), else player1."""
    if game["first"] == First.PLAYER2:
        return game["player2"]["number"]
    return game["player1"]["number"]


def _pairings_pdf_firsts(division: Division, number: int) -> dict[int, int]:
    """Board -> first player's number, read from the printed pairings' "by board" section."""
    pdf = build_report(division, "pairings", round_number=number).pdf
    lines = []
    for page in pypdf.PdfReader(io.BytesIO(pdf)).pages:
        lines.extend(line.strip() for line in page.extract_text().splitlines())
    out: dict[int, int] = {}
    for i, line in enumerate(lines):
        if line == "vs" and lines[i - 3].isdigit() and lines[i - 2].isdigit():
            out.setdefault(int(lines[i - 3]), int(lines[i - 2]))
    return out


@pytest.mark.parametrize("name,rounds", EVENTS)
def test_every_surface_lists_the_player_who_starts_first(client, real_data, name, rounds):
    t = import_tsh(real_data / name, rounds=rounds)
    division = t.divisions.get()
    games = [g for g in _api_games(client, division) if g["player2"] is not None]
    assert len(games) > 250
    reversed_games = [g for g in games if g["first"] == First.PLAYER2]
    assert reversed_games, "the fixture must hold games whose second-stored player starts"

    # scorecards: each player's row says 1st exactly when the API says they start
    cards = {c.number: c for c in scorecards(DivisionData(division))}
    for g in games:
        n1, n2 = g["player1"]["number"], g["player2"]["number"]
        row1 = next(r for r in cards[n1].rounds if r.round == g["round"])
        row2 = next(r for r in cards[n2].rounds if r.round == g["round"])
        if g["first"] in (First.PLAYER1, First.PLAYER2):
            assert row1.first is (g["first"] == First.PLAYER1), g
            assert row2.first is (g["first"] == First.PLAYER2), g
        else:
            assert row1.first is None and row2.first is None, g

    client.force_login(make_director(t, "td"))
    db_ids = {
        (r, b, p1): pk
        for pk, r, b, p1 in Game.objects.filter(round__division=division).values_list(
            "pk", "round__number", "board", "player1__number"
        )
    }
    checked = 0
    for number in range(1, rounds + 1):
        in_round = [g for g in games if g["round"] == number]
        console_page = client.get(
            reverse("console:results", args=[t.slug, division.slug, number])
        ).content.decode()
        console = {int(pk): int(n) for pk, n in CONSOLE_ROW.findall(console_page)}
        public_page = client.get(
            reverse("public:round", args=[t.slug, division.slug, number])
        ).content.decode()
        public = {int(b): int(n) for b, n in PUBLIC_ROW.findall(public_page)}
        printed = _pairings_pdf_firsts(division, number)
        for g in in_round:
            want = _expected(g)
            pk = db_ids[(number, g["board"], g["player1"]["number"])]
            assert console[pk] == want, ("console", g)
            assert public[g["board"]] == want, ("public round page", g)
            assert printed[g["board"]] == want, ("pairings PDF", g)
            checked += 1
    assert checked == len(games)


def test_board_line_scores_the_player_who_starts_first(real_data):
    """``b12 412 389`` typed from the printed sheet: 412 is the listed-first player's."""
    t = import_tsh(real_data / "naspa-2023-a.t", rounds=23)
    division = t.divisions.get()
    game = (
        Game.objects.filter(round__division=division, first=First.PLAYER2, player2__isnull=False)
        .select_related("round", "player1", "player2")
        .first()
    )
    stored = (game.score1, game.score2)
    Game.objects.filter(pk=game.pk).update(score1=None, score2=None)
    enter_line(division, game.round.number, f"b{game.board} 455 321", actor="td")
    game.refresh_from_db()
    assert (game.score2, game.score1) == (455, 321)  # player2 starts: its score was typed first
    assert stored != (None, None)


def test_console_says_when_who_starts_is_undecided(client, real_data):
    """Draw or unknown: the stored order stands, and the console and round page say so."""
    t = import_tsh(real_data / "naspa-2023-a.t", rounds=23)
    division = t.divisions.get()
    rnd = 23
    games = list(
        Game.objects.filter(round__division=division, round__number=rnd, player2__isnull=False)
    )
    draw, unknown = games[0], games[1]
    Game.objects.filter(pk=draw.pk).update(first=First.DRAW, score1=None, score2=None)
    Game.objects.filter(pk=unknown.pk).update(first=First.UNKNOWN, score1=None, score2=None)
    client.force_login(make_director(t, "td"))
    page = client.get(
        reverse("console:results", args=[t.slug, division.slug, rnd])
    ).content.decode()
    rows = dict(CONSOLE_ROW.findall(page))
    assert rows[str(draw.pk)] == str(draw.player1.number)
    assert rows[str(unknown.pk)] == str(unknown.player1.number)
    assert page.count("(draw for first)") == 1
    assert page.count("(first not known)") == 1
    home = client.get(reverse("console:division", args=[t.slug, division.slug])).content.decode()
    assert "(draw for first)" in home and "(first not known)" in home
    public = client.get(reverse("public:round", args=[t.slug, division.slug, rnd])).content.decode()
    assert "(draw for first)" in public and "(first not known)" in public
