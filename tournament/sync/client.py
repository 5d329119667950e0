"""The venue's HTTP calls to its hosted site: download, push a batch, hand back.

Plain urllib (no new dependency): JSON in and out, the link's token in the Authorization
header (``Venue <token>``), this laptop's id and name in ``X-Gibson-Laptop`` and
``X-Gibson-Laptop-Name`` (a link is bound to one laptop), a timeout short enough that a dead
link fails fast (settings' VENUE_TIMEOUT). Every failure
becomes a ServiceError: ``venue_unreachable`` (no answer: try again later, nothing is lost)
or ``venue_refused`` (the hosted site answered no; its code and words are kept).

The address is typed by a director, and the server makes the request: so only a public
internet address is asked (``venue_private_address`` otherwise, unless settings'
VENUE_ALLOW_PRIVATE_ADDRESSES), checked on the connected socket itself, so neither a name
that resolves again to another address nor a redirect reaches this machine or its network.
Requests go straight to the site (no proxy from the environment: the check is of the site).
"""

from __future__ import annotations

import gzip
import hashlib
import hmac
import http.client
import ipaddress
import json
import socket
import urllib.error
import urllib.request
from typing import Any
from urllib.parse import unquote, urlsplit

from django.conf import settings

from ..errors import ServiceError

# bodies larger than this go gzipped (the hosted site reads both): near the hosted site's
# 2.5 MB request limit only, so an ordinary push spends no time on it
GZIP_OVER = 2_000_000


def timeout() -> float:
    """Seconds a quick call (the inbox, which every push asks first) waits for an answer: a
    link that accepts but never answers fails in seconds, not minutes. A batch or
    a download, which the hosted site needs time to write or read, waits six times as long."""
    return float(settings.VENUE_TIMEOUT)


def laptop() -> tuple[str, str]:
    """This instance's id and name as a venue link knows it (a link is bound to
    one laptop). The id is derived from this instance's secret key: the same after a restart
    or a restore from its own backup, another on any other instance."""
    digest = hmac.new(settings.SECRET_KEY.encode(), b"gibson venue laptop", hashlib.sha256)
    ident = digest.hexdigest()[:32]
    name = settings.VENUE_LAPTOP_NAME or socket.gethostname() or "a laptop"
    return ident, f"{name[:80]} ({ident[:6]})"


def public_address(address: str) -> bool:
    """Whether ``address`` (an IP) is on the public internet: not loopback, private,
    link-local (cloud metadata), shared, reserved, multicast or unspecified."""
    ip = ipaddress.ip_address(address.split("%")[0])
    mapped = getattr(ip, "ipv4_mapped", None)
    if mapped is not None:
        ip = mapped
    return ip.is_global and not ip.is_multicast


def check_address(url: str, address: str) -> None:
    """Refuse to talk to ``address`` for ``url`` unless it is public (or the site allows)."""
    if settings.VENUE_ALLOW_PRIVATE_ADDRESSES or public_address(address):
        return
    raise ServiceError("venue_private_address", field="url", url=url, address=address)


def check_host(url: str) -> None:
    """Refuse ``url`` at once if its host names a non-public address (a name that does not
    resolve is left to the request, which answers "cannot be reached")."""
    host = unquote(urlsplit(url).hostname or "")  # an IPv6 zone: [fe80::1%25eth0]
    try:
        found = socket.getaddrinfo(host, None, proto=socket.IPPROTO_TCP)
    except (OSError, UnicodeError):
        return
    for *_rest, sockaddr in found:
        check_address(url, str(sockaddr[0]))


class _CheckedHTTPConnection(http.client.HTTPConnection):
    """Checks the address it actually connected to, before a byte is sent."""

    checked_url = ""

    def connect(self) -> None:
        super().connect()
        try:
            check_address(self.checked_url or self.host, self.sock.getpeername()[0])
        except ServiceError:
            self.close()
            raise


class _CheckedHTTPSConnection(http.client.HTTPSConnection, _CheckedHTTPConnection):
    """The same check, on the TCP connection before the TLS handshake (MRO: HTTPSConnection's
    connect calls ours, then wraps the socket)."""


