"""Issue 17 item 8: "Start the night" tapped twice makes one night; a night nobody played at
can be deleted by its organisers (audited), never one with a game played; the night's pages
link back to their club."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tournament.clubs import services as club_services
from tournament.clubs.models import Night
from tournament.errors import ServiceError
from tournament.models import AuditEvent, Game, Tournament

from . import test_nights as nights
from .test_nights import HTMX, _client, _counts, _new_night_post, _night, _url

# the night pages' fixtures, shared rather than copied
club, org, other_org = nights.club, nights.org, nights.other_org

pytestmark = pytest.mark.django_db


def test_a_double_submit_of_start_the_night_makes_one_night(club, org):
    client = _client(org)
    url = reverse("clubs:night_new", args=[club.slug])
    data = _new_night_post(club, guests="Gus Guest")
    first = client.post(url, data)
    assert first.status_code == 302
    before = _counts()
    second = client.post(url, data)
    assert second.status_code == 302 and second["Location"] == first["Location"]
    assert _counts() == before  # no night, entry, game, audit event or player more
    assert Night.objects.filter(club=club).count() == 1
    # with htmx too
    third = client.post(url, data, **HTMX)
    assert third.status_code == 204 and third["HX-Redirect"] == first["Location"]
    assert _counts() == before


def test_a_different_night_the_same_day_is_still_a_new_night(club, org):
    one = _night(club, org)
    two = _night(club, org, games=4)  # other games: a real second night
    assert one.pk != two.pk
    three = _night(club, org, guests=())  # other players
    assert three.pk not in (one.pk, two.pk)


def test_a_repeat_after_play_started_is_a_new_night(club, org):
    one = _night(club, org)
    club_services.pair_next_game(one, actor=org)
    two = _night(club, org)
    assert two.pk == one.pk  # drawn but nobody has played: still the same empty night
    from tournament import services

    game = Game.objects.filter(round__division__tournament=one.tournament).first()
    division = one.tournament.divisions.get()
    services.record_result(division, 1, game.player1.number, 400, 300, actor=org)
    two = _night(club, org)
    assert two.pk != one.pk


def test_an_empty_night_is_deleted_from_its_page_and_audited(club, org):
    night = _night(club, org)
    club_services.pair_next_game(night, actor=org)  # drawn (10 players: no bye), not played
    assert not club_services.night_has_play(night)
    client = _client(org)
    page = client.get(_url(night)).content.decode()
    assert 'id="delete-night"' in page and _url(night, "delete/") in page
    slug = night.tournament.slug
    response = client.post(_url(night, "delete/"))
    assert response.status_code == 302
    assert response["Location"] == reverse("clubs:nights", args=[club.slug])
    assert not Night.objects.filter(pk=night.pk).exists()
    assert not Tournament.objects.filter(slug=slug).exists()
    event = AuditEvent.objects.get(action="delete_night")
    assert event.user == org and event.tournament is None
    assert event.before["tournament"] == slug and "Gus Guest" in event.before["players"]
    assert client.get(reverse("clubs:nights", args=[club.slug])).status_code == 200


def test_a_night_with_a_game_played_is_not_deleted(club, org):
    night = _night(club, org)
    club_services.pair_next_game(night, actor=org)
    game = Game.objects.filter(round__division__tournament=night.tournament).first()
    from tournament import services

    division = night.tournament.divisions.get()
    services.record_result(division, 1, game.player1.number, 400, 300, actor=org)
    client = _client(org)
    assert 'id="delete-night"' not in client.get(_url(night)).content.decode()
    before = _counts()
    response = client.post(_url(night, "delete/"))
    assert response.status_code == 400
    assert "has games played; only a night with no game played can be deleted" in (
        response.content.decode()
    )
    assert _counts() == before
    with pytest.raises(ServiceError) as refused:
        club_services.delete_night(night, actor=org)
    assert refused.value.code == "night_has_play"


def test_only_the_club_s_organisers_delete(club, org, other_org):
    night = _night(club, org)
    before = _counts()
    assert _client(other_org).post(_url(night, "delete/")).status_code == 403
    response = _client(None).post(_url(night, "delete/"))
    assert response.status_code in (302, 403)
    assert _counts() == before and Night.objects.filter(pk=night.pk).exists()


def test_night_pages_link_back_to_their_club(club, org):
    night = _night(club, org)
    club_url = reverse("clubs:club", args=[club.slug])
    assert f'href="{club_url}"' in _client(org).get(_url(night)).content.decode()
    screen = reverse("clubs:night_screen", args=[club.slug, night.pk])
    assert f'href="{club_url}"' in _client(None).get(screen).content.decode()
    public = reverse("public:tournament", args=[night.tournament.slug])
    assert f'href="{club_url}"' in _client(None).get(public).content.decode()
    # an ordinary tournament says nothing of clubs
    t = Tournament.objects.create(name="Open", slug="open", published=True)
    page = _client(None).get(reverse("public:tournament", args=[t.slug])).content.decode()
    assert "A club night of" not in page


def _played_night(club, org):
    from tournament import services

    night = _night(club, org)
    club_services.pair_next_game(night, actor=org)
    division = night.tournament.divisions.get()
    for g in Game.objects.filter(round__division=division, player2__isnull=False):
        services.record_result(division, 1, g.player1.number, 400, 350, actor=org)
    club_services.close_night(night, actor=org)
    club_services.reopen_night(night, actor=org, reason="a score was typed wrong")
    return night, division


def test_a_reopened_night_s_result_is_corrected_from_the_night_page(club, org):
    night, division = _played_night(club, org)
    client = _client(org)
    page = client.get(_url(night)).content.decode()
    assert 'id="id_correction_reason"' in page and 'id="correction"' in page
    game = Game.objects.filter(round__division=division, player2__isnull=False).first()
    line = f"{game.player1.number} 410 420"
    response = client.post(_url(night, "results/"), {"line": line, "reason": "card said 410-420"})
    assert response.status_code == 200, response.content.decode()[:500]
    game.refresh_from_db()
    assert (game.score1, game.score2) == (410, 420)
    event = AuditEvent.objects.filter(action="correct_result").get()
    assert event.reason == "card said 410-420" and event.user == org
    # game number given explicitly works the same
    client.post(
        _url(night, "results/"),
        {"line": line.replace("410", "405"), "reason": "again", "game": "1"},
    )
    game.refresh_from_db()
    assert (game.score1, game.score2) == (405, 420)


def test_without_a_reason_a_recorded_result_is_refused_as_before(club, org):
    night, division = _played_night(club, org)
    game = Game.objects.filter(round__division=division, player2__isnull=False).first()
    before = _counts()
    response = _client(org).post(
        _url(night, "results/"), {"line": f"{game.player1.number} 410 420"}
    )
    assert response.status_code == 400 and "already has a result" in response.content.decode()
    assert _counts() == before
    # and a reason on a line for an unknown game number is refused, changing nothing
    response = _client(org).post(
        _url(night, "results/"),
        {"line": f"{game.player1.number} 410 420", "reason": "x", "game": "5"},
    )
    assert response.status_code == 400
    assert _counts() == before
