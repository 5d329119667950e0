"""One link cannot slow the site (issue 31, "Trust when the doors are open").

A player's self-entry page, read flat out from one token over 8 connections, took public
standings from 728 to 28 requests a second: the page was not throttled and each request
ranked the whole division again (~150 ms at 500 players); malformed reports cost as much and
spent no budget. Here: every request of a link, page or POST, goes through the link's budget
at the gate (a short 429 with words past it, before any query); a malformed report spends
the link's report budget as a changing one does; the card's rows come from the division's
cached facts, never from standings ranked for the request; and the open page asks every 15 s
(and when the phone comes back to it) whether the opponent answered, then loads the card.
"""

from __future__ import annotations

import re

import pytest

from pairings.services.store import PlannedGame, save_round_pairings
from tournament import selectors
from tournament.selectors.rows import DivisionRead
from tournament.services import selfentry
from tournament.services.results import record_result
from tournament.services.selfentry import REPORTS_PER_MINUTE, report_own_result
from tournament.web import gate

from .conftest import counts, token

pytestmark = pytest.mark.django_db


@pytest.fixture
def fixed_minute(monkeypatch):
    """The budgets' minute, fixed at its start (the window ends in 60 s)."""
    minute = [7_000_020.0]
    monkeypatch.setattr(selfentry, "_now", lambda: minute[0])
    return minute


# --------------------------------------------------------------------------- the link's budget


def test_reading_a_page_past_the_links_budget_is_refused_with_words_before_any_query(
    client, event, fixed_minute, monkeypatch, django_assert_num_queries
):
    monkeypatch.setattr(gate, "SELF_REQUESTS_PER_MINUTE", 8)
    t, d = event
    card, other = f"/e/{token(d, 1)}/", f"/e/{token(d, 2)}/"
    assert [client.get(card).status_code for _ in range(8)] == [200] * 8
    with django_assert_num_queries(0):
        refused = client.get(card)
        polled = client.get(card + "state/?seen=x")
    assert refused.status_code == 429 and polled.status_code == 429
    text = refused.content.decode()
    assert "Too many requests from this link: at most 8 a minute, pages and reports together" in (
        text
    )
    assert "Traceback" not in text and refused["Retry-After"] == "60"
    assert refused["Cache-Control"] == "private, no-store"
    # the budget is the link's: the opponent's link and the public pages are not touched
    assert client.get(other).status_code == 200
    assert client.get(f"/t/{t.slug}/{d.slug}/standings/").status_code == 200
    fixed_minute[0] += 60  # the next minute the link is heard again
    assert client.get(card).status_code == 200


def test_malformed_reports_spend_the_links_budget_and_get_the_throttles_page(
    client, event, fixed_minute, django_assert_num_queries
):
    t, d = event
    url = f"/e/{token(d, 1)}/"
    before = counts()
    malformed = [
        ("report/", {"score": "lots", "opp_score": "", "round": "x"}),  # no form sends it
        ("report/", {"score": "9999", "opp_score": "350", "round": "1"}),  # the service refuses
        ("confirm/", {"pending": "nope"}),
        ("dispute/", {"pending": "1", "score": "", "opp_score": ""}),
        ("report/", {"score": "400", "opp_score": "350", "round": "4"}),  # not the round now
        ("report/", {"score": "-3", "opp_score": "350", "round": "1"}),
    ]
    assert len(malformed) == REPORTS_PER_MINUTE["entry"]
    for tail, data in malformed:
        assert client.post(url + tail, data).status_code == 400, tail
    refused = client.post(url + "report/", {"score": "lots", "opp_score": "", "round": "x"})
    assert refused.status_code == 429 and refused["Retry-After"] == "60"
    text = refused.content.decode()
    assert "Too many reports from this link or for this game: at most 6 a minute" in text
    assert "Traceback" not in text and f'href="{url}"' in text
    # the link's later POSTs are refused at the gate, before any query; its card still shows
    with django_assert_num_queries(0):
        again = client.post(url + "report/", {"score": "400", "opp_score": "350", "round": "1"})
    assert again.status_code == 429
    assert counts() == before  # nothing written, no audit event
    assert client.get(url).status_code == 200


# --------------------------------------------------------------------------- the card's rows


@pytest.fixture
def division_loads(monkeypatch) -> list[str]:
    """Every load of the whole division's games (what ranking the division starts from)."""
    loads: list[str] = []
    load, rounds = selectors.DivisionSnapshot.load.__func__, selectors.player_rounds

    def snapshot(cls, division, *args, **kwargs):
        loads.append("snapshot")
        return load(cls, division, *args, **kwargs)

    def player_rounds(division, *args, **kwargs):
        loads.append("player_rounds")
        return rounds(division, *args, **kwargs)

    monkeypatch.setattr(selectors.DivisionSnapshot, "load", classmethod(snapshot))
    # the rows a version's pages share (tournament.selectors.rows.division_read) are such a load too
    read = DivisionRead.load.__func__

    def rows(cls, division, *args, **kwargs):
        loads.append("snapshot")
        return read(cls, division, *args, **kwargs)

    monkeypatch.setattr(DivisionRead, "load", classmethod(rows))
    monkeypatch.setattr(selectors, "player_rounds", player_rounds)
    return loads


