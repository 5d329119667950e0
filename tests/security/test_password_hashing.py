"""The real password hasher stays the real one: the suite hashes with one PBKDF2 iteration
(tests/hashers.py, set only when GIBSON_TESTING), a site never does."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from django.contrib.auth.hashers import PBKDF2PasswordHasher, check_password, make_password

REPO = Path(__file__).resolve().parents[2]


def test_a_site_hashes_passwords_with_django_s_full_pbkdf2():
    """Settings read as a site reads them (no GIBSON_TESTING): Django's PBKDF2 first, at its
    1,000,000 iterations, and nothing weaker accepted. A child process, because this one's
    settings were read for the tests (one process start, about a second)."""
    env = {k: v for k, v in os.environ.items() if k != "GIBSON_TESTING"}
    env.update({"GIBSON_SECRET_KEY": "x" * 50, "DJANGO_SETTINGS_MODULE": "tournament.settings"})
    script = (
        "import json, django; django.setup()\n"
        "from django.conf import settings\n"
        "from django.contrib.auth.hashers import get_hasher, make_password\n"
        "h = make_password('pw-long-enough-1')\n"
        "print(json.dumps({'hashers': settings.PASSWORD_HASHERS, "
        "'iterations': get_hasher().iterations, 'prefix': h.split('$')[:2]}))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], cwd=REPO, env=env, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    seen = json.loads(out.stdout.strip().splitlines()[-1])
    assert seen["hashers"][0] == "django.contrib.auth.hashers.PBKDF2PasswordHasher"
    assert not any("tests." in h or "MD5" in h for h in seen["hashers"])
    assert seen["iterations"] >= 1_000_000
    assert seen["prefix"] == ["pbkdf2_sha256", str(seen["iterations"])]


def test_the_suite_s_quick_hashes_verify_with_the_real_hasher():
    """A server the tests start (real settings) signs in accounts the test process made."""
    quick = make_password("pw-long-enough-1")
    assert quick.startswith("pbkdf2_sha256$1$")
    real = PBKDF2PasswordHasher()
    assert real.verify("pw-long-enough-1", quick)
    assert not real.verify("wrong-password-1", quick)
    assert real.must_update(quick)  # and the server upgrades it at the first sign-in
    assert check_password("pw-long-enough-1", quick)
