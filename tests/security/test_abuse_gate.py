"""Abuse budgets (issue 19, "Authority in one place", item 3): a refusal must cost next to
nothing, or a script collecting refusals as fast as they come holds the workers the public
pages need (``bench_web.py --abuse``: a refused self-report cost ~26 ms and SQLite's write
lock, a flood of made-up sign-ins hashed 30 passwords at once).

Each limit still decides where it did; once it refuses, the gate (tournament.web.gate)
refuses that client's next requests from one cache read, before sessions, CSRF,
authentication or any query, with a 429 that says why and when to try again. And the file
cache no longer lists its folder on every write (issue 24: the throttle's check grew with
the number of clients seen).
"""

from __future__ import annotations

import time

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient
from rest_framework.throttling import AnonRateThrottle as DrfAnon

from tests.selfentry.conftest import build_event, token
from tournament import filecache, throttle
from tournament.api import throttling
from tournament.models import AuditEvent, PendingResult, Tournament
from tournament.services import selfentry
from tournament.web import gate

pytestmark = pytest.mark.django_db

RATINGS = "/api/v1/rating-lists/"
LOGIN = "/accounts/login/"
MD5 = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def two_a_minute():
    original = DrfAnon.THROTTLE_RATES
    DrfAnon.THROTTLE_RATES = {"anon": "2/minute", "user": "2/minute"}
    yield
    DrfAnon.THROTTLE_RATES = original


def _throttle_calls(monkeypatch) -> list[int]:
    """Record every call of the API's anonymous throttle (answered at the gate: none)."""
    calls: list[int] = []
    original = throttling.AnonRateThrottle.allow_request

    def counted(self, request, view):
        calls.append(1)
        return original(self, request, view)

    monkeypatch.setattr(throttling.AnonRateThrottle, "allow_request", counted)
    return calls


# --- anonymous API reads ----------------------------------------------------------------------


def test_an_address_over_its_api_budget_is_refused_at_the_gate(
    two_a_minute, monkeypatch, django_assert_num_queries
):
    client = APIClient()
    spent = [client.get(RATINGS, REMOTE_ADDR="203.0.113.9").status_code for _ in range(3)]
    assert spent == [200, 200, 429]  # the throttle refuses the third and shuts the gate
    calls = _throttle_calls(monkeypatch)
    with django_assert_num_queries(0):
        refused = client.get(
            RATINGS, REMOTE_ADDR="203.0.113.9", HTTP_X_FORWARDED_FOR="198.51.100.1"
        )
    assert refused.status_code == 429 and calls == []  # DRF never ran
    entry = refused.json()["errors"][0]
    assert entry["code"] == "throttled" and entry["field"] == ""
    assert 0 < entry["params"]["wait"] <= 60
    assert entry["message"] == f"too many requests; try again in {entry['params']['wait']} seconds"
    assert refused["Retry-After"] == str(entry["params"]["wait"])
    # another address is answered, and goes through the throttle as before
    assert client.get(RATINGS, REMOTE_ADDR="203.0.113.10").status_code == 200
    assert calls == [1]


def test_a_signed_in_caller_at_a_shut_address_has_its_own_budget(two_a_minute):
    client = APIClient()
    for _ in range(3):
        client.get(RATINGS, REMOTE_ADDR="203.0.113.11")
    user = get_user_model().objects.create_user("script", password=None)
    key = Token.objects.create(user=user).key
    answer = client.get(RATINGS, REMOTE_ADDR="203.0.113.11", HTTP_AUTHORIZATION=f"Token {key}")
    assert answer.status_code == 200


def test_the_gate_opens_when_the_wait_is_over(two_a_minute, monkeypatch):
    client = APIClient()
    for _ in range(3):
        client.get(RATINGS, REMOTE_ADDR="203.0.113.12")
    assert throttle.wait_at_gate("api", "203.0.113.12") > 0
    later = throttle.time.time() + 61  # the gate's clock (tests/conftest.py starts it each test)
    monkeypatch.setattr(throttle.time, "time", lambda: later)
    assert throttle.wait_at_gate("api", "203.0.113.12") == 0


