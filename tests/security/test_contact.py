"""Contact details never leave the player's own directors (issue 31, "Trust when the doors
are open").

The probe replays both routes the issue found, against a served site over real HTTP
(pytest-django's ``live_server``: the site in a thread of this process, its own port):

- any confirmed account founds a club, starts a club night, adds a registry player by exact
  name as a latecomer and opens the night's Notices page;
- any director registers registry players by id through the API (ids run in sequence) and
  opens the Notices page, and reads the API back.

Neither gets a registry e-mail address or phone number, while the notice itself still goes to
the hidden address; the player's own directors (of a tournament the player entered online
themselves) still see it. The unit tests below pin the rule (tournament.access.contact_visible)
across tournaments and entry paths.
"""

from __future__ import annotations

import datetime as dt
import http.cookiejar
import io
import json
import re
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.core.management import call_command
from django.test import Client
from django.utils import timezone
from rest_framework.authtoken.models import Token

from tournament import services
from tournament.access import can_see_contact
from tournament.clubs.models import Club, Night
from tournament.models import NoticeSubscription, OnlineEntry, Player
from tournament.services import online_entries as oe
from tournament.services.notices import add_subscriber

PASSWORD = "pw-long-enough-1"
VERA = ("Voss, Vera", "vera@home.test")  # enters Spring Open online herself
QUINN = ("Quill, Quinn", "quinn@home.test", "+44 20 7946 0123")  # in the registry only
CSRF_FIELD = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')


@dataclass
class Answer:
    status: int
    body: str


class Browser:
    """One person's browser against the served site: cookies kept, forms posted with the
    CSRF token of the page they came from, redirects followed (as a browser does)."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar())
        )
        self.csrf = ""

    def _open(self, request: urllib.request.Request) -> Answer:
        try:
            with self.opener.open(request, timeout=60) as response:
                answer = Answer(response.status, response.read().decode())
        except urllib.error.HTTPError as refused:
            answer = Answer(refused.code, refused.read().decode())
        found = CSRF_FIELD.search(answer.body)
        if found:
            self.csrf = found.group(1)
        return answer

    def get(self, path: str) -> Answer:
        return self._open(urllib.request.Request(self.base + path))

    def post(self, path: str, data: dict[str, Any]) -> Answer:
        fields = {**data, "csrfmiddlewaretoken": self.csrf}
        body = urllib.parse.urlencode(fields, doseq=True).encode()
        return self._open(urllib.request.Request(self.base + path, data=body, method="POST"))

    def sign_in(self, username: str) -> None:
        self.get("/accounts/login/")
        self.post("/accounts/login/", {"username": username, "password": PASSWORD})
        assert "sessionid" in {c.name for c in self.jar}, username

    @property
    def jar(self) -> http.cookiejar.CookieJar:
        for handler in self.opener.handlers:
            if isinstance(handler, urllib.request.HTTPCookieProcessor):
                return handler.cookiejar
        raise AssertionError("no cookie jar")


def api(base: str, token: str, path: str, data: dict[str, Any] | None = None) -> Answer:
    """One API call with the account's token (JSON in, JSON out)."""
    request = urllib.request.Request(
        base + path,
        data=json.dumps(data).encode() if data is not None else None,
        headers={"Authorization": f"Token {token}", "Content-Type": "application/json"},
        method="POST" if data is not None else "GET",
    )
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return Answer(response.status, response.read().decode())
    except urllib.error.HTTPError as refused:
        return Answer(refused.code, refused.read().decode())


def account(username: str) -> Any:
    """A confirmed account (the sign-up link followed), directing nothing yet."""
    return get_user_model().objects.create_user(username, f"{username}@example.org", PASSWORD)


def spring_open() -> Any:
    """A published tournament taking entries online, directed by dora."""
    t = services.create_tournament(name="Spring Open", slug="spring", published=True)
    division = services.create_division(t, name="A", rounds=3)
    t.directors.add(account("dora"))
    now = timezone.now()
    oe.open_entries(t, now - dt.timedelta(days=1), now + dt.timedelta(days=7), actor="test")
    oe.set_division_rule(division, actor="test")
    return t


def quinn() -> Player:
    """A registry player whose details a registry keeper typed in: no director's to see."""
    name, email, phone = QUINN
    return services.create_player(actor="import_players", name=name, email=email, phone=phone)


