"""Initial Fontes byes go by the bye rule (issue 17): lowest ranked among the fewest byes.

Before, the phantom that evens an odd Fontes field sat in one group, and its byes fell on whoever
shared that group (the 5th and 6th seeds, a 2-0 player). Now the bye goes by the rule and the
table opponent left alone is re-paired, the rest of the table unchanged.
"""

from __future__ import annotations

import pytest

from pairings.engine import PairedGame, PairingOptions, RoundPairing, check_round, pair_round
from pairings.engine.generator import simulate
from pairings.engine.tables import circle_round, fontes_groups

from .helpers import bye_of, fresh


def _rule_bye(f) -> int:
    """The bye rule recomputed here: fewest byes, then lowest ranked (largest rank)."""
    act = [p for p in f.players if p.active]
    return min(act, key=lambda p: (p.byes, -p.rank, -p.number)).number


def _play(n: int, rounds: int, opts: PairingOptions, **kw):
    log = []

    def on_round(f, p):
        rep = check_round(f, p, opts)
        assert rep.errors == [], (f.round, rep.errors)
        log.append((f, p))

    t = simulate(
        n, rounds, lambda f: pair_round(f, "fontes", opts), seed=3, on_round=on_round, **kw
    )
    return t, log


@pytest.mark.parametrize(("n", "fontes"), [(13, 3), (11, 5), (25, 3), (9, 5)])
def test_odd_fontes_byes_go_to_the_bottom_never_twice(n, fontes):
    t, log = _play(n, fontes, PairingOptions(seed=2, fontes_rounds=fontes))
    byes = []
    for f, pairing in log:
        bye = bye_of(pairing)
        assert bye == _rule_bye(f), f"round {f.round}"
        assert [g.explanation for g in pairing.games if not g.second] == [
            "bye: lowest with fewest byes"
        ]
        byes.append(bye)
    assert len(set(byes)) == len(byes) == fontes
    for p in t.players:  # still no repeats inside the Fontes rounds
        real = [o for o in p.opponents if o]
        assert len(real) == len(set(real))


def test_round_one_bye_goes_to_the_lowest_seed_not_the_phantoms_group():
    f = fresh(13, total=7)
    opts = PairingOptions(fontes_rounds=3)
    pairing = pair_round(f, "fontes", opts)
    assert bye_of(pairing) == 13
    # The table alone would have given the bye to the phantom's round-1 opponent, not 13.
    group = next(g for g in fontes_groups(f, opts) if None in g)
    table_bye = next(
        group[a] if group[b] is None else group[b]
        for a, b in circle_round(len(group), 0)
        if None in (group[a], group[b])
    )
    assert table_bye != 13
    played = {x for g in pairing.games if g.second for x in (g.first, g.second)}
    assert played == set(range(1, 13))
    repaired = [g for g in pairing.games if "re-paired around the bye rule" in g.explanation]
    assert len(repaired) == 1  # only the bye player's table opponent and the phantom's meet


def test_top_down_bye_method_is_honoured_in_fontes():
    f = fresh(7, total=3)
    pairing = pair_round(f, "fontes", PairingOptions(fontes_rounds=3, bye_method="top_down"))
    assert bye_of(pairing) == 1


def test_even_active_fontes_field_with_a_withdrawal_has_no_bye():
    f = fresh(13, rnd=2, total=3)
    f.players[4].active = False  # 12 active players: nobody sits out
    pairing = pair_round(f, "fontes", PairingOptions(fontes_rounds=3))
    assert bye_of(pairing) is None
    assert check_round(f, pairing, PairingOptions(fontes_rounds=3)).errors == []


def test_re_pairing_breaks_a_table_game_rather_than_repeat():
    f = fresh(7, total=3)
    opts = PairingOptions(fontes_rounds=3)
    first = pair_round(f, "fontes", opts)
    by = {p.number: p for p in f.players}
    # Make the two players the table leaves loose have met already.
    loose = [
        (g.first, g.second)
        for g in first.games
        if g.second and "re-paired around the bye rule" in g.explanation
    ]
    assert loose
    a, b = loose[0]
    by[a].opponents.append(b)
    by[b].opponents.append(a)
    by[a].firsts.append(1)
    by[b].firsts.append(2)
    again = pair_round(f, "fontes", opts)
    assert frozenset((a, b)) not in {frozenset((g.first, g.second)) for g in again.games}
    assert check_round(f, again, opts).quality["repeats"] == 0


def test_checker_refuses_a_fontes_bye_against_the_rule():
    f = fresh(7, total=3)
    opts = PairingOptions(fontes_rounds=3)
    wrong = RoundPairing(
        1,
        "fontes",
        [PairedGame(1, 2, 3, ""), PairedGame(2, 4, 5, ""), PairedGame(3, 6, 7, "")]
        + [PairedGame(0, 1, 0, "bye")],
    )
    errors = check_round(f, wrong, opts).errors
    assert any("bye went to 1" in e for e in errors), errors


def test_round_robin_byes_still_come_from_the_table():
    opts = PairingOptions(seed=1)
    t = simulate(7, 7, lambda f: pair_round(f, "rr", opts), seed=1)
    assert sorted(p.opponents.count(0) for p in t.players) == [1] * 7
