"""Club records kept per night (tournament.clubs.records): folding the closed nights'
summaries gives exactly the records of one pass over all their games, on random seasons with
byes, forfeits, ties and streaks that run across nights."""

from __future__ import annotations

import json
import random

import pytest

from tournament.clubs.records import fold, scan, summarise


def _nights(rng: random.Random, count: int, players: int) -> list[list[tuple]]:
    nights = []
    for _ in range(count):
        present = rng.sample(range(1, players + 1), rng.randint(2, players))
        games = []
        for _round in range(rng.randint(1, 4)):
            rng.shuffle(present)
            for i in range(0, len(present) - 1, 2):
                a, b = present[i], present[i + 1]
                s1 = rng.choice([rng.randint(250, 560), 400])
                s2 = rng.choice([rng.randint(250, 560), 400])  # 400-400: ties happen
                games.append((a, b, s1, s2))
            if len(present) % 2:
                games.append((present[-1], None, rng.choice([50, -50, 0]), None))
        nights.append(games)
    return nights


@pytest.mark.parametrize("seed", range(40))
def test_fold_of_night_summaries_equals_one_pass(seed):
    rng = random.Random(seed)
    nights = _nights(rng, rng.randint(1, 25), rng.randint(2, 9))
    rows = [(n, *g) for n, games in enumerate(nights) for g in games]
    expected = scan(rows, keep=3)
    # summaries go through JSON, as they are stored
    stored = [(n, json.loads(json.dumps(summarise(g, keep=3)))) for n, g in enumerate(nights)]
    got = fold(stored, keep=3)
    assert got.high == expected.high
    assert got.loss == expected.loss
    assert got.combined == expected.combined
    assert got.totals == expected.totals
    assert got.best == expected.best


def test_a_streak_across_nights_and_a_tie_ending_it():
    nights = [
        [(1, 2, 400, 300), (1, 3, 410, 300)],  # 1: W W
        [(1, None, 50, None), (1, 2, 420, 300)],  # bye (neither adds nor ends), W
        [(1, 3, 400, 400), (1, 2, 450, 300)],  # tie ends it at 3; then a new run of 1
    ]
    got = fold([(n, summarise(g)) for n, g in enumerate(nights)])
    assert got.best[1] == (3, 0, 1)
    assert got.run[1] == (1, 2)
    forfeit = fold(
        [
            (0, summarise([(1, 2, 400, 300)])),
            (1, summarise([(1, None, -50, None)])),
            (2, summarise([(1, 2, 400, 300)])),
        ]
    )
    assert forfeit.best[1] == (1, 0, 0)
