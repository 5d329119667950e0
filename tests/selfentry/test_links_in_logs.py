"""A self-entry link never reaches the server log (issue "Authority in one place": a refused
report was logged as "Bad Request: /e/TOKEN/report/")."""

from __future__ import annotations

import io
import logging

import pytest

from tournament.logfilters import HideSelfEntryLinks

from .conftest import token

pytestmark = pytest.mark.django_db


@pytest.fixture
def log_text():
    """What the site's console handler writes, with the site's filter on it."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.addFilter(HideSelfEntryLinks())
    logger = logging.getLogger("django")
    logger.addHandler(handler)
    yield stream
    logger.removeHandler(handler)


def test_a_refused_report_logs_the_path_without_the_token(client, event, log_text):
    t, d = event
    link = token(d, 1)
    refused = client.post(f"/e/{link}/report/", {"score": "abc", "opp_score": 350, "round": 1})
    assert refused.status_code == 400
    written = log_text.getvalue()
    assert "/e/<link>/report/" in written
    assert link not in written


def test_the_site_logging_config_puts_the_filter_on_its_handler(settings):
    handler = settings.LOGGING["handlers"]["console"]
    assert handler["filters"] == ["hide_links"]
    assert settings.LOGGING["filters"]["hide_links"]["()"].endswith("HideSelfEntryLinks")
