"""The front tier: nginx in front of gunicorn, for a crowd of phones near the machine's limit.

``manage.py serve --front HOST:PORT`` writes ``GIBSON_DATA_DIR/front/nginx.conf`` from
:func:`render_config` and runs nginx beside gunicorn (:func:`supervise`). gunicorn alone
serves a 500-player division's cached standings at about 2,000 requests a second; nginx serves
the same bytes as a file some 25 times faster. So nginx:

- serves ``/static/`` itself from STATIC_ROOT (collected by ``serve``);
- keeps public answers (pages, feeds, the API's anonymous reads) in its proxy cache, keyed by
  scheme, host, path and query, by whether the client takes gzip and, for pages, by their
  language (the language cookie and Accept-Language, read as the app reads them: the only
  things the app's public answers vary on for an anonymous visitor), and answers everyone
  else from it;
- stores only what the app marks public: gunicorn, told by ``GIBSON_FRONT_CACHE=1``, puts
  ``X-Accel-Expires: @<this second>`` on those answers (tournament/web/front.py), so a page is
  kept to the end of the second it was made in and a result shows through the tier within a
  second (a player's page in a big division longer, in its own turn: tournament/web/front.py,
  and asked for again at that turn by the tier's own refresher: front_refresh.py).
  After that the page is asked for again with its ETag (one small query when nothing
  changed) while the others are still answered from the old copy (one request per page at a
  time reaches gunicorn, whatever the crowd);
- never stores an answer carrying Set-Cookie or marked private, no-store or no-cache, nor
  one to a request with a session, CSRF or messages cookie or an Authorization header; a
  request with a session or messages cookie, or an Authorization header, is never answered
  from the cache either (a signed-in director, a visitor with a message waiting, a script with
  a token). A request carrying only a CSRF cookie (every player whose phone opened their
  scorecard link has one) is answered from it: what is stored was made for a visitor with no
  cookie at all, so it holds no one's token;
- appends the client's address to ``X-Forwarded-For``; gunicorn runs with
  ``GIBSON_BEHIND_PROXY=1`` and takes that last entry for every per-address limit, never the
  entries a client wrote itself (tournament/throttle.py).

The cache lives in ``GIBSON_DATA_DIR/front/cache``; ``restore`` empties it
(:func:`empty_cache`), after its commit, so no page of the replaced data is served again.
"""

from __future__ import annotations

import grp
import os
import pwd
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.core.management import CommandError

from .front_refresh import CardRefresher

FRONT_DIR = "front"
# Where Debian and most distributions install nginx when /usr/sbin is not on PATH.
NGINX_PLACES = ("/usr/sbin/nginx", "/usr/local/sbin/nginx", "/usr/local/nginx/sbin/nginx")
# The cookie django.contrib.messages keeps waiting messages in (CookieStorage.cookie_name).
MESSAGES_COOKIE = "messages"

# The types nginx names static files with (its own mime.types is not always where the
# binary expects it, and Gibson serves few kinds).
MIME_TYPES = {
    "text/html": "html htm",
    "text/css": "css",
    "text/plain": "txt",
    "application/javascript": "js mjs",
    "application/json": "json map",
    "image/svg+xml": "svg svgz",
    "image/png": "png",
    "image/jpeg": "jpeg jpg",
    "image/gif": "gif",
    "image/webp": "webp",
    "image/x-icon": "ico",
    "font/woff": "woff",
    "font/woff2": "woff2",
    "application/pdf": "pdf",
    "application/xml": "xml",
}


@dataclass(frozen=True)
class FrontPaths:
    """The tier's files, all under ``GIBSON_DATA_DIR/front`` (nginx's prefix)."""

    root: Path

    @property
    def conf(self) -> Path:
        return self.root / "nginx.conf"

    @property
    def cache(self) -> Path:
        return self.root / "cache"

    @property
    def temp(self) -> Path:
        return self.root / "temp"

    @property
    def pid(self) -> Path:
        return self.root / "nginx.pid"

    @property
    def error_log(self) -> Path:
        return self.root / "error.log"

    @property
    def cards_log(self) -> Path:
        """The players' pages visitors had to wait for, read by the card refresher."""
        return self.root / "cards.log"


