"""The manual's pictures (docs/img/), taken from the demo by ``build_manual --screenshots``.

A director would rather look at the console than read about it, so the manual shows the
pairing page, result entry, a correction and check-in as a director sees them, a player's
phone pages at 360 px (standings, the player's card, self-entry) and a printed scorecard page.
The pictures are taken, never drawn: a fresh demo (its own data folder, so no real event is
touched) is served on a free loopback port, Debian's chromium signs in through Playwright
and does what a director does (types a result line, then its correction), and
``pdftoppm`` (poppler) renders the scorecards' first page. Every picture is reduced to a
palette of colours and compressed (``shrink_png``): the manual travels with the code, so its
pictures stay a few hundred KB in all.

Playwright, chromium and poppler are development tools, as MkDocs is: without them the command
is refused saying which is missing. ``take`` takes one picture on a page already open, so a
test runs the same code on one page of its own live server.
"""

from __future__ import annotations

import io
import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .demo import DEMO_SLUG

REPO = Path(__file__).resolve().parent.parent
IMAGES = REPO / "docs" / "img"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
# the machine running this may have no network: chromium must not dial out
CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
PHONE = (360, 720)
DESK = (1000, 640)
# a palette this size keeps the console's greens and the warnings' ambers apart, and text sharp
COLOURS = 64


class ScreenshotError(Exception):
    """A picture could not be taken (a tool missing, the demo server not starting...)."""


def _type_line(line: str) -> Callable[[Any], None]:
    """A director types ``line`` into the result box and presses Enter, as at the desk."""

    def act(page: Any) -> None:
        before = page.inner_html("#answer")
        page.fill("#id_line", line)
        page.press("#id_line", "Enter")
        page.wait_for_function(  # the answer swapped in (its echo, or a refusal to show)
            "b => document.getElementById('answer').innerHTML !== b", arg=before, timeout=15_000
        )
        page.evaluate("document.activeElement && document.activeElement.blur()")

    return act


@dataclass(frozen=True)
class Shot:
    """One picture: ``docs/img/<name>.png`` of ``path`` on the demo site (``{t}`` the demo
    tournament's slug, ``{token}`` a player's self-entry link), after ``act``."""

    name: str
    path: str
    alt: str
    size: tuple[int, int] = DESK
    signed_in: bool = False
    act: Callable[[Any], None] | None = None


SHOTS: tuple[Shot, ...] = (
    Shot(
        "console-checkin",
        "/t/{t}/console/setup/checkin/",
        "The console's check-in page: the count checked in, a find box, and each player with a "
        "Here button",
        signed_in=True,
    ),
    Shot(
        "console-pairing",
        "/t/{t}/console/b/round/6/pair/?system=swiss",
        "The console's pairing page: the engine's proposed round 6 with each game's reason, "
        "and the checker's report",
        signed_in=True,
    ),
    Shot(
        "console-results",
        "/t/{t}/console/a/round/5/results/",
        "Result entry: the line '1 412 389' typed, echoed with both names, the spread and "
        "each player's new record",
        signed_in=True,
        act=_type_line("1 412 389"),
    ),
    Shot(
        "console-correction",
        "/t/{t}/console/a/round/5/results/",
        "A correction typed in the same box, '1 421 389: misread slip': the answer says "
        "Corrected, with both players' new records",
        signed_in=True,
        act=_type_line("1 421 389: misread slip"),
    ),
    Shot(
        "phone-standings",
        "/t/{t}/a/standings/",
        "Division A's standings on a 360 px phone",
        size=PHONE,
    ),
    Shot(
        "phone-player",
        "/t/{t}/a/player/1/",
        "A player's card on a phone: this round's table and opponent, then every game",
        size=PHONE,
    ),
    Shot(
        "phone-selfentry",
        "/e/{token}/",
        "A player's own link on a phone: the current game and the form to report its score",
        size=PHONE,
    ),
)
PDF_SHOT = "pdf-scorecards"
PDF_ALT = "A printed page of two scorecards, each with its QR code for the player's own link"


def shrink_png(data: bytes, *, colours: int = COLOURS) -> bytes:
    """``data`` (a PNG) as a palette PNG of at most ``colours`` colours, compressed as far as
    zlib goes: a console screenshot falls from ~120 KB to ~25 KB, its text still sharp."""
    from PIL import Image

    image = Image.open(io.BytesIO(data)).convert("RGB")
    small = image.quantize(colors=colours, method=Image.Quantize.MEDIANCUT, dither=0)
    out = io.BytesIO()
    small.save(out, format="PNG", optimize=True)
    return out.getvalue()


def take(page: Any, base_url: str, shot: Shot, out_dir: Path, **names: str) -> Path:
    """Open ``shot`` on ``page`` (a Playwright page, signed in when the shot needs it), do its
    act, and write its picture into ``out_dir``; returns the file written."""
    page.set_viewport_size({"width": shot.size[0], "height": shot.size[1]})
    page.goto(base_url + shot.path.format(t=DEMO_SLUG, **names))
    page.wait_for_load_state("networkidle")
    if shot.act is not None:
        shot.act(page)
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / f"{shot.name}.png"
    target.write_bytes(shrink_png(page.screenshot(full_page=False)))
    return target