def test_a_failing_cache_leaves_the_gate_open_and_the_throttle_still_limits(
    two_a_minute, monkeypatch
):
    client = APIClient()
    for _ in range(3):
        client.get(RATINGS, REMOTE_ADDR="203.0.113.13")

    class Broken:
        def get(self, *args, **kwargs):
            raise ConnectionError("cache down")

    monkeypatch.setattr(throttle, "cache", Broken())  # the gate's store
    calls = _throttle_calls(monkeypatch)
    assert client.get(RATINGS, REMOTE_ADDR="203.0.113.13").status_code == 429
    assert calls == [1]  # refused by the throttle itself


# --- a self-entry link ------------------------------------------------------------------------


def _state(t):
    return (
        AuditEvent.objects.count(),
        Tournament.objects.get(pk=t.pk).content_version,
        list(PendingResult.objects.order_by("pk").values_list("pk", "status", "score1", "score2")),
    )


@pytest.fixture
def fixed_minute(monkeypatch):
    minute = [6_000_000.0]  # a whole minute: the window ends in 60 s
    monkeypatch.setattr(selfentry, "_now", lambda: minute[0])
    return minute


def test_a_spent_link_is_refused_at_the_gate_without_a_query(
    client, fixed_minute, django_assert_num_queries
):
    t, d = build_event()
    url = f"/e/{token(d, 1)}/report/"
    for k in range(selfentry.REPORTS_PER_MINUTE["entry"]):
        assert client.post(url, {"score": 400 + k, "opp_score": 350, "round": 1}).status_code == 302
    assert client.post(url, {"score": 480, "opp_score": 350, "round": 1}).status_code == 429
    before = _state(t)
    with django_assert_num_queries(0):
        refused = client.post(url, {"score": 490, "opp_score": 350, "round": 1})
    assert refused.status_code == 429 and refused["Retry-After"] == "60"
    page = refused.content.decode()
    assert "Too many reports from this link or for this game: at most 6 a minute" in page
    assert f'href="/e/{token(d, 1)}/"' in page and refused["Cache-Control"] == "private, no-store"
    assert _state(t) == before  # no report, no audit event, no version bumped
    # the opponent's link is its own: their matching report records the game
    other = client.post(f"/e/{token(d, 2)}/report/", {"score": 350, "opp_score": 405, "round": 1})
    assert other.status_code == 302
    # the next minute the link is heard again (the gate's key names the minute)
    fixed_minute[0] += 60
    again = client.get(f"/e/{token(d, 1)}/")
    assert again.status_code == 200


def test_a_link_posting_faster_than_a_player_is_refused_before_any_query(
    client, fixed_minute, monkeypatch, django_assert_num_queries
):
    """The same report again writes nothing but still costs its queries: a link's requests
    are counted at the gate, whatever they change."""
    monkeypatch.setattr(gate, "SELF_REQUESTS_PER_MINUTE", 5)
    t, d = build_event()
    url = f"/e/{token(d, 1)}/report/"
    same = {"score": 400, "opp_score": 350, "round": 1}
    assert [client.post(url, same).status_code for _ in range(5)] == [302] * 5
    before = _state(t)
    with django_assert_num_queries(0):
        refused = client.post(url, same)
    assert refused.status_code == 429 and b"at most 5 a minute" in refused.content
    confirm = f"/e/{token(d, 1)}/confirm/"
    with django_assert_num_queries(0):
        assert client.post(confirm, {"pending": 1}).status_code == 429
    assert _state(t) == before
    # pages and POSTs share the link's budget (issue 31): the card waits for the next minute
    card_url = f"/e/{token(d, 1)}/"
    with django_assert_num_queries(0):
        card = client.get(card_url)
    assert card.status_code == 429 and b"pages and reports together" in card.content
    fixed_minute[0] += 60
    assert client.get(card_url).status_code == 200


def test_junk_links_are_left_to_the_view(client):
    assert client.post("/e/not-a-token/report/", {"score": 1}).status_code == 404


# --- sign-in ----------------------------------------------------------------------------------