def front_paths(data_dir: Path | None = None) -> FrontPaths:
    return FrontPaths(Path(data_dir if data_dir is not None else settings.DATA_DIR) / FRONT_DIR)


def find_nginx() -> str | None:
    """The nginx binary: on PATH, else where distributions put it (/usr/sbin is often not on
    an ordinary user's PATH)."""
    found = shutil.which("nginx")
    if found:
        return found
    for place in NGINX_PLACES:
        if os.access(place, os.X_OK):
            return place
    return None


def _listen(addr: str) -> str:
    """``listen`` for HOST:PORT; a bare ``:PORT`` or ``*:PORT`` listens everywhere."""
    host, _, port = addr.rpartition(":")
    return f"{host}:{port}" if host and host not in ("*",) else port


def _cookie_pattern(*names: str) -> str:
    """A regex for a Cookie header holding any of ``names``."""
    alternatives = "|".join(sorted({n.replace(".", r"\.") for n in names}))
    return f'"~(^|;)\\s*({alternatives})="'


# The language maps (filled by ``_language_maps``; nginx's braces are literal here).
LANGUAGE_MAPS = """\
    map $cookie_COOKIE $gibson_lang_cookie {
        default "";
EACH
    }
    map $http_accept_language $gibson_lang_first {
        default "";
        "~*^(?:[^,]*,)*?\\s*(?<lang>ALTERNATIVES)(?:-[^,;]*)?\\s*(?:;[^,]*)?(?:,|$)" $lang;
    }
    map $gibson_lang_first $gibson_lang_accept {
        default "";
EXACT
    }
    # both in the key (the app prefers the cookie; the API heeds only the header)
    map $uri $gibson_lang_key {
        default "|$gibson_lang_cookie|$gibson_lang_accept";
        "~^/api/" "";
        "~/tourney\\.js$" "";
    }
"""


def _language_maps() -> str:
    """nginx maps giving ``$gibson_lang_key`` (the cache key's language part) and
    ``$gibson_lang_accept`` (the one language named to the app as its Accept-Language),
    from settings.LANGUAGES and the language cookie's name (LANGUAGE_COOKIE_NAME)."""
    codes = [code.lower() for code, _name in settings.LANGUAGES]
    each = "\n".join(f'        "~*^{re.escape(code)}(-|$)" {code};' for code in codes)
    exact = "\n".join(f'        "~*^{re.escape(code)}$" {code};' for code in codes)
    return (
        LANGUAGE_MAPS.replace("COOKIE", re.sub(r"\W", "_", settings.LANGUAGE_COOKIE_NAME))
        .replace("ALTERNATIVES", "|".join(re.escape(code) for code in codes))
        .replace("EACH", each)
        .replace("EXACT", exact)
    )


def _user_line() -> str:
    """nginx started as root drops its workers to a user: the owner of the data folder, who
    can read the static files and write the cache. Any other user runs them as itself."""
    if os.geteuid() != 0:
        return ""
    stat = Path(settings.DATA_DIR).stat()
    try:
        user = pwd.getpwuid(stat.st_uid).pw_name
        group = grp.getgrgid(stat.st_gid).gr_name
    except KeyError:
        return ""
    return f"user {user} {group};\n"


# What the desk sends: the console's pages and answers (directors, scorekeepers) and the API's
# writes (scoring apps, a venue's link). With a desk pool they go to its own gunicorn workers,
# so a public crowd filling the other pool's queue never makes the desk wait.
DESK_LOCATION = r"~ ^/(t/[^/]+/)?console/"
API_LOCATION = "/api/"


