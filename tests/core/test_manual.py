"""The manual (issue 34): docs/ builds in strict mode, names everything a director can set, type
or be refused with, and the site serves it at /docs/; the README stays short and its links work.

The build runs MkDocs in a child process (``tournament.manual.build_manual``, a subprocess):
about 2-4 s a build on a busy 2-core machine, so the served-manual tests share one build.
"""

from __future__ import annotations

import json
import re
import shutil
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import models

from tests.conftest import REPO
from tournament import manual_reference
from tournament.errors import CODES
from tournament.formats.config import COMMON_KEYS
from tournament.manual import (
    ManualError,
    build_manual,
    codes_outside_codes,
    refusal_codes_page,
)
from tournament.manual_reference import (
    NOT_SETTINGS,
    api_reference_page,
    api_schema,
    settings_page,
)
from tournament.models import Division, Tournament

DOCS = REPO / "docs"
REFERENCE = DOCS / "reference.md"
README = REPO / "README.md"
PACKAGES = ("tournament", "pairings", "ratings")
# a setting read from the environment: os.environ.get("X"), os.environ["X"], os.getenv("X"),
# and settings.py's own readers env_bool("X") and _env_int("X")
ENV_READ = re.compile(
    r"""(?:environ\.get|environ\[|getenv|env_bool|_env_int)\(?\s*["']([A-Z][A-Z0-9_]+)["']"""
)


def _nav_pages() -> list[str]:
    """Every page mkdocs.yml's navigation lists."""
    return re.findall(r":\s*([\w-]+\.md)\s*$", (REPO / "mkdocs.yml").read_text(), re.M)


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    """The manual built once by the command a site runs (``manage.py build_manual --out``)."""
    out = tmp_path_factory.mktemp("manual") / "site"
    said = StringIO()
    call_command("build_manual", "--out", str(out), "--json", stdout=said)
    answer = json.loads(said.getvalue())
    assert answer["ok"] and answer["folder"] == str(out.resolve())
    assert answer["pages"] >= len(_nav_pages())
    return out


# ------------------------------------------------------------------------------ the build


@pytest.mark.slow(seconds=4)
def test_the_manual_builds_in_strict_mode_with_every_page_and_nothing_from_the_internet(built):
    """Two to four seconds: one MkDocs build of the whole site (shared by the tests below)."""
    assert set(_nav_pages()) == {p.name for p in DOCS.glob("*.md")}, "a page outside the nav"
    for page in _nav_pages():
        name = page.removesuffix(".md")
        assert (built / ("index.html" if name == "index" else f"{name}/index.html")).is_file()
    loads_from_outside = []
    for page in built.rglob("*.html"):
        html = page.read_text(encoding="utf-8")
        loads_from_outside += re.findall(r"<script[^>]+src=\"https?://[^\"]+", html)
        loads_from_outside += re.findall(r"<link[^>]+href=\"https?://[^\"]+\"[^>]*>", html)
        loads_from_outside += re.findall(r"fonts\.(?:googleapis|gstatic)\.com", html)
    assert loads_from_outside == []
    assert (built / "search" / "search_index.json").is_file()  # search works offline


@pytest.mark.slow(seconds=4)
def test_a_broken_link_or_a_page_left_out_fails_the_build(tmp_path):
    """A copy of the manual with a link to a page that does not exist, one to a heading that
    does not, and a page the navigation leaves out: the strict build refuses and names all
    three. Seconds: one MkDocs build."""
    lost, stray = "lost-page", "stray"  # pages named without their ending: no file has them
    shutil.copytree(DOCS, tmp_path / "docs")
    shutil.copy(REPO / "mkdocs.yml", tmp_path / "mkdocs.yml")
    index = tmp_path / "docs" / "index.md"
    index.write_text(
        index.read_text()
        + f"\nSee [the lost page]({lost}.md) and [a step](run-an-event.md#no-such-step).\n"
        + "\n![A picture nobody took](img/never-taken.png)\n"
    )
    (tmp_path / "docs" / f"{stray}.md").write_text("# A page nobody listed\n")
    with pytest.raises(ManualError) as refused:
        build_manual(tmp_path / "site", config=tmp_path / "mkdocs.yml")
    assert f"{lost}.md" in str(refused.value)
    assert f"{stray}.md" in str(refused.value)
    assert "no-such-step" in str(refused.value)
    assert "img/never-taken.png" in str(refused.value)


