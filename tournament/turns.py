"""A division's players' pages in turns: the front tier's keep times (tournament/web/front.py)
and its card refresher (tournament/management/front_refresh.py) count the same turns.

A result changes every card of a division (rank, estimate, chances), so the tier must not
ask gunicorn for all of them at once: card N's turn comes at each second ``s`` with
``(s + N) % keep == keep - 1``, where ``keep`` is ``players / CARD_REBUILDS_PER_SECOND``
seconds (at least one). A division's cards then come round about that many a second, evenly,
whatever the crowd, and a card shows a result within ``keep`` seconds (50 s at 500 players,
2 s at 20).
"""

from __future__ import annotations

import math

CARD_REBUILDS_PER_SECOND = 10  # a division's player pages the tier asks gunicorn for, at most


def card_keep(players: int) -> int:
    """Seconds between two turns of a card in a division of ``players``."""
    return max(1, math.ceil(players / CARD_REBUILDS_PER_SECOND))


def next_turn(second: int, number: int, keep: int) -> int:
    """The first second from ``second`` on that is card ``number``'s turn."""
    return second + (keep - 1 - second - number) % keep


def due_numbers(numbers: list[int], second: int, keep: int) -> list[int]:
    """The player numbers among ``numbers`` whose turn ``second`` is."""
    return [n for n in numbers if (second + n) % keep == keep - 1]