# nginx.conf, filled by ``render_config`` (str.format: ``{{`` and ``}}`` are nginx's braces)
NGINX_CONFIG = """\
# Written by `manage.py serve --front`; written again at each start (edits are lost).
{user_line}worker_processes auto;
pid {paths.pid};
error_log {paths.error_log} warn;

events {{
    worker_connections 2048;
}}

http {{
    types {{
{types}
    }}
    default_type application/octet-stream;
    access_log off;
    server_tokens off;
    sendfile on;
    tcp_nopush on;
    tcp_nodelay on;
    keepalive_timeout 65s;
    keepalive_requests 100000;
    client_max_body_size {body_mb}m;

    client_body_temp_path {temp}/body;
    proxy_temp_path {temp}/proxy;
    fastcgi_temp_path {temp}/fastcgi;
    uwsgi_temp_path {temp}/uwsgi;
    scgi_temp_path {temp}/scgi;

    # Pages are kept to the end of the second the app made them in (X-Accel-Expires), so
    # entries are small and few: one per page and encoding.
    proxy_cache_path {paths.cache} levels=1:2 keys_zone=gibson:20m max_size=1g inactive=10m
                     use_temp_path=off;

    # a signed-in session, a waiting message or a token: never answered from the cache
    map $http_cookie $gibson_signed_in {{
        default 0;
        {private} 1;
    }}
    # ... and, with a CSRF cookie too, never stored (the answer may hold that visitor's token)
    map $http_cookie $gibson_cookie {{
        default 0;
        {any_auth} 1;
    }}
    # the card refresher's requests (this run's token, front_refresh.py): never answered from
    # the cache, and what they fetch replaces the kept copy under the visitors' key
    map $http_x_gibson_refresh $gibson_refresh {{
        default 0;
{refresh_entry}
    }}
    # a player's page a visitor's request had to ask gunicorn for: its key's parts, for the
    # refresher to ask for that variant of the tournament's cards from then on
    map "$upstream_cache_status $status $uri" $gibson_card_asked {{
        default 0;
        "~^(MISS|EXPIRED|STALE|REVALIDATED) 200 /t/[^/]+/[^/]+/player/[0-9]+/$" 1;
    }}
    log_format gibson_cards
        "$http_host\t$gibson_gzip\t$gibson_lang_cookie\t$gibson_lang_accept\t$uri";
    # an answer the app did not make for everyone
    map $upstream_http_cache_control $gibson_not_public {{
        default 0;
        "~*(private|no-store|no-cache)" 1;
    }}
    # the app answers gzip or plain by this, and marks its answers Vary: Accept-Encoding; the
    # key holds the choice, not each browser's spelling of the header
    map $http_accept_encoding $gibson_gzip {{
        default "";
        "~*gzip" gzip;
    }}

    # The language the app answers a page in (tournament/web/language.py) is part of the
    # key: the switcher's cookie when it names a language Gibson speaks, and the browser's
    # first such language in Accept-Language. The app is sent that one language as its
    # Accept-Language (and the cookie as it came), so what it makes is always what the key
    # says (a French page is never kept under an English key). Approximation: nginx takes
    # the header's first supported language in the order written and ignores q-values
    # (browsers write their languages in order of preference; Django would sort by q); a
    # header naming none is sent as none and the app takes the tournament's language, which
    # the path decides. tourney.js and the API are the same in every language: one entry
    # for all, as before.
{language_maps}
    upstream gibson {{
        server {upstream};
        keepalive 32;
    }}
{stream_upstream}
{desk_upstream}
    server {{
        listen {listen} backlog=4096;
        access_log {paths.cards_log} gibson_cards if=$gibson_card_asked;

        # Answers passed from the app or kept in the cache go out without TCP_CORK: with
        # it, a kept answer of some sizes (100 KB: tourney.js of 500 players, the manual's
        # refusals) waited 40 ms for the client's delayed ACK before its last segment, every
        # time, so 32 keep-alive clients got 700 answers a second instead of 14,000.
        tcp_nopush off;

        location {static_url} {{
            tcp_nopush on;  # files by sendfile, whole: corked, they leave in full segments
            alias {static_root}/;
            expires 1h;
            gzip_static on;
            gzip on;
            gzip_types text/css application/javascript application/json image/svg+xml;
            try_files $uri @gibson;
        }}

        location / {{
            proxy_pass http://gibson;
        }}
{desk_routes}
        location @gibson {{
            proxy_pass http://gibson;
        }}
{stream_location}
        proxy_http_version 1.1;
        proxy_set_header Connection "";
        proxy_set_header Host $http_host;
        # the client's address appended: the app trusts that last entry only
        proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
        proxy_set_header X-Forwarded-Proto $scheme;
        proxy_set_header Accept-Encoding $gibson_gzip;
        proxy_set_header Accept-Language $gibson_lang_accept;
        proxy_set_header X-Gibson-Refresh "";
        proxy_read_timeout 120s;
        proxy_buffers 16 64k;

        proxy_cache gibson;
        proxy_cache_key "$scheme|$http_host|$request_uri|$gibson_gzip$gibson_lang_key";
        proxy_cache_methods GET HEAD;
        proxy_ignore_headers Vary;
        proxy_cache_bypass $gibson_signed_in $http_authorization $gibson_refresh;
        proxy_no_cache $gibson_cookie $http_authorization $gibson_not_public
                       $upstream_http_set_cookie;
        proxy_cache_revalidate on;
        proxy_cache_lock on;
        proxy_cache_lock_timeout 5s;
        proxy_cache_lock_age 5s;
        proxy_cache_use_stale updating;
        proxy_cache_background_update on;
        add_header X-Cache $upstream_cache_status always;
    }}
}}
"""


