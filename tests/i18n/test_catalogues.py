"""The translation catalogues ship whole (tournament/catalogues.py, docs/languages.md): every
message of fr, es and pl translated or said to stay English (``keep-english: <why>``), no
fuzzy entry, the placeholders and HTML tags of the English kept, the language's number of
plural forms, and nothing marked in the source missing from them (makemessages run into a
copy finds no new msgid). The compiled .mo is the same from GNU msgfmt and from the
pure-Python fallback."""

from __future__ import annotations

import gettext
import io
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tournament.catalogues import (
    LOCALE_DIR,
    PLURALS,
    compile_catalogues,
    compile_po,
    parse_po,
    problems,
)

REPO = Path(__file__).resolve().parents[2]
LANGUAGES = sorted(PLURALS)
HEADERS = {
    "fr": "nplurals=2; plural=(n > 1);",
    "es": "nplurals=2; plural=(n != 1);",
    "pl": "nplurals=3; plural=(n==1 ? 0 : (n%10>=2 && n%10<=4) && (n%100<12 || n%100>=20) "
    "? 1 : 2);",
}


def _po(language: str, body: str) -> str:
    head = textwrap.dedent(
        f"""\
        msgid ""
        msgstr ""
        "Language: {language}\\n"
        "MIME-Version: 1.0\\n"
        "Content-Type: text/plain; charset=UTF-8\\n"
        "Content-Transfer-Encoding: 8bit\\n"
        "Plural-Forms: {HEADERS[language]}\\n"

        """
    )
    return head + textwrap.dedent(body)


GOOD_FR = _po(
    "fr",
    """\
    msgid "Round {round}: {name}"
    msgstr "Ronde {round} : {name}"

    #. Translators: keep-english: the name of a file format, read by programs
    msgid "tourney.js"
    msgstr ""

    #, python-format
    msgid "%(name)s withdrew"
    msgstr "%(name)s a abandonné"

    msgid "See <a href=\\"%(url)s\\">the standings</a>."
    msgstr "Voir <a href=\\"%(url)s\\">le classement</a>."

    msgctxt "game result"
    msgid "Bye"
    msgstr "Exempt"

    msgid "one game"
    msgid_plural "%(counter)s games"
    msgstr[0] "une partie"
    msgstr[1] "%(counter)s parties"

    msgid ""
    "A long message "
    "on two lines"
    msgstr ""
    "Un long message "
    "sur deux lignes"

    #~ msgid "Gone"
    #~ msgstr ""
    """,
)


def test_a_good_catalogue_passes_and_reads_whole() -> None:
    assert problems(GOOD_FR, "fr") == []
    messages = {m.msgid: m for m in parse_po(GOOD_FR)}
    assert messages["A long message on two lines"].msgstr == {0: "Un long message sur deux lignes"}
    assert messages["Bye"].msgctxt == "game result"
    assert "Gone" not in messages  # obsolete entries are the translators', never shipped


@pytest.mark.parametrize(
    ("broken", "said"),
    [
        ('msgid "Round {round}: {name}"\nmsgstr "Ronde {round}"\n', "placeholders differ"),
        ('msgid "Round {round}"\nmsgstr "Ronde {ronde}"\n', "placeholders differ"),
        ('msgid "%(name)s withdrew"\nmsgstr "%(nom)s a abandonné"\n', "placeholders differ"),
        ('msgid "See <a href=\\"%(url)s\\">it</a>"\nmsgstr "Voir ça"\n', "placeholders differ"),
        ('msgid "Standings"\nmsgstr ""\n', "not translated"),
        ('#, fuzzy\nmsgid "Standings"\nmsgstr "Classement"\n', "fuzzy"),
        ('# keep-english:\nmsgid "Standings"\nmsgstr ""\n', "not translated"),  # no reason
        (
            'msgid "one game"\nmsgid_plural "%(counter)s games"\nmsgstr[0] "une partie"\n',
            "plural forms",
        ),
        (
            'msgid "one game"\nmsgid_plural "%(counter)s games"\n'
            'msgstr[0] "une partie"\nmsgstr[1] "des parties"\n',
            "loses",
        ),
        (
            'msgid "one game"\nmsgid_plural "%(counter)s games"\n'
            'msgstr[0] "%(n)s partie"\nmsgstr[1] "%(counter)s parties"\n',
            "adds",
        ),
        ('msgid "Standings"\nmsgstr "Classement\n', "line"),  # an unclosed quote
    ],
)
def test_a_broken_catalogue_is_refused(broken: str, said: str) -> None:
    found = problems(_po("fr", broken), "fr")
    assert found, broken
    assert any(said in line for line in found), found


