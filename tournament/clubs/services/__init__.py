"""Writes for clubs: the club, its members and organisers, its nights and seasons.

The one door, as tournament.services: every function is one transaction with one audit event
(``audit(None, ...)`` for the club's own records, the night's tournament for a night's), and
refuses with a ServiceError naming what and where before it writes anything. A night's games
are written by the tournament services (pairing, results, corrections) since a night is a
tournament; what is the club's own here is creating, logging a game without a draw, closing
(which rates the night on the club's list) and reopening.

Who may act: a club's organisers (``Club.is_organiser``) run its members, nights and seasons;
any signed-in user may found a club (and becomes its organiser); an actor without a user is a
command run from the shell, trusted as the other commands are. No actor at all is refused.

The parts, a module each: ``clubs`` (who may act, the club), ``members``, ``nights``,
``seasons`` and ``closed`` (what a closed night allows, the hooks on audit()). Every public
name is re-exported here, so ``from tournament.clubs import services`` reads as before.
"""

from tournament.errors import ServiceError  # callers catch it as services.ServiceError

from .closed import (
    AFTER_CLOSING,
    bump_club_versions,
    club_night_hook,
    refuse_closed_night,
    refuse_small_night_files,
)
from .clubs import (
    CLUB_FIELDS,
    FEDERATION_MIN_PLAYERS,
    MAX_NIGHT_GAMES,
    NIGHT_DIVISION,
    ORGANISER_INVITE_DAYS,
    RESERVED_CLUB_SLUGS,
    accept_organiser_invite,
    add_organiser,
    check_organiser,
    create_club,
    create_organiser_invite,
    open_organiser_invite,
    open_organiser_invites,
    remove_organiser,
    revoke_organiser_invite,
    update_club,
)
from .members import (
    add_member,
    update_member,
)
from .nights import (
    add_night_player,
    close_night,
    club_rating,
    create_night,
    current_round,
    delete_night,
    log_game,
    night_entry,
    night_has_play,
    night_name,
    night_record_summary,
    pair_next_game,
    parse_draw,
    reopen_night,
)
from .seasons import (
    archive_season,
    create_season,
    season_rule,
    update_season,
)

__all__ = [
    "ServiceError",
    "AFTER_CLOSING",
    "CLUB_FIELDS",
    "FEDERATION_MIN_PLAYERS",
    "MAX_NIGHT_GAMES",
    "NIGHT_DIVISION",
    "ORGANISER_INVITE_DAYS",
    "RESERVED_CLUB_SLUGS",
    "accept_organiser_invite",
    "add_member",
    "add_night_player",
    "add_organiser",
    "archive_season",
    "bump_club_versions",
    "club_night_hook",
    "check_organiser",
    "close_night",
    "club_rating",
    "create_club",
    "create_night",
    "create_organiser_invite",
    "create_season",
    "current_round",
    "delete_night",
    "log_game",
    "night_entry",
    "night_has_play",
    "night_name",
    "night_record_summary",
    "open_organiser_invite",
    "open_organiser_invites",
    "pair_next_game",
    "parse_draw",
    "refuse_closed_night",
    "refuse_small_night_files",
    "remove_organiser",
    "reopen_night",
    "revoke_organiser_invite",
    "season_rule",
    "update_club",
    "update_member",
    "update_season",
]