def test_build_manual_refuses_to_replace_a_folder_that_is_not_a_manual(tmp_path):
    keep = tmp_path / "keep.txt"
    keep.write_text("a director's notes")
    with pytest.raises(CommandError, match="not a built manual"):
        call_command("build_manual", "--out", str(tmp_path), stdout=StringIO())
    assert keep.read_text() == "a director's notes"


def test_no_line_of_the_manual_becomes_a_heading_by_accident():
    """MkDocs' Markdown makes a heading of any line starting with '#', space or not: a wrapped
    sentence starting "#1 meets..." became one (GitHub's reader had shown it as text)."""
    accidental = [
        f"{page.name}:{n}: {line[:40]}"
        for page in sorted(DOCS.glob("*.md"))
        for n, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1)
        if re.match(r"#+[^#\s]", line)
    ]
    assert accidental == []


# ------------------------------------------------------------------------------ the pictures

PICTURE = re.compile(r"!\[([^\]]*)\]\(([^)\s]+)\)")


def test_every_picture_a_page_shows_exists_says_what_it_shows_and_the_pictures_stay_small():
    """Each picture a page shows is a file of docs/ with alt text, each picture the tool takes
    is shown with the tool's own alt text, none lies unused, and all of them stay small (the
    manual travels with the code and is served to phones at a venue)."""
    from tournament.manual_screenshots import PDF_ALT, PDF_SHOT, SHOTS

    shown: dict[str, str] = {}
    missing, no_alt = [], []
    for page in sorted(DOCS.glob("*.md")):
        for alt, target in PICTURE.findall(page.read_text(encoding="utf-8")):
            if not (DOCS / target).is_file():
                missing.append(f"{page.name}: {target}")
            if not alt.strip():
                no_alt.append(f"{page.name}: {target}")
            shown[target] = alt
    assert missing == [] and no_alt == []
    taken = {f"img/{s.name}.png": s.alt for s in SHOTS} | {f"img/{PDF_SHOT}.png": PDF_ALT}
    assert {t: shown.get(t) for t in taken} == taken
    files = sorted((DOCS / "img").glob("*"))
    assert sorted(f"img/{f.name}" for f in files) == sorted(shown), "a picture no page shows"
    assert sum(f.stat().st_size for f in files) < 400_000
    assert max(f.stat().st_size for f in files) < 60_000


def test_the_screenshot_command_names_a_picture_it_does_not_take():
    with pytest.raises(CommandError, match="--only console-pairng: no such picture"):
        call_command("build_manual", "--screenshots", "--only", "console-pairng", stdout=StringIO())
    with pytest.raises(CommandError, match="give it with --screenshots"):
        call_command("build_manual", "--only", "console-pairing", stdout=StringIO())


def test_a_pdf_page_becomes_a_small_picture(tmp_path):
    """The scorecards' picture: poppler renders the first page, reduced to a small palette."""
    from PIL import Image
    from reportlab.lib.pagesizes import letter
    from reportlab.pdfgen import canvas

    from tournament.manual_screenshots import pdf_page_png

    pdf = tmp_path / "cards.pdf"
    sheet = canvas.Canvas(str(pdf), pagesize=letter)
    sheet.drawString(72, 700, "#1 Yamamoto, Yuki")
    sheet.showPage()
    sheet.drawString(72, 700, "page two, never drawn")
    sheet.save()
    picture = pdf_page_png(pdf, tmp_path / "img" / "cards.png")
    with Image.open(picture) as image:
        assert image.mode == "P"  # a palette
        assert image.size == (510, 660)  # 8.5 x 11 in at 60 dpi: the first page only
    assert picture.stat().st_size < 20_000


