"""The prize-chances win matrix (``expectancy_matrix``): fast, cached, and the same numbers.

The matrix used to be built with one ``expected_score`` call per distinct pair of ratings
(1.45 s at 2,000 players, over half of a cold standings page). It is now built from one call
per rating difference for the systems whose expectancy depends on nothing else; these tests
hold every value equal, bit for bit, to the pairwise build kept here as the reference.
"""

from __future__ import annotations

import random
import time

import numpy as np
import pytest

from ratings.engine.model import RatedPlayer
from ratings.engine.systems import SYSTEMS, expectancy_matrix, get_system


def pairwise_reference(system: str, ratings: list[int]) -> np.ndarray:
    """The function as it was before it was vectorised (kept verbatim but for its name)."""
    sys = get_system(system)
    rated = sorted(r for r in ratings if r)
    fill = rated[len(rated) // 2] if rated else 1500
    used = [r or fill for r in ratings]
    distinct = sorted(set(used))
    pos = {r: k for k, r in enumerate(distinct)}
    table = np.empty((len(distinct), len(distinct)))
    for a, ra in enumerate(distinct):
        for b, rb in enumerate(distinct):
            table[a, b] = sys.expected_score(RatedPlayer(a, ra), RatedPlayer(b, rb))
    idx = np.array([pos[r] for r in used], dtype=np.intp)
    out = table[np.ix_(idx, idx)]
    np.fill_diagonal(out, 0.5)
    return out


def random_field(rng: random.Random, n: int) -> list[int]:
    """Ratings as divisions have them: spread out, repeated, some newcomers (0)."""
    return [0 if rng.random() < 0.15 else rng.randint(300, 2300) for _ in range(n)]


@pytest.mark.parametrize("system", sorted(SYSTEMS))
def test_identical_to_the_pairwise_build_on_random_fields(system):
    rng = random.Random(f"expectancy-{system}")
    fields = [random_field(rng, rng.randint(2, 120)) for _ in range(15)]
    fields += [
        [],
        [1500],
        [0, 0, 0],  # nobody rated: everyone at 1500
        [1800, 1800, 1800, 0],  # one difference only
        [1, 2400, 0, 1200],  # the widest range ratings have
        [2000, 100, 2000, 100, 1999],
    ]
    for ratings in fields:
        got = expectancy_matrix(system, ratings)
        want = pairwise_reference(system, ratings)
        assert got.shape == want.shape
        assert got.dtype == want.dtype
        assert np.array_equal(got, want), (system, ratings)


def test_an_unknown_system_still_falls_back_to_nsa2008():
    ratings = [1500, 1700, 0, 900]
    assert np.array_equal(
        expectancy_matrix("no-such-system", ratings), pairwise_reference("nsa2008", ratings)
    )


def test_the_same_field_is_computed_once_and_cannot_be_changed_by_a_caller():
    ratings = random_field(random.Random(7), 300)
    first = expectancy_matrix("nsa2008", ratings)
    assert expectancy_matrix("nsa2008", list(ratings)) is first
    assert expectancy_matrix(get_system("nsa2008"), ratings) is first
    with pytest.raises(ValueError):
        first[0, 1] = 0.0  # shared by every later caller: read-only
    other = expectancy_matrix("nsa2008", [*ratings[:-1], ratings[-1] + 1])
    assert other is not first


def test_a_large_field_takes_milliseconds_not_seconds():
    """2,000 players took 1.45 s pair by pair; one call per difference is well under 0.3 s
    even on a busy machine (the benchmark, bench_standings_feed.py, prints the figures)."""
    ratings = random_field(random.Random(2000), 2000)
    start = time.process_time()
    matrix = expectancy_matrix("nsa2008", ratings)
    assert time.process_time() - start < 0.3
    assert matrix.shape == (2000, 2000)
