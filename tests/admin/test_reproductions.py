"""The issue's reproductions, through the admin as a staff director: each is now refused.

Each test first shows the refusal (status and message), then that no Game, Entry, Player or
AuditEvent row changed.
"""

from __future__ import annotations

import pytest
from django.urls import reverse

from ratings.models import RatedEvent, SubmissionRequest
from tournament import services
from tournament.models import AuditEvent, Entry, Game, Player, Round

from ..core.contact import entered_themselves
from .conftest import admin_form, snapshot

pytestmark = pytest.mark.django_db


def played_game(demo, division="A") -> Game:
    return (
        Game.objects.filter(
            round__division__tournament=demo,
            round__division__name=division,
            player2__isnull=False,
            score1__isnull=False,
        )
        .select_related("round", "player1", "player2")
        .order_by("round__number", "board", "id")
        .first()
    )


def game_form(game: Game, **changes) -> dict:
    data = {"score1": game.score1, "score2": game.score2, "reason": ""}
    data.update(changes)
    return {k: "" if v is None else v for k, v in data.items()}


def division_page(client, division):
    url = reverse("admin:tournament_division_change", args=[division.pk])
    page = client.get(url)
    assert page.status_code == 200
    return url, page


# 1. a played game's score set to -900 in a Round's inline ---------------------------------------


def test_round_inline_cannot_set_a_score_and_writes_no_audit_event(td_client, demo):
    game = played_game(demo)
    url = reverse("admin:tournament_round_change", args=[game.round_id])
    page = td_client.get(url)
    assert page.status_code == 200
    assert 'name="games-0-score1"' not in page.content.decode()  # shown, not editable
    before = snapshot()
    data = {
        "games-TOTAL_FORMS": "1",
        "games-INITIAL_FORMS": "1",
        "games-MIN_NUM_FORMS": "0",
        "games-MAX_NUM_FORMS": "1000",
        "games-0-id": str(game.pk),
        "games-0-round": str(game.round_id),
        "games-0-player1": str(game.player1_id),
        "games-0-player2": str(game.player2_id),
        "games-0-score1": "-900",
        "games-0-score2": str(game.score2),
        "games-0-first": "1",
    }
    assert td_client.post(url, data).status_code == 403
    assert snapshot() == before


def test_game_page_refuses_a_negative_score_in_a_played_game(td_client, demo):
    game = played_game(demo)
    before = snapshot()
    url = reverse("admin:tournament_game_change", args=[game.pk])
    response = td_client.post(url, game_form(game, score1=-900, reason="typo"))
    assert response.status_code == 200
    assert "outside 0..1500" in response.content.decode()
    assert snapshot() == before


# 2. a division-B entry typed into a division-A game ----------------------------------------------


def test_entry_of_another_division_cannot_be_put_into_a_game(client, td_client, demo):
    game = played_game(demo)
    b_entry = Entry.objects.filter(division__tournament=demo, division__name="B").first()
    before = snapshot()
    url = reverse("admin:tournament_game_change", args=[game.pk])
    response = td_client.post(url, game_form(game, player2=b_entry.pk, reason="wrong player"))
    assert response.status_code == 200  # who plays whom is not on the form: nothing to save
    assert "nothing to correct" in response.content.decode()
    assert (
        td_client.post(
            reverse("admin:tournament_round_change", args=[game.round_id]),
            {"games-0-id": game.pk, "games-0-player2": b_entry.pk},
        ).status_code
        == 403
    )
    assert snapshot() == before
    for path in (f"/t/{demo.slug}/a/standings/", f"/t/{demo.slug}/b/standings/"):
        assert client.get(path).status_code == 200


# 3. an Entry added as number 30 in a smaller division --------------------------------------------


def test_entry_cannot_be_added_by_hand(td_client, demo):
    division = demo.divisions.get(name="A")
    count = division.entries.count()
    player = Player.objects.create(name="Newcomer, Nia")
    before = snapshot()
    add = td_client.post(
        reverse("admin:tournament_entry_add"),
        {"division": division.pk, "player": player.pk, "number": count + 4, "seed_rating": 0},
    )
    assert add.status_code == 403
    url, page = division_page(td_client, division)
    data = admin_form(page)
    data.update(
        {
            "entries-TOTAL_FORMS": str(count + 1),
            f"entries-{count}-number": str(count + 4),
            f"entries-{count}-player": str(player.pk),
            f"entries-{count}-seed_rating": "0",
        }
    )
    assert td_client.post(url, data).status_code == 302
    assert snapshot() == before
    assert division.entries.count() == count


# 4. a correction needs no reason in the admin -----------------------------------------------------


def test_a_correction_needs_a_reason(td_client, demo):
    game = played_game(demo)
    url = reverse("admin:tournament_game_change", args=[game.pk])
    before = snapshot()
    response = td_client.post(url, game_form(game, score1=game.score1 + 10, reason="  "))
    assert response.status_code == 200
    assert "give the reason for the correction" in response.content.decode()
    assert snapshot() == before
    response = td_client.post(url, game_form(game, score1=game.score1 + 10, reason="misread"))
    assert response.status_code == 302
    game.refresh_from_db()
    event = AuditEvent.objects.get(action="correct_result")
    assert event.reason == "misread" and event.actor == "td" and event.tournament == demo
    assert event.after["score1"] == game.score1 and event.before["score1"] == game.score1 - 10