# ------------------------------------------------------------------------------ the reference


def test_every_refusal_code_is_on_the_refusals_page():
    page = (DOCS / "refusals.md").read_text(encoding="utf-8")
    missing = [code for code in CODES if f"| `{code}` |" not in page]
    assert missing == [], f"run manage.py build_manual --write-codes; missing: {missing}"
    assert page == refusal_codes_page(), "run manage.py build_manual --write-codes"


def test_codes_the_faces_answer_outside_codes_are_on_the_refusals_page():
    outside = codes_outside_codes()
    assert outside.get("too_many_heavy_requests") == "tournament/web/ratelimit.py"
    page = (DOCS / "refusals.md").read_text(encoding="utf-8")
    assert [code for code in outside if f"| `{code}` |" not in page] == []


def test_the_refusals_page_would_name_a_new_code(monkeypatch):
    monkeypatch.setitem(CODES, "brand_new_refusal", "something {what} was refused")
    assert "| `brand_new_refusal` | `something {what} was refused` |" in refusal_codes_page()


def _settings_page_sections() -> dict[str, str]:
    """docs/settings.md cut at its '## ' headings: heading -> the text under it."""
    page = (DOCS / "settings.md").read_text(encoding="utf-8")
    return {part.split("\n", 1)[0]: part.split("\n", 1)[1] for part in page.split("\n## ")[1:]}


def test_every_director_setting_of_a_tournament_and_a_division_is_on_the_settings_page():
    """Read from the models here, not through the generator: a field a director can set
    (concrete, editable, not Django's id) added to Tournament or Division fails this test
    until ``build_manual --write-codes`` writes its row, with a meaning."""
    sections = _settings_page_sections()
    missing = []
    for model in (Tournament, Division):
        rows = sections.get(model.__name__, "")
        for field in model._meta.get_fields():
            if not field.concrete or field.auto_created or not field.editable:
                continue
            if f"{model.__name__}.{field.name}" in NOT_SETTINGS:
                continue
            row = re.search(rf"^\| `{field.name}` \(.*$", rows, re.M)
            cells = row.group().split(" | ") if row else []
            if len(cells) != 4 or not all(c.strip(" |") for c in cells):
                missing.append(f"{model.__name__}.{field.name}")
    assert missing == [], f"run manage.py build_manual --write-codes; missing: {missing}"
    assert set(NOT_SETTINGS) == {"Division.tournament"}  # the parent, not a setting
    page = (DOCS / "settings.md").read_text(encoding="utf-8")
    assert page == settings_page(), "run manage.py build_manual --write-codes"


def test_the_settings_page_says_the_tsh_key_and_the_default_from_the_model():
    rows = _settings_page_sections()["Tournament"]
    assert "| `bye_spread` (bye spread) | spread a bye scores (a win) | `50` | `bye_spread` |" in (
        rows
    )
    assert "`nsa` (NASPA (North America))" in rows  # the choices, with their labels
    assert re.search(r"^\| `gibson` \(gibson\) \| .* \| on \| `gibson` \|$", rows, re.M)
    assert re.search(r"^\| `name` \(name\) \| .* \| required \| `event_name` \|$", rows, re.M)
    assert "| `rating_system` (rating system) |" in _settings_page_sections()["Division"]


def test_a_new_setting_needs_its_row_and_a_meaning(monkeypatch):
    """A field added to Tournament gets a row on the next --write-codes (so the committed page
    is out of date until then); one with no help text and no hand-written meaning is refused
    rather than given a blank row."""
    fields = manual_reference.setting_fields()
    fee = models.PositiveIntegerField(default=0, help_text="the entry fee, in cents")
    fee.set_attributes_from_name("entry_fee")
    monkeypatch.setattr(
        manual_reference, "setting_fields", lambda: [*fields, ("Tournament.entry_fee", fee)]
    )
    page = settings_page()
    assert "| `entry_fee` (entry fee) | the entry fee, in cents | `0` | none |" in page
    assert page != (DOCS / "settings.md").read_text(encoding="utf-8")
    silent = models.BooleanField(default=False)
    silent.set_attributes_from_name("silent")
    monkeypatch.setattr(
        manual_reference, "setting_fields", lambda: [*fields, ("Tournament.silent", silent)]
    )
    with pytest.raises(ManualError, match="Tournament.silent has no help text"):
        settings_page()


