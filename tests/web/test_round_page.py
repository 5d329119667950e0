"""The round page (a player's table), the cross table and their caching, from the test client."""

from __future__ import annotations

import html
import re

import pytest

from pairings.services.store import PlannedGame, save_round_pairings
from tests.core.conftest import make_director
from tournament import services
from tournament.models import Game

pytestmark = pytest.mark.django_db


def round_url(t, d, n) -> str:
    return f"/t/{t.slug}/{d.slug}/round/{n}/"


def board_rows(html: str) -> list[list[str]]:
    """The round table's rows as cell texts (tags stripped, spaces collapsed)."""
    body = html.split('<table class="boards">', 1)[1].split("</table>", 1)[0]
    rows = []
    for tr in re.findall(r"<tr data-names[^>]*>(.*?)</tr>", body, re.S):
        cells = re.findall(r"<td[^>]*>(.*?)</td>", tr, re.S)
        rows.append([" ".join(re.sub(r"<[^>]+>", "", c).split()) for c in cells])
    return rows


@pytest.fixture
def with_bye(event):
    """The event plus a fifth player, who has a bye in round 3; round 3 has board 2 (player 3
    goes first against player 1) and board 1 (player 2 first), stored in that order."""
    t, d = event
    services.register_player(d, name="Eve, Ed", rating=1400)
    save_round_pairings(
        d, 3, [PlannedGame(3, 1, board=2), PlannedGame(2, 4, board=1), PlannedGame(5, 0)]
    )
    return t, d


def test_the_round_lists_every_board_with_first_and_second_and_the_bye_last(client, with_bye):
    t, d = with_bye
    response = client.get(round_url(t, d, 3))
    assert response.status_code == 200
    rows = board_rows(response.content.decode())
    games = Game.objects.filter(round__division=d, round__number=3).select_related(
        "player1__player", "player2__player"
    )
    expected = []
    for g in sorted((g for g in games if g.player2_id), key=lambda g: g.board):
        one, two = g.player1, g.player2
        if g.first == 2:
            one, two = two, one
        expected.append(
            [
                str(g.board),
                f"#{one.number} {one.player.name}",
                f"#{two.number} {two.player.name}",
                "",
            ]
        )
    bye = next(g for g in games if g.player2_id is None)
    expected.append(
        [
            str(bye.board or ""),
            f"#5 {bye.player1.player.name}",
            "bye",
            f"{bye.score1:+d}" if bye.score1 is not None else "",
        ]
    )
    assert rows == expected
    assert [r[0] for r in rows] == ["1", "2", ""] and rows[1][1] == "#3 Cole, Cy"
    html = response.content.decode()
    assert 'id="find-name"' in html and "find-name.js" in html
    assert 'hx-trigger="every 15s, live-change from:body"' in html  # live: unscored
    assert 'hx-select="#boards"' in html


def test_a_scored_round_shows_scores_and_does_not_poll(client, event):
    t, d = event
    html = client.get(round_url(t, d, 1)).content.decode()
    rows = board_rows(html)
    assert rows[0][1:] == ["#1 Able, Ann", "#2 Baker, Bo", "420-380"] or rows[0][1:] == [
        "#2 Baker, Bo",
        "#1 Able, Ann",
        "380-420",
    ]
    assert "every 15s" not in html


@pytest.mark.parametrize(
    "number,says",
    [
        ("9", "there is no round '9'; its rounds are 1 to 3"),
        ("0", "there is no round '0'"),
        ("x", "there is no round 'x'"),
        ("²", "there is no round"),
        ("3", "round 3 is not paired yet (pairings are out through round 2)"),
    ],
)
def test_unknown_or_unpaired_round_is_404_with_a_message(client, event, number, says):
    t, d = event
    response = client.get(round_url(t, d, number))
    assert response.status_code == 404
    assert says in html.unescape(response.content.decode())


def test_unknown_division_is_404(client, event):
    t, _ = event
    response = client.get(f"/t/{t.slug}/zz/round/1/")
    assert response.status_code == 404 and "zz" in response.content.decode()


def test_a_draft_is_hidden_from_the_public_but_shown_to_its_director(client, event):
    t, d = event
    services.publish_tournament(t, False, "cmd")
    for url in (round_url(t, d, 1), f"/t/{t.slug}/{d.slug}/crosstable/"):
        assert client.get(url).status_code == 404
    client.force_login(make_director(t, "dir1"))
    for url in (round_url(t, d, 1), f"/t/{t.slug}/{d.slug}/crosstable/"):
        response = client.get(url)
        assert response.status_code == 200
        assert response["Cache-Control"] == "private, no-store"


