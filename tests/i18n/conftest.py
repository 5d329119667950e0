"""The catalogues compiled for these tests when the install has not done it (the ``*.mo``
files are built, never committed): a French page must read French here."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from tests.conftest import REPO
from tests.core.conftest import browser  # noqa: F401  (the switcher's browser test)


@pytest.fixture(scope="session", autouse=True)
def compiled_catalogues() -> None:
    compile_catalogues()


def compile_catalogues() -> None:
    """Compile each ``django.po`` whose ``.mo`` is missing or older (tests elsewhere that read a
    language call it too: tests/a11y's French pass)."""
    stale = [
        po
        for po in sorted((REPO / "locale").glob("*/LC_MESSAGES/django.po"))
        if not po.with_suffix(".mo").exists()
        or po.with_suffix(".mo").stat().st_mtime < po.stat().st_mtime
    ]
    if not stale:
        return
    msgfmt = shutil.which("msgfmt")
    if msgfmt is None:
        pytest.skip("msgfmt (gettext) is not installed: the catalogues cannot be compiled")
    for po in stale:
        subprocess.run([msgfmt, "--check", "-o", str(po.with_suffix(".mo")), str(po)], check=True)
    # a catalogue this process read before it was compiled is read again
    from django.utils.translation import trans_real

    trans_real._translations = {}
    trans_real._default = None


@pytest.fixture(autouse=True)
def _client_asks_for_the_active_language(monkeypatch) -> None:
    """A test that renders a page ``with translation.override("fr")`` means a French visitor:
    its test client's requests say so in ``Accept-Language`` (the language middleware chooses
    each request's language afresh, as on a real site). A request that gives its own header,
    and every request made in the default language, is left as it is: the tests of the
    choice itself (test_language.py) set what they test."""
    from django.conf import settings
    from django.test.client import RequestFactory
    from django.utils import translation

    base = RequestFactory._base_environ

    def environ(self, **request):
        active = translation.get_language()
        if active and active != settings.LANGUAGE_CODE:
            request.setdefault("HTTP_ACCEPT_LANGUAGE", active)
        return base(self, **request)

    monkeypatch.setattr(RequestFactory, "_base_environ", environ)
