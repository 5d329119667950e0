"""A toy pairing system, as a new system's author would write it: one module, one function.

"Ladder": active players in number order play 1 v 2, 3 v 4, ...; the last one left has the
bye. Pure: the field in, a RoundPairing out (tests/pairings_shell/test_system_registry.py
registers it with one line and pairs with it from every door).
"""

from __future__ import annotations

from pairings.engine import Field, PairedGame, PairingOptions, RoundPairing


def pair(field: Field, options: PairingOptions) -> RoundPairing:
    numbers = sorted(p.number for p in field.players if p.active)
    games = [
        PairedGame(board, a, b, "ladder: next in number order")
        for board, (a, b) in enumerate(zip(numbers[::2], numbers[1::2], strict=False), start=1)
    ]
    if len(numbers) % 2:
        games.append(PairedGame(0, numbers[-1], 0, "bye: last in number order"))
    return RoundPairing(field.round, "ladder", games)