def _stream_blocks(stream: str) -> tuple[str, str]:
    """The live stream behind the tier: each event passed on at once (no buffering, no
    cache), and a stream left open for an hour between events (the stream's own heartbeat
    comes every 15 s, so a dead connection is still found)."""
    upstream = "\n    upstream gibson_stream {\n        server " + stream + ";\n    }\n"
    location = """
        location ~ ^/t/[-a-zA-Z0-9_]+/live/$ {
            proxy_pass http://gibson_stream;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_buffering off;
            proxy_cache off;
            proxy_read_timeout 1h;
            proxy_send_timeout 1h;
        }
"""
    return upstream, location


def _desk_blocks(desk: str) -> tuple[str, str]:
    """The desk pool behind the tier: the console's pages and the API's writes go to its own
    gunicorn workers; the API's reads stay with the crowd's pool."""
    desk_upstream = f"""
    upstream gibson_desk {{
        server {desk};
        keepalive 8;
    }}
    # the API's reads are the crowd's (feeds, standings); its writes are the desk's
    map $request_method $gibson_api_pool {{
        default gibson_desk;
        GET gibson;
        HEAD gibson;
        OPTIONS gibson;
    }}
"""
    desk_routes = f"""
        # the director's and scorekeepers' requests: their own workers (serve --desk-workers)
        location {DESK_LOCATION} {{
            proxy_pass http://gibson_desk;
        }}

        location {API_LOCATION} {{
            proxy_pass http://$gibson_api_pool;
        }}
"""
    return desk_upstream, desk_routes


