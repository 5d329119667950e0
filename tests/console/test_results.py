"""Console result entry: one typed line a game, refusals with reasons, corrections, double entry.

Fixtures are built with the services, as a director's event would be: six players in division
A, round 1 paired #1 v #2 (board 1), #3 v #4 (board 2), #5 v #6 (board 3, #6 printed first).
"""

from __future__ import annotations

import threading

import pytest
from django.contrib.auth import get_user_model
from django.db import connection

from pairings.services.store import PlannedGame, save_round_pairings
from tests.core.conftest import make_director
from tournament import services
from tournament.errors import ServiceError
from tournament.models import AuditEvent, Game, PendingResult
from tournament.selectors import division_standings
from tournament.services.results import (
    enter_line,
    record_forfeit,
    report_card,
    resolve_dispute,
    set_double_entry,
)

pytestmark = pytest.mark.django_db

NAMES = ["Able, Ann", "Baker, Bo", "Cole, Cy", "Dunn, Di", "Eve, Ed", "Fox, Flo"]


def build_event(name: str = "Results Open", **fields):
    t = services.create_tournament(name=name, **fields)
    d = services.create_division(t, name="A", rounds=5)
    for k, player in enumerate(NAMES):
        services.register_player(d, name=player, rating=1800 - 50 * k)
    save_round_pairings(
        d,
        1,
        [PlannedGame(1, 2, board=1), PlannedGame(3, 4, board=2), PlannedGame(6, 5, board=3)],
        system="manual",
    )
    return t, d


