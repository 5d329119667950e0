"""backup / restore: a round trip brings the data back; a wrong file is refused, naming it.

Runs on the suite's database: SQLite normally, PostgreSQL when DATABASE_URL is set (.ci/run
runs the suite a second time there).
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.db import connection

from tests.conftest import REPO
from tournament.demo import load_demo
from tournament.models import AuditEvent, Entry, Game, Player, Tournament

from .conftest import clean_env

pytestmark = pytest.mark.django_db(transaction=True)

POSTGRES_ONLY = pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="DATABASE_URL is not set to PostgreSQL: pg_dump/pg_restore are tested on the "
    ".ci/run pass that uses it",
)


def snapshot() -> dict:
    """What a director would miss after a bad restore."""
    return {
        "tournaments": sorted(Tournament.objects.values_list("name", flat=True)),
        "players": Player.objects.count(),
        "entries": Entry.objects.count(),
        "scores": sorted(Game.objects.values_list("id", "score1", "score2")),
        "audit": AuditEvent.objects.count(),
    }


@pytest.fixture
def demo():
    tournament, _ = load_demo()
    return tournament


def test_round_trip_brings_the_data_back(demo, tmp_path):
    before = snapshot()
    path = tmp_path / "event.backup"
    call_command("backup", str(path))
    assert path.stat().st_size > 0
    assert path.stat().st_mode & 0o777 == 0o600  # staff accounts and password hashes inside
    # the event goes on after the backup: a score changes, a tournament is renamed, one deleted
    game = Game.objects.exclude(score1=None).first()
    Game.objects.filter(pk=game.pk).update(score1=game.score1 + 100)
    Tournament.objects.create(name="Added after the backup", slug="added-after")
    Tournament.objects.filter(pk=demo.pk).update(name="Renamed")
    assert snapshot() != before
    from django.core.cache import cache

    cache.set("p:stale-page", "a page of the data before the restore")
    call_command("restore", str(path), "--yes")
    assert snapshot() == before
    assert Game.objects.get(pk=game.pk).score1 == game.score1
    assert cache.get("p:stale-page") is None  # pages of the replaced data are gone


def test_restore_moves_every_page_version_past_those_handed_out(demo, tmp_path):
    """A restore while the site runs: processes, the shared cache, browsers and proxies hold
    pages and ETags keyed by version numbers; the restored data's versions restart below
    them, so each is moved past every number used before (no old page is served as current)."""
    from django.db.models import Sum

    from ratings.models import RatingList
    from tournament.models import Club
    from tournament.services import update_tournament

    path = tmp_path / "event.backup"
    call_command("backup", str(path))
    handed_out = {
        t.pk: t.content_version for t in Tournament.objects.all()
    }  # the versions at the backup
    for _ in range(5):
        update_tournament(demo, venue=f"Hall {_}", actor="td")  # pages of newer states
    newest = Tournament.objects.get(pk=demo.pk).content_version
    total = sum(
        m.objects.aggregate(s=Sum("content_version"))["s"] or 0
        for m in (Tournament, Club, RatingList)
    )
    call_command("restore", str(path), "--yes")
    for t in Tournament.objects.all():
        assert t.content_version > total >= newest
        assert t.content_version == handed_out[t.pk] + total + 1
    for lst in RatingList.objects.all():
        assert lst.content_version > total


def test_json_output(demo, tmp_path, capsys):
    path = tmp_path / "event.backup"
    call_command("backup", str(path), "--json")
    written = json.loads(capsys.readouterr().out)
    assert written["ok"] is True and written["file"] == str(path)
    assert written["engine"] == connection.vendor
    # the demo: the open and three club nights; 40 players and a club night's guest
    assert written["tournaments"] == Tournament.objects.count() == 4
    assert written["players"] == Player.objects.count() == 41
    call_command("restore", str(path), "--yes", "--json")
    restored = json.loads(capsys.readouterr().out)
    assert restored["ok"] is True and restored["tournaments"] == 4


def test_backup_refuses_to_overwrite_without_force(demo, tmp_path):
    path = tmp_path / "event.backup"
    path.write_text("an older backup")
    with pytest.raises(CommandError, match=f"{path} already exists; choose a new name or use"):
        call_command("backup", str(path))
    assert path.read_text() == "an older backup"
    call_command("backup", str(path), "--force")
    assert path.read_bytes()[:5] != b"an ol"
    with pytest.raises(CommandError, match="the folder .* does not exist"):
        call_command("backup", str(tmp_path / "no-such-folder" / "x.backup"))
    with pytest.raises(CommandError, match="is a folder"):
        call_command("backup", str(tmp_path))
    assert [p.name for p in tmp_path.iterdir()] == ["event.backup"]  # no half-written files


def other_kind_file(tmp_path: Path) -> tuple[Path, str]:
    """A backup of the other engine's kind, and the refusal it must get."""
    path = tmp_path / "other-kind.backup"
    if connection.vendor == "sqlite":
        path.write_bytes(b"PGDMP\x01\x0e\x00" + b"\x00" * 100)
        return path, "is a PostgreSQL backup, but this site runs on SQLite"
    sqlite3.connect(path).execute("CREATE TABLE x (a)").connection.close()
    return path, "is a SQLite backup, but this site runs on PostgreSQL"


