"""Issue 17 item 8: adding a club member by a name like a registry player's warns first, as
the console's registration does ("Yamamoto, Yuky" beside "Yamamoto, Yuki")."""

from __future__ import annotations

import pytest

from tournament.clubs.models import Club
from tournament.models import Membership, Player

from . import test_manage as manage

pytestmark = pytest.mark.django_db
URL = "/clubs/riverside/manage/members/add/"

ann, club = manage.ann, manage.club  # the management pages' fixtures, shared


@pytest.fixture
def yuki(club):
    return Player.objects.create(name="Yamamoto, Yuki")


def page(response) -> str:
    return response.content.decode()


@pytest.mark.parametrize("htmx", [False, True])
def test_a_near_name_warns_and_adds_nobody(client, club, ann, yuki, htmx):
    manage.signed_in(client, ann)
    before = manage.counts()
    extra = manage.HTMX if htmx else {}
    response = client.post(URL, {"name": "Yamamoto, Yuky"}, **extra)
    assert response.status_code == 200
    body = page(response)
    assert 'id="near"' in body and "Already in the registry with a name like" in body
    assert f'name="player_id" value="{yuki.pk}"' in body and "Yamamoto, Yuki" in body
    assert 'name="confirm" value="on"' in body
    assert manage.counts() == before


def test_picking_the_near_player_adds_them(client, club, ann, yuki):
    manage.signed_in(client, ann)
    client.post(URL, {"name": "Yamamoto, Yuky", "player_id": yuki.pk})
    assert Membership.objects.filter(club=club, player=yuki).exists()
    assert not Player.objects.filter(name="Yamamoto, Yuky").exists()


def test_add_anyway_makes_a_new_player(client, club, ann, yuki):
    manage.signed_in(client, ann)
    client.post(URL, {"name": "Yamamoto, Yuky", "confirm": "on"})
    yuky = Player.objects.get(name="Yamamoto, Yuky")
    assert Membership.objects.filter(club=club, player=yuky).exists()


def test_given_name_first_is_near_too_and_a_member_is_marked(client, club, ann):
    manage.signed_in(client, ann)
    before = manage.counts()
    body = page(client.post(URL, {"name": "Ann Lee"}))  # "Lee, Ann" is a member already
    assert 'id="near"' in body and "already in Riverside" in body
    assert manage.counts() == before


def test_an_exact_or_unlike_name_adds_without_a_warning(client, club, ann, yuki):
    manage.signed_in(client, ann)
    # another case would be a new player: warned
    assert 'id="near"' in page(client.post(URL, {"name": "yamamoto, yuki"}))
    client.post(URL, {"name": "Yamamoto,  Yuki"})  # the registry's own player, found
    assert Membership.objects.filter(club=club, player=yuki).exists()
    assert Player.objects.filter(name__iexact="yamamoto, yuki").count() == 1
    client.post(URL, {"name": "Zed, Zoe"})
    assert Membership.objects.filter(
        club=Club.objects.get(slug="riverside"), player__name="Zed, Zoe"
    )
