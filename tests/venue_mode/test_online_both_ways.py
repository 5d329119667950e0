"""Venue mode, online entries both ways (issue 23): what the venue's director later decides
about an online entrant (refuse, waiting list, promote, paid, remove) comes up with the push
and the hosted entrant's page tells the venue's truth; an entrant withdrawing on the hosted
copy is queued for the venue, which withdraws them through its own service.

One process and one database, as test_down_and_faults.py (whose helpers these are).
"""

from __future__ import annotations

import copy

import pytest

from pairings.services.store import PlannedGame, save_round_pairings
from tournament import services
from tournament.errors import ServiceError
from tournament.models import AuditEvent, Entry, OnlineEntry, VenueInbox, VenueLink
from tournament.services import online_entries as oe
from tournament.services import venue

from .test_down_and_faults import PUSH, entries_event, linked
from .test_link import auth

pytestmark = pytest.mark.django_db


def entered_online(client, monkeypatch, cap: int = 6):
    """Nora and Sam enter on the hosted copy; the venue settles them (cap 6: Nora takes the
    last place with Dan entered at the venue, Sam waits)."""
    hosted = entries_event(cap=cap)
    link = linked(client, hosted)
    link.wire(monkeypatch)
    local_a = link.local.divisions.get()
    services.register_player(local_a, name="Dup, Dan", rating=1400, actor="venue-td")
    hosted_a = hosted.divisions.get()
    tokens = {}
    for name in ("New, Nora", "Second, Sam"):
        sub = oe.submit_entry(hosted_a, name=name, email="x@example.org")
        oe.confirm_entry(sub.confirm_token)
        tokens[name] = sub.link_token
    link.push()
    return hosted, link, local_a, tokens


def at_venue(link, name: str) -> OnlineEntry:
    return OnlineEntry.objects.get(tournament=link.local, player__name=name)


def on_copy(hosted, name: str) -> OnlineEntry:
    return OnlineEntry.objects.get(tournament=hosted, player__name=name)


def page(client, token: str) -> str:
    """The entrant's page from its status line on (the part that tells them where they are)."""
    text = client.get(f"/entry/{token}/").content.decode()
    return text[text.index('id="entry-status"') :]


def test_a_refusal_at_the_venue_reaches_the_hosted_entrant_page(client, monkeypatch):
    hosted, link, local_a, tokens = entered_online(client, monkeypatch)
    assert "as <strong>#6</strong>" in page(client, tokens["New, Nora"])
    # the venue's director refuses Nora: her place goes to Sam, first on the venue's list
    oe.refuse_entry(at_venue(link, "New, Nora"), "no fee paid", actor="venue-td")
    assert at_venue(link, "Second, Sam").status == "entered"
    link.push()
    nora = on_copy(hosted, "New, Nora")
    assert (nora.status, nora.note, nora.entry) == ("refused", "no fee paid", None)
    text = page(client, tokens["New, Nora"])
    assert "Refused at the venue: no fee paid" in text
    assert "entered at the venue" not in text and "#6" not in text
    sam = on_copy(hosted, "Second, Sam")
    assert sam.status == "entered" and sam.entry.number == 6 and sam.promoted_at
    assert "as <strong>#6</strong>" in page(client, tokens["Second, Sam"])


def test_paid_waiting_place_and_removal_come_up_with_the_push(client, monkeypatch):
    hosted, link, local_a, tokens = entered_online(client, monkeypatch)
    oe.mark_paid(at_venue(link, "Second, Sam"), True, actor="venue-td")
    # Nora goes back to the head of the list: Sam is number 2 at the venue now
    oe.demote_entry(at_venue(link, "New, Nora"), actor="venue-td")
    link.push()
    nora, sam = on_copy(hosted, "New, Nora"), on_copy(hosted, "Second, Sam")
    assert (nora.status, nora.entry, oe.waiting_position(nora)) == ("waiting", None, 1)
    assert (sam.status, sam.paid, oe.waiting_position(sam)) == ("waiting", True, 2)
    assert "waiting list at the venue, number 2" in page(client, tokens["Second, Sam"])
    # promoted past the cap, then the entry itself removed by the console's remove
    oe.promote_entry(at_venue(link, "Second, Sam"), actor="venue-td")
    link.push()
    assert on_copy(hosted, "Second, Sam").entry.number == 6
    services.remove_entry(Entry.objects.get(division=local_a, number=6), actor="venue-td")
    link.push()
    sam = on_copy(hosted, "Second, Sam")
    assert (sam.status, sam.entry) == ("withdrawn", None)
    assert "Withdrawn at the venue: removed by a director" in page(client, tokens["Second, Sam"])


