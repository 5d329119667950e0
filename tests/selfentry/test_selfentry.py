"""Players enter their own results from the link on their scorecard (/e/TOKEN/).

The round trip through the test client (report, confirm, dispute), the director's result
winning, every refusal writing nothing, wrong and revoked links answered like an unknown
address, the wrong-link throttle, and the director's console (open reports, disputes,
re-issue and revoke).
"""

from __future__ import annotations

import base64
import re

import pytest
from django.core.cache import cache

from pairings.services.store import PlannedGame, save_round_pairings
from tests.core.conftest import make_director
from tournament import services
from tournament.errors import ServiceError
from tournament.models import AuditEvent, Entry, Game, PendingResult
from tournament.services.results import enter_line, record_result
from tournament.services.selfentry import (
    confirm_report,
    dispute_report,
    ensure_tokens,
    issue_token,
    report_own_result,
    revoke_token,
)
from tournament.web import selfentry as selfentry_view

from .conftest import build_event, counts, game, token

pytestmark = pytest.mark.django_db


def page(client, tok: str, tail: str = "", data: dict | None = None, **extra):
    url = f"/e/{tok}/{tail}"
    if data is None:
        return client.get(url, **extra)
    return client.post(url, data, **extra)


def body(response) -> str:
    return response.content.decode()


def pending_id(d, reporter: int) -> int:
    return PendingResult.objects.get(
        reporter__division=d, reporter__number=reporter, status="pending"
    ).pk


# --------------------------------------------------------------------------- tokens


def test_every_entry_gets_a_long_random_unique_token_once_per_batch(db):
    t, d = build_event()
    tokens = list(Entry.objects.filter(division=d).values_list("entry_token", flat=True))
    assert len(tokens) == 6 and len(set(tokens)) == 6
    for tok in tokens:
        assert re.fullmatch(r"[A-Za-z0-9_-]+", tok)
        raw = base64.urlsafe_b64decode(tok + "=" * (-len(tok) % 4))
        assert len(raw) * 8 >= 128
    batch = AuditEvent.objects.filter(action="issue_entry_tokens")
    assert batch.count() == 1 and batch.get().after == {"numbers": [1, 2, 3, 4, 5, 6]}
    trail = [str(e.before) + str(e.after) + e.summary for e in AuditEvent.objects.all()]
    assert not any(tok in text for text in trail for tok in tokens)
    # a second printing makes none and audits nothing
    before = AuditEvent.objects.count()
    assert ensure_tokens(d, "test") == []
    assert AuditEvent.objects.count() == before
    assert list(Entry.objects.filter(division=d).values_list("entry_token", flat=True)) == tokens
    # a late entry gets one at the next printing, the others keep theirs
    services.register_player(d, name="Gray, Gus", rating=1500)
    assert ensure_tokens(d, "test") == [7]
    assert len(set(Entry.objects.values_list("entry_token", flat=True))) == 7


def test_issue_replaces_the_link_and_revoke_turns_it_off(client, event):
    t, d = event
    entry = Entry.objects.get(division=d, number=1)
    old = entry.entry_token
    new = issue_token(entry, "td")
    assert new != old and len(new) >= 32
    assert page(client, old).status_code == 404
    assert page(client, new).status_code == 200
    revoke_token(entry, "td")
    entry.refresh_from_db()
    assert entry.entry_token is None and entry.entry_token_revoked_at is not None
    assert page(client, new).status_code == 404
    with pytest.raises(ServiceError) as exc:
        revoke_token(entry, "td")
    assert exc.value.code == "selfentry_no_token"
    # a revoked entry gets no link from a reprint until a director issues one
    assert ensure_tokens(d, "test") == []
    entry.refresh_from_db()
    assert entry.entry_token is None
    actions = AuditEvent.objects.filter(action__in=["issue_entry_token", "revoke_entry_token"])
    assert sorted(a.action for a in actions) == ["issue_entry_token", "revoke_entry_token"]
    assert all(a.object_type == "Entry" and new not in str(a.after) for a in actions)


# --------------------------------------------------------------------------- the round trip