def test_a_catalogue_needs_its_language_and_plural_forms() -> None:
    spanish_header = GOOD_FR.replace("Language: fr", "Language: es")
    assert any("Language is 'es'" in p for p in problems(spanish_header, "fr"))
    two_forms = _po("fr", "").replace("Language: fr", "Language: pl")
    assert any("nplurals=3" in p for p in problems(two_forms, "pl"))


def test_polish_needs_three_plural_forms() -> None:
    text = _po(
        "pl",
        'msgid "one game"\nmsgid_plural "%(counter)s games"\n'
        'msgstr[0] "jedna partia"\nmsgstr[1] "%(counter)s partie"\n',
    )
    assert any("2 plural forms, pl has 3" in p for p in problems(text, "pl"))


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_shipped_catalogue_is_whole(language: str) -> None:
    po = LOCALE_DIR / language / "LC_MESSAGES" / "django.po"
    assert po.exists(), f"{po} is missing: run makemessages (docs/languages.md)"
    assert problems(po.read_text(encoding="utf-8"), language) == []


def _copy_source(to: Path) -> None:
    """What makemessages reads (the apps' code and the templates) and the committed
    catalogues, copied: its settings put LOCALE_PATHS in the copy, so nothing here changes."""
    for top in ("tournament", "pairings", "ratings", "templates"):
        for path in (REPO / top).rglob("*"):
            if path.suffix in (".py", ".html", ".txt") and "__pycache__" not in path.parts:
                target = to / path.relative_to(REPO)
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(path, target)
    shutil.copyfile(REPO / "manage.py", to / "manage.py")
    shutil.copytree(LOCALE_DIR, to / "locale", ignore=shutil.ignore_patterns("*.mo"))


