"""The loopback SMTP server fixture (tests/core/smtp.py) for venue mode's notices' tests."""

from tests.core.smtp import smtp  # noqa: F401 (a fixture)