def test_report_confirm_records_the_game_with_the_player_as_actor(client, event):
    t, d = event
    ann, bo = token(d, 1), token(d, 2)
    first = page(client, ann)
    assert first.status_code == 200
    html = body(first)
    assert "Round 1: you v #2 Baker, Bo" in html and 'id="report-form"' in html
    assert "Baker, Bo&#x27;s score" in html  # the opponent's field is named
    sent = page(client, ann, "report/", {"round": "1", "score": "412", "opp_score": "389"})
    assert sent.status_code == 302 and sent["Location"] == f"/e/{ann}/"
    html = body(page(client, ann))
    assert "Reported: you 412, Baker, Bo 389" in html
    assert 'id="my-report"' in html and "Change my report" in html
    assert game(d, 1).score1 is None  # nothing counts until the opponent confirms

    html = body(page(client, bo))
    assert "Able, Ann reported <strong>412-389</strong>" in html
    assert "Confirm: you 389, Able, Ann 412" in html
    done = page(client, bo, "confirm/", {"pending": pending_id(d, 1)})
    assert done.status_code == 302
    g = game(d, 1)
    assert (g.score1, g.score2) == (412, 389)
    recorded = AuditEvent.objects.get(action="record_result")
    assert recorded.actor == "player #2 Baker, Bo" and recorded.user is None
    assert AuditEvent.objects.filter(action="self_report").get().actor == "player #1 Able, Ann"
    assert AuditEvent.objects.filter(action="self_confirm").count() == 1
    assert set(PendingResult.objects.values_list("status", flat=True)) == {"confirmed"}
    assert PendingResult.objects.filter(source="player").count() == 2

    # after the round is scored the link only shows the result
    html = body(page(client, ann))
    assert 'id="report-form"' not in html and 'id="all-scored"' in html
    assert re.search(r"<td class=\"num\">412</td><td class=\"num\">389</td>", html)
    standings = body(client.get(f"/t/{t.slug}/{d.slug}/standings/"))
    row = re.search(r"Able, Ann.*?</tr>", standings, re.S).group(0)
    assert "+23" in row


def test_second_listed_player_reports_in_their_own_order(client, event):
    """#5 is the game's second player: their "412-389" is stored as 389-412."""
    t, d = event
    page(client, token(d, 5), "report/", {"round": "1", "score": "412", "opp_score": "389"})
    report = PendingResult.objects.get()
    assert (report.score1, report.score2) == (389, 412)
    # the opponent's own report with the same scores is a confirmation
    page(client, token(d, 6), "report/", {"round": "1", "score": "389", "opp_score": "412"})
    g = game(d, 6)
    assert (g.score1, g.score2) == (389, 412)


def test_a_player_changes_their_report_before_the_answer(client, event):
    t, d = event
    page(client, token(d, 1), "report/", {"round": "1", "score": "412", "opp_score": "389"})
    page(client, token(d, 1), "report/", {"round": "1", "score": "421", "opp_score": "389"})
    assert list(PendingResult.objects.values_list("score1", "score2", "status")) == [
        (421, 389, "pending")
    ]
    assert "(changed)" in AuditEvent.objects.filter(action="self_report").first().summary


def test_dispute_lists_both_reports_for_the_director(client, event):
    t, d = event
    page(client, token(d, 1), "report/", {"round": "1", "score": "412", "opp_score": "389"})
    html = body(page(client, token(d, 2)))
    assert "That's wrong: the scores were" in html
    sent = page(
        client,
        token(d, 2),
        "dispute/",
        {"pending": pending_id(d, 1), "score": "399", "opp_score": "412"},
    )
    assert sent.status_code == 302
    assert game(d, 1).score1 is None
    reports = list(PendingResult.objects.values_list("reporter__number", "score1", "score2"))
    assert reports == [(1, 412, 389), (2, 412, 399)]
    assert set(PendingResult.objects.values_list("status", flat=True)) == {"disputed"}
    for number in (1, 2):
        html = body(page(client, token(d, number)))
        assert 'id="disputed"' in html and 'id="report-form"' not in html
    # a further report of a disputed game is refused
    refused = page(client, token(d, 1), "report/", {"round": "1", "score": "1", "opp_score": "2"})
    assert refused.status_code == 400 and "a director settles the game" in body(refused)

    client.force_login(make_director(t, "self-td"))
    division = body(client.get(f"/t/{t.slug}/console/{d.slug}/"))
    assert "Players' own reports" in division
    assert division.count('data-status="disputed"') == 2
    assert "412-389" in division and "412-399" in division
    results = body(client.get(f"/t/{t.slug}/console/{d.slug}/round/1/results/"))
    assert "<h2>Disputed</h2>" in results
    assert "typed by player #1 Able, Ann" in results and "typed by player #2 Baker, Bo" in results
    settled = client.post(
        f"/t/{t.slug}/console/{d.slug}/round/1/results/resolve/",
        {"game": game(d, 1).pk, "score1": "412", "score2": "399"},
    )
    assert settled.status_code == 200
    assert (game(d, 1).score1, game(d, 1).score2) == (412, 399)
    assert dict(PendingResult.objects.values_list("reporter__number", "status")) == {
        1: "superseded",
        2: "confirmed",
    }
    assert "Players' own reports" not in body(client.get(f"/t/{t.slug}/console/{d.slug}/"))