@pytest.mark.parametrize("path", ["round/2/", "crosstable/"])
def test_a_conditional_get_is_answered_304_until_a_result_changes_it(client, event, path):
    t, d = event
    url = f"/t/{t.slug}/{d.slug}/{path}"
    first = client.get(url)
    assert first.status_code == 200 and first["Cache-Control"] == "public, max-age=1"
    etag = first["ETag"]
    again = client.get(url, HTTP_IF_NONE_MATCH=etag)
    assert again.status_code == 304
    services.record_result(d, 2, 1, 400, 390)
    fresh = client.get(url, HTTP_IF_NONE_MATCH=etag)
    assert fresh.status_code == 200 and fresh["ETag"] != etag
    assert "400" in fresh.content.decode()


def cross_cells(html: str) -> dict[tuple[int, int], str]:
    out = {}
    for player, tr in re.findall(r'<tr data-player="(\d+)">(.*?)</tr>', html, re.S):
        for rnd, cell in re.findall(r'<td class="r" data-round="(\d+)">(.*?)</td>', tr, re.S):
            out[(int(player), int(rnd))] = " ".join(re.sub(r"<[^>]+>", "", cell).split())
    return out


def test_the_cross_table_cells_are_the_games(client, with_bye):
    t, d = with_bye
    services.record_result(d, 2, 1, 400, 390)
    html = client.get(f"/t/{t.slug}/{d.slug}/crosstable/").content.decode()
    expected: dict[tuple[int, int], str] = {}
    for g in Game.objects.filter(round__division=d).select_related("round", "player1", "player2"):
        r = g.round.number
        if g.player2 is None:
            s = g.score1
            label = "ff" if s is not None and s < 0 else "bye"
            tail = "" if s is None else ("W" if s > 0 else "L" if s < 0 else "T") + f"{s:+d}"
            expected[(g.player1.number, r)] = f"{label} {tail}".strip()
            continue
        for me, opp, mine, theirs in (
            (g.player1, g.player2, g.score1, g.score2),
            (g.player2, g.player1, g.score2, g.score1),
        ):
            if mine is None:
                expected[(me.number, r)] = str(opp.number)
            else:
                s = mine - theirs
                expected[(me.number, r)] = (
                    f"{opp.number} {'W' if s > 0 else 'L' if s < 0 else 'T'}{s:+d}"
                )
    cells = {k: v for k, v in cross_cells(html).items() if v}
    assert cells == expected
    assert cells[(1, 1)] == "2 W+40" and cells[(2, 1)] == "1 L-40" and cells[(3, 1)] == "4 L-60"
    assert cells[(5, 1)] == "ff L-50"  # registered after round 1: a forfeit loss
    assert 'class="scroll"' in html


def test_the_tournament_page_links_each_division_to_its_current_round(client, event):
    t, d = event
    html = client.get(f"/t/{t.slug}/").content.decode()
    assert f'href="/t/{t.slug}/{d.slug}/round/2/">Round 2 pairings</a>' in html
    assert f'href="/t/{t.slug}/"' in client.get("/").content.decode()


def test_the_board_column_is_not_hidden_on_phones(client, event):
    t, d = event
    html = client.get(f"/t/{t.slug}/{d.slug}/player/1/").content.decode()
    assert re.search(r'<th class="num[^"]*" title="board">', html)
    assert 'class="num wide">Board' not in html and not re.search(
        r'<td class="num wide">\d+</td>\s*<td><span class="wide">#', html
    )


def test_the_player_card_refreshes_while_play_goes_on_and_answers_304(client, event):
    t, d = event
    url = f"/t/{t.slug}/{d.slug}/player/1/"
    first = client.get(url)
    html_ = first.content.decode()
    assert 'hx-get="' + url + '"' in html_
    assert 'hx-trigger="every 15s, live-change from:body"' in html_
    assert 'hx-select="#card"' in html_ and 'id="card"' in html_
    # a poll with the page's ETag is a 304 until a result changes the division
    etag = first["ETag"]
    again = client.get(url, HTTP_IF_NONE_MATCH=etag, HTTP_HX_REQUEST="true")
    assert again.status_code == 304
    services.record_result(d, 2, 1, 400, 390)
    changed = client.get(url, HTTP_IF_NONE_MATCH=etag, HTTP_HX_REQUEST="true")
    assert changed.status_code == 200 and "400" in changed.content.decode()


def test_a_finished_division_s_player_card_does_not_poll(client, event):
    t, d = event
    services.record_result(d, 2, 1, 400, 390)
    services.record_result(d, 2, 2, 400, 390)
    save_round_pairings(d, 3, [PlannedGame(1, 3), PlannedGame(2, 4)])
    services.record_result(d, 3, 1, 400, 390)
    services.record_result(d, 3, 2, 400, 390)
    html_ = client.get(f"/t/{t.slug}/{d.slug}/player/1/").content.decode()
    assert 'id="card"' in html_ and "every 15s" not in html_