def test_a_resent_batch_doubles_nothing_and_the_venues_state_wins(client, monkeypatch):
    hosted, link, local_a, tokens = entered_online(client, monkeypatch)
    oe.refuse_entry(at_venue(link, "New, Nora"), "late", actor="venue-td")
    batch = venue.next_batch(link.take.__class__.objects.get(pk=link.take.pk))
    rows = batch["state"]["online_entries"]
    assert {r["status"] for r in rows} == {"refused", "entered"}
    assert all(isinstance(r["player"], int) for r in rows)  # keyed by the hosted player
    link.push()
    # someone on the hosted side edits the copy's record: the venue's next push puts it back
    OnlineEntry.objects.filter(pk=on_copy(hosted, "New, Nora").pk).update(status="entered")
    venue._apply_online(hosted, rows)
    venue._apply_online(hosted, rows)  # twice: the same, nothing added
    assert OnlineEntry.objects.filter(tournament=hosted).count() == 2
    assert on_copy(hosted, "New, Nora").status == "refused"
    # the batch sent again through the door: answered as applied, nothing written
    again = copy.deepcopy(batch)
    again["tournament"] = again["state"]["tournament"] = hosted.slug
    events = AuditEvent.objects.count()
    answer = client.post(PUSH, again, content_type="application/json", **auth(link.token))
    assert answer.status_code == 200 and answer.json()["applied"] is False
    assert AuditEvent.objects.count() == events


@pytest.mark.parametrize(
    "rows, says",
    [
        ("nope", "online_entries: a list"),
        ([{"player": "x", "status": "entered"}], "names the hosted site's player"),
        ([{"player": 1, "status": "gone", "division": "a"}], "status 'gone'"),
        ([{"player": 1, "status": "entered", "division": "zz"}], "no division 'zz'"),
    ],
)
def test_a_bad_online_entrants_list_is_refused_and_changes_nothing(client, rows, says):
    hosted = entries_event()
    link_row, token = venue.create_link("test", hosted, "Hall B")
    client.get("/api/v1/venue/state/", **auth(token))
    state = venue.tournament_state(hosted, {}, {})
    state["online_entries"] = rows
    batch = {"tournament": hosted.slug, "after": 0, "upto": 1, "state": state}
    answer = client.post(PUSH, batch, content_type="application/json", **auth(token))
    assert answer.status_code == 400
    error = answer.json()["errors"][0]
    assert error["code"] == "venue_bad_change" and says in error["message"]
    assert VenueLink.objects.get(pk=link_row.pk).last_seq_applied == 0


def test_a_hosted_withdrawal_is_queued_and_the_venue_withdraws_them(client, monkeypatch):
    hosted, link, local_a, tokens = entered_online(client, monkeypatch)
    nora = tokens["New, Nora"]
    answer = client.post(f"/entry/{nora}/withdraw/", {"sure": "yes"}, follow=True)
    assert answer.status_code == 200
    client.post(f"/entry/{nora}/withdraw/", {"sure": "yes"})  # a second tap: still one
    assert VenueInbox.objects.filter(kind="withdraw").count() == 1
    assert on_copy(hosted, "New, Nora").status == "entered"  # the copy withdrew no one
    text = page(client, nora)
    assert "Withdrawal sent to the venue" in text and 'id="withdraw-button"' not in text
    assert "your withdrawal: waiting for the venue" in text
    assert AuditEvent.objects.filter(tournament=hosted, action="venue_queue").count() == 3
    link.push()
    # at the venue: withdrawn through its service, Sam promoted into the freed place
    assert at_venue(link, "New, Nora").status == "withdrawn"
    assert at_venue(link, "Second, Sam").entry.number == 6
    assert AuditEvent.objects.filter(tournament=link.local, action="withdraw_online_entry").exists()
    text = page(client, nora)
    assert "Withdrawn at the venue" in text and "your withdrawal: withdrawn at the venue" in text
    assert on_copy(hosted, "Second, Sam").entry.number == 6