def test_pending_report_is_listed_on_the_division_page(client, event):
    t, d = event
    report_own_result(token(d, 3), 400, 350, round_number=1)
    client.force_login(make_director(t, "self-td"))
    html = body(client.get(f"/t/{t.slug}/console/{d.slug}/"))
    assert 'data-status="pending"' in html and "waiting for the opponent" in html
    assert "400-350" in html and "reported by #3" in html


# --------------------------------------------------------------------------- the director wins


def test_a_director_result_supersedes_reports_and_refuses_later_ones(client, event):
    t, d = event
    page(client, token(d, 1), "report/", {"round": "1", "score": "412", "opp_score": "389"})
    pid = pending_id(d, 1)
    enter_line(d, 1, "1 400 390", actor="td")
    assert PendingResult.objects.get(pk=pid).status == "superseded"
    assert 'id="their-report"' not in body(page(client, token(d, 2)))
    before = counts()
    late = page(client, token(d, 2), "confirm/", {"pending": pid})
    assert late.status_code == 400
    assert "already has its result, 390-400" in body(late) or "no longer waiting" in body(late)
    again = page(client, token(d, 1), "report/", {"round": "1", "score": "412", "opp_score": "389"})
    assert again.status_code == 400
    assert "your game against #2 Baker, Bo already has its result, 400-390" in body(again)
    assert counts() == before
    assert (game(d, 1).score1, game(d, 1).score2) == (400, 390)


def test_a_disputed_self_report_is_settled_by_a_director_typing_the_result(event):
    t, d = event
    report_own_result(token(d, 1), 412, 389, round_number=1)
    dispute_report(token(d, 2), pending_id(d, 1), 390, 412)
    record_result(d, 1, 1, 412, 390, actor="td")
    assert set(PendingResult.objects.values_list("status", flat=True)) == {"superseded"}


def test_confirm_after_a_forfeit_is_refused(event):
    t, d = event
    report_own_result(token(d, 3), 400, 350, round_number=1)
    pid = pending_id(d, 3)
    enter_line(d, 1, "4 f", actor="td")
    assert PendingResult.objects.get(pk=pid).status == "superseded"
    with pytest.raises(ServiceError) as exc:
        confirm_report(token(d, 4), pid)
    assert exc.value.code in ("selfentry_report_gone", "selfentry_game_recorded")


# --------------------------------------------------------------------------- refusals


@pytest.mark.parametrize(
    ("data", "field", "message"),
    [
        ({"score": "1501", "opp_score": "389"}, "score", "a score is from 0 to 1500"),
        ({"score": "412", "opp_score": "-1"}, "opp_score", "a score is from 0 to 1500"),
        ({"score": "abc", "opp_score": "389"}, "score", "give a whole number"),
        ({"score": "", "opp_score": "389"}, "score", "give the score"),
        ({"score": "1e999", "opp_score": "389"}, "score", "give a whole number"),
        ({"score": "٤١٢", "opp_score": "389"}, "score", "with the digits 0-9"),
    ],
)
def test_bad_scores_are_refused_at_the_field_writing_nothing(client, event, data, field, message):
    t, d = event
    before = counts()
    response = page(client, token(d, 1), "report/", {"round": "1", **data})
    assert response.status_code == 400
    html = body(response)
    error = re.search(rf'<p class="error field-error" id="id_{field}_error">(.*?)</p>', html)
    assert error, html
    assert message in error.group(1)
    assert counts() == before


def test_service_refuses_out_of_range_scores(event):
    t, d = event
    before = counts()
    for score, opp in ((1501, 389), (412, -5), ("x", 1)):
        with pytest.raises(ServiceError) as exc:
            report_own_result(token(d, 1), score, opp, round_number=1)
        assert exc.value.field in ("score", "opp_score")
    assert counts() == before


