"""Game records over the API: directors attach (JSON or a file), replace and remove; the
public reads published records only; refusals are 400s naming the line; the zip."""

from __future__ import annotations

import io
import zipfile

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from tests.api.conftest import token_client
from tests.core.conftest import make_director
from tournament.models import GameRecord
from tournament.services import gcg

from .conftest import two_player_event
from .test_service import GOOD

pytestmark = pytest.mark.django_db


@pytest.fixture
def played(db):
    t, d, game = two_player_event("Del Solar, Cesar", "Able, Ann", (24, 0))
    return t, d, game, f"/api/v1/tournaments/{t.slug}/divisions/{d.slug}/rounds/1/boards/1/record/"


def test_a_director_attaches_replaces_and_removes(played):
    t, d, game, url = played
    api = token_client(make_director(t, "boss"))
    response = api.post(url, {"gcg": GOOD, "file_name": "r1.gcg"}, format="json")
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["totals"] == {"César Del Solar": 24, "Ann Able": 0} and body["turns"] == 3
    assert body["public"] is True and body["gcg"] == GOOD and body["file_name"] == "r1.gcg"
    upload = SimpleUploadedFile("again.gcg", GOOD.encode())
    response = api.post(url, {"file": upload}, format="multipart")
    assert response.status_code == 201 and response.json()["file_name"] == "again.gcg"
    assert APIClient().get(url).json()["turns"] == 3  # the public reads it
    assert api.delete(url).status_code == 204
    assert not GameRecord.objects.exists()
    assert APIClient().get(url).status_code == 404


def test_refusals_and_denials(played):
    t, d, game, url = played
    api = token_client(make_director(t, "boss"))
    response = api.post(url, {"gcg": GOOD.replace("+14 24", "+14 25")}, format="json")
    assert response.status_code == 400
    error = response.json()["errors"][0]
    assert error["code"] == "gcg_running_total" and error["params"]["line"] == 5
    assert api.post(url, {"gcg": GOOD, "extra": 1}, format="json").status_code == 400
    assert APIClient().post(url, {"gcg": GOOD}, format="json").status_code == 401
    other = two_player_event("X, Y", "Z, W", None, slug_name="Other Open")[0]
    stranger = token_client(make_director(other, "stranger"))
    assert stranger.post(url, {"gcg": GOOD}, format="json").status_code == 403
    gcg.attach_record(game, GOOD, actor="test")
    assert stranger.delete(url).status_code == 403
    assert GameRecord.objects.count() == 1
    missing = url.replace("boards/1", "boards/9")
    assert api.get(missing).json()["errors"][0]["code"] == "gcg_not_a_game"


def test_private_until_published_and_the_zip(played):
    t, d, game, url = played
    boss = make_director(t, "boss")
    gcg.set_records_private(t, True, actor=boss)
    gcg.attach_record(game, GOOD, actor=boss)
    assert APIClient().get(url).status_code == 404
    assert token_client(boss).get(url).json()["public"] is False
    zip_url = f"/api/v1/tournaments/{t.slug}/divisions/{d.slug}/records.zip"
    public = zipfile.ZipFile(io.BytesIO(APIClient().get(zip_url).content))
    assert public.namelist() == []
    mine = zipfile.ZipFile(io.BytesIO(token_client(boss).get(zip_url).content))
    assert [mine.read(n).decode() for n in mine.namelist()] == [GOOD]
    gcg.publish_round_records(d, 1, actor=boss)
    assert APIClient().get(url).json()["public"] is True
