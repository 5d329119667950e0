"""Issue 19: a ``.TOU`` import is pre-scanned like a TSH file, and ``import_tsh`` has the byte
limit the console's upload has. Each refusal names its limit and setting and creates nothing.
"""

from __future__ import annotations

import datetime as dt
import json
import sys
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from tests.security.test_probe_uploads import counts, players_t, refused, staff, upload
from tournament.formats.tou import write_tou
from tournament.formats.tsh import TshPlayer
from tournament.management.commands.import_tsh import Command as ImportCommand

pytestmark = pytest.mark.django_db
__all__ = ["staff"]  # the upload fixture, shared with the probe tests


def tou(players: int, rounds: int = 1) -> bytes:
    """A valid .TOU of one division: ``players`` players, pairs playing each other each round."""
    division = []
    for n in range(1, players + 1):
        other = n + 1 if n % 2 else n - 1
        score = 400 if n % 2 else 350
        p12 = ["1" if n % 2 else "2"] * rounds
        division.append(
            TshPlayer(n, f"Player{n} Test", "", 0, [other] * rounds, [score] * rounds, {"p12": p12})
        )
    return write_tou("Big Event", dt.date(2025, 11, 30), [("A", division)]).encode()


def test_a_tou_with_too_many_players_is_refused_by_the_command(tmp_path, settings):
    settings.MAX_IMPORT_PLAYERS = 10
    path = tmp_path / "big.tou"
    path.write_bytes(tou(12))
    before = counts()
    with pytest.raises(CommandError, match=r"big\.tou: 12 players; an import takes at most 10"):
        call_command("import_tsh", str(path), stdout=StringIO(), stderr=StringIO())
    assert counts() == before


def test_a_tou_within_the_limits_still_imports(tmp_path, settings):
    settings.MAX_IMPORT_PLAYERS = 12
    path = tmp_path / "fits.tou"
    path.write_bytes(tou(12, 3))
    out = StringIO()
    call_command("import_tsh", str(path), "--json", stdout=out, stderr=StringIO())
    assert json.loads(out.getvalue())["divisions"] == [{"name": "A", "players": 12, "rounds": 3}]


def test_a_tou_with_too_many_player_rounds_is_refused_on_upload(staff, settings):
    settings.MAX_IMPORT_PLAYER_ROUNDS = 100
    before = counts()
    response, took = upload(staff, "event.TOU", tou(20, 6))
    refused(
        response,
        took,
        "event.TOU: 120 player-rounds",
        "at most 100",
        "GIBSON_MAX_IMPORT_PLAYER_ROUNDS",
    )
    assert counts() == before


def test_a_tou_with_more_rounds_than_the_console_cap_is_refused(tmp_path):
    path = tmp_path / "long.tou"
    path.write_bytes(tou(2, 201))
    before = counts()
    with pytest.raises(CommandError, match=r"long\.tou line 4: 201 rounds; a division has at most"):
        call_command("import_tsh", str(path), stdout=StringIO(), stderr=StringIO())
    assert counts() == before


def test_the_command_refuses_a_file_past_the_byte_limit(tmp_path, settings):
    settings.MAX_UPLOAD_MB = 1
    path = tmp_path / "huge.t"
    path.write_bytes(players_t(2, 1) + b"#" * (1024 * 1024) + b"\n")
    before = counts()
    with pytest.raises(CommandError, match=r"huge\.t: .* limited to 1 MB .*GIBSON_MAX_UPLOAD_MB"):
        call_command("import_tsh", str(path), stdout=StringIO(), stderr=StringIO())
    assert counts() == before


def test_a_config_whose_files_add_up_past_the_byte_limit_is_refused(tmp_path, settings):
    settings.MAX_UPLOAD_MB = 1
    half = players_t(2, 1) + b"#" * (600 * 1024) + b"\n"
    (tmp_path / "a.t").write_bytes(half)
    (tmp_path / "b.t").write_bytes(half)
    (tmp_path / "config.tsh").write_bytes(b"division A a.t\ndivision B b.t\n")
    before = counts()
    with pytest.raises(CommandError, match=r"config\.tsh: .* limited to 1 MB"):
        call_command(
            "import_tsh", str(tmp_path / "config.tsh"), stdout=StringIO(), stderr=StringIO()
        )
    assert counts() == before


def test_the_byte_limit_refusal_has_the_json_error_shape(tmp_path, settings, capsys):
    settings.MAX_UPLOAD_MB = 1
    path = tmp_path / "huge.t"
    path.write_bytes(players_t(2, 1) + b"#" * (1024 * 1024) + b"\n")
    command = ImportCommand(stdout=sys.stdout, stderr=sys.stderr)
    with pytest.raises(SystemExit) as exited:
        command.run_from_argv(["manage.py", "import_tsh", str(path), "--json"])
    assert exited.value.code != 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["ok"] is False
    assert payload["code"] == "import_too_large"
    assert payload["params"]["limit_mb"] == 1
    assert "GIBSON_MAX_UPLOAD_MB" in payload["error"]
    # (run_from_argv closes the database connection; the test above counts the rows)