@pytest.mark.slow(seconds=8)  # makemessages: xgettext over every module and template
def test_the_catalogues_hold_every_marked_string(tmp_path: Path) -> None:
    if not all(shutil.which(tool) for tool in ("xgettext", "msgmerge", "msguniq")):
        pytest.skip("GNU gettext (xgettext, msgmerge) is not installed: apt-get install gettext")
    _copy_source(tmp_path)
    env = {**os.environ, "PYTHONPATH": str(tmp_path), "GIBSON_TESTING": "1"}
    env.pop("DATABASE_URL", None)
    done = subprocess.run(
        [sys.executable, "manage.py", "makemessages", "--no-location"]
        + [f"-l{language}" for language in LANGUAGES],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    for language in LANGUAGES:
        path = Path("locale") / language / "LC_MESSAGES" / "django.po"
        committed = {
            (m.msgctxt, m.msgid) for m in parse_po((REPO / path).read_text(encoding="utf-8"))
        }
        fresh = [
            m
            for m in parse_po((tmp_path / path).read_text(encoding="utf-8"))
            if (m.msgctxt, m.msgid) not in committed
        ]
        assert not fresh, (
            f"{path} lacks {len(fresh)} marked strings, the first: {fresh[0].msgid!r}: run "
            "makemessages and translate them (docs/languages.md)"
        )


SAMPLE = _po(
    "pl",
    """\
    msgid "Round {round}"
    msgstr "Runda {round}"

    msgctxt "game result"
    msgid "Bye"
    msgstr "Pauza"

    msgid "one game"
    msgid_plural "%(counter)s games"
    msgstr[0] "jedna partia"
    msgstr[1] "%(counter)s partie"
    msgstr[2] "%(counter)s partii"

    #, fuzzy
    msgid "Standings"
    msgstr "Klasyfikacja"

    msgid "Pairings"
    msgstr ""

    msgid "Łódź Żółć"
    msgstr "Łódź Żółć Éèçà ñ"
    """,
)


def _read(mo: Path) -> gettext.GNUTranslations:
    return gettext.GNUTranslations(io.BytesIO(mo.read_bytes()))


def test_msgfmt_and_the_fallback_compile_alike(tmp_path: Path) -> None:
    if shutil.which("msgfmt") is None:
        pytest.skip("GNU msgfmt is not installed (apt-get install gettext): nothing to compare")
    samples = [tmp_path / "sample.po"]
    samples[0].write_text(SAMPLE, encoding="utf-8")
    for language in LANGUAGES:
        shipped = LOCALE_DIR / language / "LC_MESSAGES" / "django.po"
        if shipped.exists():
            samples.append(tmp_path / f"{language}.po")
            shutil.copyfile(shipped, samples[-1])
    for po in samples:
        assert compile_po(po, po.with_suffix(".gnu.mo"), use_msgfmt=True) == "msgfmt"
        assert compile_po(po, po.with_suffix(".py.mo"), use_msgfmt=False) == "python"
        gnu, ours = _read(po.with_suffix(".gnu.mo")), _read(po.with_suffix(".py.mo"))
        assert ours._catalog == gnu._catalog, po.name  # type: ignore[attr-defined]
        assert ours.info() == gnu.info()
    sample = _read(tmp_path / "sample.py.mo")
    assert sample.gettext("Round {round}") == "Runda {round}"
    assert sample.pgettext("game result", "Bye") == "Pauza"
    assert [sample.ngettext("one game", "%(counter)s games", n) for n in (1, 3, 5, 22)] == [
        "jedna partia",
        "%(counter)s partie",
        "%(counter)s partii",
        "%(counter)s partie",
    ]
    assert sample.gettext("Standings") == "Standings"  # fuzzy: left out, as msgfmt does
    assert sample.gettext("Pairings") == "Pairings"
    assert sample.gettext("Łódź Żółć") == "Łódź Żółć Éèçà ñ"


def test_compiling_leaves_a_current_catalogue_alone(tmp_path: Path) -> None:
    po = tmp_path / "fr" / "LC_MESSAGES" / "django.po"
    po.parent.mkdir(parents=True)
    po.write_text(GOOD_FR, encoding="utf-8")
    assert compile_catalogues(tmp_path) == [po.with_suffix(".mo")]
    assert compile_catalogues(tmp_path) == []  # current: a restart writes nothing
    assert _read(po.with_suffix(".mo")).gettext("Round {round}: {name}") == (
        "Ronde {round} : {name}"
    )
    later = po.with_suffix(".mo").stat().st_mtime + 5
    os.utime(po, (later, later))  # the .po edited after: compiled again
    assert compile_catalogues(tmp_path) == [po.with_suffix(".mo")]


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_session_compiled_the_catalogues(language: str) -> None:
    """tests/conftest.py compiles once in the controller, before xdist's workers start."""
    po = LOCALE_DIR / language / "LC_MESSAGES" / "django.po"
    mo = po.with_suffix(".mo")
    assert mo.exists() and mo.stat().st_mtime >= po.stat().st_mtime


@pytest.mark.django_db
@pytest.mark.slow(seconds=5)  # the demo tournament's load
def test_serve_demo_compiles_the_catalogues(tmp_path: Path, settings, monkeypatch) -> None:
    """The install's start compiles a catalogue edited since (serve does the same call)."""
    from io import StringIO

    from django.core.management import call_command

    import tournament.catalogues
    from tournament.management.commands import serve_demo

    for name in ("GIBSON_SITE_URL", "GIBSON_LISTEN_ADDR", "GIBSON_DEMO_PASSWORD"):
        monkeypatch.delenv(name, raising=False)
    settings.SITE_URL, settings.LISTEN_ADDR, settings.DATA_DIR = (
        "http://127.0.0.1:8000",
        "",
        tmp_path,
    )
    monkeypatch.setattr(serve_demo, "ensure_manual", lambda url: f"{url}/docs/")
    po = tmp_path / "locale" / "fr" / "LC_MESSAGES" / "django.po"
    po.parent.mkdir(parents=True)
    po.write_text(GOOD_FR, encoding="utf-8")
    monkeypatch.setattr(tournament.catalogues, "LOCALE_DIR", tmp_path / "locale")
    call_command("serve_demo", "--no-serve", stdout=StringIO(), stderr=StringIO())
    assert _read(po.with_suffix(".mo")).pgettext("game result", "Bye") == "Exempt"
