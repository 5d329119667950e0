"""The one door for writes: every change to a tournament goes through these functions.

Views, the admin, the API, management commands and Celery tasks all call them, so the rules of
spec/rules.md are enforced in one place. Each public function is one database transaction and
writes an AuditEvent; on any error it raises ServiceError (with a code, a field and parameters)
and changes nothing. One module per topic; reads live in ``tournament.selectors`` and are
re-exported here for the callers that predate the split.
"""

from ..selectors import (
    PlayerGame,
    division_by_name,
    division_standings,
    entry_games,
    last_round_number,
    last_scored_round,
    player_rounds,
    running_records,
    tournament_by_slug,
)
from ._common import MAX_PLAYED_SCORE, validate_bye_score, validate_played_scores
from .audit import Action, Actor, audit
from .entries import (
    MAX_SEED_RATING,
    NewEntry,
    find_or_create_player,
    register_new_player,
    register_player,
    register_players,
    reinstate_player,
    remove_entry,
    update_entry,
    withdraw_player,
)
from .errors import ServiceError
from .events import (
    TOURNAMENT_FIELDS,
    add_division,
    create_division,
    create_tournament,
    publish_tournament,
    setup_tournament,
    update_division,
    update_tournament,
)
from .pairings import PlannedGame, delete_round_pairings, save_round_pairings, set_pairing
from .players import create_player, may_manage_registry, merge_players, update_player
from .results import correct_player_result, correct_result, record_result
from .schedule import (
    add_forbidden_pair,
    add_schedule_range,
    delete_forbidden_pair,
    delete_schedule_range,
    update_schedule_range,
)
from .selfentry import (
    confirm_report,
    dispute_report,
    issue_token,
    report_own_result,
    revoke_token,
)
from .staff import accept_invite, add_staff, create_invite, remove_staff

__all__ = [
    # admin and registry
    "create_player",
    "may_manage_registry",
    "merge_players",
    "update_player",
    "MAX_PLAYED_SCORE",
    "TOURNAMENT_FIELDS",
    "Action",
    "Actor",
    "PlannedGame",
    "PlayerGame",
    "ServiceError",
    "audit",
    "correct_player_result",
    "correct_result",
    "create_division",
    "create_tournament",
    "delete_round_pairings",
    "division_by_name",
    "division_standings",
    "entry_games",
    "find_or_create_player",
    "last_round_number",
    "last_scored_round",
    "player_rounds",
    "record_result",
    "register_player",
    "running_records",
    "save_round_pairings",
    "set_pairing",
    "tournament_by_slug",
    "validate_bye_score",
    "validate_played_scores",
    "withdraw_player",
    # registration
    "MAX_SEED_RATING",
    "NewEntry",
    "register_new_player",
    "register_players",
    "reinstate_player",
    "remove_entry",
    "update_entry",
    # setup and staff
    "accept_invite",
    "add_division",
    "add_forbidden_pair",
    "add_schedule_range",
    "add_staff",
    "create_invite",
    "delete_forbidden_pair",
    "delete_schedule_range",
    "publish_tournament",
    "remove_staff",
    "setup_tournament",
    "update_division",
    "update_schedule_range",
    "update_tournament",
    # self-entry (players' own links)
    "confirm_report",
    "dispute_report",
    "issue_token",
    "report_own_result",
    "revoke_token",
]
