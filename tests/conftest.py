"""Shared test fixtures: the real NASPA division files beside the repository."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO.parent / "shared" / "data"


@pytest.fixture(scope="session")
def shared_data() -> Path:
    if not (SHARED_DATA / "naspa-2023-a.t").exists():
        pytest.fail(f"real data files are missing: expected them in {SHARED_DATA}")
    return SHARED_DATA
