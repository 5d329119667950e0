"""A name with ';' or a class with a space: what a TSH .t line cannot carry.

In a ``.t`` line ';' ends the name and the pairings, so a name carrying one cannot be written
and read back; a class is written ``; class X``. The desk's all.tsh export answered a 500 for
such data (registration accepted both). Now every door refuses ';' in a name and a space in a
typed class, naming it, and old data is exported (a class by its words, which every reader
joins again) or refused with the player named, never a 500.
"""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from tests.core.conftest import make_director
from tournament import services
from tournament.errors import ServiceError
from tournament.formats.archive import parse_archive
from tournament.formats.tsh import parse_t
from tournament.interchange.exports import render_export
from tournament.interchange.imports import import_upload
from tournament.models import AuditEvent, Entry, Player, Tournament

pytestmark = pytest.mark.django_db


@pytest.fixture
def division():
    t = services.create_tournament(name="Semi Open", slug="semi-open", actor="test")
    d = services.create_division(t, name="A", rounds=3, actor="test")
    for name, rating in [("Able, Ann", 1800), ("Baker, Bo", 1700), ("Cole, Cy", 1600)]:
        services.register_player(d, name=name, rating=rating, actor="test")
    services.register_player(d, name="Dunn, Di", rating=1500, player_class="B", actor="test")
    return d


def counts():
    return (Entry.objects.count(), Player.objects.count(), AuditEvent.objects.count())


@pytest.mark.parametrize(
    "call",
    [
        lambda d: services.register_player(d, name="Eads; Ed", actor="test"),
        lambda d: services.register_new_player(d, name="Eads; Ed", actor="test"),
        lambda d: services.find_or_create_player("Eads;Ed"),
        lambda d: services.create_player(actor="test", name="Eads; Ed"),
        lambda d: services.update_player(
            Player.objects.get(name="Able, Ann"), actor="test", name="Able; Ann"
        ),
    ],
)
def test_every_service_refuses_a_semicolon_in_a_name(division, call):
    before = counts()
    with pytest.raises(ServiceError) as caught:
        call(division)
    assert caught.value.code == "name_semicolon"
    assert "contains ';'" in str(caught.value)
    assert counts() == before


@pytest.mark.parametrize(
    "call",
    [
        lambda d: services.register_player(d, name="Eads, Ed", player_class="A B", actor="test"),
        lambda d: services.register_new_player(d, name="Eads, Ed", player_class="A B"),
        lambda d: services.update_entry(d.entries.get(number=1), player_class="Lite A"),
        lambda d: services.register_player(d, name="Eads, Ed", player_class="A;B", actor="test"),
    ],
)
def test_a_typed_class_is_one_word(division, call):
    before = counts()
    with pytest.raises(ServiceError) as caught:
        call(division)
    assert caught.value.code == "class_one_word"
    assert "a class is one word" in str(caught.value)
    assert counts() == before
    assert division.entries.get(number=1).player_class == ""


def test_the_console_shows_the_refusal_at_the_name(client, division):
    client.force_login(make_director(division.tournament, "td"))
    before = counts()
    url = reverse("console:players_add", args=(division.tournament.slug, division.slug))
    response = client.post(url, {"name": "Eads; Ed", "rating": "1400"}, HTTP_HX_REQUEST="true")
    assert response.status_code == 400
    assert "contains &#x27;;&#x27;, which starts the next part" in response.content.decode()
    assert counts() == before


def test_a_tourney_js_upload_with_a_semicolon_in_a_name_is_refused_naming_the_player(db):
    feed = {
        "divisions": [
            {
                "name": "A",
                "players": [
                    None,
                    {"name": "Able; Ann", "rating": 1500, "pairings": [], "scores": []},
                    {"name": "Baker, Bo", "rating": 1400, "pairings": [], "scores": []},
                ],
            }
        ]
    }
    before = (Tournament.objects.count(), *counts())
    with pytest.raises(ServiceError) as caught:
        import_upload("tourney.js", json.dumps(feed).encode(), actor="test")
    assert "division A player 1" in str(caught.value)
    assert "'Able; Ann' contains ';'" in str(caught.value)
    assert (Tournament.objects.count(), *counts()) == before


def test_old_data_with_a_semicolon_is_refused_by_the_desk_naming_the_player(client, division):
    # stored before names were checked (straight into the table, as an old database holds it)
    Player.objects.filter(name="Baker, Bo").update(name="Baker; Bo")
    client.force_login(make_director(division.tournament, "td"))
    response = client.get(f"/t/{division.tournament.slug}/desk/export/all.tsh")
    assert response.status_code == 400
    text = response.content.decode()
    assert "#2 Baker; Bo in division A" in text
    assert "cannot carry" in text
    # the other exports do not write .t lines and still work
    assert client.get(f"/t/{division.tournament.slug}/desk/export/csv").status_code == 200


def test_a_class_with_a_space_from_an_old_file_goes_back_as_its_words(division):
    Entry.objects.filter(division=division, number=2).update(player_class="Lite A")
    archive = render_export(division.tournament, "all.tsh").data.decode()
    assert "; class Lite A" in archive
    _config, files = parse_archive(archive, source="all.tsh")
    players = parse_t(next(iter(files.values())))
    assert [p.player_class for p in players] == [None, "Lite A", None, "B"]


def test_any_other_unwritable_value_is_named_not_a_500(client, division):
    Entry.objects.filter(division=division, number=3).update(extra=[["team", ["x;y"]]])
    with pytest.raises(ServiceError) as caught:
        render_export(division.tournament, "all.tsh")
    assert caught.value.code == "export_unwritable"
    assert "Semi Open, division A: player 3 (Cole, Cy): field 'team'" in str(caught.value)
    client.force_login(make_director(division.tournament, "td"))
    response = client.get(f"/t/{division.tournament.slug}/desk/export/all.tsh")
    assert response.status_code == 400
