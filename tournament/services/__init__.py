"""The one door for writes: every change to a tournament goes through these functions.

Views, the admin, the API, management commands and Celery tasks all call them, so the rules of
docs/rules.md are enforced in one place. Each public function is one database transaction and
writes an AuditEvent; on any error it raises ServiceError (with a code, a field and parameters)
and changes nothing. One module per topic. Reads live in ``tournament.selectors``, input checks
both need in ``tournament.checks`` and the error type in ``tournament.errors``; the pairing
shell's writes (pair, propose, publish, store, schedule) live beside the engine in
``pairings.services``. Nothing is re-exported here from those: a caller imports what it uses
from where it lives, so the layers stay visible in the imports.
"""

from .audit import Action, Actor, audit
from .entries import (
    MAX_SEED_RATING,
    NewEntry,
    find_or_create_player,
    move_entry,
    register_new_player,
    register_player,
    register_players,
    reinstate_player,
    remove_entry,
    renumber_by_rating,
    update_entry,
    withdraw_player,
)
from .players import create_player, may_manage_registry, merge_players, update_player
from .results import change_result, correct_player_result, correct_result, record_result
from .selfentry import (
    confirm_report,
    dispute_report,
    issue_token,
    report_own_result,
    revoke_token,
)
from .staff import accept_invite, add_staff, create_invite, remove_staff
from .tournaments import (
    TOURNAMENT_FIELDS,
    add_division,
    create_division,
    create_tournament,
    publish_tournament,
    set_chances_visibility,
    setup_tournament,
    update_division,
    update_tournament,
)

__all__ = [
    "Action",
    "Actor",
    "audit",
    # registry (admin)
    "create_player",
    "may_manage_registry",
    "merge_players",
    "move_entry",
    "update_player",
    # registration
    "MAX_SEED_RATING",
    "NewEntry",
    "find_or_create_player",
    "register_new_player",
    "register_player",
    "register_players",
    "reinstate_player",
    "remove_entry",
    "renumber_by_rating",
    "update_entry",
    "withdraw_player",
    # results
    "change_result",
    "correct_player_result",
    "correct_result",
    "record_result",
    # tournaments, divisions and staff
    "TOURNAMENT_FIELDS",
    "accept_invite",
    "add_division",
    "add_staff",
    "create_division",
    "create_invite",
    "create_tournament",
    "publish_tournament",
    "remove_staff",
    "setup_tournament",
    "set_chances_visibility",
    "update_division",
    "update_tournament",
    # self-entry (players' own links)
    "confirm_report",
    "dispute_report",
    "issue_token",
    "report_own_result",
    "revoke_token",
]