def test_the_api_reference_is_what_the_published_schema_says_now():
    """docs/api-reference.md is written from drf-spectacular's schema: an endpoint added,
    removed or redocumented fails this test until ``build_manual --write-codes`` runs."""
    page = (DOCS / "api-reference.md").read_text(encoding="utf-8")
    schema = api_schema()
    operations = [
        f"### {method.upper()} `{path}`"
        for path, methods in schema["paths"].items()
        for method in methods
        if method in ("get", "post", "put", "patch", "delete")
    ]
    assert len(operations) > 40
    assert [o for o in operations if o not in page] == []
    assert page == api_reference_page(schema), "run manage.py build_manual --write-codes"


def test_the_api_reference_shows_an_endpoint_with_its_parameters_body_and_answers():
    page = (DOCS / "api-reference.md").read_text(encoding="utf-8")
    results = page.split("### POST `/api/v1/tournaments/{slug}/divisions/{division}/results/`")[1]
    results = results.split("\n### ")[0]
    assert "Record a game's result from one player's side" in results  # the view's docstring
    assert "Sign-in: an API token" in results
    assert "| `division` | path | string | yes | the division's slug |" in results
    assert "| `player` | integer | yes | player number |" in results  # the request's fields
    assert "one of `scores`, `forfeit`, `double_forfeit`" in results
    assert "| 201 | done | `Game` |" in results and "| 403 | refused | `Errors` |" in results
    assert "\n### `Game`\n" in page  # the answer's object, field by field


def test_the_api_reference_would_show_a_new_endpoint():
    schema = api_schema()
    schema["paths"]["/api/v1/tournaments/{slug}/prizes/"] = {
        "get": {"description": "The prizes won so far.\n\nWhy it is cached.", "responses": {}}
    }
    page = api_reference_page(schema)
    assert "### GET `/api/v1/tournaments/{slug}/prizes/`\n\nThe prizes won so far.\n" in page
    assert "Why it is cached" not in page
    assert page != (DOCS / "api-reference.md").read_text(encoding="utf-8")


def importer_config_keys() -> set[str]:
    """Every config.tsh key the importer reads: the config reader's ``COMMON_KEYS`` and each
    key the importer's modules (``tournament/interchange/imports.py`` and its steps,
    ``import_*.py``) read from the settings by name."""
    source = "\n".join(
        path.read_text(encoding="utf-8")
        for path in sorted((REPO / "tournament" / "interchange").glob("import*.py"))
    )
    keys = set(COMMON_KEYS)
    keys |= set(re.findall(r'\b(?:settings|s)\.get\(\s*"(\w+)"', source))
    keys |= set(re.findall(r'_setting_int\(\s*(?:settings|s),\s*"(\w+)"', source))
    keys |= set(re.findall(r'"(\w+)" in s\b', source))
    return keys


def config_keys_missing(tsh_page: str, keys: set[str]) -> list[str]:
    """The keys no row of tsh.md's config.tsh table names in its first column."""
    section = tsh_page.split("\n## The config.tsh keys Gibson reads\n", 1)[-1].split("\n## ")[0]
    first_cells = [row.split(" | ")[0] for row in section.splitlines() if row.startswith("| `")]
    return sorted(k for k in keys if not any(f"`{k}`" in cell for cell in first_cells))


def test_every_config_key_the_importer_reads_is_in_coming_from_tsh():
    keys = importer_config_keys()
    assert {"event_name", "spread_cap", "max_rounds", "gibson", "rating_system"} <= keys
    page = (DOCS / "tsh.md").read_text(encoding="utf-8")
    assert "\n## The config.tsh keys Gibson reads\n" in page
    assert config_keys_missing(page, keys) == []
    # a key read tomorrow and not yet on the page is named
    assert config_keys_missing(page, keys | {"brand_new_key"}) == ["brand_new_key"]


