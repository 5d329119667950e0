"""The front tier without nginx running: what the configuration says, what the app marks for
the tier, and what ``serve --front`` refuses before preparing anything (test_front.py runs it)."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
from django.http import HttpResponse
from django.test import RequestFactory, override_settings

from tests.conftest import REPO
from tournament.management import front
from tournament.turns import due_numbers
from tournament.web.front import HEADER, FrontCacheMark, expires_at, shareable

from .conftest import clean_env, free_port


def test_the_configuration_keeps_only_anonymous_public_answers(tmp_path, settings):
    settings.DATA_DIR = tmp_path
    text = front.render_config("0.0.0.0:8080", "127.0.0.1:8000", front.front_paths(tmp_path))
    assert "listen 0.0.0.0:8080" in text and "server 127.0.0.1:8000;" in text
    assert f"proxy_cache_path {tmp_path / 'front' / 'cache'} " in text
    # the client's address appended, never replaced by what it claimed; the scheme set here
    assert "X-Forwarded-For $proxy_add_x_forwarded_for;" in text
    assert "X-Forwarded-Proto $scheme;" in text
    # a session, a waiting message or a token: never from the cache; a CSRF cookie too: never
    # stored; an answer marked private or setting a cookie: never stored
    assert '"~(^|;)\\s*(messages|sessionid)=" 1;' in text
    assert '"~(^|;)\\s*(csrftoken|messages|sessionid)=" 1;' in text
    assert "proxy_cache_bypass $gibson_signed_in $http_authorization $gibson_refresh;" in text
    assert "$gibson_cookie $http_authorization $gibson_not_public" in text
    assert "$upstream_http_set_cookie" in text
    assert '"~*(private|no-store|no-cache)" 1;' in text
    # nothing kept by a default lifetime: only what the app marks (X-Accel-Expires)
    assert "proxy_cache_valid" not in text
    assert "proxy_cache_use_stale updating;" in text and "proxy_cache_lock on;" in text


def test_only_this_runs_refresher_token_bypasses_the_cache(tmp_path, settings):
    """The card refresher's requests bypass nginx's copy (and replace it) with this run's
    token; without one, or with anything that is not a token of ours, no header does. The
    token is never passed on to the app, and the cards visitors waited for are logged for
    the refresher, with the parts of the key it must send."""
    settings.DATA_DIR = tmp_path
    token = "0123456789abcdef" * 2
    paths = front.front_paths(tmp_path)
    text = front.render_config("0.0.0.0:8080", "127.0.0.1:8000", paths, refresh_token=token)
    block = text[text.index("map $http_x_gibson_refresh") :].split("}", 1)[0]
    assert block.split("{", 1)[1].split() == ["default", "0;", f'"{token}"', "1;"]
    assert 'proxy_set_header X-Gibson-Refresh "";' in text
    assert f"access_log {paths.cards_log} gibson_cards if=$gibson_card_asked;" in text
    for bad in ("", "short", 'x" 1; "', token.upper()):
        text = front.render_config("0.0.0.0:8080", "127.0.0.1:8000", paths, refresh_token=bad)
        block = text[text.index("map $http_x_gibson_refresh") :].split("}", 1)[0]
        assert block.split("{", 1)[1].split() == ["default", "0;"], bad


def test_the_cache_key_holds_the_language_the_app_will_answer_in(tmp_path, settings):
    """The key's language part and the one language the app is asked for come from the same
    maps, so a page is always kept under the language it was made in; tourney.js and the API
    have no language part (one copy for all, as before)."""
    settings.DATA_DIR = tmp_path
    text = front.render_config("0.0.0.0:8080", "127.0.0.1:8000", front.front_paths(tmp_path))
    assert 'proxy_cache_key "$scheme|$http_host|$request_uri|$gibson_gzip$gibson_lang_key";' in text
    assert "proxy_set_header Accept-Language $gibson_lang_accept;" in text
    assert "map $cookie_django_language $gibson_lang_cookie {" in text
    for code, _name in settings.LANGUAGES:
        assert f'"~*^{code}(-|$)" {code};' in text and f'"~*^{code}$" {code};' in text
    assert '"~^/api/" "";' in text and '"~/tourney\\.js$" "";' in text
    # the map's regex picks the first language Gibson speaks, as nginx's PCRE will
    first = re.search(r'"~\*(\^.*\(\?<lang>[^"]*)" \$lang;', text).group(1)
    pattern = re.compile(first.replace("(?<lang>", "(?P<lang>"), re.IGNORECASE)
    for header, wanted in (
        ("fr-FR,fr;q=0.9,en;q=0.8", "fr"),
        ("de-DE,de;q=0.9, PL;q=0.5,en;q=0.4", "PL"),
        ("en-US", "en"),
        ("de, frx", None),
        ("esperanto, es-419", "es"),
    ):
        found = pattern.search(header)
        assert (found["lang"] if found else None) == wanted, header


def test_the_desk_has_its_own_upstream_for_the_console_and_api_writes(tmp_path, settings):
    settings.DATA_DIR = tmp_path
    paths = front.front_paths(tmp_path)
    one = front.render_config("0.0.0.0:8080", "127.0.0.1:8000", paths)
    assert "gibson_desk" not in one  # --desk-workers 0: one pool for everything
    text = front.render_config("0.0.0.0:8080", "127.0.0.1:8000", paths, desk="127.0.0.1:8001")
    assert "upstream gibson_desk {\n        server 127.0.0.1:8001;" in text
    assert "location ~ ^/(t/[^/]+/)?console/ {\n            proxy_pass http://gibson_desk;" in text
    # the API's reads stay with the crowd's pool (and its cache), its writes go to the desk
    assert "location /api/ {\n            proxy_pass http://$gibson_api_pool;" in text
    for method in ("GET", "HEAD", "OPTIONS"):
        assert f"        {method} gibson;\n" in text
    assert "        default gibson_desk;\n" in text
    nginx = front.find_nginx()
    if nginx is not None:  # nginx itself accepts the configuration
        front.write_config("127.0.0.1:8080", "127.0.0.1:8000", paths, desk="127.0.0.1:8001")
        front.check_config(nginx, paths)


@pytest.mark.parametrize(
    ("given", "workers", "message"),
    [
        ("8.8.8.8:8001", 2, "loopback"),
        ("127.0.0.1:8000", 2, "two different ports"),
        (None, 65, "give 0 to 64"),
        ("127.0.0.1:x", 2, "give HOST:PORT"),
    ],
)
def test_a_desk_address_that_cannot_work_is_refused(given, workers, message):
    from django.core.management import CommandError

    from tournament.management.commands.serve import _desk_addr

    with pytest.raises(CommandError, match=message):
        _desk_addr("127.0.0.1:8000", given, workers)


def test_the_desk_listens_on_the_port_after_the_apps_unless_told():
    from tournament.management.commands.serve import _desk_addr

    port = free_port()
    assert _desk_addr(f"127.0.0.1:{port - 1}", None, 2) == f"127.0.0.1:{port}"
    assert _desk_addr("127.0.0.1:8000", None, 0) is None


def test_empty_cache_removes_every_kept_page(tmp_path):
    cache = front.front_paths(tmp_path).cache
    (cache / "a" / "bc").mkdir(parents=True)
    (cache / "a" / "bc" / "0123abc").write_bytes(b"page")
    (cache / "f" / "00").mkdir(parents=True)
    (cache / "f" / "00" / "feed").write_bytes(b"page")
    assert front.empty_cache(tmp_path) == 2
    assert cache.is_dir() and not any(cache.iterdir())
    assert front.empty_cache(tmp_path / "nowhere") == 0


def _through(response: HttpResponse, **request_meta: str) -> HttpResponse:
    request = RequestFactory().get("/t/x/a/standings/", **request_meta)
    return FrontCacheMark(lambda r: response)(request)


@override_settings(FRONT_CACHE=True)
def test_only_answers_made_for_everyone_are_marked_for_the_tier():
    public = HttpResponse("page")
    public["Cache-Control"] = "public, max-age=1"
    assert _through(public)[HEADER].startswith("@")
    for control in ("private, no-cache", "private, no-store", "no-store", ""):
        response = HttpResponse("page")
        if control:
            response["Cache-Control"] = control
        assert not _through(response).has_header(HEADER), control
    with_cookie = HttpResponse("page")
    with_cookie["Cache-Control"] = "public, max-age=1"
    with_cookie.set_cookie("csrftoken", "x")
    assert not _through(with_cookie).has_header(HEADER)
    token = HttpResponse("page")
    token["Cache-Control"] = "public, max-age=1"
    assert not _through(token, HTTP_AUTHORIZATION="Token abc").has_header(HEADER)
    refused = HttpResponse("slow down", status=429)
    refused["Cache-Control"] = "public, max-age=1"
    assert not shareable(RequestFactory().get("/"), refused)


def test_a_cards_keep_grows_with_its_division_and_cards_expire_in_turn(monkeypatch):
    """Issue 40: a player's page comes round every ``players / 10`` seconds, each card in its
    own turn (so the tier asks gunicorn for about 10 cards a second, evenly), and is kept one
    turn more (the refresher replaces it at the next); every other answer to the end of its
    second."""
    from types import SimpleNamespace

    from tournament.web import front as mark

    def request(view: str, number: str = "7") -> SimpleNamespace:
        kwargs = {"slug": "open", "division": "a", "number": number}
        return SimpleNamespace(resolver_match=SimpleNamespace(view_name=view, kwargs=kwargs))

    for players, keep in ((5, 1), (10, 1), (11, 2), (40, 4), (500, 50)):
        monkeypatch.setattr(mark, "division_size", lambda slug, division, n=players: n)
        assert expires_at(request("public:standings"), 1000) == 1000
        ends = [expires_at(request("public:player", str(n)), 1000) for n in range(1, players + 1)]
        # kept to the end of its next turn but one: the refresher asks at the next
        assert all(1000 + keep <= e <= 1000 + 2 * keep - 1 for e in ends), (players, ends)
        per_second = [ends.count(second) for second in range(1000 + keep, 1000 + 2 * keep)]
        assert max(per_second) - min(per_second) <= 1, (players, per_second)  # evenly
        assert expires_at(request("public:player", "x"), 1000) <= 1000 + 2 * keep - 1
        # the refresher's turns are the same turns
        for n in range(1, players + 1):
            turn = next(s for s in range(1000, 1000 + keep) if n in due_numbers([n], s, keep))
            assert expires_at(request("public:player", str(n)), turn) == turn + keep


def test_without_the_tier_the_mark_is_not_used():
    from django.core.exceptions import MiddlewareNotUsed

    with pytest.raises(MiddlewareNotUsed):
        FrontCacheMark(lambda r: HttpResponse())


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--addr", "0.0.0.0:{app}"], "with --front, gunicorn listens on a loopback address"),
        (["--front", "127.0.0.1"], "--front '127.0.0.1': give HOST:PORT"),
        (["--front", "127.0.0.1:{app}"], "give two different ports"),
        (["--app-nice", "25"], "--app-nice 25: give 0 to 19, with --front"),
    ],
)
def test_serve_front_refuses_what_cannot_work_before_preparing_anything(tmp_path, args, message):
    app = free_port()
    argv = ["--front", f"127.0.0.1:{free_port()}", "--addr", f"127.0.0.1:{app}"]
    argv += [a.format(app=app) for a in args]
    done = subprocess.run(
        [sys.executable, "manage.py", "serve", *argv],
        cwd=REPO,
        env=clean_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1 and done.stdout == ""
    assert message in done.stderr, done.stderr
    assert not (tmp_path / "gibson.sqlite3").exists()
    assert not (tmp_path / "front").exists()
