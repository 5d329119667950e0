"""Hole 7: a deployment's checks pass, HTTPS is one switch, and every page has a strict CSP.

Probed: ``check --deploy`` warned W004 (no HSTS), W008 (no HTTPS redirect), W012 and W016
(session and CSRF cookies sent over plain HTTP); no Content-Security-Policy header at all.
"""

from __future__ import annotations

import os
import re
import secrets
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def _run(args: list[str], **env: str) -> subprocess.CompletedProcess:
    environment = {k: v for k, v in os.environ.items() if not k.startswith("GIBSON_")}
    environment.update(env)
    return subprocess.run(
        [sys.executable, *args],
        cwd=REPO,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_check_deploy_is_clean_with_https_on_and_a_real_secret_key():
    result = _run(
        ["manage.py", "check", "--deploy"],
        GIBSON_HTTPS="1",
        GIBSON_SECRET_KEY=secrets.token_urlsafe(50),
    )
    assert result.returncode == 0, result.stderr
    output = result.stdout + result.stderr
    assert "System check identified no issues" in output, output
    assert "WARNING" not in output and "security.W" not in output, output


def test_without_the_switch_check_deploy_names_what_is_missing():
    result = _run(["manage.py", "check", "--deploy"], GIBSON_SECRET_KEY=secrets.token_urlsafe(50))
    output = result.stdout + result.stderr
    for warning in ("security.W004", "security.W008", "security.W012", "security.W016"):
        assert warning in output, output


SHOW = (
    "import django, os; os.environ['DJANGO_SETTINGS_MODULE'] = 'tournament.settings'; "
    "django.setup(); from django.conf import settings as s; "
    "print(s.SECURE_SSL_REDIRECT, s.SECURE_HSTS_SECONDS, s.SECURE_HSTS_INCLUDE_SUBDOMAINS, "
    "s.SESSION_COOKIE_SECURE, s.CSRF_COOKIE_SECURE, s.SECURE_PROXY_SSL_HEADER)"
)


def test_gibson_https_and_behind_proxy_turn_on_what_they_say():
    key = secrets.token_urlsafe(50)
    off = _run(["-c", SHOW], GIBSON_SECRET_KEY=key)
    assert off.stdout.split() == ["False", "0", "False", "False", "False", "None"], off.stderr
    on = _run(["-c", SHOW], GIBSON_SECRET_KEY=key, GIBSON_HTTPS="1", GIBSON_BEHIND_PROXY="1")
    assert on.stdout.strip() == (
        "True 31536000 True True True ('HTTP_X_FORWARDED_PROTO', 'https')"
    ), on.stderr


# --------------------------------------------------------------------------- CSP


@pytest.fixture
def director_client(event, client):
    from tests.core.conftest import make_director

    client.force_login(make_director(event, "csp-director"))
    return client


def _policy(response) -> dict[str, list[str]]:
    header = response["Content-Security-Policy"]
    return {
        part.split()[0]: part.split()[1:] for part in (p.strip() for p in header.split(";")) if part
    }


def test_public_pages_carry_the_strict_policy(event, client):
    response = client.get(f"/t/{event.slug}/")
    policy = _policy(response)
    assert policy["default-src"] == ["'self'"]
    assert policy["script-src"][0] == "'self'"
    assert policy["style-src"] == ["'self'", "'unsafe-inline'"]
    assert policy["img-src"] == ["'self'", "data:"]
    assert policy["frame-ancestors"] == ["'none'"]
    assert "'unsafe-inline'" not in policy["script-src"]
    assert "'unsafe-eval'" not in policy["script-src"]


@pytest.mark.parametrize(
    "path",
    [
        "console/",
        "console/a/",
        "console/a/players/",
        "console/a/round/1/results/",
        "console/a/standings/",
        "console/setup/",
        "desk/",
    ],
)
def test_every_inline_script_carries_the_nonce_the_header_allows(director_client, event, path):
    """What the browser tests do with chromium, without one: the inline scripts of the console
    and desk pages run under the policy only if each carries this response's nonce."""
    response = director_client.get(f"/t/{event.slug}/{path}")
    assert response.status_code == 200
    html = response.content.decode()
    scripts = re.findall(r"<script\b([^>]*)>", html)
    inline = [attrs for attrs in scripts if "src=" not in attrs]
    nonces = re.findall(r"'nonce-([^']+)'", response["Content-Security-Policy"])
    if inline:
        assert len(nonces) == 1, response["Content-Security-Policy"]
        for attrs in inline:
            assert f'nonce="{nonces[0]}"' in attrs, attrs
    for attrs in scripts:
        src = re.search(r'src="([^"]+)"', attrs)
        if src:
            assert src.group(1).startswith("/"), f"a script from elsewhere: {src.group(1)}"
    # an inline event handler (onclick="...") would not run under the policy
    assert not re.search(r"\son[a-z]+=", html)


def test_the_pages_that_have_inline_scripts_get_them(director_client, event):
    """The nonce test above is not vacuous: these pages do carry inline scripts."""
    for path in ("console/", "console/a/players/", "console/a/round/1/results/", "desk/"):
        html = director_client.get(f"/t/{event.slug}/{path}").content.decode()
        assert re.search(r'<script nonce="[^"]+">', html), path


def test_a_new_nonce_for_every_response(director_client, event):
    first = director_client.get(f"/t/{event.slug}/console/")["Content-Security-Policy"]
    second = director_client.get(f"/t/{event.slug}/console/")["Content-Security-Policy"]
    assert re.findall(r"'nonce-[^']+'", first) != re.findall(r"'nonce-[^']+'", second)
