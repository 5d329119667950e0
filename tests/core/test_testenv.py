"""The test runner's own plugin (tests/testenv.py): how many workers ``-n auto`` starts, and
what each worker gets of its own."""

from __future__ import annotations

import pytest

from tests import testenv


def test_auto_starts_a_worker_a_core_and_one_more(monkeypatch):
    monkeypatch.delenv("PYTEST_XDIST_AUTO_NUM_WORKERS", raising=False)
    monkeypatch.setattr(testenv, "usable_cores", lambda: 2)
    assert testenv.pytest_xdist_auto_num_workers(None) == 3
    monkeypatch.setattr(testenv, "usable_cores", lambda: 1)
    assert testenv.pytest_xdist_auto_num_workers(None) == 2


def test_auto_never_passes_the_redis_databases_cap(monkeypatch):
    monkeypatch.delenv("PYTEST_XDIST_AUTO_NUM_WORKERS", raising=False)
    monkeypatch.setattr(testenv, "usable_cores", lambda: 64)
    assert testenv.pytest_xdist_auto_num_workers(None) == testenv.MAX_WORKERS == 8


def test_xdists_own_variable_still_decides(monkeypatch):
    monkeypatch.setenv("PYTEST_XDIST_AUTO_NUM_WORKERS", "5")
    assert testenv.pytest_xdist_auto_num_workers(None) is None  # xdist's hook reads it


@pytest.mark.parametrize(
    ("url", "index", "expected"),
    [
        ("redis://127.0.0.1:6379/0", 0, "redis://127.0.0.1:6379/0"),
        ("redis://127.0.0.1:6379/0", 2, "redis://127.0.0.1:6379/4"),
        ("redis://127.0.0.1:6379/1", 3, "redis://127.0.0.1:6379/7"),
    ],
)
def test_each_worker_takes_two_redis_databases_of_its_own(url, index, expected):
    assert testenv._redis_url_for_worker(url, index) == expected


def test_usable_cores_counts_at_least_one():
    assert testenv.usable_cores() >= 1


def test_a_gone_test_databases_sidecars_are_swept_and_a_live_ones_kept(tmp_path):
    from tests.migrated import sweep_orphaned_sidecars

    (tmp_path / "test_live.sqlite3").write_bytes(b"")
    for name in ("test_live.sqlite3", "test_gone.sqlite3_gw1"):
        for extra in ("-wal", "-shm"):
            (tmp_path / f"{name}{extra}").write_bytes(b"x")
    (tmp_path / "gibson.sqlite3-wal").write_bytes(b"x")  # not a test database: left alone
    assert sweep_orphaned_sidecars(tmp_path) == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "gibson.sqlite3-wal",
        "test_live.sqlite3",
        "test_live.sqlite3-shm",
        "test_live.sqlite3-wal",
    ]


def test_destroying_a_test_database_removes_its_sidecars(tmp_path):
    from django.db import connection
    from django.db.backends.sqlite3.creation import DatabaseCreation

    if connection.vendor != "sqlite":
        pytest.skip("SQLite's own files")
    database = tmp_path / "test_x.sqlite3"
    for extra in ("", "-wal", "-shm"):
        (tmp_path / f"test_x.sqlite3{extra}").write_bytes(b"x")
    DatabaseCreation(connection)._destroy_test_db(str(database), 0)
    assert list(tmp_path.iterdir()) == []
