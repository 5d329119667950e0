"""The tournament domain's tables, a module per concept (docs/architecture.md, the grid).

``core`` holds the play itself (players, clubs, tournaments, divisions, entries, rounds,
games, the audit trail); ``interchange``, ``clock``, ``notices``, ``weekends``,
``online_entries`` and ``venue`` hold one concept each, under the same name as their
selectors, services and pages. Every name is re-exported here, so ``from tournament.models
import Game`` (and every migration) reads as before; the tables, ``app_label`` and
``db_table`` are those of the single module this package replaced.
"""

from .broadcast import FeaturedBoard
from .clock import Announcement, RoundClock
from .core import (
    MAX_ABS_SCORE,
    REALM_DEFAULTS,
    AuditEvent,
    Club,
    Division,
    Entry,
    First,
    Game,
    Membership,
    PaperSize,
    PendingResult,
    Player,
    Realm,
    Round,
    Seat,
    StaffInvite,
    Tournament,
    keep_version,
    slug_validator,
)
from .gcg import GameRecord
from .interchange import ImportFile, ImportJob
from .notices import Notice, NoticeSubscription
from .online_entries import DivisionEntryRule, EntryWindow, OnlineEntry
from .photos import PlayerPhoto
from .venue import VenueChange, VenueInbox, VenueLink, VenueTake
from .weekends import FederationDownload, Weekend, WeekendEvent

__all__ = [
    "FeaturedBoard",
    "MAX_ABS_SCORE",
    "REALM_DEFAULTS",
    "Announcement",
    "AuditEvent",
    "Club",
    "Division",
    "DivisionEntryRule",
    "Entry",
    "EntryWindow",
    "FederationDownload",
    "First",
    "Game",
    "GameRecord",
    "ImportFile",
    "ImportJob",
    "Membership",
    "Notice",
    "NoticeSubscription",
    "OnlineEntry",
    "PaperSize",
    "PendingResult",
    "Player",
    "PlayerPhoto",
    "Realm",
    "Round",
    "RoundClock",
    "Seat",
    "StaffInvite",
    "Tournament",
    "VenueChange",
    "VenueInbox",
    "VenueLink",
    "VenueTake",
    "Weekend",
    "WeekendEvent",
    "keep_version",
    "slug_validator",
]