class _CheckedHTTP(urllib.request.HTTPHandler):
    def __init__(self, url: str) -> None:
        super().__init__()
        self.url = url

    def http_open(self, req: urllib.request.Request) -> Any:
        url = self.url

        def connection(*args: Any, **kwargs: Any) -> http.client.HTTPConnection:
            conn = _CheckedHTTPConnection(*args, **kwargs)
            conn.checked_url = url
            return conn

        return self.do_open(connection, req)


class _CheckedHTTPS(urllib.request.HTTPSHandler):
    def __init__(self, url: str) -> None:
        super().__init__()
        self.url = url

    def https_open(self, req: urllib.request.Request) -> Any:
        url = self.url

        def connection(*args: Any, **kwargs: Any) -> http.client.HTTPSConnection:
            conn = _CheckedHTTPSConnection(*args, **kwargs)
            conn.checked_url = url
            return conn

        return self.do_open(
            connection, req, context=self._context, check_hostname=self._check_hostname
        )


def _opener(base: str) -> urllib.request.OpenerDirector:
    """urllib's opener with every connection checked, and no proxy taken from the environment."""
    return urllib.request.build_opener(
        urllib.request.ProxyHandler({}), _CheckedHTTP(base), _CheckedHTTPS(base)
    )


def _call(
    base: str, path: str, token: str, body: Any = None, *, quick: bool = False
) -> dict[str, Any]:
    url = base.rstrip("/") + "/api/v1/venue/" + path
    ident, name = laptop()
    data = None if body is None else json.dumps(body, separators=(",", ":")).encode()
    headers = {}
    if data is not None and len(data) > GZIP_OVER:
        # a whole event sent again is megabytes of JSON: gzip keeps it under the hosted
        # site's request limit (2.5 MB) for about ten times the games
        data, headers = gzip.compress(data, compresslevel=1), {"Content-Encoding": "gzip"}
    request = urllib.request.Request(
        url,
        data=data,
        method="GET" if body is None else "POST",
        headers={
            "Authorization": f"Venue {token}",
            "Content-Type": "application/json",
            "Accept": "application/json",
            "X-Gibson-Laptop": ident,
            "X-Gibson-Laptop-Name": name.encode("ascii", "replace").decode(),
            **headers,
        },
    )
    try:
        check_host(base)
        wait = timeout() * (1 if quick else 6)
        with _opener(base).open(request, timeout=wait) as answer:
            return json.loads(answer.read() or b"{}")
    except urllib.error.HTTPError as exc:
        try:
            errors = json.loads(exc.read() or b"{}").get("errors") or [{}]
        except ValueError:
            errors = [{}]
        first = errors[0] if isinstance(errors, list) and errors else {}
        raise ServiceError(
            "venue_refused",
            url=base,
            detail=first.get("message") or f"HTTP {exc.code}",
            remote=first.get("code") or f"http_{exc.code}",
            remote_params=first.get("params") or {},
        ) from exc
    except (urllib.error.URLError, TimeoutError, ConnectionError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise ServiceError("venue_unreachable", url=base, detail=str(reason)) from exc
    except ValueError as exc:
        raise ServiceError("venue_unreachable", url=base, detail=f"not JSON: {exc}") from exc


def fetch_state(base: str, token: str) -> dict[str, Any]:
    return _call(base, "state/", token)


def push_batch(base: str, token: str, batch: dict[str, Any]) -> dict[str, Any]:
    return _call(base, "push/", token, batch)


def release(base: str, token: str) -> dict[str, Any]:
    return _call(base, "release/", token, {})


def fetch_inbox(base: str, token: str) -> dict[str, Any]:
    return _call(base, "inbox/", token, quick=True)


def settle_inbox(base: str, token: str, answers: dict[str, Any]) -> dict[str, Any]:
    return _call(base, "inbox/", token, answers, quick=True)


def fetch_copy(base: str, token: str) -> dict[str, Any]:
    """What the hosted copy holds now (compare, or bring it down)."""
    return _call(base, "copy/", token)
