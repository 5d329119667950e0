"""Server time and queries of the venue screen and the live strip (issue 22), at a big event.

Run: python tests/benchmarks/bench_screen.py [--players 500] [--rounds 8]

The screen is built for every request (it carries the server's time for the countdown); its
boards and standings are cached per tournament version, so a warm request costs the version,
the clocks and the announcement, whatever the size of the division. Measured in the same run
(anonymous, in-process test client, SQLite): the public home page (the baseline) and the
round page served from the page cache (what a player's phone polls). Target: a warm screen
(and the strip) in <= 50 ms, with as many queries for a 500-player division as for 50.
Exit status 1 when a target is missed.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from bench_console import build_division, measure, setup_django  # noqa: E402

TARGET_MS = 50.0


def main() -> int:
    players = int(sys.argv[sys.argv.index("--players") + 1]) if "--players" in sys.argv else 500
    rounds = int(sys.argv[sys.argv.index("--rounds") + 1]) if "--rounds" in sys.argv else 8
    with tempfile.TemporaryDirectory() as tmp:
        setup_django(tmp)
        from django.test import Client

        from tournament.services import clock as clock_services

        started = time.perf_counter()
        big = build_division("big", players, rounds)
        small = build_division("small", 50, rounds)
        built = time.perf_counter() - started
        for _t, d in (big, small):
            clock_services.start_clock(d, rounds, actor="bench")
            clock_services.post_announcement(d.tournament, "Round 9 at 15:00", actor="bench")
        client = Client()
        base_ms, base_q, _ = measure(client, "/")
        rows = []
        for label, path, target in (
            ("round page (page cache)", "/t/{t}/a/round/{r}/", None),
            ("venue screen", "/t/{t}/screen/", TARGET_MS),
            ("screen, htmx poll", "/t/{t}/screen/", TARGET_MS),
            ("live strip", "/t/{t}/screen/live/?division=a", TARGET_MS),
        ):
            headers = {"HX-Request": "true"} if "htmx" in label else {}
            c = Client(headers=headers)
            url, url_small = (path.format(t=t.slug, r=rounds) for t, _d in (big, small))
            c.get(url), c.get(url_small)  # build the cached parts once
            ms, q, status = measure(c, url)
            _, q_small, _ = measure(c, url_small)
            ok = status == 200 and (target is None or (ms <= target and q == q_small))
            rows.append((label, status, ms, ms / base_ms, q, q_small, target, ok))
    print(
        f"venue screen, {players}-player division, {rounds} rounds, round {rounds} in play "
        f"(setup {built:.1f} s); baseline public home {base_ms:.1f} ms, {base_q} queries"
    )
    print(
        f"{'page':<26}{'status':>7}{'ms':>8}{'x base':>8}{'queries':>9}{'q@50':>6}{'target':>8}  ok"
    )
    for label, status, ms, ratio, q, q_small, target, ok in rows:
        shown = f"{target:.0f}" if target else "-"
        print(
            f"{label:<26}{status:>7}{ms:>8.1f}{ratio:>8.1f}{q:>9}{q_small:>6}{shown:>8}  "
            f"{'yes' if ok else 'NO'}"
        )
    return 0 if all(r[-1] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
