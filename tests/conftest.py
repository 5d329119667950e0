"""Shared test fixtures: the real NASPA division files kept in fixtures/tsh/ (see its README)."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
REAL_DATA = REPO / "fixtures" / "tsh"


@pytest.fixture(scope="session")
def real_data() -> Path:
    if not (REAL_DATA / "naspa-2023-a.t").exists():
        pytest.fail(f"real data files are missing: expected them in {REAL_DATA}")
    return REAL_DATA
