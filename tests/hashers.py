"""The test process's password hasher (settings.PASSWORD_HASHERS when GIBSON_TESTING)."""

from __future__ import annotations

from django.contrib.auth.hashers import PBKDF2PasswordHasher


class QuickPBKDF2PasswordHasher(PBKDF2PasswordHasher):
    """PBKDF2-SHA256 at one iteration: the same algorithm name and format as Django's, so a
    server the tests start verifies these hashes with its real hasher (which reads the
    iteration count from the hash) and upgrades them on sign-in, as it would an old hash."""

    iterations = 1