def test_a_hosted_withdrawal_after_round_one_is_paired_at_the_venue_is_refused(client, monkeypatch):
    hosted, link, local_a, tokens = entered_online(client, monkeypatch)
    games = [PlannedGame(2 * k + 1, 2 * k + 2, board=k + 1) for k in range(3)]
    save_round_pairings(local_a, 1, games, system="manual", actor="venue-td")
    # the copy has not heard yet: its page still offers the withdrawal
    client.post(f"/entry/{tokens['New, Nora']}/withdraw/", {"sure": "yes"})
    link.push()
    item = VenueInbox.objects.get(kind="withdraw")
    assert item.status == "refused" and "already paired" in item.outcome
    assert at_venue(link, "New, Nora").status == "entered"
    text = page(client, tokens["New, Nora"])
    assert "your withdrawal: refused at the venue: round 1 of division A is already" in text
    assert "as <strong>#6</strong>" in text


def test_an_unconfirmed_entry_on_the_copy_is_withdrawn_there(client, monkeypatch):
    hosted = entries_event()
    linked(client, hosted)
    sub = oe.submit_entry(hosted.divisions.get(), name="Slow, Sue", email="s@example.org")
    oe.withdraw_entry(sub.link_token)
    assert on_copy(hosted, "Slow, Sue").status == "withdrawn"
    assert not VenueInbox.objects.filter(kind="withdraw").exists()


def test_a_withdrawn_entry_cannot_be_withdrawn_again_on_the_copy(client, monkeypatch):
    hosted, link, local_a, tokens = entered_online(client, monkeypatch)
    oe.refuse_entry(at_venue(link, "New, Nora"), "", actor="venue-td")
    link.push()
    with pytest.raises(ServiceError) as refused:
        oe.withdraw_entry(tokens["New, Nora"])
    assert refused.value.code == "entries_state"
    assert not VenueInbox.objects.filter(kind="withdraw").exists()


def test_a_player_withdrawn_mid_event_at_the_venue_is_told_so_on_the_hosted_page(
    client, monkeypatch
):
    hosted, link, local_a, tokens = entered_online(client, monkeypatch)
    games = [PlannedGame(2 * k + 1, 2 * k + 2, board=k + 1) for k in range(3)]
    save_round_pairings(local_a, 1, games, system="manual", actor="venue-td")
    entry = at_venue(link, "New, Nora").entry
    services.withdraw_player(entry, from_round=2, actor="venue-td")
    link.push()
    nora = on_copy(hosted, "New, Nora")
    assert nora.entry.number == 6 and nora.note == "withdrawn at the venue from round 2 on"
    assert "withdrawn at the venue from round 2 on" in page(client, tokens["New, Nora"])


def test_a_move_to_another_division_at_the_venue_comes_up(client, monkeypatch):
    hosted, link, local_a, tokens = entered_online(client, monkeypatch)
    services.create_division(link.local, name="B", rounds=3)
    local_b = link.local.divisions.get(slug="b")
    oe.move_online_entry(at_venue(link, "New, Nora"), local_b, actor="venue-td")
    link.push()
    nora = on_copy(hosted, "New, Nora")
    assert (nora.division.slug, nora.status, nora.entry.number) == ("b", "entered", 1)
    assert "Entered in division B as <strong>#1</strong>" in page(client, tokens["New, Nora"])


def test_taking_the_tournament_back_drops_the_venues_waiting_places(client, monkeypatch):
    hosted, link, local_a, tokens = entered_online(client, monkeypatch)
    oe.demote_entry(at_venue(link, "New, Nora"), actor="venue-td")
    link.push()
    assert on_copy(hosted, "Second, Sam").venue_position == 2
    venue.reclaim("test", hosted)
    sam = on_copy(hosted, "Second, Sam")
    assert sam.venue_position is None and oe.waiting_position(sam) in (1, 2)
    text = page(client, tokens["Second, Sam"])
    assert "waiting list at the venue" not in text and "waiting list: number" in text
