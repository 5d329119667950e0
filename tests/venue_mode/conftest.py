"""The loopback SMTP server fixture (tests/core/smtp.py) for venue mode's notices' tests; the
hosted site on loopback allowed (settings.VENUE_ALLOW_PRIVATE_ADDRESSES), as the two-site
tests' venue does with GIBSON_VENUE_ALLOW_PRIVATE (sites.py)."""

import pytest

from tests.core.smtp import smtp  # noqa: F401 (a fixture)


@pytest.fixture(autouse=True)
def _hosted_site_on_loopback(settings):
    settings.VENUE_ALLOW_PRIVATE_ADDRESSES = True
