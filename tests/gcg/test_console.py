"""The console's game records page: a director attaches, replaces and removes a game's
record, keeps records private and publishes a round, downloads the zip; others may not."""

from __future__ import annotations

import io
import zipfile

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from tests.core.conftest import make_director
from tournament.models import AuditEvent, GameRecord

from .conftest import two_player_event
from .test_service import GOOD

pytestmark = pytest.mark.django_db


@pytest.fixture
def console(client, db):
    t, d, game = two_player_event("Del Solar, Cesar", "Able, Ann", (24, 0))
    client.force_login(make_director(t, "boss"))
    return client, t, d, game, f"/t/{t.slug}/console/{d.slug}/records/"


def send(client, url, game, text, name="game.gcg"):
    file = SimpleUploadedFile(name, text.encode())
    return client.post(url, {"game": str(game.pk), "file": file})


def test_a_director_attaches_replaces_publishes_and_removes(console):
    client, t, d, game, url = console
    assert url in client.get(f"/t/{t.slug}/console/{d.slug}/").content.decode()
    page = client.get(url).content.decode()
    assert 'id="records"' in page and f'id="file-{game.pk}"' in page
    assert send(client, url, game, GOOD, "r1.gcg").status_code == 302
    assert GameRecord.objects.get(game=game).file_name == "r1.gcg"
    assert "r1.gcg" in client.get(url).content.decode()
    send(client, url, game, GOOD, "again.gcg")
    assert AuditEvent.objects.filter(action="replace_game_record").count() == 1
    settings = f"{url}settings/"
    client.post(settings, {"private": "1"})
    t.refresh_from_db()
    assert t.records_private
    client.post(settings, {"publish": "1"})
    assert d.round_set.get(number=1).records_published is not None
    zipped = zipfile.ZipFile(io.BytesIO(client.get(f"{url}records.zip").content))
    assert len(zipped.namelist()) == 1
    assert client.post(f"{url}{game.pk}/remove/").status_code == 302
    assert not GameRecord.objects.exists()


def test_a_wrong_file_is_refused_on_the_page_and_others_are_turned_away(console):
    client, t, d, game, url = console
    response = send(client, url, game, GOOD.replace("Ann Able", "Bo Baker"), "x.gcg")
    assert response.status_code == 400
    body = response.content.decode()
    assert 'id="records-error"' in body and "x.gcg line 2: the record&#x27;s players" in body
    assert not GameRecord.objects.exists()
    other = two_player_event("X, Y", "Z, W", None, slug_name="Other Open")[0]
    client.force_login(make_director(other, "stranger"))
    assert send(client, url, game, GOOD).status_code in (403, 404)
    assert client.get(f"{url}records.zip").status_code in (403, 404)
    assert not GameRecord.objects.exists()