def test_a_round_that_is_not_current_is_refused(client, event):
    t, d = event
    save_round_pairings(
        d, 2, [PlannedGame(1, 3), PlannedGame(2, 5), PlannedGame(4, 6)], system="manual"
    )
    before = counts()
    response = page(
        client, token(d, 1), "report/", {"round": "2", "score": "400", "opp_score": "1"}
    )
    assert response.status_code == 400
    assert "round 2 is not the round to report now (the current round is round 1)" in body(response)
    for bad_round in ("7", "x", "-1"):
        response = page(
            client, token(d, 1), "report/", {"round": bad_round, "score": "1", "opp_score": "2"}
        )
        assert response.status_code == 400
    assert counts() == before
    # round 1 reported by both: round 2 is current for #1
    page(client, token(d, 1), "report/", {"round": "1", "score": "400", "opp_score": "300"})
    page(client, token(d, 2), "confirm/", {"pending": pending_id(d, 1)})
    assert "Round 2: you v #3 Cole, Cy" in body(page(client, token(d, 1)))
    before = counts()
    stale = page(client, token(d, 1), "report/", {"round": "1", "score": "1", "opp_score": "2"})
    assert stale.status_code == 400 and "already has its result, 400-300" in body(stale)
    assert counts() == before


def test_nobody_answers_their_own_report_or_another_game(client, event):
    t, d = event
    report_own_result(token(d, 1), 412, 389, round_number=1)
    pid = pending_id(d, 1)
    before = counts()
    for who in (1, 3):  # the reporter themselves, a player of another game
        for tail, data in (
            ("confirm/", {"pending": pid}),
            ("dispute/", {"pending": pid, "score": "1", "opp_score": "2"}),
        ):
            response = page(client, token(d, who), tail, data)
            assert response.status_code == 400, (who, tail)
            assert "no longer waiting for an answer" in body(response)
    for junk in ("", "x", "99999", "١"):
        assert page(client, token(d, 2), "confirm/", {"pending": junk}).status_code == 400
    assert counts() == before


def test_dispute_with_the_same_scores_confirms(event):
    t, d = event
    report_own_result(token(d, 1), 412, 389, round_number=1)
    outcome = dispute_report(token(d, 2), pending_id(d, 1), 389, 412)
    assert outcome.status == "confirmed"
    assert (game(d, 1).score1, game(d, 1).score2) == (412, 389)


def test_a_bye_has_nothing_to_report(client, event):
    t, d = event
    services.register_player(d, name="Gray, Gus", rating=1500)
    ensure_tokens(d, "test")
    before = counts()
    response = page(client, token(d, 7), "report/", {"round": "1", "score": "1", "opp_score": "2"})
    assert response.status_code == 400
    assert counts() == before


# --------------------------------------------------------------------------- wrong links


def test_wrong_and_revoked_links_are_the_unknown_address_page(client, event):
    t, d = event
    unknown = client.get("/no-such-page/at-all/")
    assert unknown.status_code == 404
    revoked = token(d, 1)
    revoke_token(Entry.objects.get(division=d, number=1), "td")
    wrong = [
        revoked,
        "A" * 32,
        token(d, 2)[:-1] + ("A" if token(d, 2)[-1] != "A" else "B"),
        "short",
        "x" * 200,
        "%00",
        "..",
    ]
    for tok in wrong:
        for tail, data in (("", None), ("report/", {"round": "1", "score": "1", "opp_score": "2"})):
            response = page(client, tok, tail, data)
            assert response.status_code == 404, (tok, tail)
            assert body(response) == body(unknown), tok
    assert page(client, token(d, 2)).status_code == 200


def test_pages_are_private(client, event):
    t, d = event
    response = page(client, token(d, 1))
    assert response["Cache-Control"] == "private, no-store"
    assert response["Referrer-Policy"] == "same-origin"


@pytest.fixture(params=["locmem", "file"])
def site_cache(request, settings, tmp_path):
    """The throttle on both kinds of cache a site runs (Redis in tests/core when REDIS_URL)."""
    backend = {
        "locmem": "django.core.cache.backends.locmem.LocMemCache",
        "file": "django.core.cache.backends.filebased.FileBasedCache",
    }[request.param]
    settings.CACHES = {"default": {"BACKEND": backend, "LOCATION": str(tmp_path / "cache")}}
    cache.clear()
    return request.param