def test_coming_from_tsh_gives_each_venue_command_a_gibson_answer():
    """Each TSH command of the table has a Gibson equivalent or says "not in Gibson"; the
    table cites TSH's own manual."""
    page = (DOCS / "tsh.md").read_text(encoding="utf-8")
    section = page.split("\n## The commands a director types in TSH\n", 1)[1].split("\n## ")[0]
    rows = [row for row in section.splitlines() if row.startswith("| `")]
    named = " ".join(row.split(" | ")[0] for row in rows)
    for command in ("Addscore", "EditScore", "Missing", "ShowPairings", "RoundStandings"):
        assert f"`{command}`" in named
    assert all(len(row.split(" | ")) == 3 and row.split(" | ")[2].strip(" |") for row in rows)
    assert "poslarchive.com/tsh/doc/commands.html" in section


def environment_settings() -> set[str]:
    """Every variable the project reads from the environment (settings and commands alike)."""
    names = set()
    for package in PACKAGES:
        for path in (REPO / package).rglob("*.py"):
            names.update(ENV_READ.findall(path.read_text(encoding="utf-8")))
    return {n for n in names if not n.startswith("DJANGO_")}


def test_every_environment_setting_is_in_the_reference():
    names = environment_settings()
    assert {"DATABASE_URL", "REDIS_URL", "GIBSON_SECRET_KEY", "GIBSON_WORKERS"} <= names
    assert "GIBSON_SITE_PAGE_CACHE" not in names  # a Django setting, not read from the environment
    configuration = REFERENCE.read_text(encoding="utf-8").split("## Configuration", 1)[1]
    configuration = configuration.split("\n## ", 1)[0]
    assert sorted(n for n in names if f"`{n}`" not in configuration) == []


def test_every_management_command_is_in_the_reference():
    commands = {
        p.stem
        for p in (REPO / "tournament" / "management" / "commands").glob("*.py")
        if not p.stem.startswith("_")
    }
    assert {"serve_demo", "build_manual", "venue_take"} <= commands
    section = REFERENCE.read_text(encoding="utf-8").split("## Commands", 1)[1]
    section = section.split("\n## ", 1)[0]
    listed = set(re.findall(r"^\| `(\w+)` \|", section, re.M))
    assert sorted(commands - listed) == []
    assert sorted(listed - commands) == []  # no row for a command that is gone


# ------------------------------------------------------------------------------ the README


def _links(text: str) -> list[str]:
    return re.findall(r"\]\(([^)\s]+)\)", text)


def _anchors(page: Path) -> set[str]:
    """The ids MkDocs gives a page's headings (its toc slugs: lower case, punctuation dropped)."""
    ids = set()
    for heading in re.findall(r"^#+ (.+)$", page.read_text(encoding="utf-8"), re.M):
        slug = re.sub(r"[^\w\s-]", "", heading.strip().lower())
        ids.add(re.sub(r"[\s]+", "-", slug))
    return ids


def test_the_readme_is_short_keeps_its_two_commands_and_every_link_resolves():
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 120
    install = "python3 -m venv .venv && .venv/bin/pip install -q -e '.[dev]' && "
    assert f"{install}.venv/bin/python manage.py serve_demo\n" in text
    assert f"{install}.venv/bin/python -m pytest\n" in text  # .ci/run runs this one
    broken = []
    for link in _links(text):
        if link.startswith(("http://", "https://")):
            continue
        target, _, anchor = link.partition("#")
        path = REPO / target
        if not path.exists():
            broken.append(link)
        elif anchor and anchor not in _anchors(path):
            broken.append(link)
    assert _links(text), "the README links the manual"
    assert broken == []


def test_the_readme_link_check_sees_a_wrong_anchor():
    assert "running-the-tests" in _anchors(DOCS / "development.md")
    assert "who-may-do-what" in _anchors(REFERENCE)
    assert "no-such-heading" not in _anchors(DOCS / "development.md")