@pytest.fixture
def hashes(settings, monkeypatch) -> list[int]:
    """The passwords hashed (checked, or hashed for a name that does not exist)."""
    from django.contrib.auth.hashers import MD5PasswordHasher

    settings.PASSWORD_HASHERS = MD5
    done: list[int] = []
    original = MD5PasswordHasher.encode

    def counted(self, password, salt):
        done.append(1)
        return original(self, password, salt)

    monkeypatch.setattr(MD5PasswordHasher, "encode", counted)
    return done


def test_a_flood_of_made_up_names_hashes_at_most_the_minutes_budget(
    settings, hashes, django_assert_num_queries
):
    from axes.models import AccessAttempt

    settings.SIGN_IN_FAILURES_PER_MINUTE = 4
    get_user_model().objects.create_user("director", password="pw-long-enough-1")
    hashes.clear()
    client = Client()
    tries = [
        client.post(LOGIN, {"username": f"nobody-{k}", "password": "guess"}, REMOTE_ADDR="10.1.1.1")
        for k in range(10)
    ]
    assert [t.status_code for t in tries] == [200] * 4 + [429] * 6
    assert len(hashes) == 4  # one per failure the budget allowed, none after
    attempts = AccessAttempt.objects.count()
    with django_assert_num_queries(0):
        refused = client.post(
            LOGIN, {"username": "director", "password": "pw-long-enough-1"}, REMOTE_ADDR="10.1.1.1"
        )
    assert refused.status_code == 429 and "_auth_user_id" not in client.session
    page = refused.content.decode()
    assert "Too many wrong sign-ins from your address: at most" in page and "4 a minute" in page
    wait = int(refused["Retry-After"])
    assert 0 < wait <= 60 and f"Try again in {wait} seconds" in page
    assert len(hashes) == 4 and AccessAttempt.objects.count() == attempts
    # another address signs in
    elsewhere = Client()
    answer = elsewhere.post(
        LOGIN, {"username": "director", "password": "pw-long-enough-1"}, REMOTE_ADDR="10.2.2.2"
    )
    assert answer.status_code == 302


def test_a_burst_of_wrong_sign_ins_hashes_three_then_waits_for_the_next_ten_seconds(
    settings, hashes, monkeypatch
):
    """Ten wrong passwords at once are four core-seconds of hashing (the minute's budget
    spent in its first seconds took the crowd's standings to a third): at most
    SIGN_IN_FAILURES_PER_BURST in SIGN_IN_BURST_SECONDS, then a 429 until that window ends,
    before the form is read; the next window allows as many again."""
    from tournament.web import accounts

    settings.SIGN_IN_FAILURES_PER_BURST = 3
    now = [1_000_000.0]  # the start of a ten-second window (and of a minute)
    monkeypatch.setattr(accounts.time, "time", lambda: now[0])
    client = Client()

    def guess(k: int):
        return client.post(LOGIN, {"username": f"nobody-{k}", "password": "guess"})

    assert [guess(k).status_code for k in range(5)] == [200, 200, 200, 429, 429]
    assert len(hashes) == 3
    refused = guess(5)
    page = refused.content.decode()
    assert "at most 3 in 10 seconds" in page and refused["Retry-After"] == "10"
    now[0] += 10  # the next window
    assert [guess(k).status_code for k in range(6, 10)] == [200, 200, 200, 429]
    assert len(hashes) == 6


def test_nine_typos_then_the_right_password_still_sign_in(settings, hashes, monkeypatch):
    """The minute's default budget is axes' per-name limit: a director's nine typos in a row
    leave the right password its chance."""
    from tournament.web import accounts

    assert settings.SIGN_IN_FAILURES_PER_MINUTE == settings.AXES_FAILURE_LIMIT == 10
    from tournament import settings as site

    settings.SIGN_IN_FAILURES_PER_BURST = site.SIGN_IN_FAILURES_PER_BURST  # the default: 2
    assert settings.SIGN_IN_FAILURES_PER_BURST == 2  # a person retypes slower than that
    now = [1_000_000.0]
    monkeypatch.setattr(accounts.time, "time", lambda: now[0])
    get_user_model().objects.create_user("director", password="pw-long-enough-1")
    client = Client()
    for k in range(9):
        wrong = client.post(LOGIN, {"username": "director", "password": f"typo-{k}"})
        assert wrong.status_code == 200
        now[0] += 5  # a typo every five seconds: nine in 45 s
    right = client.post(LOGIN, {"username": "director", "password": "pw-long-enough-1"})
    assert right.status_code == 302


