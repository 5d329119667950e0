"""Venue mode in one process (issue 23): what only the hosted copy receives (online entries,
check-ins) is queued there, pulled by the venue and settled by its own rules, and the player
sees the answer; when the two sides disagree after a restore from a backup, the venue's state
replaces the hosted copy's and the copy says so.

Both sides share this test's database: the hosted tournament, and the venue's copy of it
under another slug (``venue-...``); a batch or an inbox call goes through the hosted site's
real door (the test client) with the slug put back.
"""

from __future__ import annotations

import copy
import datetime as dt

import pytest
from django.utils import timezone

from tests.core.conftest import make_director
from tournament import services
from tournament.errors import ServiceError
from tournament.models import (
    AuditEvent,
    Entry,
    Game,
    OnlineEntry,
    Player,
    Tournament,
    VenueChange,
    VenueInbox,
    VenueLink,
    VenueTake,
)
from tournament.services import online_entries as oe
from tournament.services import venue
from tournament.sync import client as sync_client
from tournament.sync.push import push

from .test_link import STATE, auth, event

pytestmark = pytest.mark.django_db

PUSH = "/api/v1/venue/push/"
INBOX = "/api/v1/venue/inbox/"
COPY = "/api/v1/venue/copy/"


class Link:
    """The hosted tournament, its token, and the venue's copy of it, wired to the hosted door."""

    def __init__(self, client, hosted: Tournament, token: str) -> None:
        self.client, self.hosted, self.token = client, hosted, token
        answer = client.get(STATE, **auth(token))
        assert answer.status_code == 200, answer.content
        state = copy.deepcopy(answer.json())
        state["tournament"] = "venue-" + hosted.slug
        self.local = venue.take_tournament(state, "http://hosted.example", token, "test")
        self.take = VenueTake.objects.get(tournament=self.local)
        self.wired = False

    def send(self, url: str, token: str, batch: dict) -> dict:
        """The venue's batch, through the hosted site's push door (its slug put back)."""
        batch = copy.deepcopy(batch)
        batch["tournament"] = batch["state"]["tournament"] = self.hosted.slug
        answer = self.client.post(PUSH, batch, content_type="application/json", **auth(token))
        if answer.status_code != 200:
            error = answer.json()["errors"][0]
            raise ServiceError(
                "venue_refused",
                url=url,
                detail=error["message"],
                remote=error["code"],
                remote_params=error.get("params") or {},
            )
        return answer.json()

    def push(self) -> dict:
        return push(VenueTake.objects.get(pk=self.take.pk), send=self.send, pull=self.wired)

    def wire(self, monkeypatch) -> None:
        """The venue's inbox calls, through the hosted site's door."""
        c = self.client

        def fetch(url, token):
            return c.get(INBOX, **auth(token)).json()

        def settle(url, token, answers):
            return c.post(INBOX, answers, content_type="application/json", **auth(token)).json()

        def copied(url, token):  # the hosted copy's state, named as the venue's copy
            state = c.get(COPY, **auth(token)).json()
            state["tournament"] = self.local.slug
            return state

        monkeypatch.setattr(sync_client, "fetch_inbox", fetch)
        monkeypatch.setattr(sync_client, "settle_inbox", settle)
        monkeypatch.setattr(sync_client, "fetch_copy", copied)
        self.wired = True


def entries_event(cap: int = 5) -> Tournament:
    """A published event taking entries online, not paired yet: four players in A."""
    t = services.create_tournament(name="Entries Venue Open")
    d = services.create_division(t, name="A", rounds=3)
    for n in range(1, 5):
        services.register_player(d, name=f"Player{n}, Test", rating=1500 + n)
    services.publish_tournament(t, True, actor="test")
    now = timezone.now()
    oe.open_entries(t, now - dt.timedelta(days=1), now + dt.timedelta(days=7), actor="test")
    oe.set_division_rule(d, cap=cap, actor="test")
    return t


def linked(client, hosted: Tournament) -> Link:
    _link, token = venue.create_link("test", hosted, "Hall B")
    return Link(client, hosted, token)