def _card_rows(response) -> list[str]:
    """The card's table rows as text (round, opponent, scores, spread, record)."""
    rows = re.findall(r'<tr data-round="\d+">(.*?)</tr>', response.content.decode(), re.S)
    return [" ".join(re.sub(r"<[^>]+>", " ", row).split()) for row in rows]


def test_the_cards_rows_come_from_the_cached_standings_not_a_ranking_per_request(
    client, event, division_loads
):
    t, d = event
    record_result(d, 1, 1, 420, 380)
    card = f"/e/{token(d, 1)}/"
    first = client.get(card)
    assert first.status_code == 200
    assert division_loads == ["snapshot"]  # the division's facts, once for this version
    second = client.get(card)
    opponent = client.get(f"/e/{token(d, 2)}/")
    assert division_loads == ["snapshot"]  # read from the cache by every link
    assert opponent.status_code == 200
    assert _card_rows(second) == _card_rows(first)
    assert _card_rows(second)[0] == "1 #2 Baker, Bo (1st) 420 380 +40 1-0"
    assert "<dt>Rank</dt><dd>1</dd>" in second.content.decode()  # 1st after the only result
    # a result changes the division's version: the facts are computed once more, and shown
    record_result(d, 1, 3, 300, 310)
    assert client.get(card).status_code == 200 and client.get(card).status_code == 200
    assert division_loads == ["snapshot", "snapshot"]


# --------------------------------------------------------------------------- the refresh


def _watch(response) -> tuple[str, str]:
    """The page's state URL and trigger (the htmx poll)."""
    found = re.search(
        r'<div id="watch" hx-get="([^"]+)" hx-trigger="([^"]+)" hx-swap="none">',
        response.content.decode(),
    )
    assert found, "the page does not ask for its state"
    return found.group(1).replace("&amp;", "&"), found.group(2)


def test_the_open_page_is_loaded_again_when_the_opponent_confirms(client, event):
    t, d = event
    mine, theirs = token(d, 1), token(d, 2)
    sent = client.post(f"/e/{mine}/report/", {"score": "412", "opp_score": "380", "round": "1"})
    assert sent.status_code == 302
    url, trigger = _watch(client.get(f"/e/{mine}/"))
    assert url.startswith(f"/e/{mine}/state/?seen=")
    assert trigger == "every 15s, focus from:window"
    # nothing changed: 204, htmx leaves the page alone
    quiet = client.get(url, HTTP_HX_REQUEST="true")
    assert quiet.status_code == 204 and quiet["Cache-Control"] == "private, no-store"
    # the opponent confirms from their own link
    other = client.get(f"/e/{theirs}/").content.decode()
    pending = re.search(r'name="pending" value="(\d+)"', other).group(1)
    assert client.post(f"/e/{theirs}/confirm/", {"pending": pending}).status_code == 302
    changed = client.get(url, HTTP_HX_REQUEST="true")
    assert changed.status_code == 200 and changed["HX-Redirect"] == f"/e/{mine}/"
    # the card loaded again shows the recorded game and asks with its new state
    again = client.get(f"/e/{mine}/")
    assert "412 380 +32 1-0" in _card_rows(again)[0]
    assert client.get(_watch(again)[0]).status_code == 204


def test_the_opponents_page_is_loaded_again_when_a_report_arrives(client, event):
    t, d = event
    url, _ = _watch(client.get(f"/e/{token(d, 2)}/"))
    assert client.get(url).status_code == 204
    report_own_result(token(d, 1), 412, 380)  # player 1 reports: player 2 has to answer
    assert client.get(url)["HX-Redirect"] == f"/e/{token(d, 2)}/"
    assert 'id="confirm-form"' in client.get(f"/e/{token(d, 2)}/").content.decode()


def test_the_state_of_a_wrong_link_is_not_found_and_a_finished_event_asks_nothing(client, event):
    t, d = event
    assert client.get(f"/e/{'Q' * 32}/state/?seen=x").status_code == 404
    for rnd in range(1, d.rounds + 1):
        if rnd > 1:
            save_round_pairings(
                d,
                rnd,
                [PlannedGame(1, 2, board=1), PlannedGame(3, 4, board=2), PlannedGame(5, 6)],
                system="manual",
            )
        for first in (1, 3, 5 if rnd > 1 else 6):
            record_result(d, rnd, first, 400, 300)
    page = client.get(f"/e/{token(d, 1)}/").content.decode()
    assert 'id="all-scored"' in page and 'id="watch"' not in page
