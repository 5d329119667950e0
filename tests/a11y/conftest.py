"""The browser fixture of tests/core, shared by the accessibility test."""

from tests.core.conftest import browser  # noqa: F401