def test_online_entries_on_the_copy_are_settled_by_the_venues_rules(client, monkeypatch):
    hosted = entries_event(cap=6)
    link = linked(client, hosted)
    link.wire(monkeypatch)
    local_a = link.local.divisions.get()
    # the venue took the entry rule and window with the tournament
    assert local_a.entry_rule.cap == 6 and link.local.entry_window is not None
    # at the venue the director enters Dan by hand meanwhile
    services.register_player(local_a, name="Dup, Dan", rating=1400, actor="venue-td")
    hosted_a = hosted.divisions.get()
    nora = oe.submit_entry(hosted_a, name="New, Nora", email="nora@example.org")
    oe.confirm_entry(nora.confirm_token)
    sam = oe.submit_entry(hosted_a, name="Second, Sam", email="sam@example.org")
    oe.confirm_entry(sam.confirm_token)
    # Dan is in the registry (the venue's hand entry made him): his entry counts once he
    # confirms it at the address the registry holds for him (issue 31)
    Player.objects.filter(name="Dup, Dan").update(email="dan@example.org")
    dan = oe.submit_entry(hosted_a, name="Dup, Dan", email="dan@example.org")
    assert dan.online.status == "pending" and dan.awaits == "player"
    dan_page = oe.confirm_entry_link(dan.confirm_token).link_token  # his own page now
    sent = OnlineEntry.objects.filter(tournament=hosted)
    assert set(sent.values_list("status", flat=True)) == {"sent"}
    assert Entry.objects.filter(division=hosted_a).count() == 4  # the copy entered nobody
    page = client.get(f"/entry/{nora.link_token}/").content.decode()
    assert "Sent to the venue" in page and "waiting for the venue" in page

    result = link.push()
    assert result["reports_pulled"] == 3
    # the venue's own rules: Nora takes the last place (cap 6 with Dan), Sam waits, Dan is in
    local_names = set(Entry.objects.filter(division=local_a).values_list("player__name", flat=True))
    assert "New, Nora" in local_names and "Second, Sam" not in local_names
    statuses = dict(sent.values_list("player__name", "status"))
    assert statuses == {"New, Nora": "entered", "Second, Sam": "waiting", "Dup, Dan": "refused"}
    refused = client.get(f"/entry/{dan_page}/").content.decode()
    assert "refused at the venue: " in refused and "already" in refused
    waiting = client.get(f"/entry/{sam.link_token}/").content.decode()
    assert "waiting list at the venue, number 1" in waiting
    # the entries made at the venue came up with the push; Nora's page names her number
    hosted_names = list(
        Entry.objects.filter(division=hosted_a).order_by("number").values_list("player__name")
    )
    assert hosted_names[-2:] == [("Dup, Dan",), ("New, Nora",)]
    mine = OnlineEntry.objects.get(tournament=hosted, player__name="New, Nora")
    assert mine.entry is not None and mine.entry.number == 6
    assert "as <strong>#6</strong>" in client.get(f"/entry/{nora.link_token}/").content.decode()
    # pulled twice (the answers were lost): nothing is entered twice
    assert VenueInbox.objects.filter(status="queued").count() == 0
    assert Entry.objects.filter(division=local_a, player__name="New, Nora").count() == 1


def test_check_ins_on_the_copy_are_set_at_the_venue_unless_it_removed_the_player(
    client, monkeypatch
):
    hosted = entries_event()
    link = linked(client, hosted)
    link.wire(monkeypatch)
    hosted_a, local_a = hosted.divisions.get(), link.local.divisions.get()
    one, two = (Entry.objects.get(division=hosted_a, number=n) for n in (1, 2))
    for entry, secret in ((one, "c" * 40), (two, "d" * 40)):
        entry.entry_token = secret
        entry.save(update_fields=["entry_token"])
    answer = client.post("/e/" + "c" * 40 + "/check-in/", follow=True)
    assert "sent to the venue" in answer.content.decode()
    client.post("/e/" + "c" * 40 + "/check-in/")  # a second tap: still one in the queue
    client.post("/e/" + "d" * 40 + "/check-in/")
    assert VenueInbox.objects.filter(kind="check_in").count() == 2
    one.refresh_from_db()
    assert one.checked_in_at is None  # the copy checked nobody in
    asked = VenueInbox.objects.get(entry=two).pk
    # the venue's director removed player 2 meanwhile
    services.remove_entry(Entry.objects.get(division=local_a, number=2), actor="venue-td")
    link.push()
    assert Entry.objects.get(division=local_a, player__name="Player1, Test").checked_in_at
    page = client.get("/e/" + "c" * 40 + "/").content.decode()
    assert "your check-in: checked in at the venue" in page
    gone = VenueInbox.objects.get(pk=asked)
    assert gone.status == "refused" and "no longer entered at the venue" in gone.outcome
    # the venue's state came up with the push: 1 checked in, 2 removed (the venue's wins)
    names = dict(
        Entry.objects.filter(division=hosted_a).values_list("player__name", "checked_in_at")
    )
    assert "Player2, Test" not in names and names["Player1, Test"] is not None


