"""The faces of game records: the player's link attaches one, the game's page shows it, the
round page and player card link it, and the division's zip holds it."""

from __future__ import annotations

import io
import json
import zipfile

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from tests.core.conftest import make_director
from tournament.models import AuditEvent, Entry, GameRecord
from tournament.services import gcg, publish_tournament
from tournament.services.selfentry import ensure_tokens

from .conftest import two_player_event
from .test_service import GOOD

pytestmark = pytest.mark.django_db


@pytest.fixture
def played(db):
    t, d, game = two_player_event("Del Solar, Cesar", "Able, Ann", (24, 0))
    ensure_tokens(d, "test")
    tokens = dict(Entry.objects.filter(division=d).values_list("number", "entry_token"))
    return t, d, game, tokens


def upload(client, token, game, text, name="game.gcg"):
    data = {"game": str(game.pk), "file": SimpleUploadedFile(name, text.encode())}
    return client.post(f"/e/{token}/record/", data)


def test_a_player_attaches_from_their_link_and_the_public_sees_the_game(client, played):
    t, d, game, tokens = played
    page = client.get(f"/e/{tokens[1]}/").content.decode()
    assert 'id="record-form"' in page and "Round 1 v Able, Ann" in page
    response = upload(client, tokens[1], game, GOOD)
    assert response.status_code == 302
    assert GameRecord.objects.get(game=game).turns == 3
    assert AuditEvent.objects.get(action="attach_game_record").actor.startswith("player #1")
    # the opponent's link shows it, and their own viewer opens
    theirs = client.get(f"/e/{tokens[2]}/").content.decode()
    assert f"/e/{tokens[2]}/record/{game.pk}/" in theirs
    viewer = client.get(f"/e/{tokens[2]}/record/{game.pk}/")
    assert viewer.status_code == 200 and viewer["Cache-Control"] == "private, no-store"
    # the public: round page and the player card link the game page, which shows the steps
    url = f"/t/{t.slug}/{d.slug}/round/1/board/1/"
    assert url in client.get(f"/t/{t.slug}/{d.slug}/round/1/").content.decode()
    assert url in client.get(f"/t/{t.slug}/{d.slug}/player/2/").content.decode()
    body = client.get(url).content.decode()
    assert "César Del Solar 24 – 0 Ann Able" in body and "exchanged DEF" in body
    steps = json.loads(body.split('id="gcg-steps" type="application/json">')[1].split("<")[0])
    assert len(steps["steps"]) == 4 and steps["steps"][1]["rows"][7][7:10] == "CAB"
    assert steps["steps"][3]["totals"] == [24, 0]
    # a record that names the racks left at the end shows them
    gcg.attach_record(game, GOOD + "#rack2 DEFGHIJ\n", actor="test")
    assert "Racks at the end: Ann Able DEFGHIJ" in client.get(url).content.decode()
    # the division's zip
    response = client.get(f"/t/{t.slug}/{d.slug}/records.zip")
    assert response["Content-Type"] == "application/zip"
    names = zipfile.ZipFile(io.BytesIO(response.content)).namelist()
    assert names == ["r01-b01-Del_Solar_Cesar-v-Able_Ann.gcg"]


def test_a_wrong_record_is_refused_on_the_page_with_its_line(client, played):
    t, d, game, tokens = played
    response = upload(client, tokens[1], game, GOOD.replace("+14 24", "+14 25"), "mine.gcg")
    assert response.status_code == 400
    body = response.content.decode()
    assert 'id="record-refused"' in body
    assert "mine.gcg line 5: cesar&#x27;s total 25 is not 10 +14 = 24" in body
    assert not GameRecord.objects.exists()
    # another game's player cannot attach to this game, nor see it
    response = upload(client, tokens[3], game, GOOD)
    assert response.status_code == 400 and "you are not a player of this game" in (
        response.content.decode()
    )
    gcg.attach_record(game, GOOD, actor="test")
    assert client.get(f"/e/{tokens[3]}/record/{game.pk}/").status_code == 404


def test_a_private_record_is_off_public_pages_until_the_round_is_published(client, played):
    t, d, game, tokens = played
    boss = make_director(t, "boss")
    gcg.set_records_private(t, True, actor=boss)
    gcg.attach_record(game, GOOD, actor=boss)
    url = f"/t/{t.slug}/{d.slug}/round/1/board/1/"
    assert client.get(url).status_code == 404
    assert url not in client.get(f"/t/{t.slug}/{d.slug}/round/1/").content.decode()
    assert client.get(f"/e/{tokens[2]}/record/{game.pk}/").status_code == 200  # the player
    zipped = client.get(f"/t/{t.slug}/{d.slug}/records.zip")
    assert zipfile.ZipFile(io.BytesIO(zipped.content)).namelist() == []
    client.force_login(boss)
    assert client.get(url).status_code == 200  # its director sees it at once
    client.logout()
    gcg.publish_round_records(d, 1, actor=boss)
    assert client.get(url).status_code == 200
    publish_tournament(t, False, actor=boss)  # a draft shows nothing to the public
    assert client.get(url).status_code == 404


def test_the_commentators_page_links_a_game_record_once_it_arrives(client, played):
    """Annotated games as they arrive (issue 37): the board's row links the game's page once a
    public record is attached, and not before."""
    t, d, game, tokens = played
    commentators = f"/t/{t.slug}/broadcast/"
    url = f"/t/{t.slug}/{d.slug}/round/1/board/1/"
    assert url not in client.get(commentators).content.decode()
    upload(client, tokens[1], game, GOOD)
    assert url in client.get(commentators).content.decode()


def test_the_head_to_head_links_each_game_with_a_public_record(client, played):
    t, d, game, tokens = played
    boss = make_director(t, "boss")
    first, second = (game.player1.player_id, game.player2.player_id)
    vs = f"/players/{first}/vs/{second}/"
    url = f"/t/{t.slug}/{d.slug}/round/1/board/1/"
    assert url not in client.get(vs).content.decode()  # no record yet
    gcg.set_records_private(t, True, actor=boss)
    gcg.attach_record(game, GOOD, actor=boss)
    assert url not in client.get(vs).content.decode()  # kept private: not linked
    gcg.publish_round_records(d, 1, actor=boss)
    body = client.get(vs).content.decode()
    assert f'<a href="{url}">game record</a>' in body
    # the other side's view links the same game; a third player's games link nothing of it
    assert url in client.get(f"/players/{second}/vs/{first}/").content.decode()
    other = Entry.objects.get(division=d, number=3).player_id
    assert url not in client.get(f"/players/{first}/vs/{other}/").content.decode()