def render_config(
    front: str,
    upstream: str,
    paths: FrontPaths | None = None,
    stream: str | None = None,
    desk: str | None = None,
    refresh_token: str = "",
) -> str:
    """nginx.conf for the tier listening on ``front`` and passing to gunicorn on ``upstream``
    (both HOST:PORT), ``/t/SLUG/live/`` to the live stream on ``stream`` if given, and with
    ``desk`` (the desk pool's HOST:PORT) the console and the API's writes to that pool.
    Everything nginx writes stays under ``paths.root``. ``refresh_token``: the card
    refresher's secret for this run (none: no request bypasses the cache that way)."""
    paths = paths or front_paths()
    stream_upstream, stream_location = _stream_blocks(stream) if stream else ("", "")
    desk_upstream, desk_routes = _desk_blocks(desk) if desk else ("", "")
    static_root = Path(settings.STATIC_ROOT)
    static_url = "/" + settings.STATIC_URL.strip("/") + "/"
    types = "\n".join(f"        {kind} {exts};" for kind, exts in MIME_TYPES.items())
    private = _cookie_pattern(settings.SESSION_COOKIE_NAME, MESSAGES_COOKIE)
    any_auth = _cookie_pattern(
        settings.SESSION_COOKIE_NAME, MESSAGES_COOKIE, settings.CSRF_COOKIE_NAME
    )
    # a little above the app's own limit: the app refuses a bigger body itself, with a page
    # that says what the limit is (nginx's own 413 says nothing useful)
    body_mb = int(getattr(settings, "MAX_UPLOAD_MB", 5)) + 1
    temp = paths.temp
    return NGINX_CONFIG.format(
        user_line=_user_line(),
        paths=paths,
        types=types,
        body_mb=body_mb,
        temp=temp,
        private=private,
        any_auth=any_auth,
        upstream=upstream,
        listen=_listen(front),
        static_url=static_url,
        static_root=static_root,
        stream_upstream=stream_upstream,
        stream_location=stream_location,
        desk_upstream=desk_upstream,
        desk_routes=desk_routes,
        language_maps=_language_maps(),
        # no token (or not one of ours): no request bypasses the cache that way
        refresh_entry=(
            f'        "{refresh_token}" 1;' if re.fullmatch(r"[0-9a-f]{32,}", refresh_token) else ""
        ),
    )


def write_config(
    front: str,
    upstream: str,
    paths: FrontPaths | None = None,
    stream: str | None = None,
    desk: str | None = None,
    refresh_token: str = "",
) -> FrontPaths:
    """Write nginx.conf and make the folders nginx needs; returns the paths."""
    paths = paths or front_paths()
    for folder in (paths.root, paths.cache, paths.temp):
        folder.mkdir(parents=True, exist_ok=True)
    paths.conf.write_text(
        render_config(front, upstream, paths, stream, desk, refresh_token), encoding="utf-8"
    )
    return paths


def nginx_argv(nginx: str, paths: FrontPaths, *more: str) -> list[str]:
    """nginx on our configuration, in the foreground, with its start-up log ours too (the
    default /var/log/nginx is not writable by an ordinary user)."""
    return [
        nginx,
        "-p",
        f"{paths.root}/",
        "-c",
        str(paths.conf),
        "-e",
        str(paths.error_log),
        "-g",
        "daemon off;",
        *more,
    ]


def check_config(nginx: str, paths: FrontPaths) -> None:
    """``nginx -t`` on the written configuration; its own words when it is refused."""
    argv = [a for a in nginx_argv(nginx, paths) if a not in ("-g", "daemon off;")]
    done = subprocess.run([*argv, "-t", "-q"], capture_output=True, text=True, timeout=30)
    if done.returncode != 0:
        said = (done.stderr or done.stdout).strip()
        raise CommandError(f"nginx refused {paths.conf}: {said}")


def empty_cache(data_dir: Path | None = None) -> int:
    """Remove every page the tier keeps (``restore`` calls this after its commit); returns
    how many were removed. nginx then finds the files gone and asks gunicorn again: a missing
    file is a miss, whatever its memory of the key says."""
    cache = front_paths(data_dir).cache
    if not cache.is_dir():
        return 0
    removed = 0
    for entry in sorted(cache.rglob("*"), reverse=True):  # files before their folders
        try:
            if entry.is_dir():
                entry.rmdir()
            else:
                entry.unlink()
                removed += 1
        except OSError:  # written or removed by nginx meanwhile
            pass
    return removed


# --- running nginx beside gunicorn ---------------------------------------------------------------