def test_a_try_is_counted_before_its_password_is_checked_and_given_back_if_it_signs_in(
    hashes, monkeypatch
):
    """Counted first, so tries at once cannot all pass the check and all hash a password."""
    from django.contrib.auth.hashers import MD5PasswordHasher
    from django.test import RequestFactory

    from tournament.web.accounts import failed_sign_ins

    get_user_model().objects.create_user("director", password="pw-long-enough-1")
    probe = RequestFactory().get("/", REMOTE_ADDR="10.3.3.3")
    seen: list[int] = []
    original = MD5PasswordHasher.encode

    def looking(self, password, salt):
        seen.append(failed_sign_ins(probe))
        return original(self, password, salt)

    monkeypatch.setattr(MD5PasswordHasher, "encode", looking)
    client = Client()
    for k in range(3):
        client.post(LOGIN, {"username": f"nobody-{k}", "password": "x"}, REMOTE_ADDR="10.3.3.3")
    assert seen == [1, 2, 3]  # each try already counted while its password was hashed
    right = {"username": "director", "password": "pw-long-enough-1"}
    assert client.post(LOGIN, right, REMOTE_ADDR="10.3.3.3").status_code == 302
    assert failed_sign_ins(probe) == 3  # the sign-in gave its count back


# --- the file cache ---------------------------------------------------------------------------


def test_the_file_cache_lists_its_folder_at_most_every_few_seconds(tmp_path, monkeypatch):
    cache = filecache.FileCache(str(tmp_path), {"OPTIONS": {"MAX_ENTRIES": 10}})
    listed: list[int] = []
    original = cache._list_cache_files

    def counted():
        listed.append(1)
        return original()

    monkeypatch.setattr(cache, "_list_cache_files", counted)
    for k in range(50):
        cache.set(f"address-{k}", k)
    assert len(listed) == 1  # the first write looked; the next 49 did not
    assert len(list(tmp_path.glob("*.djcache"))) == 50
    later = time.monotonic() + filecache.CULL_EVERY + 1
    monkeypatch.setattr(filecache.time, "monotonic", lambda: later)
    cache.set("one-more", 1)  # the next look culls as Django's would (a third by default)
    assert len(listed) == 2
    assert len(list(tmp_path.glob("*.djcache"))) == 50 - 50 // 3 + 1


def _count_in_another_process(folder: str, n: int) -> None:
    cache = filecache.FileCache(folder, {})
    for _ in range(n):
        cache.add("tries", 0, timeout=60)
        cache.incr("tries")


def test_the_file_caches_counters_lose_no_count_between_processes(tmp_path):
    """add + incr from four processes at once: every count kept (a read-then-write lost
    some, so a sign-in flood hashed 11-13 tries where 10 were allowed)."""
    import multiprocessing

    ctx = multiprocessing.get_context("fork")
    workers = [
        ctx.Process(target=_count_in_another_process, args=(str(tmp_path), 150)) for _ in range(4)
    ]
    for w in workers:
        w.start()
    for w in workers:
        w.join(60)
    assert [w.exitcode for w in workers] == [0, 0, 0, 0]
    cache = filecache.FileCache(str(tmp_path), {})
    assert cache.get("tries") == 600
    assert len(list(tmp_path.glob("*.lk"))) <= filecache.LOCK_STRIPES


def test_the_gates_refusals_are_not_logged_one_by_one(two_a_minute, caplog):
    """The refusal that shut the gate is logged; a flood's later ones are not (a line each)."""
    client = APIClient()
    with caplog.at_level("WARNING", logger="django.request"):
        for _ in range(3):
            client.get(RATINGS, REMOTE_ADDR="203.0.113.14")
        logged = len(caplog.records)
        for _ in range(20):
            assert client.get(RATINGS, REMOTE_ADDR="203.0.113.14").status_code == 429
    assert logged == 1 and len(caplog.records) == 1
