"""The pairing shell's writes, beside the engine: pair a round, propose and edit it, publish,
unpair, store pairings made elsewhere, and a division's schedule and forbidden pairs.

Each public function is one transaction with one audit event (``tournament.services.audit``),
and refuses with a ``ServiceError`` that names the round. Reads (the field the engine sees, the
schedule entry, Gibsonized players) are in ``pairings.selectors``.
"""

from .rounds import (
    MAX_ROUND,
    Proposal,
    ProposedGame,
    add_bye,
    edit_proposal,
    pair_round,
    pin_in_round,
    pin_pair,
    propose_round,
    publish_pairs,
    publish_proposal,
    remove_bye,
    swap_in_round,
    swap_players,
    unpair_round,
)
from .schedule import (
    add_forbidden_pair,
    add_schedule_range,
    delete_forbidden_pair,
    delete_schedule_range,
    schedule_from_autopair,
    update_schedule_range,
)
from .store import (
    PlannedGame,
    delete_round_pairings,
    lock_division,
    replace_unscored_pairings,
    save_round_pairings,
    set_pairing,
)

__all__ = [
    "MAX_ROUND",
    "PlannedGame",
    "Proposal",
    "ProposedGame",
    "add_bye",
    "add_forbidden_pair",
    "add_schedule_range",
    "delete_forbidden_pair",
    "delete_round_pairings",
    "delete_schedule_range",
    "edit_proposal",
    "lock_division",
    "pair_round",
    "pin_pair",
    "replace_unscored_pairings",
    "propose_round",
    "publish_pairs",
    "publish_proposal",
    "remove_bye",
    "save_round_pairings",
    "schedule_from_autopair",
    "set_pairing",
    "pin_in_round",
    "swap_in_round",
    "swap_players",
    "unpair_round",
    "update_schedule_range",
]