def sign_in(page: Any, base_url: str, username: str, password: str) -> None:
    """Sign in through the site's own form, as a director does."""
    page.goto(f"{base_url}/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    page.click("main button[type=submit]")
    page.wait_for_load_state("networkidle")


def pdf_page_png(pdf: Path, target: Path, *, dpi: int = 60) -> Path:
    """The PDF's first page rendered by poppler's ``pdftoppm``, shrunk as the screenshots are."""
    pdftoppm = shutil.which("pdftoppm")
    if pdftoppm is None:
        raise ScreenshotError("pdftoppm is not installed (Debian: apt-get install poppler-utils)")
    with tempfile.TemporaryDirectory() as folder:
        stem = Path(folder) / "page"
        subprocess.run(
            [pdftoppm, "-png", "-r", str(dpi), "-f", "1", "-l", "1", "-singlefile", pdf, stem],
            check=True,
            capture_output=True,
            timeout=60,
        )
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(shrink_png(stem.with_suffix(".png").read_bytes(), colours=16))
    return target


def prepare_demo(password: str) -> None:
    """Run in the demo server's data folder (``manage.py shell``): the demo loaded, its
    director's password set, division B's round 5 scored (so round 6 can be proposed) and a
    self-entry link for A's player 2; prints what the pictures need as JSON."""
    import random

    from .demo import ensure_director, load_demo
    from .models import Division, Entry, Game
    from .services.results import record_result
    from .services.selfentry import issue_token

    tournament, _ = load_demo()
    username, _ = ensure_director(password=password)
    b = Division.objects.get(tournament=tournament, slug="b")
    scores = random.Random(5)
    for game in Game.objects.filter(round__division=b, round__number=5, score1__isnull=True):
        if game.player2_id:
            mine, theirs = scores.randint(330, 480), scores.randint(300, 470)
            record_result(b, 5, game.player1.number, mine, theirs, actor="screenshots")
    # player 2's round 5 game stays unscored (the result pictures score player 1's)
    entry = Entry.objects.get(division__tournament=tournament, division__slug="a", number=2)
    token = issue_token(entry, actor="screenshots")
    print(json.dumps({"username": username, "token": token}))


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _check_tools() -> None:
    import importlib.util

    if importlib.util.find_spec("playwright") is None:
        raise ScreenshotError(
            "the pictures need Playwright (a development dependency): pip install -e '.[dev]'"
        )
    if not Path(CHROMIUM).exists():
        raise ScreenshotError("the pictures need chromium (Debian: apt-get install chromium)")
    if shutil.which("pdftoppm") is None:
        raise ScreenshotError("pdftoppm is not installed (Debian: apt-get install poppler-utils)")


def _manage(env: dict[str, str], *args: str, timeout: float = 300) -> str:
    done = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if done.returncode != 0:
        raise ScreenshotError(f"manage.py {args[0]} failed: {done.stderr.strip()[-800:]}")
    return done.stdout


@contextmanager
def demo_server(folder: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    """A fresh demo in ``folder`` served on a free loopback port: (its URL, what
    ``prepare_demo`` printed plus the password and the environment)."""
    password = secrets.token_urlsafe(12)
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env.update(GIBSON_DATA_DIR=str(folder), GIBSON_SECRET_KEY=secrets.token_urlsafe(32))
    _manage(env, "migrate", "--verbosity", "0")
    said = _manage(
        env,
        "shell",
        "-c",
        f"from tournament.manual_screenshots import prepare_demo; prepare_demo({password!r})",
    )
    facts = json.loads(said.strip().splitlines()[-1])
    facts.update(password=password, env=env)
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    server = subprocess.Popen(
        [sys.executable, "manage.py", "runserver", f"127.0.0.1:{port}", "--noreload"]
        + ["--insecure"],
        cwd=REPO,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(f"{url}/healthz", timeout=5).close()
                break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    raise ScreenshotError("the demo server did not start") from None
                time.sleep(0.2)
        yield url, facts
    finally:
        server.terminate()
        server.wait(timeout=20)


def take_all(out_dir: Path = IMAGES, only: set[str] | None = None) -> list[Path]:
    """Every picture of ``SHOTS`` and the scorecard page (or those named in ``only``) into
    ``out_dir``, from a fresh demo in a temporary folder; returns the files written."""
    _check_tools()
    from playwright.sync_api import Error as PlaywrightError
    from playwright.sync_api import sync_playwright

    wanted = [s for s in SHOTS if only is None or s.name in only]
    written: list[Path] = []
    with tempfile.TemporaryDirectory(prefix="gibson-shots-") as folder:
        with demo_server(Path(folder)) as (url, facts):
            with sync_playwright() as p:
                browser = p.chromium.launch(
                    executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS
                )
                try:
                    director = browser.new_page()
                    sign_in(director, url, facts["username"], facts["password"])
                    visitor = browser.new_page()
                    for shot in wanted:
                        page = director if shot.signed_in else visitor
                        try:
                            written.append(take(page, url, shot, out_dir, token=facts["token"]))
                        except PlaywrightError as exc:
                            raise ScreenshotError(f"{shot.name}: {exc.message}") from exc
                finally:
                    browser.close()
            if only is None or PDF_SHOT in only:
                pdf = Path(folder) / "scorecards.pdf"
                _manage(
                    facts["env"],
                    "report",
                    DEMO_SLUG,
                    "--division",
                    "A",
                    "--kind",
                    "scorecards",
                    "--out",
                    str(pdf),
                )
                written.append(pdf_page_png(pdf, out_dir / f"{PDF_SHOT}.png"))
    return written