def bad_files(tmp_path: Path) -> list[tuple[Path, str]]:
    junk = tmp_path / "notes.txt"
    junk.write_text("round 3: Able v Baker 412-389\n")
    empty = tmp_path / "empty.backup"
    empty.write_bytes(b"")
    cases = [
        (junk, "is not a Gibson backup (neither a SQLite database nor a pg_dump"),
        (empty, "is not a Gibson backup"),
        (tmp_path / "missing.backup", "no such file"),
        (tmp_path, "is not a file"),
        other_kind_file(tmp_path),
    ]
    if connection.vendor == "sqlite":
        other = tmp_path / "other-program.sqlite3"
        db = sqlite3.connect(other)
        db.execute("CREATE TABLE notes (text)")
        db.commit()
        db.close()
        cases.append((other, "is a SQLite database but not a Gibson backup (no django_migrations"))
        cut = tmp_path / "cut-short.sqlite3"
        call_command("backup", str(cut))
        cut.write_bytes(cut.read_bytes()[:8192])
        cases.append((cut, ""))
    else:
        cut = tmp_path / "cut-short.dump"
        call_command("backup", str(cut))
        cut.write_bytes(cut.read_bytes()[:300])
        cases.append((cut, "pg_restore failed"))
    return cases


def test_restore_refuses_what_is_not_a_backup_of_this_kind(demo, tmp_path):
    before = snapshot()
    for path, message in bad_files(tmp_path):
        with pytest.raises(CommandError) as refused:
            call_command("restore", str(path), "--yes")
        assert str(path) in str(refused.value)
        assert message in str(refused.value), refused.value
        assert snapshot() == before, path


def test_restore_asks_for_yes_without_a_terminal(demo, tmp_path):
    path = tmp_path / "event.backup"
    call_command("backup", str(path))
    Tournament.objects.filter(pk=demo.pk).update(name="Changed since")
    with pytest.raises(CommandError, match="replaces all data in .*; add --yes to confirm"):
        call_command("restore", str(path))
    assert Tournament.objects.get(pk=demo.pk).name == "Changed since"


def test_command_line_exit_status_and_json_error(tmp_path):
    junk = tmp_path / "junk.backup"
    junk.write_text("not a database")
    done = subprocess.run(
        [sys.executable, "manage.py", "restore", str(junk), "--yes", "--json"],
        cwd=REPO,
        env=clean_env(tmp_path / "data"),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    error = json.loads(done.stdout)
    assert error["ok"] is False and error["error"].startswith(f"{junk} is not a Gibson backup")
    done = subprocess.run(
        [sys.executable, "manage.py", "backup", str(tmp_path / "nowhere" / "x.backup")],
        cwd=REPO,
        env=clean_env(tmp_path / "data"),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1 and "nowhere does not exist" in done.stderr


@pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite's own locking is tested here")
def test_sqlite_backup_while_a_write_is_in_progress_is_consistent(demo, tmp_path):
    """Another process is mid-transaction (uncommitted) while the backup runs: the backup
    holds the last committed state, not half of the write, and does not wait for it."""
    before = snapshot()
    writer = sqlite3.connect(connection.settings_dict["NAME"], timeout=5, isolation_level=None)
    try:
        writer.execute("BEGIN IMMEDIATE")
        writer.execute("UPDATE tournament_tournament SET name = 'half-written'")
        writer.execute("DELETE FROM tournament_auditevent")
        path = tmp_path / "during-a-write.backup"
        call_command("backup", str(path))
    finally:
        writer.execute("ROLLBACK")
        writer.close()
    Tournament.objects.update(name="changed after the backup")
    call_command("restore", str(path), "--yes")
    assert snapshot() == before


@POSTGRES_ONLY
def test_postgresql_uses_pg_dump_with_the_password_only_in_the_environment(
    demo, tmp_path, monkeypatch
):
    from tournament.management.commands import backup as backup_module

    calls = []
    real_run = subprocess.run

    def spy(argv, **kwargs):
        calls.append((argv, kwargs.get("env") or {}))
        return real_run(argv, **kwargs)

    monkeypatch.setattr(backup_module.subprocess, "run", spy)
    path = tmp_path / "event.dump"
    call_command("backup", str(path))
    assert path.read_bytes().startswith(b"PGDMP")
    Tournament.objects.filter(pk=demo.pk).update(name="Changed since")
    call_command("restore", str(path), "--yes")
    assert Tournament.objects.get(pk=demo.pk).name == demo.name
    tools = [Path(argv[0]).name for argv, _ in calls]
    assert tools == ["pg_dump", "pg_restore", "pg_restore"]  # dump; list to check; restore
    password = connection.settings_dict["PASSWORD"]
    for argv, env in calls:
        assert env.get("PGDATABASE") == connection.settings_dict["NAME"]
        if password:
            assert env["PGPASSWORD"] == password
            assert not any(password in arg for arg in argv)
    assert "-Fc" in calls[0][0]
    assert {"--clean", "--if-exists", "--single-transaction"} <= set(calls[2][0])
