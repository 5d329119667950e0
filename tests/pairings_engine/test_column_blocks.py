"""Column blocks (``pairings.engine.columns``) give exactly the whole window's optimum.

A big score group with a float in and a float out is solved as a chain of small matchings and
kept only when a dual bound certifies it. These tests turn the blocks on for small groups
(a few players, blocks of two columns) so that they run on generated fields of 10-200 players,
and compare: each certified window against the old path (the same window solved as one
matching), and the whole round against one matching of the whole graph of the day, band by
band (the same total weight). The blocks must also actually be certified on many windows, or
the comparison would prove nothing.
"""

from __future__ import annotations

from unittest import mock

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from pairings.engine import PairingError, PairingOptions
from pairings.engine import columns as columns_module
from pairings.engine import windows as windows_module
from pairings.engine.weighted import _Round

from .test_windows import _mid_event_field, generated_field, windows_and_full


def blocks_checked_against_the_old_path(f, opts: PairingOptions, above: int, width: int):
    """Run ``windows_and_full`` with the blocks on (groups above ``above`` players, ``width``
    columns per block); every window the blocks certify is solved again by the old path and
    must cost the same, band by band. Returns (kind, ours, full, windows certified)."""
    certified = []
    original = columns_module.column_blocks

    def checked(first, day, within, only_copy=-1, only_ghost=-1, prefer=-1):
        found = original(first, day, within, only_copy, only_ghost, prefer)
        if found is not None:
            with mock.patch.object(columns_module, "COLUMN_BLOCKS_ABOVE", 10**9):
                old = rnd._window(
                    first, first, True, True, day, *within, only_copy=only_copy,
                    only_ghost=only_ghost,
                )  # fmt: skip
            assert old is not None and old.cost == found[3], (first, old, found)
            games = sorted(x for pair in found[0] for x in pair)
            assert len(set(games)) == len(games)  # each player once
            certified.append(first)
        return found

    rnd = _Round(f, "swiss", opts)
    with (
        mock.patch.object(columns_module, "COLUMN_BLOCKS_ABOVE", above),
        mock.patch.object(columns_module, "BLOCK_COLUMNS", width),
        mock.patch.object(windows_module, "column_blocks", checked),
    ):
        kind, ours, full = windows_and_full(f, opts)
    return kind, ours, full, certified


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(min_value=0, max_value=10**6), width=st.integers(1, 4))
def test_column_blocks_cost_what_the_old_full_matching_costs(seed, width):
    """Property: on generated fields (10-200 players, any rounds, repeats, byes, withdrawals,
    forbidden pairs, hard limits), with the blocks on for every group above 3 players, each
    certified window costs what the old one-matching window costs, and the round what one
    matching of the whole graph costs."""
    try:
        f, opts = generated_field(seed)
    except PairingError:  # a hard repeat limit left an earlier round of the event unpairable
        assume(False)
    kind, ours, full, _ = blocks_checked_against_the_old_path(f, opts, 3, width)
    assert ours == full, (seed, kind)


def test_column_blocks_are_certified_on_many_fields():
    """The property above means something only if the blocks are taken: over the first 60
    generated fields they are certified in many windows (44), on many fields (25)."""
    fields = 0
    windows = 0
    for seed in range(60):
        f, opts = generated_field(seed)
        kind, ours, full, certified = blocks_checked_against_the_old_path(f, opts, 3, 2)
        assert ours == full, seed
        fields += bool(certified)
        windows += len(certified)
    assert fields >= 18 and windows >= 32, (fields, windows)


@pytest.mark.slow(seconds=6)  # three mid-event fields of 1,200-2,400 players, solved twice
@pytest.mark.parametrize(("n", "seed"), [(1200, 5), (1600, 4), (2400, 7)])
def test_big_groups_in_column_blocks_cost_what_the_whole_graph_costs(n, seed):
    """Mid-event fields: the big groups (above 100 players here, blocks of 20 columns) are
    certified and the round costs exactly the whole graph's optimum."""
    kind, ours, full, certified = blocks_checked_against_the_old_path(
        _mid_event_field(n, seed), PairingOptions(seed=1), 100, 20
    )
    assert kind == "windows" and ours == full
    assert certified, "no big group was solved in column blocks"


def test_a_chain_the_bound_does_not_certify_is_solved_whole(monkeypatch):
    """Blocks that miss the bound (here: the certificate asked for one unit of ``distance``
    less than the blocks reached) give None, and the window is solved as one matching: the
    round still costs the whole graph's optimum."""
    original = columns_module._certified
    refused = []

    def stricter(h, column, members, day, games, copies, ghost, found):
        cost = list(found[3])
        cost[columns_module.DISTANCE] += 1
        refused.append(original(h, column, members, day, games, copies, ghost, found))
        return original(h, column, members, day, games, copies, ghost, (*found[:3], cost))

    monkeypatch.setattr(columns_module, "_certified", stricter)
    monkeypatch.setattr(columns_module, "COLUMN_BLOCKS_ABOVE", 100)
    monkeypatch.setattr(columns_module, "BLOCK_COLUMNS", 20)
    kind, ours, full = windows_and_full(_mid_event_field(1600, 7), PairingOptions(seed=1))
    assert kind == "windows" and ours == full
    assert True in refused  # a chain that would have been certified was refused, and re-solved


def test_the_chain_bound_on_start_reply_clashes_certifies_alone_and_exactly(monkeypatch):
    """With the plain start/reply bound switched off, the chain bound (the least clashes of
    any pairing that ties the blocks in every band above) still certifies many windows, each
    costing what the old one-matching window costs."""
    monkeypatch.setattr(columns_module, "_firsts_bound", lambda *args: -1)
    certified = 0
    for seed in range(60):
        f, opts = generated_field(seed)
        kind, ours, full, found = blocks_checked_against_the_old_path(f, opts, 3, 2)
        assert ours == full, seed
        certified += len(found)
    assert certified >= 25, certified