def secrets_in(text: str) -> list[str]:
    """The registry's contact details found in ``text``."""
    return [s for s in (VERA[1], QUINN[1], QUINN[2], "7946 0123") if s in text]


# --- the probe: a served site, real HTTP -------------------------------------------------


@pytest.mark.slow(seconds=6)  # a served site, three sign-ins and some 40 requests over HTTP
def test_probe_no_route_gives_a_stranger_a_registry_address(live_server, settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    base = live_server.url
    spring = spring_open()
    quinn()

    # Vera enters Spring Open on its public form, asks for notices and confirms by mail
    vera = Browser(base)
    vera.get("/t/spring/entries/")
    sent = vera.post(
        "/t/spring/entries/",
        {"division": "a", "name": VERA[0], "email": VERA[1], "notices": "on"},
    )
    assert sent.status == 200 and "Check your e-mail" in sent.body
    confirm = re.findall(r"https?://[^/\s]+(/entry/confirm/\S+/)", mail.outbox[-1].body)[0]
    vera.get(confirm)
    assert vera.post(confirm, {}).status == 200
    vera_player = Player.objects.get(name=VERA[0])
    assert OnlineEntry.objects.get(player=vera_player).contact_shared

    # route 1: any confirmed account founds a club, starts a night, adds her as a latecomer
    account("mallory")
    mallory = Browser(base)
    mallory.sign_in("mallory")
    mallory.get("/clubs/new/")
    club_form = {
        "name": "Mallory Club",
        "city": "",
        "country": "",
        "meets": "",
        "realm": "nsa",
        "newcomer_rating": "1000",
        "rating_system": "club-third",
    }
    assert mallory.post("/clubs/new/", club_form).status == 200
    club = Club.objects.get(name="Mallory Club")
    mallory.get(f"/clubs/{club.slug}/nights/new/")
    night_form = {
        "guests": "Stooge, Sam\nStooge, Sue",
        "games": "1",
        "draw": ["random"],
        "date": dt.date.today().isoformat(),
    }
    assert mallory.post(f"/clubs/{club.slug}/nights/new/", night_form).status == 200
    night = Night.objects.get(club=club)
    for name in (VERA[0], QUINN[0]):
        added = mallory.post(
            f"/clubs/{club.slug}/nights/{night.pk}/players/", {"name": name, "guest": "on"}
        )
        assert added.status == 200, added.body[-500:]
    assert night.tournament.divisions.get().entries.filter(player=vera_player).exists()
    notices_page = f"/t/{night.tournament.slug}/console/notices/"
    page = mallory.get(notices_page)
    assert page.status == 200 and secrets_in(page.body) == []
    assert f"{VERA[0]} (has an address)" in page.body
    # the notice still reaches her: subscribed at the hidden address, the draw mails her board
    page = mallory.post(notices_page + "add/", {"player": vera_player.pk})
    assert f"{VERA[0]} subscribed." in page.body and secrets_in(page.body) == []
    mail.outbox.clear()
    mallory.get(f"/clubs/{club.slug}/nights/{night.pk}/")
    assert mallory.post(f"/clubs/{club.slug}/nights/{night.pk}/draw/", {}).status == 200
    assert [m.to for m in mail.outbox] == [[VERA[1]]]
    assert secrets_in(mallory.get(notices_page).body) == []

    # route 2: a director registers registry players by id through the API, in sequence
    eve_user = account("eve")
    eve_open = services.create_tournament(name="Eve Open", slug="eve-open")
    services.create_division(eve_open, name="A", rounds=3)
    eve_open.directors.add(eve_user)
    token = Token.objects.create(user=eve_user).key
    entries = "/api/v1/tournaments/eve-open/divisions/a/entries/"
    registered = []
    for player_id in range(1, Player.objects.order_by("-pk").first().pk + 2):
        answer = api(base, token, entries, {"player_id": player_id})
        assert answer.status in (201, 400), answer.body
        assert secrets_in(answer.body) == []
        if answer.status == 201:
            registered.append(player_id)
    assert vera_player.pk in registered and Player.objects.get(name=QUINN[0]).pk in registered
    eve = Browser(base)
    eve.sign_in("eve")
    page = eve.get("/t/eve-open/console/notices/")
    assert page.status == 200 and secrets_in(page.body) == []
    assert f"{VERA[0]} (has an address)" in page.body
    # and the API's reads of those players, to their new director
    reads = [entries, "/api/v1/tournaments/eve-open/entries/"]
    reads += [f"{entries}{n}/" for n in range(1, len(registered) + 1)]
    reads += [f"/api/v1/players/{pk}/" for pk in registered]
    for path in reads:
        answer = api(base, token, path)
        assert answer.status in (200, 404) and secrets_in(answer.body) == [], path

    # Vera's own directors still see the address she entered with
    dora = Browser(base)
    dora.sign_in("dora")
    page = dora.get("/t/spring/console/notices/")
    assert page.status == 200 and f"<td>{VERA[1]}</td>" in page.body
    assert spring.notice_subscriptions.get().email == VERA[1]


# --- the rule, without a server ----------------------------------------------------------


@pytest.fixture
def spring(db, settings) -> Any:
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    return spring_open()


def _enter_online(tournament: Any, name: str, email: str, **kwargs: Any) -> OnlineEntry:
    done = oe.submit_entry(tournament.divisions.get(), name=name, email=email, **kwargs)
    if done.confirm_token:
        oe.confirm_entry(done.confirm_token)
    done.online.refresh_from_db()
    return done.online


def _director_of(name: str, slug: str) -> tuple[Any, Any]:
    t = services.create_tournament(name=name, slug=slug)
    services.create_division(t, name="A", rounds=3)
    user = account(f"{slug}-td")
    t.directors.add(user)
    return t, user


def test_a_player_who_entered_shows_to_that_tournaments_directors_only(spring):
    vera = _enter_online(spring, VERA[0], VERA[1]).player
    dora = spring.directors.get()
    co = account("cody")
    spring.directors.add(co)  # a co-director, added later, is one of her directors too
    scorer = account("sky")
    spring.scorekeepers.add(scorer)
    other, olga = _director_of("Other Open", "other")
    services.register_player(other.divisions.get(), player=vera, actor=olga)
    assert can_see_contact(dora, vera) and can_see_contact(co, vera)
    assert not can_see_contact(scorer, vera) and not can_see_contact(olga, vera)
    client = Client()
    client.force_login(olga)
    page = client.get("/t/other/console/notices/").content.decode()
    assert f"{VERA[0]} (has an address)" in page and VERA[1] not in page
    client.force_login(dora)
    assert VERA[1] in client.get("/t/spring/console/notices/").content.decode()


def test_an_entry_shares_only_an_address_its_entrant_proved(spring):
    """An entry naming a registry player shares the registry's record only once the link
    mailed to the registry's own address is followed (never to the address typed): pending,
    approved by a director, or signed in (a typed address no mail proved), it shares nothing."""
    dora = spring.directors.get()
    held = quinn()
    done = oe.submit_entry(spring.divisions.get(), name=QUINN[0], email="not-quinn@else.test")
    assert done.online.player == held and done.online.status == OnlineEntry.Status.PENDING
    assert not can_see_contact(dora, held)  # pending: someone typed her name
    assert {tuple(m.to) for m in mail.outbox} <= {(QUINN[1],)}  # never the typed address
    # phone only in the registry: no mailbox to prove, a director's approval shares nothing
    phoned = services.create_player(actor="import_players", name="Pell, Pia", phone="+1 555 0100")
    asked = oe.submit_entry(spring.divisions.get(), name="Pell, Pia", email="pia@else.test")
    oe.approve_entry(asked.online, actor=dora)
    assert not can_see_contact(dora, phoned)
    client = Client()
    client.force_login(dora)
    page = client.get("/t/spring/console/notices/").content.decode()
    assert secrets_in(page) == []
    # the mailed link followed: whoever reads the registry's mailbox is its player
    oe.confirm_entry(done.confirm_token)
    assert can_see_contact(dora, held)
    # unconfirmed, from the registry's own address: nothing until the mailed link is followed
    second = services.create_player(actor="import_players", name="Rowe, Ria", email="r@h.test")
    waiting = oe.submit_entry(spring.divisions.get(), name="Rowe, Ria", email="r@h.test")
    assert not can_see_contact(dora, second)
    oe.confirm_entry(waiting.confirm_token)
    assert can_see_contact(dora, second)
    # signed in with an account of the registry's address: it enters at once, but no mail
    # proved that address (an invited account's never was), so it shares nothing
    third = services.create_player(actor="import_players", name="Sand, Sol", email="s@h.test")
    sol = get_user_model().objects.create_user("sol", "s@h.test", PASSWORD)
    entered = _enter_online(spring, "Sand, Sol", "s@h.test", user=sol)
    assert entered.status == OnlineEntry.Status.ENTERED and not entered.contact_shared
    assert not can_see_contact(dora, third)
    # signed in, a new player: every detail on the record is the entrant's own
    fresh = _enter_online(spring, "Tate, Tom", "tom@h.test", user=account("tom"))
    assert fresh.contact_shared and can_see_contact(dora, fresh.player)


def test_a_director_sees_only_details_they_gave_the_registry_themselves(spring):
    _other, olga = _director_of("Other Open", "other")
    mine = services.create_player(actor=olga, name="Uno, Ursa", email="ursa@h.test")
    assert can_see_contact(olga, mine) and not can_see_contact(spring.directors.get(), mine)
    keeper = account("kay")
    keeper.is_superuser = True
    keeper.save()
    services.update_player(mine, actor=keeper, email="ursa@new.test")  # someone else's now
    assert not can_see_contact(olga, Player.objects.get(pk=mine.pk))
    nameless = services.create_player(actor=olga, name="Vane, Val")  # no details given
    services.update_player(nameless, actor=keeper, phone="+1 555 0199")
    assert not can_see_contact(olga, Player.objects.get(pk=nameless.pk))


def test_the_notices_command_as_an_account_hides_what_the_account_may_not_see(spring):
    _enter_online(spring, VERA[0], VERA[1], notices_opt_in=True)
    other, olga = _director_of("Other Open", "other")
    held = quinn()
    services.register_player(spring.divisions.get(), player=held, actor="test")
    add_subscriber(spring, held.pk, actor=spring.directors.get())

    def listed(**kwargs: Any) -> dict[str, Any]:
        out = io.StringIO()
        call_command("notices", "spring", "--json", stdout=out, **kwargs)
        return {s["player"]: s["email"] for s in json.loads(out.getvalue())["subscribers"]}

    assert listed() == {VERA[0]: VERA[1], QUINN[0]: QUINN[1]}  # the shell holds the database
    assert listed(as_user="dora") == {VERA[0]: VERA[1], QUINN[0]: None}
    assert listed(as_user=olga.username) == {VERA[0]: None, QUINN[0]: None}
    assert NoticeSubscription.objects.get(player=held).email == QUINN[1]  # still mailed there


def test_a_weekend_entrant_shares_with_every_event_they_entered(spring):
    """The weekend form enters one entrant in several events: the record the first entry made
    is the entrant's own in each, signed in or not; a registry player's stays unshared while
    the player has not confirmed."""
    from tournament.services.weekends import add_event, create_weekend

    main, mia = _director_of("Main Event", "main")
    main.published = True
    main.save(update_fields=["published"])
    now = timezone.now()
    oe.open_entries(main, now - dt.timedelta(days=1), now + dt.timedelta(days=7), actor="test")
    oe.set_division_rule(main.divisions.get(), actor="test")
    dora = spring.directors.get()
    weekend = create_weekend(dora, "Spring Weekend", spring, slug="spring-weekend")
    main.directors.add(dora)
    add_event(weekend, main, dora)
    both = {spring: spring.divisions.get(), main: main.divisions.get()}
    done = oe.submit_weekend_entries(
        weekend, both, name="Wren, Willa", email="willa@h.test", user=account("willa")
    )
    willa = done.entries[0].online.player
    assert [s.online.contact_shared for s in done.entries] == [True, True]
    assert can_see_contact(dora, willa) and can_see_contact(mia, willa)
    held = quinn()
    done = oe.submit_weekend_entries(
        weekend, both, player_id=held.pk, name="", email=QUINN[1], user=account("quinn")
    )
    # someone else's account naming a registry player: pending in both events, nothing shared
    assert [s.online.status for s in done.entries] == [OnlineEntry.Status.PENDING] * 2
    assert not can_see_contact(mia, held) and not can_see_contact(dora, held)
