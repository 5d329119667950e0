"""What the commands that serve the site share: refusing a busy address before anything runs,
and the manual they serve at /docs/.

``serve_demo`` (runserver on a laptop) and ``serve`` (gunicorn) both check the address first,
so a second copy started by mistake says which port is taken instead of printing a "ready"
line for a server that never comes up. Both build the manual at start when it is missing or
older than docs/ (``publish_manual``), so a director at a venue without internet has it.
"""

from __future__ import annotations

import os
import socket
from typing import TextIO
from urllib.parse import urlsplit

from django.conf import settings
from django.core.management import CommandError

from ..manual import ManualError, publish_manual
from ..siteurl import LISTEN_ENV, SITE_URL_ENV, site_url_from_addr, unreachable_warning


def split_addr(addr: str) -> tuple[str, int]:
    """HOST:PORT (IPv6 hosts in brackets) as (host, port); a malformed address is refused."""
    host, _, port = addr.rpartition(":")
    host = host.strip("[]") or "127.0.0.1"
    if not port.isdigit() or not 0 < int(port) < 65536:
        raise CommandError(f"--addr {addr!r}: give HOST:PORT, e.g. 127.0.0.1:8000")
    return host, int(port)


def check_free(addr: str) -> None:
    """Refuse a busy or malformed address up front, naming it.

    The probe binds as the servers do (gunicorn and runserver set SO_REUSEADDR): a port whose
    last server just stopped keeps its closed connections in TIME_WAIT for up to a minute,
    and a plain bind called that "Address already in use" although nothing listened, so a
    director restarting the server was refused. A port with a listener is still refused (on
    Windows, whose SO_REUSEADDR would share a listening port, SO_EXCLUSIVEADDRUSE instead).
    """
    host, port = split_addr(addr)
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        if hasattr(socket, "SO_EXCLUSIVEADDRUSE"):
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_EXCLUSIVEADDRUSE, 1)
        else:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as exc:
            raise CommandError(
                f"cannot serve on {addr}: {exc.strerror or exc} (is another server running "
                "there? set --addr or GIBSON_ADDR to a free port)"
            ) from exc


def announce_site_url(addr: str, err: TextIO) -> str:
    """Settle the URL scorecard QR codes carry for a site served on ``addr``; returns it.

    Without GIBSON_SITE_URL, a concrete HOST:PORT becomes the site URL (the address phones reach
    when the director serves on the laptop's own address). The listening address is kept in
    the environment (gunicorn's workers inherit it) for the desk's warning, and the site URL's
    host joins ALLOWED_HOSTS. A room-wide address
    with a loopback site URL is said loudly here, before anything is printed on paper."""
    host, _port = split_addr(addr)
    os.environ[LISTEN_ENV] = addr
    settings.LISTEN_ADDR = addr
    if not os.environ.get(SITE_URL_ENV, "").strip():
        derived = site_url_from_addr(addr)
        if derived and host:
            os.environ[SITE_URL_ENV] = derived
            settings.SITE_URL = derived
    allow_site_host(settings.SITE_URL)
    warning = unreachable_warning(addr, settings.SITE_URL)
    if warning:
        rule = "!" * 78
        err.write(f"{rule}\n{warning}\n{rule}\n")
        err.flush()
    return settings.SITE_URL


def allow_site_host(site_url: str) -> None:
    """Answer requests for the site URL's host: phones open the cards' address, and Django
    refuses (400) a host missing from ALLOWED_HOSTS. Kept in the environment for gunicorn."""
    host = urlsplit(site_url).hostname or ""
    if ":" in host:
        host = f"[{host}]"
    allowed = list(settings.ALLOWED_HOSTS)
    if not host or "*" in allowed or host in allowed:
        return
    allowed.append(host)
    settings.ALLOWED_HOSTS = allowed
    os.environ["GIBSON_ALLOWED_HOSTS"] = ",".join(allowed)


def ensure_manual(base_url: str) -> str:
    """Build the manual (docs/) into ``settings.MANUAL_DIR`` unless the built one is from the
    same sources, and say where it is served. A failed build (MkDocs not installed on a
    server without the development extras, a broken page) is said and the site serves on: the
    manual is help, not a reason to keep a tournament offline."""
    try:
        publish_manual(settings.MANUAL_DIR, force=False)
    except ManualError as exc:
        return f"The manual could not be built ({exc}); read docs/ in the repository"
    return f"The manual: {base_url}/docs/"