def test_a_bye_is_corrected_with_a_reason_too(td_client, demo):
    late = services.register_player(demo.divisions.get(name="A"), name="Late, Lou", actor="t")
    bye = Game.objects.filter(player1=late, player2__isnull=True).first()  # a late forfeit
    url = reverse("admin:tournament_game_change", args=[bye.pk])
    page = td_client.get(url).content.decode()
    assert 'name="score1"' in page and 'name="score2"' not in page
    before = snapshot()
    response = td_client.post(url, {"score1": 0})
    assert response.status_code == 200
    assert "give the reason for the correction" in response.content.decode()
    assert snapshot() == before
    assert td_client.post(url, {"score1": 0, "reason": "excused"}).status_code == 302
    bye.refresh_from_db()
    assert bye.score1 == 0
    assert AuditEvent.objects.get(action="correct_result").reason == "excused"


# 5. withdrawn_round set in the Entry inline without the forfeits ----------------------------------


def test_entry_inline_cannot_withdraw_a_player(td_client, demo):
    division = demo.divisions.get(name="A")
    url, page = division_page(td_client, division)
    before = snapshot()
    data = admin_form(page)
    data["entries-0-withdrawn_round"] = "2"
    assert td_client.post(url, data).status_code == 302
    entry = Entry.objects.get(pk=data["entries-0-id"])
    assert entry.withdrawn_round is None
    assert snapshot() == before  # no forfeits missing, no event for an unchanged division
    change = reverse("admin:tournament_entry_change", args=[entry.pk])
    assert td_client.get(change).status_code == 200  # may look
    assert td_client.post(change, {"withdrawn_round": 2}).status_code == 403
    assert snapshot() == before


# 6. a director of one tournament and another event's player ---------------------------------------


def test_other_events_director_cannot_rename_a_player(client, demo, other, td):
    client.force_login(td)
    zoe = Player.objects.get(name="Zed, Zoe")
    url = reverse("admin:tournament_player_change", args=[zoe.pk])
    before = snapshot()
    response = client.post(url, {"name": "Renamed, By Td", "email": "", "phone": ""})
    assert response.status_code == 403
    assert snapshot() == before
    assert "Zed, Zoe" in client.get(f"/t/{other.slug}/a/standings/").content.decode()


def test_director_sees_contact_details_only_of_own_players(client, demo, other, td):
    client.force_login(td)
    zoe = Player.objects.get(name="Zed, Zoe")
    page = client.get(reverse("admin:tournament_player_change", args=[zoe.pk]))
    assert page.status_code == 200
    body = page.content.decode()
    assert "zoe@example.org" not in body and "555 0100" not in body
    found = client.get(reverse("admin:tournament_player_changelist"), {"q": "zoe@example"})
    assert zoe not in found.context["cl"].queryset  # no searching by someone else's email
    mine = Entry.objects.filter(division__tournament=demo).select_related("player").first()
    Player.objects.filter(pk=mine.player_id).update(email="mine@example.org")
    own = client.get(reverse("admin:tournament_player_change", args=[mine.player_id]))
    assert "mine@example.org" not in own.content.decode()  # entered by hand: nothing shared
    mine.player.refresh_from_db()
    entered_themselves(mine)  # the player entered online from that address
    own = client.get(reverse("admin:tournament_player_change", args=[mine.player_id]))
    assert "mine@example.org" in own.content.decode()


def test_pointing_an_entry_at_another_events_player_and_submitting_is_refused(
    client, demo, other, td, rating_list
):
    client.force_login(td)
    zoe = Player.objects.get(name="Zed, Zoe")
    division = demo.divisions.get(name="A")
    entry = division.entries.first()
    before = snapshot()
    change = reverse("admin:tournament_entry_change", args=[entry.pk])
    assert client.post(change, {"player": zoe.pk, "number": entry.number}).status_code == 403
    url, page = division_page(client, division)
    data = admin_form(page)
    data["entries-0-player"] = str(zoe.pk)
    data["rating_list"] = str(rating_list.pk)
    assert client.post(url, data).status_code == 302
    assert Entry.objects.get(pk=entry.pk).player_id == entry.player_id
    response = client.post(
        reverse("admin:tournament_division_changelist"),
        {"action": "submit_to_rating_list", "_selected_action": [division.pk]},
        follow=True,
    )
    assert "Submission requested" in response.content.decode()
    assert not RatedEvent.objects.filter(rating_list=rating_list).exists()  # only asks
    assert SubmissionRequest.objects.get().status == "pending"
    after = snapshot()
    assert after["games"] == before["games"] and after["entries"] == before["entries"]
    assert after["players"] == before["players"]


def test_round_and_game_cannot_be_added_or_deleted_by_hand(td_client, demo):
    game = played_game(demo)
    before = snapshot()
    assert td_client.post(reverse("admin:tournament_game_add"), {}).status_code == 403
    assert td_client.post(reverse("admin:tournament_round_add"), {}).status_code == 403
    for name, pk in (("game", game.pk), ("round", game.round_id)):
        url = reverse(f"admin:tournament_{name}_delete", args=[pk])
        assert td_client.post(url, {"post": "yes"}).status_code == 403
    assert snapshot() == before
    assert Round.objects.filter(pk=game.round_id).exists()
