"""The registry of pairing systems: one registration gives a system its name everywhere.

The engine pairs with whatever is registered here; the schedule's parser, the checker, the
shell's validation, the ``pair`` command's ``--system`` choices, the console's list and the
schedule range's model choices all read this registry, so adding a system is one module with
a function ``pair(field, options) -> RoundPairing`` plus one ``register_system`` call. Pure
Python, as the rest of the engine.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .cop import pair_cop
from .greedy import pair_australian, pair_manual
from .model import Field, PairingOptions, RoundPairing
from .tables import pair_fontes, pair_round_robin
from .weighted import pair_weighted

Pair = Callable[[Field, PairingOptions], RoundPairing]


@dataclass(frozen=True)
class PairingSystem:
    """A pairing system and what the rest of Gibson must know of it.

    ``schedulable``: offered in schedules, the command and the console (``manual`` is not: it
    only checks pairs a director made). ``table``: pairs from a fixed table (round robin,
    Fontes); ``table_byes``: its byes come from the table's slots (the phantom, a withdrawn
    player's slot), not the bye rule: true of the round robin only, Fontes byes go by the bye
    rule (Initial Fontes' phantom sat in one group and gave its byes to whoever shared it).
    ``uses_gibson``: the
    Gibson rule applies to its rounds. ``tsh_commands``: TSH ``autopair`` command names that
    mean this system; ``repeats_first``: their first argument is TSH's repeat allowance.
    """

    name: str
    pair: Pair
    description: str = ""
    schedulable: bool = True
    table: bool = False
    table_byes: bool = False
    uses_gibson: bool = False
    tsh_commands: tuple[str, ...] = ()
    repeats_first: bool = False


PAIRING_SYSTEMS: dict[str, PairingSystem] = {}


def register_system(system: PairingSystem) -> PairingSystem:
    """Make ``system`` known everywhere by its name (registering a name again replaces it)."""
    if not system.name or not system.name.isidentifier() or len(system.name) > 20:
        raise ValueError(f"pairing system name {system.name!r}: up to 20 letters, digits or _")
    PAIRING_SYSTEMS[system.name] = system
    return system


def get_pairing_system(name: str) -> PairingSystem:
    """The system called ``name``; a bad name is refused with the list of good ones."""
    try:
        return PAIRING_SYSTEMS[name]
    except (KeyError, TypeError):
        names = ", ".join(PAIRING_SYSTEMS)
        raise ValueError(f"unknown pairing system {name!r}; use one of {names}") from None


def system_names(*, schedulable: bool = True) -> tuple[str, ...]:
    """Registered names in registration order; only those a schedule may name by default."""
    return tuple(s.name for s in PAIRING_SYSTEMS.values() if s.schedulable or not schedulable)


def tsh_commands() -> dict[str, str]:
    """TSH ``autopair`` command names (and abbreviations) -> our system names."""
    return {c: s.name for s in PAIRING_SYSTEMS.values() for c in s.tsh_commands}


def _weighted(name: str) -> Pair:
    def pair(field: Field, options: PairingOptions) -> RoundPairing:
        return pair_weighted(field, name, options)

    return pair


for _system in (
    PairingSystem(
        "rr",
        pair_round_robin,
        "round robin from the standard table",
        table=True,
        table_byes=True,
        tsh_commands=("rr", "roundrobin"),
    ),
    PairingSystem(
        "fontes",
        pair_fontes,
        "Fontes Swiss: rounds from the seeding groups",
        table=True,
        tsh_commands=("if", "initfontes"),
    ),
    PairingSystem(
        "swiss",
        _weighted("swiss"),
        "Swiss: like records meet",
        uses_gibson=True,
        tsh_commands=("ns", "newswiss"),
        repeats_first=True,
    ),
    PairingSystem(
        "koth",
        _weighted("koth"),
        "King of the Hill: 1 v 2, 3 v 4",
        uses_gibson=True,
        tsh_commands=("koth",),
        repeats_first=True,
    ),
    PairingSystem(
        "factor",
        _weighted("factor"),
        "factor pairing: 1 v 1+F",
        uses_gibson=True,
        tsh_commands=("fp", "factorpair"),
        repeats_first=True,
    ),
    PairingSystem(
        "contention",
        _weighted("contention"),
        "contention: players still in the prizes",
        uses_gibson=True,
        tsh_commands=("cp", "chewpair"),
    ),
    PairingSystem(
        "cop",
        pair_cop,
        "COP: contention from simulated prize chances",
        uses_gibson=True,
    ),
    PairingSystem(
        "australian",
        pair_australian,
        "Australian draw",
        uses_gibson=True,
    ),
    PairingSystem("random", _weighted("random"), "random draw"),
    PairingSystem(
        "manual",
        pair_manual,
        "the director's pairs, checked",
        schedulable=False,
    ),
):
    register_system(_system)
