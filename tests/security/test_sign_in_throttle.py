"""Hole 5: sign-in throttling (django-axes), keyed on user name and address together.

Probed: 100 wrong passwords in 23 s were all answered and the right one then worked. Now the
10th wrong password within 15 minutes locks that user name from that address: every later
try, the right password included, gets the lockout page (429, saying when to try again),
while the same user from another address, and another user from the same address, still
sign in.
"""

from __future__ import annotations

import datetime as dt

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

LOGIN = "/accounts/login/"
ADMIN_LOGIN = "/admin/login/"
VENUE, ELSEWHERE = "10.1.1.1", "10.2.2.2"
PASSWORD = "pw-long-enough-1"


@pytest.fixture
def users(db, settings):
    # A fast hasher: the throttle is under test, not PBKDF2 (whose cost is the same either way).
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    model = get_user_model()
    director = model.objects.create_user("director", "d@example.org", PASSWORD, is_staff=True)
    other = model.objects.create_user("scorer", "s@example.org", PASSWORD)
    return director, other


def _try(client: Client, url: str, username: str, password: str, address: str):
    return client.post(url, {"username": username, "password": password}, REMOTE_ADDR=address)


def _signed_in(client: Client) -> bool:
    return "_auth_user_id" in client.session


def test_100_wrong_passwords_lock_that_user_at_that_address(users):
    client = Client()
    statuses = [
        _try(client, LOGIN, "director", f"wrong-{i}", VENUE).status_code for i in range(100)
    ]
    assert statuses[:9] == [200] * 9  # the form again, with its error
    assert statuses[9:] == [429] * 91  # the 10th failure locks
    locked = _try(client, LOGIN, "director", PASSWORD, VENUE)
    assert locked.status_code == 429 and not _signed_in(client)
    page = locked.content.decode()
    assert "Too many attempts" in page and "Try again after" in page
    assert "15 minutes from now" in page
    assert locked["Retry-After"] == "900"
    # the same user from another address signs in
    elsewhere = Client()
    response = _try(elsewhere, LOGIN, "director", PASSWORD, ELSEWHERE)
    assert response.status_code == 302 and _signed_in(elsewhere)
    # another user from the locked address signs in: a venue shares one address
    colleague = Client()
    response = _try(colleague, LOGIN, "scorer", PASSWORD, VENUE)
    assert response.status_code == 302 and _signed_in(colleague)


def test_nine_wrong_passwords_then_the_right_one_signs_in(users):
    client = Client()
    for i in range(9):
        assert _try(client, LOGIN, "director", f"wrong-{i}", VENUE).status_code == 200
    response = _try(client, LOGIN, "director", PASSWORD, VENUE)
    assert response.status_code == 302 and _signed_in(client)


def test_the_lock_ends_after_fifteen_minutes(users):
    from axes.models import AccessAttempt

    client = Client()
    for i in range(10):
        _try(client, LOGIN, "director", f"wrong-{i}", VENUE)
    assert _try(client, LOGIN, "director", PASSWORD, VENUE).status_code == 429
    AccessAttempt.objects.update(attempt_time=dt.datetime.now(dt.UTC) - dt.timedelta(minutes=16))
    response = _try(client, LOGIN, "director", PASSWORD, VENUE)
    assert response.status_code == 302 and _signed_in(client)


def test_the_admin_sign_in_is_throttled_the_same_way(users):
    client = Client()
    statuses = [
        _try(client, ADMIN_LOGIN, "director", f"wrong-{i}", VENUE).status_code for i in range(12)
    ]
    assert statuses[:9] == [200] * 9 and statuses[9:] == [429] * 3
    locked = _try(client, ADMIN_LOGIN, "director", PASSWORD, VENUE)
    assert locked.status_code == 429 and not _signed_in(client)
    assert "Try again after" in locked.content.decode()
    # ...and the site's own sign-in shares the count: the pair is locked there too
    assert _try(Client(), LOGIN, "director", PASSWORD, VENUE).status_code == 429


