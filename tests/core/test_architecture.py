"""The pure cores stay pure: importing them loads no Django (ARCHITECTURE.md, 'Pure cores')."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import REPO

PURE = [
    "pairings.engine", "ratings.engine", "tournament.standings", "tournament.formats",
    "tournament.formats.tsh", "tournament.formats.config", "tournament.formats.archive",
    "tournament.formats.tourney_js", "tournament.formats.tou", "tournament.reports",
]


def test_pure_cores_import_no_django():
    code = (
        "import sys\n"
        + "".join(f"import {m}\n" for m in PURE)
        + "print(sorted({m.split('.')[0] for m in sys.modules if m.startswith('django')}))"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True,
                         check=True, env={"PATH": "/usr/bin:/bin"})
    assert out.stdout.strip() == "[]"


def test_engines_do_not_import_the_tournament_app():
    code = (
        "import sys\nimport pairings.engine, ratings.engine\n"
        "print(sorted(m for m in sys.modules if m.startswith('tournament')))"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True,
                         check=True, env={"PATH": "/usr/bin:/bin"})
    assert out.stdout.strip() == "[]"