@pytest.fixture(autouse=True)
def fast_passwords(settings):
    """make_director hashes a real password; the slow default hasher adds a second a test."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def event():
    return build_event()


@pytest.fixture
def td(client, event):
    t, _ = event
    client.force_login(make_director(t, "results-td"))
    return client


@pytest.fixture
def keeper(event):
    """A second person at the desk: a scorekeeper signed in on their own client."""
    from django.test import Client

    t, _ = event
    user = get_user_model().objects.create_user("second-keeper", password="pw-long-enough-1")
    t.scorekeepers.add(user)
    other = Client()
    other.force_login(user)
    return other


def url(t, d, rnd=1, tail=""):
    return f"/t/{t.slug}/console/{d.slug}/round/{rnd}/results/{tail}"


def counts():
    """What a refusal must leave unchanged."""
    return (
        Game.objects.filter(score1__isnull=False, player2__isnull=False).count(),
        list(Game.objects.order_by("pk").values_list("pk", "player2_id", "score1", "score2")),
        PendingResult.objects.count(),
        AuditEvent.objects.count(),
    )


def game(d, p1: int) -> Game:
    return Game.objects.get(round__division=d, round__number=1, player1__number=p1)


# --------------------------------------------------------------------------- the page


def test_page_shows_the_round_and_one_focused_box(td, event):
    t, d = event
    page = td.get(url(t, d))
    body = page.content.decode()
    assert page.status_code == 200
    assert '<label for="id_line">Result</label>' in body
    assert 'name="line"' in body and "autofocus" in body
    assert f'hx-post="{url(t, d)}"' in body and 'hx-target="#answer"' in body
    assert "ArrowUp in the empty box" in body  # the help line names the recall key
    assert body.count("missing") >= 3 and "#6 Fox, Flo" in body
    assert "0 of 3 games entered" in body


def test_round_not_paired_is_404_naming_paired_rounds(td, event):
    t, d = event
    page = td.get(url(t, d, 4))
    assert page.status_code == 404


# --------------------------------------------------------------------------- entering


def test_short_form_records_and_echoes_names_record_and_spread(td, event):
    t, d = event
    before = AuditEvent.objects.count()
    page = td.post(url(t, d), {"line": "3 412 389"}, HTTP_HX_REQUEST="true")
    body = page.content.decode()
    assert page.status_code == 200
    assert '<div id="answer"' in body[:400]  # the answer, swapped in place
    assert "<html" not in body and 'id="live"' not in body  # htmx gets only what changed
    # out of band: the counter and the game's row (in a template, so the rows parse)
    assert '<p class="muted" id="progress" hx-swap-oob="true">' in body
    assert f'<tbody id="game-{game(d, 3).pk}" hx-swap-oob="true">' in body
    assert body.count("<tr ") == 1 and 'class="done just"' in body
    g = game(d, 3)
    assert (g.score1, g.score2) == (412, 389)
    assert "#3 Cole, Cy wins by 23" in body
    assert "#3 Cole, Cy <strong>412</strong>: now 1-0, spread +23" in body
    assert "#4 Dunn, Di <strong>389</strong>: now 0-1, spread -23" in body
    assert "1 of 3 games entered" in body
    assert AuditEvent.objects.filter(action="record_result").count() == 1
    assert AuditEvent.objects.count() == before + 1


def test_second_player_first_is_stored_in_game_order(td, event):
    t, d = event
    td.post(url(t, d), {"line": "2 300 450"})
    g = game(d, 1)
    assert (g.score1, g.score2) == (450, 300)


def test_tsh_add_score_line_checks_the_opponent(td, event):
    t, d = event
    page = td.post(url(t, d), {"line": "5 400 6 350"})
    assert page.status_code == 200
    g = game(d, 6)
    assert (g.score1, g.score2) == (350, 400)


def test_board_line_gives_the_first_score_to_the_player_printed_first(td, event):
    t, d = event
    td.post(url(t, d), {"line": "b3 401 377"})
    g = game(d, 6)  # board 3: #6 is player1
    assert (g.score1, g.score2) == (401, 377)


def test_cumulative_record_and_spread_across_rounds(td, event):
    t, d = event
    for line in ("1 400 300", "3 350 360", "6 420 410"):
        assert td.post(url(t, d), {"line": line}).status_code == 200
    save_round_pairings(
        d, 2, [PlannedGame(1, 3, board=1), PlannedGame(2, 5, board=2), PlannedGame(4, 6, board=3)]
    )
    body = td.post(url(t, d, 2), {"line": "1 500 3 450"}).content.decode()
    assert "#1 Able, Ann <strong>500</strong>: now 2-0, spread +150" in body
    assert "#3 Cole, Cy <strong>450</strong>: now 0-2, spread -60" in body


def test_an_earlier_round_may_be_entered(td, event):
    t, d = event
    save_round_pairings(
        d, 2, [PlannedGame(1, 3, board=1), PlannedGame(2, 5, board=2), PlannedGame(4, 6, board=3)]
    )
    assert td.post(url(t, d, 1), {"line": "1 400 300"}).status_code == 200
    assert game(d, 1).score1 == 400


def test_a_low_score_is_recorded_with_a_warning(td, event):
    t, d = event
    body = td.post(url(t, d), {"line": "1 400 95"}).content.decode()
    assert game(d, 1).score2 == 95
    assert 'class="warning"' in body and "95 is under 100" in body


def test_a_tie_is_recorded(td, event):
    t, d = event
    body = td.post(url(t, d), {"line": "1 400 400"}).content.decode()
    assert "a tie at 400" in body and "now 0.5-0.5, spread +0" in body


def test_without_javascript_the_page_is_rendered_whole_and_the_box_emptied(td, event):
    t, d = event
    page = td.post(url(t, d), {"line": "1 400 300"})
    body = page.content.decode()
    assert page.status_code == 200 and "<html" in body
    assert 'value="1 400 300"' not in body  # the box is empty for the next game


# --------------------------------------------------------------------------- forfeits


def test_forfeit_becomes_a_forfeit_and_a_win_that_keep_standings_right(td, event):
    t, d = event
    body = td.post(url(t, d), {"line": "3 f"}).content.decode()
    assert "Forfeit" in body and "#4 Dunn, Di wins by 50" in body
    lost = Game.objects.get(round__number=1, player1__number=3)
    won = Game.objects.get(round__number=1, player1__number=4)
    assert (lost.player2_id, lost.score1, lost.board) == (None, -50, 2)
    assert (won.player2_id, won.score1, won.board) == (None, 50, 2)
    rows = {r.number: r for r in division_standings(d)}
    assert (rows[4].wins, rows[4].losses, rows[4].spread) == (1, 0, 50)
    assert (rows[3].wins, rows[3].losses, rows[3].spread) == (0, 1, -50)
    assert AuditEvent.objects.filter(action="record_forfeit").count() == 1
    # the game is settled: scoring it now is refused, naming the forfeit
    again = td.post(url(t, d), {"line": "3 400 300"})
    assert again.status_code == 400 and "forfeit (-50)" in again.content.decode()


def test_forfeit_uses_the_tournaments_forfeit_spread():
    t, d = build_event("Wespa Open", realm="wespa")
    lost, won = record_forfeit(d, 1, 2, actor="test")
    assert (lost.score1, won.score1) == (-100, 100)
    assert won.player1.number == 1


# --------------------------------------------------------------------------- refusals


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("9 400 300", "there is no player number 9"),
        ("3 400 5 300", "#3 Cole, Cy plays #4 Dunn, Di, not #5"),
        ("3 400 9 300", "there is no player number 9"),
        ("3 1600 300", "1600 is outside 0..1500"),
        ("3 400 -5", "-5 is outside 0..1500"),
        ("b7 400 300", "there is no board 7 (boards: 1-3)"),
        ("3 4oo 300", "'4oo' is not a whole number"),
        ("", "type a result"),
        ("hello", "player number 'hello'"),
        ("b2 f", "name the player who forfeits"),
    ],
)
def test_refusals_say_why_at_the_box_and_write_nothing(td, event, line, message):
    t, d = event
    before = counts()
    page = td.post(url(t, d), {"line": line}, HTTP_HX_REQUEST="true")
    body = page.content.decode()
    assert page.status_code == 400
    assert 'id="id_line_error"' in body
    assert message in body.replace("&#x27;", "'")
    assert counts() == before


def test_not_paired_this_round_is_refused(td, event):
    t, d = event
    services.register_player(d, name="Late, Lou", rating=1500)  # #7 gets a forfeit for round 1
    p = services.register_player(d, name="Later, Liz", rating=1400)
    Game.objects.filter(round__number=1, player1=p).delete()  # as if late entry were "none"
    before = counts()
    page = td.post(url(t, d), {"line": "8 400 300"})
    assert page.status_code == 400
    assert "#8 Later, Liz is not paired in this round" in page.content.decode()
    page = td.post(url(t, d), {"line": "7 400 300"})
    assert "has a forfeit (-50) this round, not a game to score" in page.content.decode()
    assert counts() == before


def test_already_recorded_shows_the_stored_result_and_a_correction_form(td, event):
    t, d = event
    td.post(url(t, d), {"line": "1 400 300"})
    before = counts()
    page = td.post(url(t, d), {"line": "2 310 400"}, HTTP_HX_REQUEST="true")
    body = page.content.decode()
    assert page.status_code == 400
    assert "already has a result (400-300)" in body
    assert 'class="correction stacked"' in body and url(t, d, tail="correct/") in body
    assert 'name="score1" value="400"' in body and 'name="score2" value="310"' in body
    assert 'data-focus="#id_reason"' not in body  # not reopened: the box keeps the focus
    assert counts() == before
    # the reopened line (ArrowUp) opens the correction ready for its reason
    page = td.post(url(t, d), {"line": "2 310 400", "reopened": "on"}, HTTP_HX_REQUEST="true")
    assert 'data-focus="#id_reason"' in page.content.decode()


def test_correction_needs_a_reason_at_the_reason_field(td, event):
    t, d = event
    td.post(url(t, d), {"line": "1 400 300"})
    g = game(d, 1)
    before = counts()
    page = td.post(
        url(t, d, tail="correct/"),
        {"game": g.pk, "score1": 400, "score2": 310, "reason": "  "},
        HTTP_HX_REQUEST="true",
    )
    body = page.content.decode()
    assert page.status_code == 400
    assert 'id="id_reason_error"' in body and "needs a reason" in body
    assert counts() == before


def test_correction_with_a_reason_is_recorded_and_audited(td, event):
    t, d = event
    td.post(url(t, d), {"line": "1 400 300"})
    g = game(d, 1)
    page = td.post(
        url(t, d, tail="correct/"),
        {"game": g.pk, "score1": 400, "score2": 310, "reason": "slip misread"},
    )
    assert page.status_code == 200
    body = page.content.decode()
    assert "Corrected (was 400-300)" in body and "now 1-0, spread +90" in body
    g.refresh_from_db()
    assert (g.score1, g.score2) == (400, 310)
    event_ = AuditEvent.objects.get(action="correct_result")
    assert event_.reason == "slip misread" and event_.actor == "results-td"


def test_correcting_an_earlier_round_warns_that_later_pairings_used_the_old_result(td, event):
    t, d = event
    for line in ("1 400 300", "3 410 390", "5 380 420"):
        td.post(url(t, d), {"line": line})
    g = game(d, 1)
    alone = td.post(
        url(t, d, tail="correct/"),
        {"game": g.pk, "score1": 400, "score2": 310, "reason": "slip misread"},
    ).content.decode()
    assert "paired from the old result" not in alone  # nothing is paired after round 1
    save_round_pairings(
        d, 2, [PlannedGame(1, 3, board=1), PlannedGame(2, 5, board=2), PlannedGame(4, 6, board=3)]
    )
    save_round_pairings(
        d, 3, [PlannedGame(1, 5, board=1), PlannedGame(3, 6, board=2), PlannedGame(2, 4, board=3)]
    )
    td.post(url(t, d, rnd=2), {"line": "1 400 350"})
    before = AuditEvent.objects.count()
    page = td.post(
        url(t, d, tail="correct/"),
        {"game": g.pk, "score1": 300, "score2": 400, "reason": "winner reversed"},
    )
    body = page.content.decode()
    assert page.status_code == 200
    assert "Rounds 2, 3 were paired from the old result of round 1." in body
    assert "Round 2: 2 unscored games" in body and "Round 3: 3 unscored games" in body
    assert f'href="/t/{t.slug}/console/{d.slug}/round/2/pair/"' in body
    assert f'href="/t/{t.slug}/console/{d.slug}/round/3/pair/"' in body
    assert (
        AuditEvent.objects.count() == before + 1
    )  # only the correction: the warning writes nothing
    g.refresh_from_db()
    assert (g.score1, g.score2) == (300, 400)


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"score1": 1600, "score2": 300, "reason": "x"}, "score1"),
        ({"score1": "abc", "score2": 300, "reason": "x"}, "score1"),
        ({"score1": 400, "score2": "", "reason": "x"}, "score2"),
    ],
)
def test_bad_correction_scores_are_refused_at_their_field(td, event, data, field):
    t, d = event
    td.post(url(t, d), {"line": "1 400 300"})
    g = game(d, 1)
    before = counts()
    page = td.post(url(t, d, tail="correct/"), {"game": g.pk, **data})
    assert page.status_code == 400
    assert f'id="id_{field}_error"' in page.content.decode()
    assert counts() == before


def test_correction_of_a_game_of_another_round_or_division_is_404(td, event):
    t, d = event
    other_t, other_d = build_event("Elsewhere")
    services.record_result(other_d, 1, 1, 400, 300)
    g = Game.objects.get(round__division=other_d, round__number=1, player1__number=1)
    before = counts()
    for value in (g.pk, "x", "", "²"):
        page = td.post(
            url(t, d, tail="correct/"), {"game": value, "score1": 1, "score2": 2, "reason": "r"}
        )
        assert page.status_code == 404
    assert counts() == before


# --------------------------------------------------------------------------- who may


def test_anonymous_is_sent_to_sign_in(client, event):
    t, d = event
    for path in (url(t, d), url(t, d, tail="correct/"), url(t, d, tail="double-entry/")):
        response = client.get(path) if path == url(t, d) else client.post(path, {})
        assert response.status_code == 302
        assert response["Location"].startswith("/accounts/login/")
    before = counts()
    client.post(url(t, d), {"line": "1 400 300"})
    assert counts() == before


def test_director_of_another_tournament_is_refused(client, event):
    t, d = event
    other, _ = build_event("Other Open")
    client.force_login(make_director(other, "other-td"))
    before = counts()
    assert client.get(url(t, d)).status_code == 403
    assert client.post(url(t, d), {"line": "1 400 300"}).status_code == 403
    assert client.post(url(t, d, tail="double-entry/"), {"on": "on"}).status_code == 403
    assert counts() == before


def test_scorekeeper_enters_but_cannot_toggle_double_entry_or_settle(client, event):
    t, d = event
    keeper = get_user_model().objects.create_user("keeper", password="pw-long-enough-1")
    t.scorekeepers.add(keeper)
    client.force_login(keeper)
    assert client.get(url(t, d)).status_code == 200
    assert "Turn double entry" not in client.get(url(t, d)).content.decode()
    assert client.post(url(t, d), {"line": "1 400 300"}).status_code == 200
    assert game(d, 1).score1 == 400
    before = counts()
    assert client.post(url(t, d, tail="double-entry/"), {"on": "on"}).status_code == 403
    g = game(d, 3)
    response = client.post(url(t, d, tail="resolve/"), {"game": g.pk, "score1": 1, "score2": 2})
    assert response.status_code == 403
    assert counts() == before
    d.refresh_from_db()
    assert not d.config.get("double_entry")


# --------------------------------------------------------------------------- double entry


def test_director_toggles_double_entry_audited(td, event):
    t, d = event
    response = td.post(url(t, d, tail="double-entry/"), {"on": "on"})
    assert response.status_code == 302
    d.refresh_from_db()
    assert d.config["double_entry"] is True
    assert "Turn double entry off" in td.get(url(t, d)).content.decode()
    td.post(url(t, d, tail="double-entry/"), {})
    d.refresh_from_db()
    assert d.config["double_entry"] is False
    assert AuditEvent.objects.filter(action="set_double_entry").count() == 2


def test_two_agreeing_cards_record_the_game(td, keeper, event):
    t, d = event
    set_double_entry(d, True, actor="td")
    first = td.post(url(t, d), {"line": "3 412 389"}).content.decode()
    assert "waiting for the second card" in first
    assert game(d, 3).score1 is None
    assert PendingResult.objects.get().status == "pending"
    # the other player's card, typed from their side by a second person
    second = keeper.post(url(t, d), {"line": "4 389 412"}).content.decode()
    assert "Recorded" in second and "#3 Cole, Cy wins by 23" in second
    g = game(d, 3)
    assert (g.score1, g.score2) == (412, 389)
    assert set(PendingResult.objects.values_list("status", flat=True)) == {"confirmed"}
    assert all(p.source == "console" for p in PendingResult.objects.all())


def test_disagreeing_cards_are_flagged_not_recorded_and_a_director_settles(td, keeper, event):
    t, d = event
    set_double_entry(d, True, actor="td")
    td.post(url(t, d), {"line": "b2 412 389"})
    body = keeper.post(url(t, d), {"line": "b2 412 398"}).content.decode()
    assert "disagree: not recorded" in body
    assert game(d, 3).score1 is None
    assert set(PendingResult.objects.values_list("status", flat=True)) == {"disputed"}
    page = td.get(url(t, d)).content.decode()
    assert "Disputed" in page and "412-389" in page and "412-398" in page
    assert 'data-state="disputed"' in page
    g = game(d, 3)
    settled = td.post(url(t, d, tail="resolve/"), {"game": g.pk, "score1": 412, "score2": 398})
    assert settled.status_code == 200 and "Settled" in settled.content.decode()
    g.refresh_from_db()
    assert (g.score1, g.score2) == (412, 398)
    statuses = dict(PendingResult.objects.values_list("score2", "status"))
    assert statuses == {398: "confirmed", 389: "superseded"}
    assert AuditEvent.objects.filter(action="resolve_dispute").count() == 1


def test_the_same_person_typing_a_card_twice_is_held_not_confirmed(td, keeper, event):
    """One person copying one scorecard twice checks nothing: the card waits for another."""
    t, d = event
    set_double_entry(d, True, actor="td")
    td.post(url(t, d), {"line": "3 412 389"})
    again = td.post(url(t, d), {"line": "3 412 389"})
    body = again.content.decode()
    assert again.status_code == 200
    assert "Card held" in body and "nothing is recorded" in body
    assert game(d, 3).score1 is None
    assert set(PendingResult.objects.values_list("status", flat=True)) == {"pending"}
    held = AuditEvent.objects.filter(action="report_card").order_by("pk").last()
    assert held.after["held"] is True and "same person" in held.summary
    # a second person's agreeing card records it
    keeper.post(url(t, d), {"line": "4 389 412"})
    assert (game(d, 3).score1, game(d, 3).score2) == (412, 389)
    assert set(PendingResult.objects.values_list("status", flat=True)) == {"confirmed"}


def test_a_director_overrides_a_held_card_explicitly(td, event):
    t, d = event
    set_double_entry(d, True, actor="td")
    td.post(url(t, d), {"line": "b1 400 300"})
    body = td.post(url(t, d), {"line": "1 400 300"}).content.decode()
    assert "Record 400-300 without a second person" in body
    g = game(d, 1)
    assert g.score1 is None
    done = td.post(url(t, d, tail="resolve/"), {"game": g.pk, "score1": 400, "score2": 300})
    assert done.status_code == 200
    g.refresh_from_db()
    assert (g.score1, g.score2) == (400, 300)
    assert AuditEvent.objects.filter(action="resolve_dispute").count() == 1


def test_report_card_holds_a_second_card_of_the_same_name():
    t, d = build_event("Held Open")
    assert report_card(d, 1, "3 412 389", actor="a").status == "pending"
    assert report_card(d, 1, "4 389 412", actor="a").status == "held"
    assert Game.objects.get(round__number=1, player1__number=3).score1 is None
    assert report_card(d, 1, "3 412 389", actor="b").status == "confirmed"


def test_double_entry_refusals_write_no_card(td, event):
    t, d = event
    set_double_entry(d, True, actor="td")
    before = counts()
    for line in ("3 400 5 300", "9 400 300", "3 1600 1"):
        assert td.post(url(t, d), {"line": line}).status_code == 400
    assert counts() == before


def test_report_card_takes_a_line_or_the_scores():
    t, d = build_event("Cards Open")
    assert report_card(d, 1, 3, 412, 389, actor="a").status == "pending"
    assert report_card(d, 1, "4 389 412", actor="b").status == "confirmed"
    with pytest.raises(ServiceError) as info:
        report_card(d, 1, "1 f", actor="a")
    assert info.value.code == "card_needs_scores"
    with pytest.raises(ServiceError) as info:
        report_card(d, 1, "3 400 400", actor="a")
    assert info.value.code == "already_recorded"
    assert (info.value.params["score1"], info.value.params["score2"]) == (412, 389)


def test_resolve_dispute_needs_cards():
    t, d = build_event("No Dispute Open")
    g = Game.objects.get(round__number=1, player1__number=1)
    with pytest.raises(ServiceError) as info:
        resolve_dispute(g, 400, 300, actor="td")
    assert info.value.code == "no_dispute"
    assert g.pending_results.count() == 0 and Game.objects.get(pk=g.pk).score1 is None


# --------------------------------------------------------------------------- the race


@pytest.mark.django_db(transaction=True)
def test_two_people_entering_one_game_at_once_record_it_once():
    """Both pass the first look (no result yet) together; the lock lets only one write."""
    t, d = build_event("Race Open")
    barrier = threading.Barrier(2)
    outcomes: list[object] = []

    def enter(line: str) -> None:
        try:
            barrier.wait(timeout=10)
            outcomes.append(enter_line(d, 1, line, actor="typist"))
        except ServiceError as exc:
            outcomes.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=enter, args=(ln,)) for ln in ("1 400 300", "2 350 410")]
    for th in threads:
        th.start()
    for th in threads:
        th.join(timeout=60)
    refused = [o for o in outcomes if isinstance(o, ServiceError)]
    recorded = [o for o in outcomes if not isinstance(o, ServiceError)]
    assert len(recorded) == 1 and len(refused) == 1
    assert refused[0].code == "already_recorded"
    g = Game.objects.get(round__number=1, player1__number=1)
    stored = (refused[0].params["score1"], refused[0].params["score2"])
    assert stored == (g.score1, g.score2) and stored in ((400, 300), (410, 350))
    assert AuditEvent.objects.filter(action="record_result").count() == 1


@pytest.mark.django_db(transaction=True)
def test_race_through_the_page_shows_the_stored_result_not_an_error(client):
    t, d = build_event("Race Page Open")
    client.force_login(make_director(t, "race-td"))
    from django.test import Client

    other = Client()
    other.force_login(get_user_model().objects.get(username="race-td"))
    barrier = threading.Barrier(2)
    answers: list[int] = []
    bodies: list[str] = []

    def post(c, line):
        try:
            barrier.wait(timeout=10)
            r = c.post(url(t, d), {"line": line})
            answers.append(r.status_code)
            bodies.append(r.content.decode())
        finally:
            connection.close()

    threads = [
        threading.Thread(target=post, args=(client, "1 400 300")),
        threading.Thread(target=post, args=(other, "1 400 300")),
    ]
    for th in threads:
        th.start()
    for th in threads:
        th.join(timeout=60)
    assert sorted(answers) == [200, 400]
    assert any("already has a result (400-300)" in b for b in bodies)
    assert AuditEvent.objects.filter(action="record_result").count() == 1