# ------------------------------------------------------------------------------ /docs/


@pytest.fixture
def served(settings, built):
    settings.MANUAL_DIR = built
    return built


def test_docs_answers_with_the_manuals_start_page(client, served):
    page = client.get("/docs/")
    assert page.status_code == 200
    html = page.content.decode() if not page.streaming else b"".join(page).decode()
    assert "<title>Gibson manual</title>" in html
    assert "Find your task" in html
    # the theme's inline scripts run here only: the manual holds nothing a visitor wrote
    assert "'unsafe-inline'" in page.headers["Content-Security-Policy"].split("script-src")[1]


def test_docs_serves_each_page_and_its_assets(client, served):
    assert client.get("/docs/venue").headers["Location"] == "/docs/venue/"
    venue = client.get("/docs/venue/")
    assert venue.status_code == 200
    assert "Venue mode" in b"".join(venue).decode()
    css = next((served / "assets" / "stylesheets").glob("main.*.min.css"))
    sheet = client.get(f"/docs/assets/stylesheets/{css.name}")
    assert sheet.status_code == 200 and sheet.headers["Content-Type"].startswith("text/css")
    assert client.get("/docs").status_code in (301, 302)


@pytest.mark.parametrize("path", ["/docs/no-such-page/", "/docs/../settings.py", "/docs/%2e%2e/x"])
def test_docs_answers_404_outside_the_manual(client, served, path):
    assert client.get(path).status_code == 404


def test_docs_says_how_to_build_the_manual_when_it_is_not_built(client, settings, tmp_path):
    settings.MANUAL_DIR = tmp_path / "never-built"
    page = client.get("/docs/")
    assert page.status_code == 404
    assert "manage.py build_manual" in page.content.decode()


def test_docs_takes_no_writes(client, served):
    assert client.post("/docs/").status_code == 405


@pytest.mark.django_db
@pytest.mark.slow(seconds=10)
def test_serve_demo_builds_the_manual_it_serves(client, settings, tmp_path, monkeypatch):
    """serve_demo builds the manual into the data folder and says where it is served; a restart
    keeps the built one. Seconds: the demo's load and one MkDocs build."""
    for name in ("GIBSON_SITE_URL", "GIBSON_LISTEN_ADDR", "GIBSON_ALLOWED_HOSTS"):
        monkeypatch.delenv(name, raising=False)
    settings.SITE_URL, settings.LISTEN_ADDR = "http://127.0.0.1:8000", ""
    settings.DATA_DIR, settings.MANUAL_DIR = tmp_path, tmp_path / "manual"
    out = StringIO()
    call_command("serve_demo", "--no-serve", stdout=out, stderr=StringIO())
    assert "The manual: http://127.0.0.1:8000/docs/" in out.getvalue()
    start = settings.MANUAL_DIR / "index.html"
    built_at = start.stat().st_mtime_ns
    assert "Find your task" in b"".join(client.get("/docs/")).decode()
    call_command("serve_demo", "--no-serve", stdout=StringIO(), stderr=StringIO())
    assert start.stat().st_mtime_ns == built_at  # same sources: not built again


@pytest.mark.django_db
def test_every_page_and_the_console_link_the_served_manual(client, served):
    """A director finds the manual from the site: every page's footer links /docs/, the
    console's links open the day in order; both are pages this site serves (no internet)."""
    from tournament.demo import load_demo

    from .conftest import make_director

    tournament, _ = load_demo()
    public = client.get(f"/t/{tournament.slug}/").content.decode()
    assert '<footer><a href="/docs/">Manual</a>' in public
    client.force_login(make_director(tournament, "manual-reader"))
    console = client.get(f"/t/{tournament.slug}/console/").content.decode()
    assert '<a href="/docs/run-an-event/">Manual</a>' in console
    day = client.get("/docs/run-an-event/")
    assert day.status_code == 200 and "Pair a round" in b"".join(day).decode()
