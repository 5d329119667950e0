"""The result box's light answer (issue 24): only what a line changed, at any field size.

An htmx line is answered with the echo (or refusal) in place and, out of band, the round's
counter, the next step and the rows of the line's game; never the whole table. Its queries do
not grow with the field: each kind of line is posted in a 7-player and a 41-player division
(both odd: a bye) and must cost the same queries in both. Without JavaScript the same lines
answer with the whole page, as before.
"""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from pairings.services.store import PlannedGame, save_round_pairings
from tests.core.conftest import make_director
from tournament import services
from tournament.models import AuditEvent, Game
from tournament.selectors import division_standings, records_of
from tournament.services.results import record_forfeit

pytestmark = pytest.mark.django_db
HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture(autouse=True)
def fast_passwords(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def build(players: int, name: str):
    """A division of ``players`` (odd: the last has the bye) with round 1 scored and round 2
    paired, its first game scored."""
    t = services.create_tournament(name=name)
    d = services.create_division(t, name="A", rounds=5)
    for n in range(1, players + 1):
        services.register_player(d, name=f"Player {n:03d}", rating=2000 - n)
    for rnd in (1, 2):
        shift = rnd - 1
        order = list(range(1, players + 1))
        order = order[shift:] + order[:shift]
        games = [
            PlannedGame(order[i], order[i + 1], board=i // 2 + 1) for i in range(0, players - 1, 2)
        ]
        games.append(PlannedGame(order[-1], 0))
        save_round_pairings(d, rnd, games, system="manual")
        for k, g in enumerate(games[:-1]):
            if rnd == 1 or k == 0:
                services.record_result(d, rnd, g.first, 400 + k, 350)
    return t, d


@pytest.fixture
def two(client):
    small, big = build(7, "Desk Small"), build(41, "Desk Big")
    CLIENTS.clear()
    for t, _ in (small, big):
        DIRECTORS[t.slug] = make_director(t, f"td-{t.slug}")
    return small, big


def url(t, d, rnd=2, tail=""):
    return f"/t/{t.slug}/console/{d.slug}/round/{rnd}/results/{tail}"


DIRECTORS: dict = {}
CLIENTS: dict = {}


def login(client, t):
    """Each division's director on a client of their own, warmed by one GET of the page (the
    first request of a session costs queries of its own)."""
    if t.slug not in CLIENTS:
        own = Client()
        own.force_login(DIRECTORS[t.slug])
        own.get(url(t, t.divisions.get()))
        CLIENTS[t.slug] = own
    return CLIENTS[t.slug]


def post(client, t, d, data, rnd=2, tail="", **extra):
    client = login(client, t)
    with CaptureQueriesContext(connection) as ctx:
        response = client.post(url(t, d, rnd, tail), data, **extra)
    return response, len(ctx.captured_queries)


def second_game(d, rnd=2) -> Game:
    """Round ``rnd``'s second board: unscored in round 2."""
    return Game.objects.select_related("player1", "player2").get(
        round__division=d, round__number=rnd, board=2
    )


def lines(d):
    """One line of each kind for division ``d`` (round 2), with the data to post."""
    g = second_game(d)
    first = Game.objects.select_related("player1").get(round__division=d, round__number=2, board=1)
    bye = Game.objects.select_related("player1").get(
        round__division=d, round__number=2, player2__isnull=True
    )
    since = AuditEvent.objects.order_by("-pk").values_list("pk", flat=True).first()
    return {
        kind: {"line": line, "since": since}
        for kind, line in {
            "record": f"{g.player1.number} 412 389",
            "correction": f"{first.player1.number} 380 350: misread card",
            "already recorded": f"{first.player1.number} 380 350",
            "refused": f"{g.player1.number} 1600 300",
            "bye": f"{bye.player1.number} 400 300",
        }.items()
    }


KINDS = ["record", "correction", "already recorded", "refused", "bye"]


@pytest.mark.parametrize("kind", KINDS)
def test_an_answer_costs_the_same_queries_at_7_and_41_players(
    client, two, kind, django_assert_num_queries
):
    (ts, ds), (tb, db) = two
    small, q_small = post(client, ts, ds, lines(ds)[kind], **HTMX)
    client, data = login(client, tb), lines(db)[kind]
    with django_assert_num_queries(q_small):
        big = client.post(url(tb, db), data, **HTMX)
    assert small.status_code == big.status_code
    assert "<html" not in big.content.decode() and 'id="live"' not in big.content.decode()


def test_a_forfeit_and_its_correction_cost_the_same_queries_at_both_sizes(
    client, two, django_assert_num_queries
):
    (ts, ds), (tb, db) = two
    sizes = []
    for t, d in ((ts, ds), (tb, db)):
        n = second_game(d).player1.number
        sizes.append(
            [post(client, t, d, {"line": line}, **HTMX)[1] for line in (f"{n} f", f"{n} clear: no")]
        )
    assert sizes[0] == sizes[1]


def test_the_page_and_a_correction_form_cost_the_same_queries_at_both_sizes(client, two):
    (ts, ds), (tb, db) = two
    counts = []
    for t, d in ((ts, ds), (tb, db)):
        client = login(client, t)
        with CaptureQueriesContext(connection) as ctx:
            assert client.get(url(t, d)).status_code == 200
        first = Game.objects.get(round__division=d, round__number=2, board=1)
        form = {"game": first.pk, "score1": 401, "score2": 300, "reason": "card"}
        counts.append(
            (len(ctx.captured_queries), post(client, t, d, form, tail="correct/", **HTMX)[1])
        )
    assert counts[0] == counts[1]


# Issue 40: the desk's answer to a director's line was 44 queries (the game found twice, the
# venue check twice in two queries each, the seats rewritten with savepoints on a score's
# save, the open cards apart from their rows). What a line needs: the request's own (session,
# user, tournament, division, the round paired), the director checked (three times, one query
# each), the venue check, the line's game, the write (lock, scores, reports superseded,
# versions, the venue and club-night hooks, the event), and the answer (records, counter,
# other desks' events, the rows with their cards). The director's browser says its language
# (Accept-Language), as every browser does: a client that sends none costs one query more, the
# tournament's own language.
LINE_BUDGET = {"record": 23, "forfeit": 27, "correction": 28}


@pytest.mark.parametrize("kind", sorted(LINE_BUDGET))
def test_a_line_answer_costs_a_handful_of_queries(client, two, kind):
    _small, (t, d) = two
    n = second_game(d).player1.number
    first = Game.objects.select_related("player1").get(round__division=d, round__number=2, board=1)
    line = {
        "record": f"{n} 412 389",
        "forfeit": f"{n} f",
        "correction": f"{first.player1.number} 380 350: misread card",
    }[kind]
    since = AuditEvent.objects.order_by("-pk").values_list("pk", flat=True).first()
    response, queries = post(
        client, t, d, {"line": line, "since": since}, HTTP_ACCEPT_LANGUAGE="en-GB,en;q=0.8", **HTMX
    )
    assert response.status_code == 200, response.content.decode()[:300]
    assert queries <= LINE_BUDGET[kind]


def test_saving_a_games_scores_leaves_its_seats_unwritten(two, django_assert_num_queries):
    _small, (_t, d) = two
    game = second_game(d)
    seats = list(game.seats.order_by("side").values_list("side", "entry_id", "round_id"))
    game.score1, game.score2 = 410, 390
    with django_assert_num_queries(1):  # the UPDATE of the scores alone
        game.save(update_fields=["score1", "score2"])
    game.explanation = "noted"
    with django_assert_num_queries(3):  # its round (the players checked), the row, the seats
        game.save()
    assert list(game.seats.order_by("side").values_list("side", "entry_id", "round_id")) == seats


def test_a_game_saved_again_under_its_own_pk_keeps_one_seat_a_side(two):
    """A new instance carrying an existing game's pk is an UPDATE of that row: its seats are
    compared and kept, never inserted a second time (one seat per side and game)."""
    _small, (_t, d) = two
    game = second_game(d)
    again = Game(
        pk=game.pk,
        round_id=game.round_id,
        board=(game.board or 0) + 100,
        player1_id=game.player1_id,
        player2_id=game.player2_id,
        first=game.first,
    )
    again.save()
    sides = sorted(again.seats.values_list("side", "entry_id"))
    assert sides == [(1, game.player1_id), (2, game.player2_id)]


# --------------------------------------------------------------------------- what is sent


def tbodies(body: str) -> list[str]:
    return re.findall(r'<tbody id="game-(\d+)" hx-swap-oob="true">', body)


def test_a_result_sends_its_row_the_counter_and_the_echo_only(client, two):
    _, (t, d) = two
    g = second_game(d)
    response, _ = post(client, t, d, {"line": f"{g.player1.number} 412 389"}, **HTMX)
    body = response.content.decode()
    assert response.status_code == 200 and len(body) < 5 * 1024
    assert body.lstrip().startswith('<div id="answer"')
    assert tbodies(body) == [str(g.pk)] and body.count("<tr ") == 1
    assert f"#{g.player1.number} Player {g.player1.number:03d} wins by 23" in body
    assert '<p class="muted" id="progress" hx-swap-oob="true">2 of 20 games entered</p>' in body
    # the row's part of seen comes with it, so the next correction is compared with it
    n1, n2 = g.player1.number, g.player2.number
    seen = "|".join(sorted([f"{n1}=412 389", f"{n2}=389 412"], key=lambda s: int(s.split("=")[0])))
    assert f'name="seen" value="{seen}" form="result-form"' in body


def test_a_forfeit_sends_both_rows_in_the_games_place_and_a_correction_back_one(client, two):
    _, (t, d) = two
    g = second_game(d)
    n = g.player1.number
    body = post(client, t, d, {"line": f"{n} f"}, **HTMX)[0].content.decode()
    assert tbodies(body) == [str(g.pk)]  # the game's place in the table, now two rows
    assert body.count("<tr ") == 2 and body.count('data-state="forfeit"') == 1
    assert body.count('data-state="bye"') == 1  # the winner's row (+50)
    body = post(client, t, d, {"line": f"{n} 400 300: wrong player"}, **HTMX)[0].content.decode()
    assert tbodies(body) == [str(g.pk)] and body.count("<tr ") == 1
    assert 'data-state="done"' in body and "Corrected" in body


def test_a_refusal_is_the_message_at_the_box_and_writes_nothing(client, two):
    _, (t, d) = two
    before = AuditEvent.objects.count()
    for kind in ("refused", "bye"):
        response, _ = post(client, t, d, lines(d)[kind], **HTMX)
        body = response.content.decode()
        assert response.status_code == 400
        assert 'id="id_line_error"' in body and tbodies(body) == []
    assert AuditEvent.objects.count() == before


def test_already_recorded_sends_the_stored_row_and_the_correction_form(client, two):
    _, (t, d) = two
    first = Game.objects.get(round__division=d, round__number=2, board=1)
    response, _ = post(client, t, d, lines(d)["already recorded"], **HTMX)
    body = response.content.decode()
    assert response.status_code == 400 and "already has a result" in body
    assert 'class="correction stacked"' in body and tbodies(body) == [str(first.pk)]


def test_without_javascript_a_line_answers_with_the_whole_page(client, two):
    _, (t, d) = two
    g = second_game(d)
    response, _ = post(client, t, d, {"line": f"{g.player1.number} 412 389"})
    body = response.content.decode()
    assert response.status_code == 200 and "<html" in body
    assert len(re.findall(r'<tbody id="game-\d+">', body)) == 21  # 20 games and the bye


def test_records_of_equal_the_standings_rows(two):
    _, (_t, d) = two
    rows = {r.number: r for r in division_standings(d)}
    mine = records_of(d, {1, 2, 41})
    assert set(mine) == {1, 2, 41}
    for n, row in mine.items():
        want = rows[n]
        assert (row.wins, row.losses, row.spread, row.points_for, row.byes) == (
            want.wins,
            want.losses,
            want.spread,
            want.points_for,
            want.byes,
        )
        assert row.rank is None


def test_an_answer_brings_the_rows_another_desk_changed_since_the_page(client, two):
    """The page keeps the last write it has seen (``since``); a line's answer also brings the
    rows written elsewhere after it, then the new mark, so the table stays current."""
    _, (t, d) = two
    client = login(client, t)
    page = client.get(url(t, d)).content.decode()
    since = re.search(r'name="since" value="(\d+)" form="result-form" id="since"', page)[1]
    other, mine = [
        Game.objects.select_related("player1").get(round__division=d, round__number=2, board=b)
        for b in (3, 4)
    ]
    services.record_result(d, 2, other.player1.number, 300, 299, actor="other desk")
    record_forfeit(d, 2, mine.player1.number, actor="desk 3")
    g = second_game(d)
    line = {"line": f"{g.player1.number} 412 389", "since": since}
    body = client.post(url(t, d), line, **HTMX).content.decode()
    assert sorted(map(int, tbodies(body))) == sorted([g.pk, other.pk, mine.pk])
    assert body.count("<tr ") == 4  # the line's game, the other desk's, a forfeit's two rows
    mark = AuditEvent.objects.order_by("-pk").values_list("pk", flat=True).first()
    assert f'name="since" value="{mark}" form="result-form" id="since" hx-swap-oob="true"' in body
    # nothing new elsewhere: the next answer is the line's game alone
    n = Game.objects.get(round__division=d, round__number=2, board=5).player1.number
    body = client.post(url(t, d), {"line": f"{n} 400 300", "since": mark}, **HTMX)
    assert len(tbodies(body.content.decode())) == 1