def test_a_director_on_the_copy_still_cannot_check_players_in(client):
    hosted = entries_event()
    linked(client, hosted)
    entry = Entry.objects.get(division__tournament=hosted, number=1)
    with pytest.raises(ServiceError) as refused:
        services.checkin.check_in(entry, actor="hosted-td")
    assert refused.value.code == "venue_holds_authority"
    assert not VenueInbox.objects.exists()


def scores(division, number):
    game = Game.objects.get(round__division=division, round__number=1, player1__number=number)
    return game.score1, game.score2


def test_a_hosted_copy_restored_from_an_older_backup_is_replaced_by_the_venues_state(client):
    hosted, hosted_a = event("Restored Hosted Open")
    link = linked(client, hosted)
    local_a = link.local.divisions.get()
    for k in (1, 3):
        services.record_result(local_a, 1, k, 400, 300 + k, actor="venue-td")
    link.push()
    assert scores(hosted_a, 3) == (400, 303)
    # the hosted site is restored from a backup holding change 1 only, and another score
    VenueLink.objects.filter(pk=VenueLink.objects.get(tournament=hosted).pk).update(
        last_seq_applied=1
    )
    Game.objects.filter(round__division=hosted_a, player1__number=3).update(
        score1=None, score2=None
    )
    Game.objects.filter(round__division=hosted_a, player1__number=1).update(score1=999, score2=1)
    services.update_division(local_a, actor="venue-td", prize_places=3)  # change 3
    result = link.push()
    assert result["last_seq"] == 4  # the gap, then the whole state as a rebase
    assert scores(hosted_a, 1) == (400, 301) and scores(hosted_a, 3) == (400, 303)
    event_ = AuditEvent.objects.get(tournament=hosted, action="venue_rebase")
    assert "replaced this copy" in event_.summary
    page = client.get(f"/t/{hosted.slug}/").content.decode()
    assert 'id="venue-rebased"' in page and "Run from the venue <strong>Hall B" in page
    assert "#4 at" in page
    # and the hosted director's Venue mode page
    client.force_login(make_director(hosted, "hosted-td"))
    console = client.get(f"/t/{hosted.slug}/console/venue-mode/").content.decode()
    assert 'id="venue-rebased"' in console and "restored from a backup" in console


