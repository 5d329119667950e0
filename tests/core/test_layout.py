"""The layout holds by tools, not by memory (docs/architecture.md).

import-linter checks the contracts written in pyproject.toml (engines import no Django,
selectors never import services, domain code never imports a face, ...); this module runs it as
part of the test command, shows that it does catch an upward import, computes the import cycles
among the project's modules (there must be none), checks that every file the code, the
docs and the README point at is in the repository, and holds three ratchets: functions over 80
lines, source files over 900 lines and hand-written ``except ServiceError`` blocks in the faces
may only get fewer; and app code cites no issue number (a clone has no issue tracker).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import grimp
import networkx as nx

from tests.conftest import REPO

PACKAGES = ("tournament", "pairings", "ratings")
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def _lint_imports(cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache", "--config", str(cwd / "pyproject.toml")],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(cwd)},
        timeout=300,
    )


def test_import_contracts_hold():
    done = _lint_imports(REPO)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "0 broken" in done.stdout


def test_an_upward_import_breaks_its_contract(tmp_path):
    """A copy of the three packages with one import that runs the wrong way: a selector that
    imports the write services. import-linter must refuse it and name the contract."""
    for package in PACKAGES:
        shutil.copytree(
            REPO / package, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__")
        )
    shutil.copy(REPO / "pyproject.toml", tmp_path / "pyproject.toml")
    selectors = tmp_path / "tournament" / "selectors" / "core.py"
    selectors.write_text(
        selectors.read_text(encoding="utf-8") + "\nfrom tournament.services import results\n",
        encoding="utf-8",
    )
    done = _lint_imports(tmp_path)
    assert done.returncode != 0
    assert "Selectors never import services BROKEN" in done.stdout
    assert "tournament.selectors.core -> tournament.services.results" in done.stdout


def test_a_new_module_is_held_by_the_contracts(tmp_path):
    """The contracts name packages, not modules: a module written tomorrow into
    tournament/services/ that imports a page, into tournament/api/ that imports another face
    (the API's own contract names the web face too), or into pairings/ that calls
    tournament's entry services, breaks its contract without anyone adding it to
    pyproject.toml."""
    for package in PACKAGES:
        shutil.copytree(
            REPO / package, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__")
        )
    shutil.copy(REPO / "pyproject.toml", tmp_path / "pyproject.toml")
    services = tmp_path / "tournament" / "services" / "tomorrow.py"
    services.write_text("from tournament.web import errors\n", encoding="utf-8")
    api = tmp_path / "tournament" / "api" / "tomorrow.py"
    api.write_text("from tournament.web import gate\n", encoding="utf-8")
    shell = tmp_path / "pairings" / "tomorrow.py"
    shell.write_text("from tournament.services import entries\n", encoding="utf-8")
    done = _lint_imports(tmp_path)
    assert done.returncode != 0
    assert "Domain code never imports a face BROKEN" in done.stdout
    assert "tournament.services.tomorrow -> tournament.web.errors" in done.stdout
    assert "Faces never import faces BROKEN" in done.stdout
    assert "The API imports no web face BROKEN" in done.stdout
    assert "tournament.api.tomorrow -> tournament.web.gate" in done.stdout
    assert "errors and audit BROKEN" in done.stdout  # the pairing and rating shells' contract
    assert "pairings.tomorrow -> tournament.services.entries" in done.stdout


def _project_graph() -> nx.DiGraph:
    sys.path.insert(0, str(REPO))
    graph = grimp.build_graph(*PACKAGES, cache_dir=None)
    edges = nx.DiGraph()
    for module in graph.modules:
        edges.add_node(module)
        for imported in graph.find_modules_directly_imported_by(module):
            edges.add_edge(module, imported)
    return edges


def import_cycles(edges: nx.DiGraph) -> list[list[str]]:
    """Every group of modules that import each other, directly or through others."""
    return sorted(sorted(c) for c in nx.strongly_connected_components(edges) if len(c) > 1)


def test_no_import_cycles_among_project_modules():
    edges = _project_graph()
    modules = sum(1 for p in PACKAGES for _ in (REPO / p).rglob("*.py"))
    assert edges.number_of_nodes() == modules  # the whole project was read
    assert import_cycles(edges) == []


def test_the_cycle_finder_finds_a_cycle():
    edges = nx.DiGraph(
        [
            ("a.selectors", "a.pairing"),
            ("a.pairing", "a.services"),
            ("a.services", "a.selectors"),
            ("a.services", "a.models"),
        ]
    )
    assert import_cycles(edges) == [["a.pairing", "a.selectors", "a.services"]]


# A path the text names: under one of the repository's folders, with a file's ending.
PATH_REFERENCE = re.compile(
    r"(?<![\w/.-])((?:docs|tournament|pairings|ratings|fixtures|tests|templates|\.ci)/[\w/.-]*\w)"
)
MARKDOWN_REFERENCE = re.compile(r"(?<![\w/.-])([\w-]+\.md)\b")
# Places that name a file they make themselves (a test's probe file).
MADE_BY_THE_TEST = {"tournament/probe.py"}


def _exists(ref: str) -> bool:
    candidates = [REPO / ref, REPO / f"{ref}.py", REPO / "templates" / ref]
    candidates += [static / ref for static in REPO.glob("*/static")]
    return any(c.exists() for c in candidates)


def test_every_file_the_code_and_docs_name_is_in_the_repository():
    """A clone holds only this repository: a docstring citing a rule must cite a file in it
    (the rules the code cites are copied into docs/), and the README and docs must name files
    that exist."""
    texts = [REPO / "README.md"]
    for folder in (*PACKAGES, "tests", "docs", "templates"):
        texts += [
            p
            for p in (REPO / folder).rglob("*")
            if p.suffix in (".py", ".md", ".html") and "migrations" not in p.parts
        ]
    # every markdown file's name, read once (a glob of the whole clone per reference, .venv
    # included, cost 16 s)
    markdown = {
        p.name
        for p in REPO.rglob("*.md")
        if not {".venv", ".git", "node_modules"} & set(p.relative_to(REPO).parts)
    }
    missing = []
    for path in texts:
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for ref in PATH_REFERENCE.findall(line):
                ref = ref.rstrip(".")
                if ref not in MADE_BY_THE_TEST and not _exists(ref):
                    missing.append(f"{path.relative_to(REPO)}:{n}: {ref}")
            for ref in MARKDOWN_REFERENCE.findall(line):
                if ref not in markdown:
                    missing.append(f"{path.relative_to(REPO)}:{n}: {ref}")
    assert missing == []


def test_layout_page_matches_the_tree():
    """Every package folder the manual's Layout section (docs/development.md) lists exists, and
    every domain folder of the tree is listed there."""
    page = (REPO / "docs" / "development.md").read_text(encoding="utf-8")
    layout = page.split("## Layout", 1)[1].split("\n## ", 1)[0]
    named = set(re.findall(r"`((?:tournament|pairings|ratings)/[\w/]*)`", layout))
    assert named, "docs/development.md has a Layout section naming the folders"
    for folder in named:
        assert (REPO / folder.rstrip("/")).exists(), folder
    for package in PACKAGES:
        for sub in (REPO / package).iterdir():
            if sub.is_dir() and (sub / "__init__.py").exists() and sub.name != "migrations":
                assert f"{package}/{sub.name}/" in named, f"{package}/{sub.name}/ not in Layout"


# ------------------------------------------------------------------------- size ratchets

# Functions over LONG_FUNCTION lines in tournament/, pairings/ and ratings/ (migrations aside).
# A ratchet: the count may only go down; lower the ceiling when a long function is split.
LONG_FUNCTION = 80
LONG_FUNCTIONS_CEILING = 15
# Source files over LONG_FILE lines (migrations aside): a file that long holds several
# concepts, each of which deserves its own module. A ratchet as well: 10 when counted first,
# then pairings/engine/simulate.py and needs.py were split, then pairings/services/rounds.py,
# tournament/interchange/imports.py, tournament/services/results.py, services/notices.py and
# pairings/engine/weighted.py.
LONG_FILE = 900
LONG_FILES_CEILING = 0


def long_functions(paths: list[Path]) -> list[str]:
    """``path:line name (N lines)`` of every function or method longer than LONG_FUNCTION."""
    import ast

    found = []
    for path in paths:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                size = node.end_lineno - node.lineno + 1
                if size > LONG_FUNCTION:
                    rel = path.relative_to(REPO) if path.is_relative_to(REPO) else path.name
                    found.append(f"{rel}:{node.lineno} {node.name} ({size} lines)")
    return found


def _source_files() -> list[Path]:
    return [
        path
        for package in PACKAGES
        for path in sorted((REPO / package).rglob("*.py"))
        if "migrations" not in path.parts
    ]


def test_long_functions_only_get_fewer():
    found = long_functions(_source_files())
    assert len(found) <= LONG_FUNCTIONS_CEILING, (
        f"{len(found)} functions over {LONG_FUNCTION} lines (ceiling "
        f"{LONG_FUNCTIONS_CEILING}): split the new one\n" + "\n".join(sorted(found))
    )


def test_the_long_function_count_sees_a_long_function(tmp_path):
    body = "\n".join(f"    x{i} = {i}" for i in range(LONG_FUNCTION))
    probe = tmp_path / "probe.py"
    probe.write_text(f"def short():\n    return 1\n\n\ndef long():\n{body}\n    return x0\n")
    assert long_functions([probe]) == ["probe.py:5 long (82 lines)"]


def test_long_files_only_get_fewer():
    over = []
    for path in _source_files():
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > LONG_FILE:
            over.append(f"{path.relative_to(REPO)} ({lines} lines)")
    assert len(over) <= LONG_FILES_CEILING, (
        f"{len(over)} source files over {LONG_FILE} lines (ceiling {LONG_FILES_CEILING}): "
        "split the new one into modules of its concepts\n" + "\n".join(over)
    )


# ---------------------------------------------------------------- arrows running back up

# The layers of docs/architecture.md's drawing, lowest first. A module belongs to the layer of
# the longest prefix that names it; every module of the three packages must have one (but
# the project's wiring below), so a new module is placed the day it is written. An import
# from a module to one in a HIGHER layer is an arrow running back up the drawing.
LAYERS: dict[str, tuple[str, ...]] = {
    "pure": (
        "pairings.engine",
        "pairings.calibration",
        "ratings.engine",
        "tournament.standings",
        "tournament.team_standings",
        "tournament.formats",
        "tournament.reports",
        "tournament.scoreline",
        "tournament.clock",
        "tournament.namesearch",
        "tournament.turns",
    ),
    "base": (
        "tournament.models",
        "tournament.clubs.models",
        "pairings.models",
        "ratings.models",
        "tournament.errors",
        "tournament.clubs.errors",
        "pairings.errors",
        "tournament.access",
        "tournament.checks",
        "ratings.explain",
        "tournament.cache",
        "tournament.throttle",
        "tournament.dbhealth",
        "tournament.dblocks",
        "tournament.health",
        "tournament.filecache",
        "tournament.live",
        "tournament.languages",
        "tournament.catalogues",
        "tournament.siteurl",
        "tournament.redisurl",
        "tournament.logfilters",
        "tournament.refusals",
    ),
    "selectors": (
        "tournament.selectors",
        "tournament.shapes",
        "tournament.stream",
        "tournament.clubs.selectors",
        "tournament.clubs.ladder",
        "tournament.clubs.records",
        "pairings.selectors",
        "pairings.needs",
        "pairings.needs_words",
        "pairings.chances",
        "ratings.selectors",
        "ratings.chart",
    ),
    "services": (
        "tournament.services",
        "pairings.services",
        "ratings.services",
        "ratings.division",
        "ratings.weekend",
        "ratings.tasks",
        "tournament.chances",
    ),
    "apps": (
        "tournament.clubs.services",
        "tournament.interchange",
        "tournament.reports.build",
        "tournament.reports.tasks",
        "tournament.sync",
        "tournament.tasks",
        "tournament.demo",
    ),
    "faces": (
        "tournament.web",
        "tournament.api",
        "tournament.management",
        "tournament.admin",
        "tournament.admin_base",
        "tournament.admin_site",
        "tournament.clubs.web",
        "tournament.templatetags",
        "tournament.manual",
        "tournament.manual_reference",
        "tournament.manual_screenshots",
        "pairings.admin",
        "ratings.admin",
    ),
}
# The project's wiring: settings, URL roots, app configs, process entry points, migrations.
WIRING = re.compile(
    r"^(tournament|pairings|ratings)(\.clubs)?(\.(apps|settings|celery|wsgi|asgi|urls))?$"
    r"|\.migrations(\.|$)"
)
# A ratchet like the two above: measured 0 when first counted.
ARROWS_BACK_UP_CEILING = 0


def layer_of(module: str) -> int | None:
    """The rank of ``module``'s layer (0 = pure), by the longest prefix naming it."""
    best: tuple[int, int] | None = None
    for rank, prefixes in enumerate(LAYERS.values()):
        for prefix in prefixes:
            if module == prefix or module.startswith(prefix + "."):
                if best is None or len(prefix) > best[0]:
                    best = (len(prefix), rank)
    return None if best is None else best[1]


def arrows_back_up(edges: nx.DiGraph) -> tuple[list[str], list[str]]:
    """The imports that run from a lower layer up to a higher one, and the modules no layer
    names (both must be empty of surprises)."""
    unplaced = sorted(m for m in edges.nodes if layer_of(m) is None and not WIRING.search(m))
    up = []
    for source, target in edges.edges:
        low, high = layer_of(source), layer_of(target)
        if low is not None and high is not None and high > low:
            up.append(f"{source} -> {target}")
    return sorted(up), unplaced


def test_every_module_has_a_layer_and_no_arrow_runs_back_up():
    up, unplaced = arrows_back_up(_project_graph())
    assert unplaced == [], "place these modules in a layer of LAYERS (docs/architecture.md)"
    assert len(up) <= ARROWS_BACK_UP_CEILING, "\n".join(up)


def test_the_arrow_count_sees_an_arrow_back_up():
    edges = nx.DiGraph(
        [
            ("tournament.web.public", "tournament.selectors.core"),  # down: fine
            ("tournament.selectors.core", "tournament.services.results"),  # up
            ("pairings.engine.weighted", "pairings.selectors"),  # up
            ("tournament.reports.build", "tournament.services.audit"),  # the longer prefix: down
        ]
    )
    edges.add_node("tournament.tomorrow")
    up, unplaced = arrows_back_up(edges)
    assert up == [
        "pairings.engine.weighted -> pairings.selectors",
        "tournament.selectors.core -> tournament.services.results",
    ]
    assert unplaced == ["tournament.tomorrow"]


# --------------------------------------------------------------- refusals: one place per face

# ``except ServiceError`` blocks in the web, club web, admin and sync-transport faces. A face
# answers a refusal in one place (tournament/web/refusals.py's middleware for pages, htmx and
# scripts; the API's exception handler; the commands' base): a view keeps a block only to show
# its page again with the form as typed (``tournament.refusals.refuse``). A ratchet: 122
# when counted first (issue 33); lower the ceiling when a block goes.
REFUSAL_BLOCKS_CEILING = 113
FACES = ("tournament/web", "tournament/clubs/web", "tournament/sync")


def refusal_blocks(paths: list[Path]) -> dict[str, int]:
    """``path -> N``: the ``except`` clauses of each file that catch ServiceError (alone or in
    a tuple, by name or as ``errors.ServiceError``)."""
    import ast

    def names(node: ast.expr | None) -> list[str]:
        if node is None:
            return []
        if isinstance(node, ast.Tuple):
            return [n for e in node.elts for n in names(e)]
        if isinstance(node, ast.Attribute):
            return [node.attr]
        return [node.id] if isinstance(node, ast.Name) else []

    counts: dict[str, int] = {}
    for path in paths:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        found = sum(
            1
            for node in ast.walk(tree)
            if isinstance(node, ast.ExceptHandler) and "ServiceError" in names(node.type)
        )
        if found:
            rel = path.relative_to(REPO) if path.is_relative_to(REPO) else path
            counts[str(rel)] = found
    return counts


def _face_files() -> list[Path]:
    paths = [p for face in FACES for p in sorted((REPO / face).rglob("*.py"))]
    return paths + sorted((REPO / "tournament").glob("admin*.py"))


def test_refusal_blocks_in_the_faces_only_get_fewer():
    counts = refusal_blocks(_face_files())
    total = sum(counts.values())
    assert total <= REFUSAL_BLOCKS_CEILING, (
        f"{total} except ServiceError blocks in the faces (ceiling {REFUSAL_BLOCKS_CEILING}): "
        "let the refusal through to the face's one place (tournament/web/refusals.py), or "
        "show the form again with refuse(form, exc)\n"
        + "\n".join(f"{path}: {n}" for path, n in sorted(counts.items()))
    )


def test_the_refusal_block_count_sees_every_spelling(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text(
        "try:\n    pass\nexcept ServiceError:\n    pass\n"
        "try:\n    pass\nexcept (ValueError, errors.ServiceError) as exc:\n    pass\n"
        "try:\n    pass\nexcept ValueError:\n    pass\n"
        "# except ServiceError in a comment\n"
    )
    assert refusal_blocks([probe]) == {str(probe): 2}


# App code names the concept, never an issue number: a clone has no issue tracker, so
# "(issue 23)" tells its reader nothing where "(venue mode)" tells them where to look. Tests and
# migrations (history) may keep theirs.
ISSUE_NUMBER = re.compile(r"issue ?#?[0-9]+", re.IGNORECASE)


def _app_files() -> list[Path]:
    assets = [
        path
        for folder in ("templates", "tournament/static")
        for path in sorted((REPO / folder).rglob("*"))
        if path.suffix in (".html", ".js")
    ]
    # the manual and the README are read by people with a clone and no tracker too
    manual = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
    return _source_files() + assets + manual


def issue_numbers(paths: list[Path]) -> list[str]:
    """``path:line text`` of every line that cites an issue number."""
    found = []
    for path in paths:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if ISSUE_NUMBER.search(line):
                rel = path.relative_to(REPO) if path.is_relative_to(REPO) else path.name
                found.append(f"{rel}:{number} {line.strip()}")
    return found


def test_app_code_cites_no_issue_number():
    found = issue_numbers(_app_files())
    assert not found, (
        f"{len(found)} lines of app code cite an issue number a clone cannot follow: "
        "say the concept or the reason in words\n" + "\n".join(found)
    )


def test_the_issue_number_scan_sees_every_spelling(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text(
        "# venue mode (issue 23)\n# Issue #40: speed\n# see issue12\n# the issue is clear\n"
    )
    assert issue_numbers([probe]) == [
        "probe.py:1 # venue mode (issue 23)",
        "probe.py:2 # Issue #40: speed",
        "probe.py:3 # see issue12",
    ]
    assert _app_files(), "the scan found no app files"
    assert any(path.suffix == ".html" for path in _app_files())