def test_behind_a_proxy_the_address_is_the_one_the_proxy_appended(users, settings):
    settings.BEHIND_PROXY = True
    client = Client()
    for i in range(10):
        client.post(
            LOGIN,
            {"username": "director", "password": f"wrong-{i}"},
            REMOTE_ADDR="127.0.0.1",
            HTTP_X_FORWARDED_FOR=f"6.6.6.{i}, {VENUE}",
        )
    # a client cannot dodge the lock by claiming another address in front of the real one
    locked = client.post(
        LOGIN,
        {"username": "director", "password": PASSWORD},
        REMOTE_ADDR="127.0.0.1",
        HTTP_X_FORWARDED_FOR=f"1.2.3.4, {VENUE}",
    )
    assert locked.status_code == 429
    other = Client()
    response = other.post(
        LOGIN,
        {"username": "director", "password": PASSWORD},
        REMOTE_ADDR="127.0.0.1",
        HTTP_X_FORWARDED_FOR=ELSEWHERE,
    )
    assert response.status_code == 302


def test_made_up_names_from_one_address_are_stopped(users, settings):
    """Axes locks a name at an address; a flood of made-up names (600 attempts over 200 names
    were never stopped) is stopped by the address's own budget, and other addresses and the
    next window are unaffected."""
    from django.core.cache import cache

    cache.clear()
    settings.SIGN_IN_FAILURES_PER_ADDRESS = 12
    # the five-minute budget alone (the minute's has its own tests: test_abuse_gate.py)
    settings.SIGN_IN_FAILURES_PER_MINUTE = 100
    client = Client()
    answers = [_try(client, LOGIN, f"nobody-{k}", "wrong", VENUE).status_code for k in range(15)]
    assert answers[:12] == [200] * 12  # the form again, with its error
    assert answers[12:] == [429, 429, 429]
    assert _try(client, LOGIN, "director", PASSWORD, VENUE).status_code == 429
    assert not _signed_in(client)
    elsewhere = Client()
    _try(elsewhere, LOGIN, "director", PASSWORD, ELSEWHERE)
    assert _signed_in(elsewhere)
    cache.clear()  # the window has passed
    fresh = Client()
    _try(fresh, LOGIN, "director", PASSWORD, VENUE)
    assert _signed_in(fresh)


# --- lock the guessing, not the owner (issue 31, item 5i) -------------------------------------


def _known_browser(address: str = VENUE) -> Client:
    """The director's own browser: it signed in here before, then signed out."""
    browser = Client()
    assert _try(browser, LOGIN, "director", PASSWORD, address).status_code == 302
    assert browser.cookies.get("gibson_device"), "a sign-in marks the browser as known"
    browser.post("/accounts/logout/", REMOTE_ADDR=address)
    assert not _signed_in(browser)
    return browser


def test_a_flood_from_the_venues_address_does_not_lock_out_the_owners_browser(users, settings):
    """Made-up names from the venue's address spend its budget: strangers are refused there,
    the director's own browser (and the right password) still signs in."""
    from django.core.cache import cache

    cache.clear()
    settings.SIGN_IN_FAILURES_PER_ADDRESS = 12
    settings.SIGN_IN_FAILURES_PER_MINUTE = 100
    browser = _known_browser()
    flood = Client()
    answers = [_try(flood, LOGIN, f"nobody-{k}", "wrong", VENUE).status_code for k in range(15)]
    assert answers[-3:] == [429, 429, 429]
    assert _try(Client(), LOGIN, "director", PASSWORD, VENUE).status_code == 429  # a stranger
    response = _try(browser, LOGIN, "director", PASSWORD, VENUE)
    assert response.status_code == 302 and _signed_in(browser)


def test_a_guessed_name_locked_at_the_address_still_lets_its_owners_browser_in(users):
    """Ten wrong passwords for "director" from the venue lock that name there (axes); the
    owner's browser, at the same address, signs in with the right one."""
    browser = _known_browser()
    guesser = Client()
    for i in range(10):
        _try(guesser, LOGIN, "director", f"guess-{i}", VENUE)
    assert _try(guesser, LOGIN, "director", PASSWORD, VENUE).status_code == 429
    response = _try(browser, LOGIN, "director", PASSWORD, VENUE)
    assert response.status_code == 302 and _signed_in(browser)


