"""The pairing engine: field state in, one round's pairings (with explanations) out. Pure Python.

Contract
--------
``pair_round(field, system, options) -> RoundPairing``

* ``field``: ``Field(players=[FieldPlayer...], round=r, rounds_total=R, forbidden={frozenset})``.
  Each ``FieldPlayer`` carries number, rating, record from complete rounds (``wins`` - ties as
  halves, ``losses``, ``spread``), ``rank`` (1-based, from the caller's standings; 0 for all
  players = the engine ranks by wins, losses, spread, rating), ``opponents`` and ``firsts`` per
  paired round (opponent 0 = bye/forfeit; first 1 = went first, 2 = second), ``byes`` and
  ``active`` (withdrawn players are never paired).
* ``system``: a name in the registry (``systems.PAIRING_SYSTEMS``): ``rr``, ``fontes``,
  ``swiss``, ``koth``, ``factor``, ``contention``, ``australian``, ``random`` or ``manual``
  (checks ``options.manual_pairs``); ``register_system`` adds one.
* ``options``: ``PairingOptions`` (repeat limit, bye method, Gibson spread, prize bands, seed...).

The result lists ``PairedGame(board, first, second, explanation)``; the bye is a game with
``second == 0`` and ``board == 0``. ``PairingError`` says which rule made a round impossible and
what to relax. The same input and seed always give the same pairing.

Also here: ``assign_firsts`` (NASPA start/reply rule for a whole round), ``Schedule`` (per-round
systems, TSH ``autopair`` lines), ``check_round`` (an independent checker with quality metrics)
and ``generator`` (seeded random tournaments for property tests and benchmarks).
"""

from __future__ import annotations

from .checker import CheckReport, check_round, round_quality
from .firsts import assign_firsts, first_by_rule
from .model import (
    Field,
    FieldPlayer,
    PairedGame,
    PairingError,
    PairingOptions,
    RoundPairing,
)
from .schedule import Schedule, ScheduleEntry
from .systems import (  # noqa: E402  (the registry imports the systems above)
    PAIRING_SYSTEMS,
    PairingSystem,
    get_pairing_system,
    register_system,
    system_names,
)

__all__ = [
    "PAIRING_SYSTEMS",
    "PairingSystem",
    "get_pairing_system",
    "register_system",
    "system_names",
    "CheckReport",
    "Field",
    "FieldPlayer",
    "PairedGame",
    "PairingError",
    "PairingOptions",
    "RoundPairing",
    "Schedule",
    "ScheduleEntry",
    "assign_firsts",
    "check_round",
    "first_by_rule",
    "pair_round",
    "round_quality",
]


def pair_round(field: Field, system: str, options: PairingOptions | None = None) -> RoundPairing:
    """Pair ``field.round`` with ``system``; see the module docstring for the contract."""
    options = options or PairingOptions()
    _validate(field, options)
    return get_pairing_system(system).pair(field, options)


def _validate(field: Field, options: PairingOptions) -> None:
    """Refuse inconsistent input up front, naming the player, rather than pair nonsense."""
    if field.round < 1:
        raise ValueError(f"round must be 1 or more, got {field.round}")
    if field.rounds_total < field.round:
        raise ValueError(f"round {field.round} is beyond rounds_total {field.rounds_total}")
    if options.max_meetings < 1:
        raise ValueError(f"max_meetings must be at least 1, got {options.max_meetings}")
    numbers = [p.number for p in field.players]
    seen: set[int] = set()
    for p in field.players:
        if p.number <= 0:
            raise ValueError(f"player {p.name or p.number!r}: player numbers start at 1")
        if p.number in seen:
            raise ValueError(f"player {p.number} appears twice in the field")
        seen.add(p.number)
    known = set(numbers)
    known_or_bye = known | {0}
    for p in field.players:
        if len(p.firsts) > len(p.opponents):
            raise ValueError(
                f"player {p.number}: {len(p.opponents)} opponents but {len(p.firsts)} firsts"
            )
        # Whole-record set checks first (C speed on big fields); the round-by-round walk below
        # only runs for a record that is wrong, to name the round.
        if p.number not in p.opponents and known_or_bye.issuperset(p.opponents):
            continue
        for rnd, opp in enumerate(p.opponents, start=1):
            if opp and opp not in known:
                raise ValueError(f"player {p.number}, round {rnd}: unknown opponent {opp}")
            if opp == p.number:
                raise ValueError(f"player {p.number}, round {rnd}: paired with themself")
    for pair in field.forbidden:
        if len(pair) != 2 or not pair <= known:
            raise ValueError(f"forbidden pair {sorted(pair)} names unknown players")