def test_a_venue_restored_from_an_older_backup_asks_and_shows_what_would_go(client, monkeypatch):
    hosted, hosted_a = event("Restored Venue Open")
    link = linked(client, hosted)
    link.wire(monkeypatch)
    local_a = link.local.divisions.get()
    for k in (1, 3):
        services.record_result(local_a, 1, k, 400, 300 + k, actor="venue-td")
    link.push()
    # the laptop is restored from a backup made after change 1: game 3 was never scored there
    VenueChange.objects.filter(tournament=link.local, seq=2).delete()
    VenueTake.objects.filter(pk=link.take.pk).update(next_seq=2, last_pushed_seq=1)
    Game.objects.filter(round__division=local_a, player1__number=3).update(score1=None, score2=None)
    services.update_division(local_a, actor="venue-td", prize_places=2)  # change 2 again
    # issue 39: the venue's older state no longer wipes what the copy holds without a word
    with pytest.raises(ServiceError) as asked:
        link.push()
    assert asked.value.code == "venue_hosted_ahead"
    assert "restored from an older backup" in asked.value.message
    assert scores(hosted_a, 3) == (400, 303)  # nothing went
    take = VenueTake.objects.get(pk=link.take.pk)
    gone = take.diverged["hosted_only"]
    assert len(gone) == 1 and "round 1: 1 results (#3 " in gone[0] and "400-303" in gone[0]
    # the console's Venue mode page shows both sides and the two choices
    client.force_login(make_director(link.local, "venue-td"))
    page = client.get(f"/t/{link.local.slug}/console/venue-mode/").content.decode()
    assert 'id="venue-diverged"' in page and "400-303" in page
    # and the next push asks again, sending nothing
    with pytest.raises(ServiceError):
        link.push()
    assert AuditEvent.objects.filter(tournament=hosted, action="venue_rebase").count() == 0
    # the director keeps the venue's state: it replaces the copy's, audited on both sides
    kept = client.post(f"/t/{link.local.slug}/console/venue-mode/", {"action": "keep_venue"})
    assert "The hosted copy lost: division A, round 1: 1 results" in kept.content.decode()
    link.push()  # (the page pushes at once too, to the real hosted site: not this test's door)
    assert scores(hosted_a, 3) == (None, None) and scores(hosted_a, 1) == (400, 301)
    assert AuditEvent.objects.filter(tournament=hosted, action="venue_rebase").count() == 1
    kept = AuditEvent.objects.get(tournament=link.local, action="venue_resolve")
    assert "the hosted copy loses: division A, round 1: 1 results" in kept.summary
    take = VenueTake.objects.get(pk=link.take.pk)
    assert take.last_pushed_seq == take.next_seq - 1 and not take.diverged
    link.push()  # and the next push is plain again
    assert AuditEvent.objects.filter(tournament=hosted, action="venue_rebase").count() == 1


def test_a_restored_venue_can_bring_the_hosted_copys_newer_state_down(client, monkeypatch):
    hosted, hosted_a = event("Bring Down Open")
    link = linked(client, hosted)
    link.wire(monkeypatch)
    local_a = link.local.divisions.get()
    for k in (1, 3):
        services.record_result(local_a, 1, k, 400, 300 + k, actor="venue-td")
    link.push()
    # restored from a backup made after change 1, and one result entered since
    VenueChange.objects.filter(tournament=link.local, seq=2).delete()
    VenueTake.objects.filter(pk=link.take.pk).update(next_seq=2, last_pushed_seq=1)
    Game.objects.filter(round__division=local_a, player1__number=3).update(score1=None, score2=None)
    services.update_division(local_a, actor="venue-td", prize_places=2)
    with pytest.raises(ServiceError):
        link.push()
    take = VenueTake.objects.get(pk=link.take.pk)
    assert take.diverged["venue_only"] == []  # the laptop holds nothing the copy lacks
    from tournament.sync.push import resolve

    lost = resolve(take, "hosted", actor="venue-td")
    assert lost == []
    assert scores(local_a, 3) == (400, 303)  # the copy's newer result came down
    take = VenueTake.objects.get(pk=link.take.pk)
    assert not take.diverged and take.last_pushed_seq == take.next_seq - 1 == 2
    # the laptop carries on from there: its next change goes up as a plain batch
    services.update_division(local_a, actor="venue-td", prize_places=4)
    link.push()
    hosted_a.refresh_from_db()
    assert hosted_a.prize_places == 4 and scores(hosted_a, 3) == (400, 303)
    assert not AuditEvent.objects.filter(tournament=hosted, action="venue_rebase").exists()


def test_a_rebase_must_carry_the_whole_tournament(client):
    hosted, _a = event("Half Rebase Open")
    link = linked(client, hosted)
    services.record_result(link.local.divisions.get(), 1, 1, 400, 300, actor="venue-td")
    batch = venue.next_batch(VenueTake.objects.get(pk=link.take.pk))
    batch["rebase"] = True
    with pytest.raises(ServiceError) as refused:
        link.send("http://hosted.example", link.token, batch)
    assert refused.value.params["remote"] == "venue_bad_change"
    assert not Player.objects.filter(name="").exists()
    assert VenueLink.objects.get(tournament=hosted).last_seq_applied == 0


