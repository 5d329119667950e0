"""The upload findings of issue 19, replayed: each is now refused at once, naming its limit.

Probed on main: 100,000 players in 2.5 MB, or a 190 KB all.tsh of 2,000 divisions, ran past
gunicorn's 30 s into a bare 500 (and held SQLite's write lock meanwhile); a 147 MB request
took a worker to 1,143 MiB; an uploaded ``.t`` skipped the console's 200-round cap. Each is
refused here before it is parsed, quickly, with a message naming the limit and its setting,
and nothing is created.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command

from tests.conftest import REPO
from tournament.models import AuditEvent, Division, Entry, Game, Player, Tournament

pytestmark = pytest.mark.django_db

UPLOAD = "/console/new/upload/"
QUICK = 5.0  # seconds: a refusal costs a pass over the lines, not a parse


@pytest.fixture
def staff(client):
    from django.contrib.auth.models import Permission

    user = get_user_model().objects.create_user(
        "founder", "founder@example.org", "pw-long-enough-1"
    )
    # tournament creation is a granted permission (issue 19), not the staff flag
    user.user_permissions.add(Permission.objects.get(codename="create_tournament"))
    client.force_login(user)
    return client


def counts() -> tuple[int, ...]:
    return (
        Tournament.objects.count(),
        Division.objects.count(),
        Entry.objects.count(),
        Player.objects.count(),
        Game.objects.count(),
        AuditEvent.objects.count(),
    )


def upload(client, name: str, data: bytes, others=()):
    payload = {"upload-file": SimpleUploadedFile(name, data)}
    if others:
        payload["upload-division_files"] = [SimpleUploadedFile(n, d) for n, d in others]
    started = time.monotonic()
    response = client.post(UPLOAD, payload)
    return response, time.monotonic() - started


def refused(response, took: float, *words: str) -> str:
    text = response.content.decode()
    assert response.status_code == 400, text[:2000]
    for word in words:
        assert word in text, (word, text[:4000])
    assert took < QUICK, took
    return text


def players_t(players: int, rounds: int = 0) -> bytes:
    """A division file: ``players`` lines, each pair playing each other ``rounds`` times."""
    lines = []
    for n in range(1, players + 1):
        other = n + 1 if n % 2 else n - 1
        pairings = " ".join([str(other)] * rounds)
        scores = " ".join(["400" if n % 2 else "350"] * rounds)
        lines.append(f"Player{n}, Test 1500 {pairings}; {scores}".replace("  ", " "))
    return ("\n".join(lines) + "\n").encode()


def test_a_147_mb_request_is_refused_before_its_body_is_read(staff):
    before = counts()
    started = time.monotonic()
    # the declared length is what the server sees first; the body is never read
    response = staff.post(
        UPLOAD,
        data=b"x" * 1024,
        content_type="application/octet-stream",
        CONTENT_LENGTH=str(147 * 1024 * 1024),
    )
    assert response.status_code == 413
    assert "uploads are limited to 5 MB in all (GIBSON_MAX_UPLOAD_MB)" in response.content.decode()
    assert time.monotonic() - started < QUICK
    assert counts() == before


def test_files_adding_up_past_the_limit_are_refused(staff, settings):
    settings.MAX_UPLOAD_MB = 1
    before = counts()
    # each file under the limit, together over it (the 147 MB request was many files)
    half = players_t(1, 0) + b"#" * (600 * 1024) + b"\n"
    response, took = upload(
        staff, "config.tsh", b"division A a.t\n", [("a.t", half), ("b.t", half)]
    )
    refused(response, took, "uploads are limited to 1 MB in all (GIBSON_MAX_UPLOAD_MB)")
    assert counts() == before


def test_100000_players_are_refused_naming_the_player_limit(staff):
    data = players_t(100_000)
    assert 2_000_000 < len(data) < 5 * 1024 * 1024  # the probe's 2.5 MB, under the byte limit
    before = counts()
    response, took = upload(staff, "huge.t", data)
    refused(
        response,
        took,
        "huge.t: 100000 players; an import takes at most 2000",
        "GIBSON_MAX_IMPORT_PLAYERS",
    )
    assert counts() == before


def test_2000_divisions_are_refused_naming_the_division_limit(staff):
    config = "".join(f"division D{n} d{n}.t\n" for n in range(2000))
    blocks = "".join(
        f"#begin_file name=d{n}.t\nA{n}, Ann 1500 0; 0\nB{n}, Bo 1400 0; 0\n#end_file name=d{n}.t\n"
        for n in range(2000)
    )
    data = (config + blocks).encode()
    assert 150_000 < len(data) < 300_000  # the probe's 190 KB
    before = counts()
    response, took = upload(staff, "all.tsh", data)
    refused(
        response,
        took,
        "all.tsh: 2000 divisions; an import takes at most 50",
        "GIBSON_MAX_IMPORT_DIVISIONS",
    )
    assert counts() == before


def test_a_201_round_t_is_refused_with_the_consoles_cap(staff):
    before = counts()
    response, took = upload(staff, "long.t", players_t(4, 201))
    refused(response, took, "long.t line 1: 201 rounds; a division has at most 200 rounds")
    assert counts() == before
    # 200 rounds, the cap itself, is a legal event
    response, _ = upload(staff, "long.t", players_t(4, 200))
    assert response.status_code == 302, response.content.decode()[:2000]
    assert Division.objects.get().rounds == 200


def test_a_201_round_tourney_js_is_refused_too(staff):
    players = [None] + [
        {
            "name": f"P{n}, T",
            "rating": 1500,
            "pairings": [2 if n == 1 else 1] * 201,
            "scores": [400] * 201,
        }
        for n in (1, 2)
    ]
    feed = json.dumps({"divisions": [{"name": "A", "players": players}]}).encode()
    before = counts()
    response, took = upload(staff, "tourney.js", feed)
    refused(response, took, "201 rounds; a division has at most 200 rounds")
    assert counts() == before


def test_player_rounds_past_the_limit_are_refused(staff, settings):
    settings.MAX_IMPORT_PLAYER_ROUNDS = 1000
    before = counts()
    response, took = upload(staff, "wide.t", players_t(20, 60))  # 1,200 player-rounds
    refused(
        response,
        took,
        "wide.t: 1200 player-rounds",
        "at most 1000",
        "GIBSON_MAX_IMPORT_PLAYER_ROUNDS",
    )
    assert counts() == before


def test_a_config_whose_t_files_add_up_past_the_players_is_refused(staff, settings):
    settings.MAX_IMPORT_PLAYERS = 30
    config = b"division A a.t\ndivision B b.t\n"
    before = counts()
    response, took = upload(
        staff, "config.tsh", config, [("a.t", players_t(20)), ("b.t", players_t(20))]
    )
    refused(response, took, "config.tsh: 40 players; an import takes at most 30")
    assert counts() == before


def test_the_command_refuses_the_same_way(tmp_path):
    path = tmp_path / "long.t"
    path.write_bytes(players_t(4, 201))
    before = counts()
    with pytest.raises(CommandError, match=r"long\.t line 1: 201 rounds; a division has at most"):
        call_command("import_tsh", str(path), stdout=StringIO(), stderr=StringIO())
    assert counts() == before


@pytest.mark.parametrize(
    "name, value, words",
    [
        ("GIBSON_MAX_UPLOAD_MB", "0", "expected a whole number from 1 up"),
        ("GIBSON_MAX_IMPORT_PLAYERS", "lots", "expected a whole number from 1 up"),
        ("GIBSON_HEAVY_RATE", "fast", "expected N/second, N/minute or N/hour"),
    ],
)
def test_a_bad_limit_setting_is_named_at_start(name, value, words):
    run = subprocess.run(
        [sys.executable, "-c", "import tournament.settings"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, name: value, "GIBSON_TESTING": ""},
    )
    assert run.returncode != 0
    assert f"{name}={value!r}: {words}" in run.stderr


def test_the_api_answers_a_huge_body_with_its_own_error_shape(client):
    response = client.post(
        "/api/v1/tournaments/",
        data=b"{}",
        content_type="application/json",
        CONTENT_LENGTH=str(50 * 1024 * 1024),
    )
    assert response.status_code == 413
    error = response.json()["errors"][0]
    assert error["code"] == "upload_too_large"
    assert "GIBSON_MAX_UPLOAD_MB" in error["message"]
