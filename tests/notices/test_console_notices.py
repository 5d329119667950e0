"""The console's Notices page: only the tournament's directors see it or act on it; a director
adds an entrant at the registry's address, stops a subscriber, and a refusal is worded at its
field with nothing written. No subscriber's address shows on any public page; the director's
announcement shows on the players' pages (the self-entry page too)."""

from __future__ import annotations

import pytest
from django.test import Client

from tournament import services
from tournament.models import AuditEvent, NoticeSubscription, Player
from tournament.services import notices
from tournament.services.clock import post_announcement

NOTICES = "/t/notice-open/console/notices/"
ACTIONS = {
    "": {},
    "add/": {"player": "1"},
    "remove/": {"subscription": "1"},
    "results/": {"confirm": "yes"},
}


def _client(user=None) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def test_a_director_adds_and_stops_a_subscriber(event):
    client = _client(event.director)
    html = client.get(NOTICES).content.decode()
    assert "Nobody has subscribed yet." in html
    ann = event.entries[0].player
    # entered by hand: the page says Ann has an address, and never shows it
    assert f'<option value="{ann.pk}">Able, Ann (has an address)</option>' in html
    html = client.post(NOTICES + "add/", {"player": ann.pk}).content.decode()
    assert "Able, Ann subscribed." in html
    sub = NoticeSubscription.objects.get()
    assert sub.email == "able@players.test" and sub.active  # the notices go to it
    assert "able@players.test" not in html and "on file, not shown" in html
    client.post(NOTICES + "remove/", {"subscription": sub.pk})
    sub.refresh_from_db()
    assert not sub.active
    assert list(
        AuditEvent.objects.filter(action__endswith="_notices")
        .order_by("pk")
        .values_list("action", flat=True)
    ) == ["subscribe_notices", "unsubscribe_notices"]


@pytest.mark.parametrize(
    ("data", "words"),
    [
        ({"player": "99999"}, "has no entrant &#x27;99999&#x27; to add"),
        ({"player": "x'; drop"}, "has no entrant"),
        ({}, "has no entrant &#x27;&#x27;"),
    ],
)
def test_adding_someone_not_entered_is_refused_at_the_field(event, data, words):
    response = _client(event.director).post(NOTICES + "add/", data)
    html = response.content.decode()
    assert response.status_code == 400 and words in html
    assert 'data-field="player"' in html and 'aria-invalid="true"' in html
    assert not NoticeSubscription.objects.exists()


def test_an_entrant_without_an_address_is_refused(event):
    ann = event.entries[0].player
    Player.objects.filter(pk=ann.pk).update(email="")
    response = _client(event.director).post(NOTICES + "add/", {"player": ann.pk})
    assert response.status_code == 400
    assert "Able, Ann has no e-mail address in the registry" in response.content.decode()
    assert not NoticeSubscription.objects.exists()


def test_another_tournaments_player_is_not_added(event):
    other = services.create_tournament(name="Far Open", slug="far-open")
    far = services.register_player(services.create_division(other, name="A"), name="Far, Fay")
    Player.objects.filter(pk=far.player_id).update(email="fay@players.test")
    response = _client(event.director).post(NOTICES + "add/", {"player": far.player_id})
    assert response.status_code == 400 and not NoticeSubscription.objects.exists()


def test_removing_an_unknown_subscriber_is_refused(event):
    response = _client(event.director).post(NOTICES + "remove/", {"subscription": "abc"})
    assert response.status_code == 400
    assert "has no subscriber &#x27;abc&#x27;" in response.content.decode()


@pytest.mark.parametrize("who", ["anonymous", "stranger", "scorekeeper"])
@pytest.mark.parametrize("action", list(ACTIONS))
def test_only_the_tournaments_directors_reach_the_page_and_its_actions(event, who, action):
    ann = event.entries[0].player
    notices.subscribe(event.tournament, ann, ann.email, actor=event.director)
    sub = NoticeSubscription.objects.get()
    data = dict(ACTIONS[action])
    if "player" in data:
        data["player"] = str(event.entries[1].player_id)
    if "subscription" in data:
        data["subscription"] = str(sub.pk)
    client = _client(None if who == "anonymous" else getattr(event, who))
    events = AuditEvent.objects.count()
    response = client.post(NOTICES + action, data) if action else client.get(NOTICES)
    if who == "anonymous":
        assert response.status_code == 302 and "/login/" in response["Location"]
    else:
        assert response.status_code == 403
    body = response.content.decode()
    assert "able@players.test" not in body
    assert AuditEvent.objects.count() == events
    assert list(NoticeSubscription.objects.values_list("player", "active")) == [(ann.pk, True)]


def test_no_subscriber_address_on_any_public_page(event):
    for e in event.entries:
        notices.subscribe(event.tournament, e.player, e.player.email, actor=event.director)
    token = services.issue_token(event.entries[0], actor=event.director)
    pages = [
        "/",
        "/t/notice-open/",
        "/t/notice-open/a/standings/",
        "/t/notice-open/a/player/1/",
        "/t/notice-open/screen/",
        f"/e/{token}/",
    ]
    client = Client()
    for url in pages:
        response = client.get(url)
        assert response.status_code == 200, url
        html = response.content.decode()
        assert "@players.test" not in html, url


def test_the_announcement_shows_on_the_players_own_page(event):
    post_announcement(event.tournament, "Lunch until 13:30", actor=event.director)
    token = services.issue_token(event.entries[0], actor=event.director)
    html = Client().get(f"/e/{token}/").content.decode()
    assert "<strong>Announcement:</strong> Lunch until 13:30" in html
    for url in ("/t/notice-open/", "/t/notice-open/a/player/1/"):
        assert "Lunch until 13:30" in Client().get(url).content.decode(), url


def test_merging_players_keeps_their_subscriptions_and_log(event):
    """A near-duplicate merged into the registry's player brings its subscription along (or,
    where both had one for the event, its log of notices)."""
    from tournament.models import Notice

    ann = event.entries[0].player
    twin = Player.objects.create(name="Able, Ann (2)", email="ann2@players.test")
    notices.subscribe(event.tournament, ann, ann.email, actor=event.director)
    notices.subscribe(event.tournament, twin, twin.email, actor=event.director)
    other = services.create_tournament(name="Later Open", slug="later-open")
    notices.subscribe(other, twin, twin.email, actor="entry form")
    twin_sub = NoticeSubscription.objects.get(player=twin, tournament=event.tournament)
    Notice.objects.create(
        subscription=twin_sub, tournament=event.tournament, kind="entry", subject="s", body="b"
    )
    services.merge_players(ann, twin, actor="registry")
    assert sorted(
        NoticeSubscription.objects.filter(player=ann).values_list("tournament__slug", "email")
    ) == [("later-open", "ann2@players.test"), ("notice-open", "able@players.test")]
    assert Notice.objects.get().subscription.player_id == ann.pk


def test_the_console_home_links_the_notices_page_for_directors_only(event):
    link = 'href="/t/notice-open/console/notices/"'
    assert link in _client(event.director).get("/t/notice-open/console/").content.decode()
    assert link not in _client(event.scorekeeper).get("/t/notice-open/console/").content.decode()
