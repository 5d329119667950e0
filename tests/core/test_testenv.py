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
