"""The public player page (the scorecard QR code's target) and the public pages' round counts.

Checked against the real NASPA 2023 division file: every number the page shows for a player's
round must be the one the .t file implies.
"""

from __future__ import annotations

import re

import pytest
from django.test import Client

from pairings.services.store import PlannedGame, save_round_pairings
from tournament import services
from tournament.formats.tsh import parse_t
from tournament.interchange.imports import import_tsh
from tournament.reports.build import player_url
from tournament.selectors import last_round_number, last_scored_round

pytestmark = pytest.mark.django_db


@pytest.fixture
def naspa(real_data):
    tournament = import_tsh(real_data / "naspa-2023-a.t", rounds=23)
    division = tournament.divisions.get()
    text = (real_data / "naspa-2023-a.t").read_text(encoding="latin-1")
    players = {p.number: p for p in parse_t(text)}
    return tournament, division, players


def page_url(tournament, division, number) -> str:
    return f"/t/{tournament.slug}/{division.slug}/player/{number}/"


def row_html(body: str, rnd: int) -> str:
    match = re.search(rf'<tr data-round="{rnd}">(.*?)</tr>', body, re.S)
    assert match, f"no row for round {rnd}"
    return match.group(1)


def cells(html: str) -> list[str]:
    """The text of each cell, tags stripped."""
    out = []
    for cell in re.findall(r"<td[^>]*>(.*?)</td>", html, re.S):
        out.append(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", cell)).strip())
    return out


def expected_rounds(players, number: int):
    """Per round, from the .t file alone: (opp, for, against, spread, wins, losses, cumulative)."""
    p = players[number]
    wins = losses = 0.0
    cumulative = 0
    out = []
    for r, (opp, mine) in enumerate(zip(p.opponents, p.scores, strict=True), start=1):
        if opp:
            theirs = players[opp].scores[r - 1]
            spread = mine - theirs
            won = 1.0 if spread > 0 else 0.5 if spread == 0 else 0.0
        else:
            theirs, spread = None, mine
            won = 1.0 if mine > 0 else 0.0
        wins += won
        losses += 1.0 - won
        cumulative += spread
        out.append((opp, mine, theirs, spread, wins, losses, cumulative))
    return out


def record(wins: float, losses: float) -> str:
    def show(x: float) -> str:
        return str(int(x)) if x == int(x) else str(x)

    return f"{show(wins)}-{show(losses)}"


def test_player_1_round_5_as_in_the_t_file(client, naspa):
    tournament, division, players = naspa
    body = client.get(page_url(tournament, division, 1)).content.decode()
    opp, mine, theirs, spread, wins, losses, cumulative = expected_rounds(players, 1)[4]
    smylie = players[1]
    # Round 5: Smylie 378, opponent #11; board and first/second from the file's board and p12.
    assert (opp, mine) == (11, 378)
    row = cells(row_html(body, 5))
    first = {1: "1st", 2: "2nd"}[smylie.p12[4]]
    assert row == [
        "5",
        first,
        str(smylie.board[4]),
        f"#11 {players[11].name}",
        str(players[11].rating),
        str(mine),
        str(theirs),
        f"{spread:+d}",
        record(wins, losses),
        f"{cumulative:+d}",
    ]
    assert f'href="{page_url(tournament, division, 11)}"' in row_html(body, 5)


def test_every_round_of_every_player_matches_the_t_file(client, naspa):
    tournament, division, players = naspa
    for number, p in players.items():
        body = client.get(page_url(tournament, division, number)).content.decode()
        for r, (opp, mine, theirs, spread, wins, losses, cum) in enumerate(
            expected_rounds(players, number), start=1
        ):
            row = cells(row_html(body, r))
            where = (p.name, r)
            if opp:
                assert row[3].startswith(f"#{opp} {players[opp].name}"), where
                assert row[5:7] == [str(mine), str(theirs)], where
            else:
                assert row[3].startswith("bye" if mine > 0 else "forfeit"), where
            assert row[7:] == [f"{spread:+d}", record(wins, losses), f"{cum:+d}"], where


def test_header_agrees_with_standings_and_estimates(client, naspa):
    tournament, division, players = naspa
    page = client.get(page_url(tournament, division, 1))
    body = page.content.decode()
    smylie = players[1]
    assert f"#1 {smylie.name}" in body and "Division naspa-2023-a" in body
    assert "paired through round 23, scored through round 23" in body
    assert f"<dd>{smylie.rrank[23]}</dd>" in body  # rank after round 23, as TSH printed it
    assert f"<dd>{smylie.newr[22]}</dd>" in body  # TSH's rating estimate after round 23
    *_, wins, losses, cumulative = expected_rounds(players, 1)[-1]
    assert f"<dd>{record(wins, losses)}</dd>" in body and f"<dd>{cumulative:+d}</dd>" in body
    starts = sum(1 for x in smylie.p12 if x == 1)
    replies = sum(1 for x in smylie.p12 if x == 2)
    assert f"<dd>{starts}:{replies}</dd>" in body


def test_repeat_meetings_are_marked(client, naspa):
    tournament, division, players = naspa
    body = client.get(page_url(tournament, division, 1)).content.decode()
    opponents = players[1].opponents
    seen: dict[int, int] = {}
    for r, opp in enumerate(opponents, start=1):
        seen[opp] = seen.get(opp, 0) + 1
        row = row_html(body, r)
        if seen[opp] > 1:
            assert f"*{seen[opp]}</span>" in row, r
        else:
            assert 'class="repeat"' not in row, r
    assert max(seen.values()) >= 3  # Smylie met #2 three times: *2 and *3 both appear
    assert "second meeting with this opponent" in body


def test_withdrawn_player_shows_forfeits_and_no_rank(client, naspa):
    tournament, division, players = naspa
    keras = next(p for p in players.values() if p.name.startswith("Keras"))
    body = client.get(page_url(tournament, division, keras.number)).content.decode()
    assert "<dd>withdrawn</dd>" in body and "from round 20" in body
    for r in range(20, 24):
        assert cells(row_html(body, r))[3].startswith("forfeit")


@pytest.fixture
def live():
    """A small event mid-round: round 2 paired, one of its games still to play, a bye."""
    t = services.create_tournament(name="Club Night")
    d = services.create_division(t, name="Open A", rounds=5)
    for name in ("Ann", "Bob", "Cy", "Di", "Ed"):
        services.register_player(d, name=f"{name}, Test", rating=1500)
    save_round_pairings(
        d,
        1,
        [
            PlannedGame(1, 2, board=1),
            PlannedGame(3, 4, board=2),
            PlannedGame(5, 0),
        ],
    )
    services.record_result(d, 1, 1, 400, 350)
    services.record_result(d, 1, 3, 300, 300)
    save_round_pairings(
        d,
        2,
        [
            PlannedGame(2, 1, board=1),
            PlannedGame(4, 5, board=2),
            PlannedGame(3, 0),
        ],
    )
    services.record_result(d, 2, 4, 410, 390)
    return t, d


def test_paired_but_unscored_round_shows_to_play(client, live):
    t, d = live
    body = client.get(page_url(t, d, 1)).content.decode()
    assert cells(row_html(body, 1))[5:] == ["400", "350", "+50", "1-0", "+50"]
    row2 = cells(row_html(body, 2))
    assert row2[1] == "2nd" and row2[3] == "#2 Bob, Test *2" and row2[5] == "to play"
    assert 'data-round="3"' not in body  # future rounds are not listed
    assert "paired through round 2, scored through round 1" in body
    tie = cells(row_html(client.get(page_url(t, d, 3)).content.decode(), 1))
    assert tie[5:] == ["300", "300", "+0", "0.5-0.5", "+0"]


def test_byes_are_shown_as_byes(client, live):
    t, d = live
    body = client.get(page_url(t, d, 5)).content.decode()
    bye = cells(row_html(body, 1))
    assert bye[3] == "bye" and bye[5:] == ["", "", "+50", "1-0", "+50"]
    assert cells(row_html(body, 2))[5:] == ["390", "410", "-20", "1-1", "+30"]


def test_the_scorecard_qr_url_opens_the_page(client, live):
    t, d = live
    for name in ("Open A", "B/2", "Ünïcode"):
        div = d if name == "Open A" else services.create_division(t, name=name)
        player = "Ann, Test" if div is d else f"Ann, Test {name}"  # one person, one division
        if div is not d:
            services.register_player(div, name=player, rating=1500)
        url = player_url(t, div, 1)
        path = url[url.index("/t/") :]
        page = client.get(path)
        assert page.status_code == 200, (name, path)
        assert f"#1 {player}" in page.content.decode()


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("/t/no-such/A/player/1/", "there is no tournament &#x27;no-such&#x27;"),
        ("/t/{slug}/Z/player/1/", "no division &#x27;Z&#x27;; it has Open A (open-a)"),
        ("/t/{slug}/open-a/player/9/", "there is no player number 9 (players are 1..5)"),
        ("/t/{slug}/open-a/player/0/", "player &#x27;0&#x27; is not a player number"),
        ("/t/{slug}/open-a/player/abc/", "player &#x27;abc&#x27; is not a player number"),
        ("/t/{slug}/open-a/player/-1/", "player &#x27;-1&#x27; is not a player number"),
        ("/t/{slug}/open-a/player/%C2%B2/", "is not a player number"),  # "²".isdigit()
    ],
)
def test_bad_player_urls_are_404_saying_why(client, live, path, message):
    t, _ = live
    page = client.get(path.format(slug=t.slug))
    assert page.status_code == 404
    body = page.content.decode()
    assert "Not found" in body and message in body, body


