"""The tier's card refresher: players' pages rebuilt in turn by ``serve --front`` itself, so no
visitor's request waits for one.

Kept ``players / 10`` seconds each (tournament/web/front.py), a division's cards still
expired about ten a second under a crowd, and nginx updated each on the request of the first
visitor who found it expired. That visitor got the old copy at once, but nginx holds the
connection the update started on until gunicorn answers it: the next page on that
connection waited for the rebuild. The ten cards of a second expire together at its start,
so they queued behind each other and behind the division's new figures: 0.1-0.5 s each with
a result a second at 500 players, enough to put a 32-connection crowd's p99 at 0.6-0.8 s
(bench_front.py) while nine requests in ten were answered within a millisecond.

So the supervisor of ``serve --front`` runs this refresher in a thread beside nginx:

- nginx logs each player's page that a visitor's request had to ask gunicorn for (a miss,
  an expired or stale copy, answered 200) to ``front/cards.log``: the host, the encoding and
  the language parts of the cache key, and the path. The refresher reads it each second and
  learns which variants of a tournament's cards visitors read (at most ``MAX_VARIANTS`` a
  tournament, the latest kept).
- Each second it asks nginx, through the front port, for the cards whose turn it is (the
  same turns the pages' keep times use), in each variant learned for their tournament, with
  this run's secret ``X-Gibson-Refresh`` header: nginx then bypasses its copy, asks gunicorn,
  and keeps the answer in the same key a visitor's request has. A card is asked for only
  when its tournament's version changed since the refresher last asked for it (a finished
  event costs nothing).
- Refreshed at its turn, a card never reaches its expiry while the refresher keeps up: the
  pages' mark gives a card one turn more than its keep (tournament/web/front.py), so a
  visitor's request finds it expired only when the refresher fell behind, and then nginx
  updates it as before.

The refresher's own requests are the only ones that wait for a rebuild, one at a time, so a
card costs what it did; a result still shows on a card within its keep time.
"""

from __future__ import annotations

import http.client
import logging
import re
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path

from django.conf import settings
from django.db import close_old_connections, connection

from tournament.turns import card_keep, due_numbers

from .serving import split_addr

log = logging.getLogger(__name__)

HEADER = "X-Gibson-Refresh"
MAX_VARIANTS = 8  # a tournament's variants (host, encoding, languages) refreshed at most
MAX_LOG_BYTES = 1 << 20  # cards.log is emptied once read past this size
ROSTER_SECONDS = 10.0  # each tournament's divisions and player numbers read again after this
CARD_PATH = re.compile(r"^/t/(?P<slug>[^/]+)/(?P<division>[^/]+)/player/(?P<number>[0-9]+)/$")


@dataclass(frozen=True)
class Variant:
    """The parts of nginx's cache key a visitor's request brings (management/front.py's
    ``proxy_cache_key``): the host, whether gzip is taken, the language cookie's and
    Accept-Language's language (each "" or a code Gibson speaks, as nginx's maps read them)."""

    host: str
    gzip: bool
    cookie_language: str
    accept_language: str

    def headers(self, token: str) -> dict[str, str]:
        """The request headers that give nginx this variant's key."""
        headers = {"Host": self.host, HEADER: token}
        if self.gzip:
            headers["Accept-Encoding"] = "gzip"
        if self.cookie_language:
            headers["Cookie"] = f"{settings.LANGUAGE_COOKIE_NAME}={self.cookie_language}"
        if self.accept_language:
            headers["Accept-Language"] = self.accept_language
        return headers


def parse_line(line: str) -> tuple[str, Variant] | None:
    """(tournament slug, variant) from a cards.log line, None for anything else."""
    parts = line.rstrip("\n").split("\t")
    if len(parts) != 5:
        return None
    host, gzip, cookie, accept, path = parts
    found = CARD_PATH.match(path)
    if found is None or not host or any(p == "-" for p in (cookie, accept)):
        return None
    return found["slug"], Variant(host, gzip == "gzip", cookie, accept)


@dataclass
class _Tournament:
    variants: OrderedDict[Variant, None] = field(default_factory=OrderedDict)
    baseline: str = ""  # the version seen when its first variant was learned
    divisions: dict[str, list[int]] = field(default_factory=dict)
    roster_read: float = 0.0


