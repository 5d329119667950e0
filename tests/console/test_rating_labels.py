"""Ratings labelled with their list (issue 17): registration says which list a seed rating
came from ("1734 on NASPA NWL"; "no rating on NASPA NWL; club rating 1004"), in the type-ahead
suggestions and in the notice after adding; the public profile and player card mark a club's
own list as club ratings."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from ratings.services import create_rating_list, import_ratings
from tests.core.conftest import make_director
from tournament import services
from tournament.clubs.services import create_club

pytestmark = pytest.mark.django_db
HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def lists():
    nwl = create_rating_list("NASPA NWL", slug="nwl")
    import_ratings(nwl, 'name,rating\n"Smith, John",1734\n')
    club = create_club(name="Riverside", actor="test")
    import_ratings(club.rating_list, 'name,rating\n"Roe, Rita",1004\n"Smith, John",1100\n')
    return nwl, club.rating_list


def _division(lists, rated: bool):
    t = services.create_tournament(name="Label Open", actor="test")
    services.publish_tournament(t, True, None)
    d = services.create_division(t, name="A", rounds=3, actor="test")
    if rated:
        d = services.update_division(d, rating_list=lists[0], actor="test")
    return d


def _url(d, name: str) -> str:
    return reverse(f"console:{name}", args=(d.tournament.slug, d.slug))


def _td(client, d):
    client.force_login(make_director(d.tournament, "label-td"))
    return client


def _player(name: str):
    return services.find_or_create_player(name)


def test_suggestions_say_the_list_or_what_there_is_instead(client, lists):
    d = _division(lists, rated=True)
    td = _td(client, d)
    html = td.get(_url(d, "players_search"), {"name": "smith"}, **HTMX).content.decode()
    assert "1734 on NASPA NWL" in html
    html = td.get(_url(d, "players_search"), {"name": "roe"}, **HTMX).content.decode()
    assert "no rating on NASPA NWL; club rating 1004" in html


def test_the_notice_names_the_seeds_list(client, lists):
    d = _division(lists, rated=True)
    td = _td(client, d)
    roe = _player("Roe, Rita")
    r = td.post(_url(d, "players_add"), {"name": "roe", "pick": str(roe.pk)}, **HTMX)
    assert r.status_code == 200
    text = r.content.decode()
    assert "Registered #1 Roe, Rita (unrated: no rating on NASPA NWL; club rating 1004)" in text
    smith = _player("Smith, John")
    r = td.post(_url(d, "players_add"), {"name": "smi", "pick": f"{smith.pk}:{lists[0].pk}"})
    assert "Registered #2 Smith, John (seed 1734 on NASPA NWL)" in r.content.decode()


def test_without_a_division_list_club_ratings_say_they_are_club_ratings(client, lists):
    d = _division(lists, rated=False)
    td = _td(client, d)
    html = td.get(_url(d, "players_search"), {"name": "smith"}, **HTMX).content.decode()
    assert "1734 on NASPA NWL" in html
    assert "club rating 1100 (Riverside club ratings)" in html
    roe = _player("Roe, Rita")
    r = td.post(_url(d, "players_add"), {"name": "roe", "pick": f"{roe.pk}:{lists[1].pk}"})
    assert "Registered #1 Roe, Rita (seed club rating 1004 (Riverside club ratings))" in (
        r.content.decode()
    )
    assert d.entries.get(number=1).seed_rating == 1004


def test_the_profile_marks_club_ratings(client, lists):
    smith = _player("Smith, John")
    html = client.get(f"/players/{smith.pk}/").content.decode()
    rows = {
        m.group(1): m.group(0)
        for m in re.finditer(r'<tr><td><a href="/ratings/[^"]+/">([^<]+)</a>[^\n]*', html)
    }
    assert "club rating" in rows["Riverside club ratings"]
    assert "club rating" not in rows["NASPA NWL"]


def test_the_player_card_says_a_club_list_is_club_ratings(client, lists):
    t = services.create_tournament(name="Club Cup", actor="test")
    services.publish_tournament(t, True, None)
    d = services.create_division(t, name="A", rounds=3, actor="test")
    d = services.update_division(d, rating_list=lists[1], actor="test")
    services.register_player(d, player=_player("Roe, Rita"), rating=1004, actor="test")
    html = client.get(f"/t/{t.slug}/{d.slug}/player/1/").content.decode()
    assert "<dt>Club rating (Riverside club ratings)</dt><dd>1004</dd>" in html
    d = services.update_division(d, rating_list=lists[0], actor="test")
    services.register_player(d, player=_player("Smith, John"), rating=1734, actor="test")
    html = client.get(f"/t/{t.slug}/{d.slug}/player/2/").content.decode()
    assert "<dt>On NASPA NWL</dt><dd>1734</dd>" in html