def _die_with_parent() -> None:  # in the child, between fork and exec
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass


def _start(argv: list[str], nice: int = 0) -> subprocess.Popen:
    """A child in a process group of its own (a Ctrl-C reaches this supervisor, which stops
    each gracefully) that the kernel stops if the supervisor is killed outright; ``nice``
    lowers its CPU priority."""

    def prepare() -> None:
        _die_with_parent()
        if nice:
            os.nice(nice)

    return subprocess.Popen(argv, start_new_session=True, preexec_fn=prepare)  # noqa: PLW1509


def _stop(proc: subprocess.Popen, sig: int, timeout: float) -> None:
    if proc.poll() is None:
        try:
            proc.send_signal(sig)
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
        except ProcessLookupError:
            pass


def _wait_listening(addr: str, proc: subprocess.Popen, stopping: list[int]) -> None:
    """Until something accepts on ``addr`` (HOST:PORT), ``proc`` ends, a stop signal comes or
    a minute passes (nginx is started anyway then: gunicorn may still be loading)."""
    host, _, port = addr.rpartition(":")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None and not stopping:
        try:
            socket.create_connection((host.strip("[]"), int(port)), timeout=1).close()
            return
        except OSError:
            time.sleep(0.1)


def supervise(
    nginx: list[str] | None,
    gunicorn: list[str],
    err=sys.stderr,
    app_nice: int = 0,
    stream: list[str] | None = None,
    desk: list[str] | None = None,
    refresher: CardRefresher | None = None,
) -> int:
    """Run gunicorn (at ``app_nice``), the desk's own gunicorn if given (``desk``, at full
    priority: the desk never waits for the crowd), the live stream if given and nginx if
    given (with the card refresher's thread once nginx runs, if given), until a stop signal
    (SIGTERM, SIGINT, SIGHUP) or until one ends; then stop the others (gunicorn finishes
    requests in flight, nginx its answers). Exit status 0 after a stop signal, 1 when a
    server ended by itself."""
    stopping: list[int] = []

    def on_signal(signum: int, _frame: object) -> None:
        stopping.append(signum)

    previous = {
        s: signal.signal(s, on_signal) for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
    }
    pools = {"gunicorn": (gunicorn, app_nice)}
    if desk is not None:
        pools["desk gunicorn"] = (desk, 0)
    procs: dict[str, subprocess.Popen] = {}
    try:
        for name, (argv, nice) in pools.items():
            procs[name] = _start(argv, nice)
        if stream is not None:
            procs["stream"] = _start(stream)
        # nginx once gunicorn answers: no "502 Bad Gateway" to the first visitors
        for name, (argv, _nice) in pools.items():
            _wait_listening(argv[argv.index("--bind") + 1], procs[name], stopping)
        if nginx is not None:
            procs["nginx"] = _start(nginx)
            if refresher is not None:
                refresher.start()
    except BaseException:
        for proc in procs.values():
            _stop(proc, signal.SIGTERM, 30)
        raise
    ended = ""
    try:
        while not stopping and not ended:
            for name, proc in procs.items():
                if proc.poll() is not None:
                    ended = name
                    break
            time.sleep(0.2)
    finally:
        if refresher is not None:
            refresher.stop()
        if "nginx" in procs:
            _stop(procs["nginx"], signal.SIGQUIT, 20)  # graceful: answers in flight are sent
        if "stream" in procs:
            _stop(procs["stream"], signal.SIGINT, 10)  # pages reconnect to the next one
        for name in pools:  # graceful: requests in flight finish
            _stop(procs[name], signal.SIGTERM, 30)
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    if ended and not stopping:
        code = procs[ended].returncode
        where = f" (see {nginx[nginx.index('-e') + 1]})" if ended == "nginx" and nginx else ""
        err.write(f"{ended} stopped by itself (status {code}){where}; the others were stopped\n")
        err.flush()
        return 1
    return 0