class CardRefresher:
    """Asks nginx on ``front`` (HOST:PORT) for the cards due each second (see above)."""

    def __init__(self, front: str, token: str, log_path: Path) -> None:
        host, self.port = split_addr(front)
        # a front listening everywhere is asked on loopback
        self.host = {"*": "127.0.0.1", "0.0.0.0": "127.0.0.1", "::": "::1"}.get(host, host)  # noqa: S104
        self.token = token
        self.log_path = log_path
        self.read_to = 0
        self.tournaments: dict[str, _Tournament] = {}
        self.refreshed: dict[tuple[str, str, int], str] = {}  # card: version asked for at
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # --- what visitors read -----------------------------------------------------------------

    def learn(self) -> None:
        """Read the lines nginx added to cards.log since the last call."""
        try:
            size = self.log_path.stat().st_size
        except OSError:
            return
        if size < self.read_to:  # emptied meanwhile
            self.read_to = 0
        if size == self.read_to:
            return
        with self.log_path.open("rb") as lines:
            lines.seek(self.read_to)
            chunk = lines.read(size - self.read_to)
        complete = chunk.rfind(b"\n") + 1  # a line being written is read next time
        self.read_to += complete
        for raw in chunk[:complete].decode("utf-8", "replace").splitlines():
            parsed = parse_line(raw)
            if parsed is not None:
                self._add_variant(*parsed)
        if self.read_to > MAX_LOG_BYTES:
            self.log_path.write_bytes(b"")  # nginx appends (O_APPEND): it goes on at 0
            self.read_to = 0

    def _add_variant(self, slug: str, variant: Variant) -> None:
        from tournament.cache import tournament_version

        known = self.tournaments.get(slug)
        if known is None:
            version = tournament_version(slug)
            if version is None or not version.published:
                return
            known = self.tournaments[slug] = _Tournament(baseline=version.stamp)
        known.variants[variant] = None
        known.variants.move_to_end(variant)
        while len(known.variants) > MAX_VARIANTS:
            known.variants.popitem(last=False)

    # --- what is due ------------------------------------------------------------------------

    def _roster(self, slug: str, known: _Tournament) -> dict[str, list[int]]:
        now = time.monotonic()
        if now - known.roster_read >= ROSTER_SECONDS:
            from tournament.models import Entry

            divisions: dict[str, list[int]] = {}
            rows = Entry.objects.filter(division__tournament__slug=slug).values_list(
                "division__slug", "number"
            )
            for division, number in rows:
                divisions.setdefault(division, []).append(number)
            known.divisions = {d: sorted(n) for d, n in divisions.items()}
            known.roster_read = now
        return known.divisions

    def due(self, second: int) -> list[tuple[str, str, int, str]]:
        """(slug, division, number, version) of each card to ask for at ``second``."""
        from tournament.cache import tournament_version

        cards = []
        for slug, known in list(self.tournaments.items()):
            version = tournament_version(slug)
            if version is None or not version.published:
                del self.tournaments[slug]  # gone or hidden: learnt again if read again
                continue
            for division, numbers in self._roster(slug, known).items():
                keep = card_keep(len(numbers))
                for number in due_numbers(numbers, second, keep):
                    seen = self.refreshed.get((slug, division, number), known.baseline)
                    if seen != version.stamp:
                        cards.append((slug, division, number, version.stamp))
        return cards

    # --- asking nginx -----------------------------------------------------------------------

    def ask(self, path: str, variant: Variant) -> int:
        """One card through nginx in ``variant``; its status (0 when nginx did not answer)."""
        conn = http.client.HTTPConnection(self.host, self.port, timeout=30)
        try:
            conn.request("GET", path, headers=variant.headers(self.token))
            answer = conn.getresponse()
            answer.read()
            return answer.status
        except OSError:
            return 0
        finally:
            conn.close()

    def tick(self, second: int) -> int:
        """One second's work: learn, then ask for the cards due; how many were asked for."""
        self.learn()
        asked = 0
        for slug, division, number, stamp in self.due(second):
            if self._stop.is_set():
                break
            path = f"/t/{slug}/{division}/player/{number}/"
            known = self.tournaments.get(slug)
            for variant in list(known.variants) if known else []:
                self.ask(path, variant)
                asked += 1
            self.refreshed[(slug, division, number)] = stamp
        return asked

    # --- the thread ---------------------------------------------------------------------------

    def run(self) -> None:
        """Each second (a little after it starts, when the turn's cards expire), until
        :meth:`stop`. A second that takes longer is skipped: its cards expire and visitors'
        requests update them as without the refresher."""
        try:
            while not self._stop.is_set():
                now = time.time()
                if self._stop.wait(1.0 - now % 1.0 + 0.02):
                    break
                try:
                    self.tick(int(time.time()))
                except Exception:  # a database or network error: log it, try next second
                    log.exception("front tier: refreshing players' pages failed")
                    close_old_connections()
        finally:
            connection.close()

    def start(self) -> None:
        self._thread = threading.Thread(target=self.run, name="card-refresher", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=35)
