"""'What I need' at 30, 200 and 500 players: is it fast enough for the player's page?

Run: python tests/benchmarks/bench_needs.py [--sizes 30,200,500] [--repeat 3] [--json]
    [--short]

A seeded random division per size: 22 rounds played (scores 300-500, a few byes), the last
round (23) paired and not played, so every statement is exact; and the same division with
its round 22 unscored and round 23 not paired (bounds mode). Measured per division:

- ``input``: the engine's input from the games (the standings' tally under the event's
  rules), computed once per version and cached for every player's page;
- ``page``: one player's needs from that input, what the player's page computes on a cache
  miss (the mean and the worst over 20 players spread over the standings);
- ``division``: every player's needs, what the API and ``manage.py needs`` compute once per
  version;
- ``anchor``: the division's standings (``compute_standings``) in the same run, which every
  public page computes on a change: the page's figure is read beside it.

Target: one player's needs under 50 ms at 500 players (the page is built once per version
and player, then cached); the division under 10 s at 500 (once per version, cached).
Exit status 1 when a target is missed; ``--short`` (30 players only, best of 1) reports the
targets without enforcing them (see benchkit.py).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.benchmarks.benchkit import add_short, exit_status, verdict  # noqa: E402

PAGE_TARGET_S = 0.050
DIVISION_TARGET_S = 10.0


def build(n: int, rounds: int, seed: int):
    from tournament.standings import PlayerRound, StandingsPlayer

    rng = random.Random(seed)
    players = [
        StandingsPlayer(i, f"Player {i:03d}", rng.randint(900, 2100)) for i in range(1, n + 1)
    ]
    rows = []
    for r in range(1, rounds + 1):
        order = list(range(1, n + 1))
        rng.shuffle(order)
        if n % 2:
            rows.append(PlayerRound(r, order.pop(), None, 50, None))
        for a, b in zip(order[::2], order[1::2], strict=True):
            if r == rounds:
                rows += [PlayerRound(r, a, b, None, None), PlayerRound(r, b, a, None, None)]
                continue
            sa, sb = rng.randint(300, 500), rng.randint(300, 500)
            rows += [PlayerRound(r, a, b, sa, sb), PlayerRound(r, b, a, sb, sa)]
    return players, rows


def best_of(repeat: int, fn) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def measure(n: int, repeat: int) -> dict:
    from pairings.engine.needs import compute_needs
    from pairings.needs import needs_input_from
    from tournament.standings import compute_standings

    out: dict = {"players": n}
    for mode, rounds_total, played in (("exact", 23, 23), ("bounds", 23, 22)):
        players, rows = build(n, played, seed=n)

        def prepare(players=players, rows=rows, rounds_total=rounds_total):
            return needs_input_from(players, rows, rounds_total=rounds_total, prize_places=3)

        data = prepare()
        anchor = best_of(
            repeat, lambda players=players, rows=rows: compute_standings(players, rows)
        )
        prepared = best_of(repeat, prepare)
        whole = best_of(max(1, repeat // 2), lambda data=data: compute_needs(data))
        numbers = [s.number for s in data.players][:: max(1, n // 20)][:20]
        per = [best_of(repeat, lambda x=x, data=data: compute_needs(data, only=x)) for x in numbers]
        got = compute_needs(data)
        assert {pn.mode for pn in got.values()} == {mode}, mode
        out[mode] = {
            "anchor_standings_s": anchor,
            "input_s": prepared,
            "page_mean_s": sum(per) / len(per),
            "page_max_s": max(per),
            "division_s": whole,
        }
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="30,200,500")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    add_short(parser)
    args = parser.parse_args()
    if args.short:
        args.sizes, args.repeat = "30", 1
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tournament.settings")
    import django

    django.setup()
    results = [measure(int(s), args.repeat) for s in args.sizes.split(",")]
    missed = []
    for r in results:
        for mode in ("exact", "bounds"):
            m = r[mode]
            if r["players"] <= 500 and m["page_max_s"] > PAGE_TARGET_S:
                missed.append(f"{r['players']} players {mode}: page {m['page_max_s']:.3f} s")
            if r["players"] <= 500 and m["division_s"] > DIVISION_TARGET_S:
                missed.append(f"{r['players']} players {mode}: division {m['division_s']:.2f} s")
    if args.json:
        print(json.dumps({"results": results, "missed": missed}, indent=2))
        return exit_status(missed, short=args.short)
    print(
        f"{'players':>7} {'mode':>6} {'anchor: standings':>18} {'input':>9} {'page mean':>10} "
        f"{'page max':>9} {'target':>7} {'division':>9} {'target':>7}"
    )
    for r in results:
        for mode in ("exact", "bounds"):
            m = r[mode]
            print(
                f"{r['players']:>7} {mode:>6} {m['anchor_standings_s'] * 1000:>15.1f} ms "
                f"{m['input_s'] * 1000:>6.1f} ms "
                f"{m['page_mean_s'] * 1000:>7.1f} ms {m['page_max_s'] * 1000:>6.1f} ms "
                f"{PAGE_TARGET_S * 1000:>4.0f} ms {m['division_s']:>7.2f} s "
                f"{DIVISION_TARGET_S:>5.0f} s"
            )
    print(
        f"targets: one player's needs (page max) <= {PAGE_TARGET_S * 1000:.0f} ms and the "
        f"division <= {DIVISION_TARGET_S:.0f} s, up to 500 players"
    )
    return verdict(missed, short=args.short)


if __name__ == "__main__":
    sys.exit(main())
