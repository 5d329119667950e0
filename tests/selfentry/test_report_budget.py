"""One player's link cannot slow the site for everyone (issue "Authority in one place"):
the same report again writes nothing; reports that change something are limited per link and
per game each minute (429 on the page, a ServiceError in the service); a pending report leaves
the public pages' versions alone, so a stream of them rebuilds nothing."""

from __future__ import annotations

import pytest

from tournament.errors import ServiceError
from tournament.models import AuditEvent, Tournament
from tournament.services import selfentry
from tournament.services.selfentry import REPORTS_PER_MINUTE, report_own_result

from .conftest import token

pytestmark = pytest.mark.django_db


def version(t) -> int:
    return Tournament.objects.get(pk=t.pk).content_version


def test_the_same_report_again_writes_nothing(event):
    t, d = event
    report_own_result(token(d, 1), 400, 350)
    events, v = AuditEvent.objects.count(), version(t)
    for _ in range(30):
        report_own_result(token(d, 1), 400, 350)
    assert AuditEvent.objects.count() == events
    assert version(t) == v


def test_a_pending_report_leaves_public_versions_alone_and_a_confirmation_bumps_them(event):
    t, d = event
    v = version(t)
    report_own_result(token(d, 1), 400, 350)
    assert version(t) == v
    report_own_result(token(d, 2), 350, 400)  # the opponent agrees: the game is recorded
    assert version(t) > v


def test_changing_reports_are_limited_per_link(event, monkeypatch):
    t, d = event
    monkeypatch.setattr(selfentry, "_now", lambda: 1_000_000.0)
    limit = REPORTS_PER_MINUTE["entry"]
    for k in range(limit):
        report_own_result(token(d, 1), 400 + k, 350)
    events = AuditEvent.objects.count()
    with pytest.raises(ServiceError) as refused:
        report_own_result(token(d, 1), 500, 350)
    assert refused.value.code == "selfentry_too_many"
    assert str(limit) in refused.value.message
    assert AuditEvent.objects.count() == events
    # the next minute the player may report again
    monkeypatch.setattr(selfentry, "_now", lambda: 1_000_060.0)
    report_own_result(token(d, 1), 501, 350)


def test_changing_reports_are_limited_per_game(event, monkeypatch):
    """Both players of one game alternating new scores share the game's budget."""
    t, d = event
    monkeypatch.setattr(selfentry, "_now", lambda: 2_000_000.0)
    monkeypatch.setitem(REPORTS_PER_MINUTE, "entry", 100)
    sent = 0
    with pytest.raises(ServiceError) as refused:
        for k in range(50):
            report_own_result(token(d, 3), 300 + k, 200)
            sent += 1
    assert refused.value.code == "selfentry_too_many"
    assert sent == REPORTS_PER_MINUTE["game"]


def test_the_page_answers_429_with_the_message(client, event, monkeypatch):
    t, d = event
    monkeypatch.setattr(selfentry, "_now", lambda: 3_000_000.0)
    url = f"/e/{token(d, 1)}/report/"
    for k in range(REPORTS_PER_MINUTE["entry"]):
        done = client.post(url, {"score": 400 + k, "opp_score": 350, "round": 1})
        assert done.status_code == 302
    page = client.post(url, {"score": 480, "opp_score": 350, "round": 1})
    assert page.status_code == 429
    assert b"a minute" in page.content


def test_a_failing_cache_never_blocks_a_report(event, monkeypatch):
    t, d = event

    def broken(*args, **kwargs):
        raise ConnectionError("cache down")

    monkeypatch.setattr(selfentry.cache, "add", broken)
    for k in range(REPORTS_PER_MINUTE["entry"] + 3):
        report_own_result(token(d, 1), 400 + k, 350)
