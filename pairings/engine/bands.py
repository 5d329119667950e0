"""The weighted systems' cost bands, highest priority first (see ``weighted`` for what each
measures): the cost columns of the graph of the day, read by the whole-graph matching and by
the score-group windows alike."""

from __future__ import annotations

BANDS = (
    "repeat_over",
    "bye",
    "gibson",
    "contention",
    "win_diff",
    "repeats",
    "distance",
    "last_round",
    "firsts",
)