def test_a_known_browser_has_its_own_budget_and_names_only_its_account(users):
    """The cookie is no pass: it names the account it signed in to (another name from it is a
    stranger's try), and ten wrong passwords from it spend it like any address's."""
    browser = _known_browser()
    guesser = Client()
    for i in range(10):
        _try(guesser, LOGIN, "scorer", f"guess-{i}", VENUE)
    # "scorer" is locked at the venue; the director's cookie does not open it
    assert _try(browser, LOGIN, "scorer", PASSWORD, VENUE).status_code == 429
    # a forged or altered cookie is no cookie
    forged = Client()
    forged.cookies["gibson_device"] = browser.cookies["gibson_device"].value[:-2] + "xx"
    for i in range(10):
        _try(guesser, LOGIN, "director", f"guess-{i}", VENUE)
    assert _try(forged, LOGIN, "director", PASSWORD, VENUE).status_code == 429
    # the known browser's own wrong passwords: ten, then it is a stranger again
    statuses = [_try(browser, LOGIN, "director", f"typo-{i}", VENUE).status_code for i in range(10)]
    assert set(statuses) == {200}  # the form again each time: its own budget, not the lock
    assert _try(browser, LOGIN, "director", PASSWORD, VENUE).status_code == 429


@pytest.mark.slow(seconds=3)  # waits out a one-second retry delay twice, in real time
def test_after_a_short_delay_the_right_password_still_signs_in(users, settings):
    """Without a known browser, the owner waits SIGN_IN_RETRY_SECONDS, not the lock's
    minutes: a flood of made-up names locks the address, a guesser locks "director" at it,
    and the right password, tried again after the delay, signs in; a wrong one then is
    refused like any wrong password, and the next try waits another delay."""
    import time

    from django.core.cache import cache

    cache.clear()
    settings.SIGN_IN_RETRY_SECONDS = 1
    settings.SIGN_IN_FAILURES_PER_ADDRESS = 12
    settings.SIGN_IN_FAILURES_PER_MINUTE = 100
    flood = Client()
    for k in range(13):
        _try(flood, LOGIN, f"nobody-{k}", "wrong", VENUE)
    for i in range(10):
        _try(flood, LOGIN, "director", f"guess-{i}", ELSEWHERE)  # "director" locked there too
    owner = Client()
    assert _try(owner, LOGIN, "director", PASSWORD, VENUE).status_code == 429
    assert _try(owner, LOGIN, "director", PASSWORD, VENUE).status_code == 429  # no delay yet
    time.sleep(1.1)
    assert _try(owner, LOGIN, "director", "a-typo-1", VENUE).status_code == 200  # a wrong one
    assert _try(owner, LOGIN, "director", PASSWORD, VENUE).status_code == 429  # its delay again
    time.sleep(1.1)
    response = _try(owner, LOGIN, "director", PASSWORD, VENUE)
    assert response.status_code == 302 and _signed_in(owner)
    # the same at the address where the name itself is locked (axes), not only the address
    elsewhere = Client()
    assert _try(elsewhere, LOGIN, "director", PASSWORD, ELSEWHERE).status_code == 429
    time.sleep(1.1)
    response = _try(elsewhere, LOGIN, "director", PASSWORD, ELSEWHERE)
    assert response.status_code == 302 and _signed_in(elsewhere)


def test_the_delayed_tries_of_a_flood_stay_within_the_burst_budget(users, settings):
    """Names primed by a refused try each come back after the delay; the address still gets
    no more password checks than its burst budget allows."""
    from django.core.cache import cache

    from tournament.web import accounts

    cache.clear()
    settings.SIGN_IN_FAILURES_PER_BURST = 2
    settings.SIGN_IN_RETRY_SECONDS = 0  # every primed name is due at once
    from django.test import RequestFactory

    def post(name: str):
        return RequestFactory().post(LOGIN, {"username": name}, REMOTE_ADDR=VENUE)

    for k in range(20):
        assert not accounts.paced_try(post(f"made-up-{k}"), f"made-up-{k}")  # primed
    allowed = sum(accounts.paced_try(post(f"made-up-{k}"), f"made-up-{k}") for k in range(20))
    assert allowed == 2