def test_public_pages_refuse_writes(live):
    t, d = live
    client = Client(enforce_csrf_checks=True)
    for path in ("/", f"/t/{t.slug}/", f"/t/{t.slug}/open-a/standings/", page_url(t, d, 1)):
        assert client.post(path, {"score": 999}).status_code == 405, path
        assert client.put(path).status_code == 405, path
        assert client.get(path).status_code == 200, path
        assert client.head(path).status_code == 200, path
    assert not d.round_set.get(number=2).games.filter(score1=999).exists()


def test_tournament_page_separates_paired_from_scored(client, live):
    t, _ = live
    body = client.get(f"/t/{t.slug}/").content.decode()
    assert "Paired through" in body and "Scored through" in body
    row = re.search(r"<tr><td><a [^>]*>Open A</a></td>(.*?)</tr>", body, re.S).group(1)
    assert cells(row) == ["5", "round 2", "round 1", "5"]


def test_last_scored_round(live):
    t, d = live
    assert last_round_number(d) == 2 and last_scored_round(d) == 1
    services.record_result(d, 2, 1, 380, 381)
    assert last_scored_round(d) == 2
    empty = services.create_division(t, name="Empty")
    assert last_round_number(empty) == 0 and last_scored_round(empty) == 0


def test_standings_after_a_round_not_yet_paired_is_400(client, live):
    t, _ = live
    url = f"/t/{t.slug}/open-a/standings/"
    assert client.get(url, {"after": 2}).status_code == 200
    assert client.get(url, {"after": 0}).status_code == 200
    for bad in ("3", "5", "99", "-1", "x", "²"):
        page = client.get(url, {"after": bad})
        assert page.status_code == 400, bad
        assert "give a round number from 0 to 2" in page.content.decode(), bad


def test_standings_link_each_player_to_their_page(client, live):
    t, d = live
    body = client.get(f"/t/{t.slug}/open-a/standings/").content.decode()
    for number in range(1, 6):
        assert f'href="/t/{t.slug}/open-a/player/{number}/"' in body