def test_a_waiting_list_goes_to_the_venue_in_order_and_its_promotions_come_back(
    client, monkeypatch
):
    hosted = entries_event(cap=4)  # full: entrants wait
    hosted_a = hosted.divisions.get()
    firsts = []
    for name in ("Wait, Wanda", "Wait, Walt"):
        done = oe.submit_entry(hosted_a, name=name, email="w@example.org")
        oe.confirm_entry(done.confirm_token)
        firsts.append(done)
    assert set(OnlineEntry.objects.values_list("status", flat=True)) == {"waiting"}
    link = linked(client, hosted)  # the take sends the waiting list down, in its order
    link.wire(monkeypatch)
    assert set(OnlineEntry.objects.values_list("status", flat=True)) == {"sent"}
    link.push()
    local_a = link.local.divisions.get()
    at_venue = OnlineEntry.objects.filter(tournament=link.local).order_by("waiting_since", "pk")
    assert [(o.player.name, o.status) for o in at_venue] == [
        ("Wait, Wanda", "waiting"),
        ("Wait, Walt", "waiting"),
    ]
    page = client.get(f"/entry/{firsts[1].link_token}/").content.decode()
    assert "waiting list at the venue, number 2" in page
    # the venue's director raises the cap by one: Wanda moves in there, and here after the push
    oe.set_division_rule(local_a, cap=5, actor="venue-td")
    link.push()
    wanda = OnlineEntry.objects.get(tournament=hosted, player__name="Wait, Wanda")
    assert wanda.status == "entered" and wanda.entry.number == 5 and wanda.promoted_at
    walt = OnlineEntry.objects.get(tournament=hosted, player__name="Wait, Walt")
    assert walt.status == "waiting" and walt.entry is None


def test_the_public_entry_form_on_the_copy_sends_the_entry_to_the_venue(client):
    from django.contrib.auth import get_user_model

    hosted = entries_event()
    linked(client, hosted)
    client.force_login(get_user_model().objects.create_user("bo", "bo@example.org", None))
    answer = client.post(f"/t/{hosted.slug}/entries/", {"division": "a", "name": "Brook, Ben"})
    assert answer.status_code == 302 and answer["Location"].startswith("/entry/")
    page = client.get(answer["Location"]).content.decode()
    assert "sent to the venue, which runs the event" in page
    assert "your online entry: waiting for the venue" in page
    assert not Entry.objects.filter(player__name="Brook, Ben").exists()
    # and a second entry for the same player waits for nothing: it is refused here already
    again = client.post(f"/t/{hosted.slug}/entries/", {"division": "a", "name": "Brook, Ben"})
    assert again.status_code == 400 and "Brook, Ben" in again.content.decode()
    assert VenueInbox.objects.filter(kind="entry").count() == 1


def test_an_interrupted_push_does_not_make_the_copy_claim_a_restore(client):
    hosted, hosted_a = event("Interrupted Open")
    link = linked(client, hosted)
    local_a = link.local.divisions.get()
    services.record_result(local_a, 1, 1, 400, 301, actor="venue-td")
    real = link.send

    def lost_answer(url, token, batch):  # applied on the hosted site, the answer lost
        real(url, token, batch)
        raise ServiceError("venue_unreachable", url=url, detail="connection reset")

    with pytest.raises(ServiceError):
        push(VenueTake.objects.get(pk=link.take.pk), send=lost_answer, pull=False)
    services.record_result(local_a, 1, 3, 400, 303, actor="venue-td")
    link.push()
    assert scores(hosted_a, 1) == (400, 301) and scores(hosted_a, 3) == (400, 303)
    # the copy holds the laptop's own changes: no rebase, and its page claims no restore
    assert not AuditEvent.objects.filter(tournament=hosted, action="venue_rebase").exists()
    assert 'id="venue-rebased"' not in client.get(f"/t/{hosted.slug}/").content.decode()
    take = VenueTake.objects.get(pk=link.take.pk)
    assert take.last_pushed_seq == take.next_seq - 1 == 2


