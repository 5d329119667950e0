"""`manage.py gcg`: remove, publish and export beside import (tests/gcg/test_fixtures.py), and
a refusal as a real process: exit status 1, the line named, JSON on stdout with --json."""

from __future__ import annotations

import io
import json
import zipfile
from io import StringIO

import pytest
from django.core.management import call_command

from tests.core.test_command_errors import cli_env  # noqa: F401 (a fixture)
from tests.warm import manage
from tournament.models import AuditEvent, GameRecord

from .conftest import two_player_event
from .test_service import GOOD


@pytest.mark.django_db
def test_remove_publish_and_export(tmp_path):
    t, d, game = two_player_event("Del Solar, Cesar", "Able, Ann", (24, 0))
    path = tmp_path / "r1.gcg"
    path.write_text(GOOD)
    where = ["--round", "1", "--board", "1"]
    call_command("gcg", "import", t.slug, str(path), *where, stdout=StringIO())
    out = StringIO()
    call_command("gcg", "publish", t.slug, "--round", "1", "--json", stdout=out)
    assert json.loads(out.getvalue()) == {"round": 1, "published": True}
    zipped = tmp_path / "all.zip"
    out = StringIO()
    call_command("gcg", "export", t.slug, str(zipped), "--json", stdout=out)
    assert json.loads(out.getvalue()) == {"division": "A", "files": 1}
    archive = zipfile.ZipFile(io.BytesIO(zipped.read_bytes()))
    assert archive.read(archive.namelist()[0]).decode() == GOOD
    out = StringIO()
    call_command("gcg", "remove", t.slug, *where, stdout=out)
    assert "record removed" in out.getvalue() and not GameRecord.objects.exists()
    assert AuditEvent.objects.filter(action="remove_game_record", actor="gcg").count() == 1


# three commands in processes of their own (forked from a warm parent: tests/warm.py), after
# the demo database
@pytest.mark.slow(seconds=3)
def test_a_refused_import_exits_1_naming_the_line(cli_env, tmp_path):  # noqa: F811
    path = tmp_path / "theirs.gcg"
    path.write_text(GOOD)
    args = ["gcg", "import", "gibson-demo-open", str(path), "--division", "A"]
    proc = manage(cli_env, *args, "--round", "1", "--board", "1", "--json")
    assert proc.returncode == 1 and proc.stderr == ""
    data = json.loads(proc.stdout)
    assert data["ok"] is False and data["code"] == "gcg_players_mismatch"
    assert data["params"]["line"] == 1 and "theirs.gcg line 1:" in data["error"]
    proc = manage(cli_env, *args, "--round", "1", "--board", "1")
    assert proc.returncode == 1 and "theirs.gcg line 1: the record's players" in proc.stderr
    assert "Traceback" not in proc.stderr
    proc = manage(cli_env, *args, "--round", "1")
    assert proc.returncode == 1 and "the board must not be empty" in proc.stderr
