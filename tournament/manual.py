"""The manual: docs/ built by MkDocs into a folder the site serves at /docs/.

A director at a venue has no internet, so the manual travels with the code: ``build_manual``
turns docs/ (with ``mkdocs.yml``, the mkdocs-material theme, no web fonts or CDN) into static
pages under ``GIBSON_DATA_DIR/manual``, and ``tournament.web.manual`` serves them. MkDocs is a
development dependency (``pip install -e '.[dev]'``, as the README's commands do): without it
the build is refused with a message saying so, and the site runs on without its manual.

The refusal codes' page (docs/refusals.md) is written from ``tournament.errors.CODES`` (the
event core's codes and those each domain registers from its own errors module) by
``refusal_codes_page``, grouped as the modules group them, so every code a client may meet is
listed with its wording; a test holds the page equal to it.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from django.utils import translation

from .errors import CODES, OWNERS

REPO = Path(__file__).resolve().parent.parent
CONFIG = REPO / "mkdocs.yml"
REFUSALS_PAGE = REPO / "docs" / "refusals.md"
SETTINGS_PAGE = REPO / "docs" / "settings.md"
API_REFERENCE_PAGE = REPO / "docs" / "api-reference.md"
ERRORS_MODULE = Path(__file__).resolve().parent / "errors.py"
# written into a built manual: the digest of the sources it was built from
STAMP = ".source-digest"


class ManualError(Exception):
    """The manual could not be built (MkDocs missing, a broken link in strict mode...)."""


def build_manual(out: Path, *, config: Path = CONFIG, timeout: float = 300) -> Path:
    """Build docs/ into ``out`` in strict mode (a broken link or a page left out of the
    navigation fails the build) and return the start page. MkDocs runs in a child process: its
    logging and its end-of-build exit in strict mode stay out of the caller's process."""
    try:
        import material  # noqa: F401
        import mkdocs  # noqa: F401
    except ImportError as missing:
        raise ManualError(
            f"the manual needs MkDocs and mkdocs-material ({missing.name} is not installed): "
            "install the development extras, pip install -e '.[dev]'"
        ) from missing
    out = Path(out)
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict"]
        + ["--config-file", str(config), "--site-dir", str(out)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    start = out / "index.html"
    if done.returncode != 0 or not start.exists():
        # its warnings and errors, each with its continuation lines (not --quiet: strict mode
        # counts the warnings it logs, and a quiet build logs none, so it would pass)
        lines = (done.stderr + done.stdout).splitlines()
        said = "\n".join(line for line in lines if line.strip() and not line.startswith("INFO"))
        raise ManualError(f"mkdocs build --strict failed (exit {done.returncode}): {said}")
    return start


def source_digest() -> str:
    """A digest of what the manual is built from (mkdocs.yml and every file of docs/)."""
    digest = hashlib.sha256(CONFIG.read_bytes())
    for path in sorted((REPO / "docs").rglob("*")):
        if path.is_file():
            digest.update(str(path.relative_to(REPO)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def publish_manual(target: Path, *, force: bool = True) -> tuple[int, bool]:
    """Build the manual beside ``target`` and swap it in, so a reader never gets half a manual;
    (pages, whether it was built). Without ``force`` a manual already built from the same
    sources is kept (serve_demo's restarts stay quick)."""
    target = Path(target)
    stamp = target / STAMP
    digest = source_digest()
    if not force and stamp.is_file() and stamp.read_text(encoding="utf-8") == digest:
        return sum(1 for _ in target.rglob("index.html")), False
    target.parent.mkdir(parents=True, exist_ok=True)
    fresh = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    try:
        build_manual(fresh)
    except BaseException:
        shutil.rmtree(fresh, ignore_errors=True)
        raise
    (fresh / STAMP).write_text(digest, encoding="utf-8")
    fresh.chmod(0o755)
    old = target.with_name(f".{target.name}.old")
    shutil.rmtree(old, ignore_errors=True)
    if target.exists():
        target.rename(old)
    fresh.rename(target)
    shutil.rmtree(old, ignore_errors=True)
    return sum(1 for _ in target.rglob("index.html")), True


def _code_modules() -> list[Path]:
    """tournament/errors.py, then each module that registered codes (``register_codes``)."""
    paths = [ERRORS_MODULE]
    for owner in dict.fromkeys(OWNERS.values()):
        spec = importlib.util.find_spec(owner)
        if spec is not None and spec.origin:
            paths.append(Path(spec.origin))
    return paths


def _code_groups() -> dict[str, str]:
    """code -> the comment heading it in its module's CODES (each module's own grouping)."""
    groups: dict[str, str] = {}
    for path in _code_modules():
        groups.update(_module_groups(path))
    return groups


def _module_groups(path: Path) -> dict[str, str]:
    groups: dict[str, str] = {}
    heading = ""
    comment: list[str] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("    # Translators:"):
            continue  # a note for translators, not a heading
        if line.startswith("    # "):
            comment.append(line[6:].strip())
            continue
        if comment:
            heading, comment = " ".join(comment), []
        key = re.match(r'    "(\w+)":', line)
        if key:
            groups[key.group(1)] = heading
    return groups


# a code a face answers with itself, outside ServiceError (a JSON body's "code" key set to a
# literal name, as the heavy-request limit's 429 does)
CODE_LITERAL = re.compile(r"""["']code["']:\s*["']([a-z_]+)["']""")


def codes_outside_codes() -> dict[str, str]:
    """code -> the module that answers with it, for codes the faces give that ``CODES`` lacks
    (a rate limit's 429 answered before any service runs)."""
    found: dict[str, str] = {}
    for package in ("tournament", "pairings", "ratings"):
        for path in sorted((REPO / package).rglob("*.py")):
            for code in CODE_LITERAL.findall(path.read_text(encoding="utf-8")):
                if code not in CODES:
                    found.setdefault(code, str(path.relative_to(REPO)))
    return found


def refusal_codes_page() -> str:
    """docs/refusals.md as it must read: every code of ``CODES`` with its neutral wording.

    The manual is English whatever language is active (the messages are lazy translations)."""
    with translation.override("en"):
        return _refusal_codes_page()


def _refusal_codes_page() -> str:
    groups = _code_groups()
    lines = [
        "# Refusal codes",
        "",
        "Every refusal carries a stable code: the API's `errors[].code`, a command's "
        '`--json` answer (`{"ok": false, "code": ...}`) and the pages all use the codes below '
        "(`CODES` in `tournament/errors.py`, with the codes each domain registers from its own "
        "`errors` module: `pairings/errors.py`, `tournament/clubs/errors.py`). The message is "
        "the neutral wording, its "
        "`{names}` filled from the refusal's `params`; a page or a command may word it its own "
        "way. This page is written from those modules by `manage.py build_manual --write-codes` "
        "(`tests/core/test_manual.py` fails when it is out of date).",
    ]
    heading = None
    for code, message in CODES.items():
        group = groups.get(code, "")
        if group != heading:
            heading = group
            title = group[:1].upper() + group[1:] if group else "Other refusals"
            title = re.sub(r"^Api\b", "API", title)
            lines += ["", f"## {title}", "", "| code | message |", "|---|---|"]
        lines.append(f"| `{code}` | `{message}` |")
    outside = codes_outside_codes()
    if outside:
        lines += [
            "",
            "## Answered by a face before any service",
            "",
            "These codes are not in `CODES`: the module named answers with them and words the "
            "message itself.",
            "",
            "| code | answered by |",
            "|---|---|",
        ]
        lines += [f"| `{code}` | `{module}` |" for code, module in sorted(outside.items())]
    return "\n".join(lines) + "\n"
