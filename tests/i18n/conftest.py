"""What the language tests share. The catalogues' ``*.mo`` (built, never committed) are compiled
once for the whole session, before xdist's workers start, by tests/conftest.py's
pytest_configure (tournament/catalogues.py): no test or fixture compiles them again."""

from __future__ import annotations

import pytest

from tests.core.conftest import browser  # noqa: F401  (the switcher's browser test)


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