def test_the_copy_says_when_the_venue_has_been_silent_for_minutes(client, monkeypatch):
    hosted, _a = event("Silent Open")
    link = linked(client, hosted)
    link.wire(monkeypatch)
    link.push()
    client.force_login(make_director(hosted, "hosted-td"))
    url = f"/t/{hosted.slug}/console/venue-mode/"
    assert 'id="venue-silent"' not in client.get(url).content.decode()
    VenueLink.objects.filter(tournament=hosted).update(
        last_contact=timezone.now() - dt.timedelta(minutes=12)
    )
    console = client.get(url).content.decode()
    assert "The venue has been silent for 12 minutes" in console
    link.push()  # an empty push is a word from the venue
    assert 'id="venue-silent"' not in client.get(url).content.decode()


def test_a_link_that_accepts_but_never_answers_fails_in_seconds(client, settings):
    import socket
    import threading
    import time

    settings.VENUE_TIMEOUT = 1
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(5)
    held = []

    def accept():  # takes every connection and never answers
        while True:
            try:
                held.append(listener.accept()[0])
            except OSError:
                return

    threading.Thread(target=accept, daemon=True).start()
    hosted, _a = event("Mute Link Open")
    link = linked(client, hosted)
    take = VenueTake.objects.get(pk=link.take.pk)
    VenueTake.objects.filter(pk=take.pk).update(
        hosted_url=f"http://127.0.0.1:{listener.getsockname()[1]}"
    )
    started = time.monotonic()
    try:
        with pytest.raises(ServiceError) as failed:
            push(VenueTake.objects.get(pk=take.pk))
    finally:
        listener.close()
        for conn in held:
            conn.close()
    assert failed.value.code == "venue_unreachable" and "timed out" in failed.value.message
    assert time.monotonic() - started < 5
    assert "cannot be reached" in VenueTake.objects.get(pk=take.pk).last_error


def test_a_revoked_link_stops_the_laptop_and_lets_it_take_a_new_one(client):
    hosted, hosted_a = event("Revoked Open")
    link = linked(client, hosted)
    local_a = link.local.divisions.get()
    services.record_result(local_a, 1, 1, 400, 301, actor="venue-td")
    link.push()
    services.record_result(local_a, 1, 3, 400, 303, actor="venue-td")
    venue.reclaim("hosted-td", hosted)  # the hosted director takes it back
    with pytest.raises(ServiceError) as refused:
        link.push()
    assert "revoked" in refused.value.message
    # the laptop accepts no more results that could never go up, and says what did not
    take = VenueTake.objects.get(pk=link.take.pk)
    assert take.released is not None
    assert "1 made here never reached it" in take.notice
    with pytest.raises(ServiceError) as closed:
        services.update_division(local_a, actor="venue-td", prize_places=5)
    assert closed.value.code == "venue_released"
    # a new link: the laptop takes the event again; its old copy is kept under another address
    _link, token = venue.create_link("hosted-td", hosted, "Hall B")
    again = Link(client, hosted, token)
    assert again.local.slug == link.local.slug and again.local.pk != link.local.pk
    kept = Tournament.objects.get(pk=link.local.pk)
    assert kept.slug.startswith(f"{link.local.slug}-until-") and "copy until" in kept.name
    assert scores(again.local.divisions.get(), 1) == (400, 301)


def test_a_laptop_clock_far_off_the_hosted_sites_is_warned_about(client, monkeypatch):
    hosted, _a = event("Clock Open")
    link = linked(client, hosted)
    link.wire(monkeypatch)
    link.push()
    assert VenueTake.objects.get(pk=link.take.pk).notice == ""
    real = sync_client.fetch_inbox

    def late_laptop(url, token):  # the hosted site's clock reads 20 minutes later
        answer = real(url, token)
        answer["position"]["now"] = (timezone.now() + dt.timedelta(minutes=20)).isoformat()
        return answer

    monkeypatch.setattr(sync_client, "fetch_inbox", late_laptop)
    link.push()
    notice = VenueTake.objects.get(pk=link.take.pk).notice
    assert "clock is 20 minutes behind the hosted site's" in notice
    client.force_login(make_director(link.local, "venue-td"))
    page = client.get(f"/t/{link.local.slug}/console/venue-mode/").content.decode()
    assert "Set this laptop&#x27;s date and time" in page
    monkeypatch.setattr(sync_client, "fetch_inbox", real)  # the clock set right
    link.push()
    assert VenueTake.objects.get(pk=link.take.pk).notice == ""
