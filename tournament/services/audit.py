"""The audit trail: who acted, and one event per write, in the same transaction as the write."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from django.db.models import F, Q

from ..models import (
    AuditEvent,
    Entry,
    Player,
    Tournament,
)


class Action(StrEnum):
    """Every kind of audit event, in one list: the trail is read and filtered by these names
    (console's last actions, replays), so a misspelt action must fail loudly, not be stored."""

    # tournaments, divisions and their settings
    CREATE_TOURNAMENT = "create_tournament"
    UPDATE_TOURNAMENT = "update_tournament"
    PUBLISH_TOURNAMENT = "publish_tournament"
    UNPUBLISH_TOURNAMENT = "unpublish_tournament"
    CREATE_DIVISION = "create_division"
    UPDATE_DIVISION = "update_division"
    DIVISION_CHANCES = "division_chances"
    ADD_SCHEDULE_RANGE = "add_schedule_range"
    UPDATE_SCHEDULE_RANGE = "update_schedule_range"
    DELETE_SCHEDULE_RANGE = "delete_schedule_range"
    ADD_FORBIDDEN_PAIR = "add_forbidden_pair"
    DELETE_FORBIDDEN_PAIR = "delete_forbidden_pair"
    IMPORT = "import"
    # the round clock and the director's announcement (services.clock)
    START_CLOCK = "start_clock"
    PAUSE_CLOCK = "pause_clock"
    RESUME_CLOCK = "resume_clock"
    EXTEND_CLOCK = "extend_clock"
    RESET_CLOCK = "reset_clock"
    POST_ANNOUNCEMENT = "post_announcement"
    CLEAR_ANNOUNCEMENT = "clear_announcement"
    # the stream's overlays (services.broadcast)
    FEATURE_BOARDS = "feature_boards"
    # e-mail notices (services.notices)
    SUBSCRIBE_NOTICES = "subscribe_notices"
    UNSUBSCRIBE_NOTICES = "unsubscribe_notices"
    SEND_FINAL_RESULTS = "send_final_results"
    # staff
    ADD_STAFF = "add_staff"
    REMOVE_STAFF = "remove_staff"
    CREATE_INVITE = "create_invite"
    ACCEPT_INVITE = "accept_invite"
    REVOKE_INVITE = "revoke_invite"
    # site-wide rights and accounts (a site administrator's grants; sign-up)
    GRANT_CREATE_TOURNAMENTS = "grant_create_tournaments"
    REVOKE_CREATE_TOURNAMENTS = "revoke_create_tournaments"
    SIGN_UP = "sign_up"
    CONFIRM_SIGN_UP = "confirm_sign_up"
    EXPIRE_SIGN_UP = "expire_sign_up"
    # players and entries
    CREATE_PLAYER = "create_player"
    UPDATE_PLAYER = "update_player"
    MERGE_PLAYERS = "merge_players"
    REGISTER = "register"
    UPDATE_ENTRY = "update_entry"
    REMOVE_ENTRY = "remove_entry"
    MOVE_ENTRY = "move_entry"
    RENUMBER = "renumber"
    WITHDRAW = "withdraw"
    REINSTATE = "reinstate"
    # entries online, waiting lists and check-in (services.online_entries, services.checkin)
    OPEN_ENTRIES = "open_entries"
    CLOSE_ENTRIES = "close_entries"
    ENTRY_RULE = "entry_rule"
    ONLINE_ENTRY = "online_entry"
    CONFIRM_ONLINE_ENTRY = "confirm_online_entry"
    RESEND_ENTRY_LINK = "resend_entry_link"
    RESEND_SIGN_UP = "resend_sign_up"
    WITHDRAW_ONLINE_ENTRY = "withdraw_online_entry"
    PROMOTE_ENTRY = "promote_entry"
    DEMOTE_ENTRY = "demote_entry"
    REFUSE_ENTRY = "refuse_entry"
    APPROVE_ENTRY = "approve_entry"
    DECLINE_ENTRY = "decline_entry"
    MARK_PAID = "mark_paid"
    MOVE_ONLINE_ENTRY = "move_online_entry"
    CHECK_IN = "check_in"
    UNDO_CHECK_IN = "undo_check_in"
    REMOVE_ABSENT = "remove_absent"
    # pairings
    PAIR = "pair"
    PAIR_ROUND = "pair_round"
    UNPAIR = "unpair"
    UNPAIR_ROUND = "unpair_round"
    REPAIR_UNSCORED = "repair_unscored"
    DELETE_PAIRINGS = "delete_pairings"
    # results
    RECORD_RESULT = "record_result"
    RECORD_FORFEIT = "record_forfeit"
    CORRECT_RESULT = "correct_result"
    RECORD_DOUBLE_FORFEIT = "record_double_forfeit"
    CLEAR_RESULT = "clear_result"
    REPORT_CARD = "report_card"
    RESOLVE_DISPUTE = "resolve_dispute"
    SET_DOUBLE_ENTRY = "set_double_entry"
    # self-entry (players' own links)
    ISSUE_ENTRY_TOKEN = "issue_entry_token"
    ISSUE_ENTRY_TOKENS = "issue_entry_tokens"
    REVOKE_ENTRY_TOKEN = "revoke_entry_token"
    SELF_REPORT = "self_report"
    SELF_CONFIRM = "self_confirm"
    SELF_DISPUTE = "self_dispute"
    # game records (services.gcg)
    ATTACH_GAME_RECORD = "attach_game_record"
    REPLACE_GAME_RECORD = "replace_game_record"
    REMOVE_GAME_RECORD = "remove_game_record"
    PUBLISH_GAME_RECORDS = "publish_game_records"
    RECORDS_PRIVATE = "records_private"
    # players' photos (services.photos)
    SUBMIT_PHOTO = "submit_photo"
    APPROVE_PHOTO = "approve_photo"
    REFUSE_PHOTO = "refuse_photo"
    # ratings
    SUBMIT_RATINGS = "submit_ratings"
    REQUEST_SUBMISSION = "request_submission"
    APPROVE_SUBMISSION = "approve_submission"
    REJECT_SUBMISSION = "reject_submission"
    RERATE = "rerate"
    OPEN_RATING_LIST = "open_rating_list"
    IMPORT_RATINGS = "import_ratings"
    SUBMIT_WEEKEND = "submit_weekend"
    # weekends and federation files
    CREATE_WEEKEND = "create_weekend"
    ADD_WEEKEND_EVENT = "add_weekend_event"
    REMOVE_WEEKEND_EVENT = "remove_weekend_event"
    MOVE_WEEKEND_EVENT = "move_weekend_event"
    SET_WEEKEND_SEEDING = "set_weekend_seeding"
    DOWNLOAD_FEDERATION_FILE = "download_federation_file"
    # clubs (tournament.clubs)
    CREATE_CLUB = "create_club"
    UPDATE_CLUB = "update_club"
    ADD_ORGANISER = "add_organiser"
    REMOVE_ORGANISER = "remove_organiser"
    CREATE_ORGANISER_INVITE = "create_organiser_invite"
    ACCEPT_ORGANISER_INVITE = "accept_organiser_invite"
    REVOKE_ORGANISER_INVITE = "revoke_organiser_invite"
    ADD_MEMBER = "add_member"
    UPDATE_MEMBER = "update_member"
    CREATE_NIGHT = "create_night"
    CLOSE_NIGHT = "close_night"
    REOPEN_NIGHT = "reopen_night"
    DELETE_NIGHT = "delete_night"
    CREATE_SEASON = "create_season"
    UPDATE_SEASON = "update_season"
    ARCHIVE_SEASON = "archive_season"
    # the admin (a superuser's repairs of what no service owns)
    ADMIN_ADD = "admin_add"
    ADMIN_CHANGE = "admin_change"
    ADMIN_DELETE = "admin_delete"
    # venue mode (services.venue): the link, the venue's pushes, the hand-back
    CREATE_VENUE_LINK = "create_venue_link"
    VENUE_TAKEN = "venue_taken"
    VENUE_TAKE = "venue_take"
    VENUE_APPLY = "venue_apply"
    RECLAIM_FROM_VENUE = "reclaim_from_venue"
    VENUE_RELEASE = "venue_release"
    # the venue's state replaced the hosted copy's (one or the other was restored from a backup)
    VENUE_REBASE = "venue_rebase"
    # an entrant's online entry or check-in on the hosted copy, queued for the venue
    VENUE_QUEUE = "venue_queue"
    # a visitor wrote to the directors through the calendar (services.calendar)
    CONTACT_DIRECTORS = "contact_directors"
    # a hosted director freed the venue link from its laptop (one laptop per link)
    MOVE_VENUE_LINK = "move_venue_link"
    # the venue chose between its state and the hosted copy's after they parted
    VENUE_RESOLVE = "venue_resolve"


@dataclass(frozen=True)
class Actor:
    """Who is acting: a signed-in user, or a named command/task for the audit trail."""

    name: str
    user: Any = None

    @classmethod
    def of(cls, who: Actor | str | Any | None) -> Actor:
        if isinstance(who, Actor):
            return who
        if who is None:
            return cls("system")
        if isinstance(who, str):
            return cls(who)
        return cls(getattr(who, "get_username", lambda: str(who))(), who)


# Writes no cached page shows: a player's pending or disputed self-report is seen only on the
# player's private link and the console, so it leaves public pages' versions alone (a stream
# of reports would otherwise rebuild every public page of the tournament each time).
# A photo waiting for approval is seen only by the player and the console, the same way.
UNSEEN_ACTIONS = frozenset(
    {Action.SELF_REPORT, Action.SELF_DISPUTE, Action.CONTACT_DIRECTORS, Action.SUBMIT_PHOTO}
)


@dataclass(frozen=True)
class AuditHook:
    """A rule another domain runs inside every audited write, before its event is stored.

    ``run(tournament, action, obj)`` may raise a ServiceError to refuse the write (the whole
    transaction rolls back) or make derived data stale (cached pages' versions). Domains
    register theirs in their ``AppConfig.ready`` (``register_audit_hook``), so this module
    knows no club, rating list or page cache: ``audit()`` writes the event and runs the hooks.
    """

    name: str
    run: Callable[[Tournament | None, Action, Any], None]


AUDIT_HOOKS: dict[str, AuditHook] = {}


def register_audit_hook(name: str, run: Callable[[Tournament | None, Action, Any], None]) -> None:
    """Run ``run`` in every audited write from now on (registering a name again replaces it)."""
    AUDIT_HOOKS[name] = AuditHook(name, run)


def audit(
    tournament: Tournament | None,
    actor: Actor | str | None,
    action: str,
    obj: Any = None,
    summary: str = "",
    *,
    before: Any = None,
    after: Any = None,
    reason: str = "",
) -> AuditEvent:
    action = Action(action)  # ValueError for a name not in the list
    who = Actor.of(actor)
    for hook in AUDIT_HOOKS.values():
        hook.run(tournament, action, obj)
    return AuditEvent.objects.create(
        tournament=tournament,
        user=who.user if getattr(who.user, "pk", None) else None,
        actor=who.name[:100],
        action=action,
        object_type=type(obj).__name__ if obj is not None else "",
        object_id=str(getattr(obj, "pk", "") or ""),
        summary=summary[:300],
        before=before,
        after=after,
        reason=reason[:300],
    )


def bump_tournament_versions(tournament: Tournament | None, action: Action, obj: Any) -> None:
    """Make every cached page of the tournaments the write touches stale, in its transaction.

    Public pages are cached under ``Tournament.content_version`` (tournament.cache).
    Every write records exactly one audit event, so bumping here covers results, pairings,
    registrations, settings, publishing and imports alike; a rolled-back write rolls its
    bump back too. A player's name shows in every tournament they entered, so a player's
    change (rename, merge) bumps all of those.
    """
    if action in UNSEEN_ACTIONS:
        return
    where = Q(pk=tournament.pk) if tournament is not None and tournament.pk else Q()
    if isinstance(obj, Player) and obj.pk:
        theirs = Q(pk__in=Entry.objects.filter(player=obj).values("division__tournament"))
        where = (where | theirs) if where else theirs
    if where:
        Tournament.objects.filter(where).update(content_version=F("content_version") + 1)
