"""The pure cores stay pure: importing them loads no Django (docs/architecture.md, 'Pure cores')."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import REPO

PURE = [
    "pairings.engine",
    "ratings.engine",
    "tournament.standings",
    "tournament.formats",
    "tournament.formats.tsh",
    "tournament.formats.config",
    "tournament.formats.archive",
    "tournament.formats.tourney_js",
    "tournament.formats.tou",
    "tournament.reports",
    "tournament.scoreline",
]


def test_pure_cores_import_no_django():
    code = (
        "import sys\n"
        + "".join(f"import {m}\n" for m in PURE)
        + "print(sorted({m.split('.')[0] for m in sys.modules if m.startswith('django')}))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
        env={"PATH": "/usr/bin:/bin"},
    )
    assert out.stdout.strip() == "[]"


def test_engines_do_not_import_the_tournament_app():
    code = (
        "import sys\nimport pairings.engine, ratings.engine\n"
        "print(sorted(m for m in sys.modules if m.startswith('tournament')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
        env={"PATH": "/usr/bin:/bin"},
    )
    assert out.stdout.strip() == "[]"


def test_repository_stands_alone():
    """Tests, benchmarks and the README read nothing beside the repository (a fresh clone of it
    alone must pass its tests): no path climbs out to the team's shared/ folder."""
    offenders = []
    for path in [REPO / "README.md", *sorted((REPO / "tests").rglob("*.py"))]:
        text = path.read_text(encoding="utf-8")
        # the markers are joined at run time so neither this file nor its compiled bytecode
        # holds them (Python folds "a" + "b" into one constant in the .pyc)
        pieces = ((".", "./shared"), ('"shared" / ', '"data"'), ('parent / "', 'shared"'))
        for marker in ("".join(p) for p in pieces):
            if marker in text:
                offenders.append(f"{path.relative_to(REPO)}: {marker}")
    assert offenders == []
    assert (REPO / "fixtures" / "tsh" / "naspa-2023-a.t").exists()