def test_throttle_after_20_wrong_links_a_minute_but_never_a_valid_one(
    client, event, site_cache, monkeypatch
):
    t, d = event
    clock = [1_000_020.0]
    monkeypatch.setattr(selfentry_view, "_now", lambda: clock[0])
    for n in range(20):
        assert page(client, f"{'B' * 31}{n % 10}").status_code == 404, n
    assert page(client, "C" * 32).status_code == 429
    assert page(client, "C" * 32, "report/", {"score": "1"}).status_code == 429
    # the venue's players share the address: a valid link still works, reports too
    assert page(client, token(d, 1)).status_code == 200
    sent = page(client, token(d, 1), "report/", {"round": "1", "score": "412", "opp_score": "3"})
    assert sent.status_code == 302
    # another address is not throttled; the next minute starts again
    assert page(client, "C" * 32, REMOTE_ADDR="10.0.0.9").status_code == 404
    clock[0] += 60
    assert page(client, "C" * 32).status_code == 404


def test_a_failing_cache_never_blocks_a_valid_link(client, event, monkeypatch):
    t, d = event

    def broken(*args, **kwargs):
        raise ConnectionError("cache down")

    monkeypatch.setattr(cache, "add", broken)
    monkeypatch.setattr(cache, "incr", broken)
    assert page(client, token(d, 1)).status_code == 200
    assert page(client, "D" * 32).status_code == 404


# --------------------------------------------------------------------------- the console


def test_director_reissues_and_revokes_from_the_players_page(client, event):
    t, d = event
    client.force_login(make_director(t, "self-td"))
    url = f"/t/{t.slug}/console/{d.slug}/players/"
    html = body(client.get(url))
    assert "Self-entry link: on the printed card" in html
    for tok in Entry.objects.values_list("entry_token", flat=True):
        assert tok not in html
    entry = Entry.objects.get(division=d, number=3)
    old = entry.entry_token
    response = client.post(url + "link/", {"entry": entry.pk, "action": "issue"})
    assert response.status_code == 200
    assert "New self-entry link for #3 Cole, Cy" in body(response)
    entry.refresh_from_db()
    assert entry.entry_token != old and entry.entry_token not in body(response)
    response = client.post(url + "link/", {"entry": entry.pk, "action": "revoke"})
    assert "Self-entry link of #3 Cole, Cy revoked" in body(response)
    entry.refresh_from_db()
    assert entry.entry_token is None
    before = AuditEvent.objects.count()
    again = client.post(url + "link/", {"entry": entry.pk, "action": "revoke"})
    assert again.status_code == 400 and "has no self-entry link to revoke" in body(again)
    assert client.post(url + "link/", {"entry": "999999", "action": "issue"}).status_code == 400
    assert AuditEvent.objects.count() == before


def test_only_directors_issue_or_revoke(client, event):
    t, d = event
    url = f"/t/{t.slug}/console/{d.slug}/players/link/"
    entry = Entry.objects.get(division=d, number=1)
    old = entry.entry_token
    anonymous = client.post(url, {"entry": entry.pk, "action": "revoke"})
    assert anonymous.status_code == 302 and "/accounts/login/" in anonymous["Location"]
    other, _ = build_event("Other Open")
    client.force_login(make_director(other, "other-td"))
    assert client.post(url, {"entry": entry.pk, "action": "revoke"}).status_code == 403
    from django.contrib.auth import get_user_model

    keeper = get_user_model().objects.create_user("keeper", password="pw-long-enough-1")
    t.scorekeepers.add(keeper)
    client.force_login(keeper)
    assert client.post(url, {"entry": entry.pk, "action": "issue"}).status_code == 403
    entry.refresh_from_db()
    assert entry.entry_token == old


def test_scorecards_from_the_desk_make_missing_links(client, event):
    t, d = event
    Entry.objects.filter(division=d, number__in=[2, 4]).update(entry_token=None)
    client.force_login(make_director(t, "self-td"))
    before = AuditEvent.objects.filter(action="issue_entry_tokens").count()
    response = client.get(f"/t/{t.slug}/desk/{d.slug}/report.pdf?kind=scorecards")
    assert response.status_code == 200
    assert Entry.objects.filter(division=d, entry_token__isnull=True).count() == 0
    event_ = AuditEvent.objects.filter(action="issue_entry_tokens").order_by("-id").first()
    assert AuditEvent.objects.filter(action="issue_entry_tokens").count() == before + 1
    assert event_.after == {"numbers": [2, 4]}
    assert Game.objects.count() == 3
