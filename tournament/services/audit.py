"""The audit trail: who acted, and one event per write, in the same transaction as the write."""

from __future__ import annotations

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
    ADD_SCHEDULE_RANGE = "add_schedule_range"
    UPDATE_SCHEDULE_RANGE = "update_schedule_range"
    DELETE_SCHEDULE_RANGE = "delete_schedule_range"
    ADD_FORBIDDEN_PAIR = "add_forbidden_pair"
    DELETE_FORBIDDEN_PAIR = "delete_forbidden_pair"
    IMPORT = "import"
    # staff
    ADD_STAFF = "add_staff"
    REMOVE_STAFF = "remove_staff"
    CREATE_INVITE = "create_invite"
    ACCEPT_INVITE = "accept_invite"
    # players and entries
    CREATE_PLAYER = "create_player"
    UPDATE_PLAYER = "update_player"
    MERGE_PLAYERS = "merge_players"
    REGISTER = "register"
    UPDATE_ENTRY = "update_entry"
    REMOVE_ENTRY = "remove_entry"
    WITHDRAW = "withdraw"
    REINSTATE = "reinstate"
    # pairings
    PAIR = "pair"
    PAIR_ROUND = "pair_round"
    UNPAIR = "unpair"
    UNPAIR_ROUND = "unpair_round"
    DELETE_PAIRINGS = "delete_pairings"
    # results
    RECORD_RESULT = "record_result"
    RECORD_FORFEIT = "record_forfeit"
    CORRECT_RESULT = "correct_result"
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
    # ratings
    SUBMIT_RATINGS = "submit_ratings"
    REQUEST_SUBMISSION = "request_submission"
    APPROVE_SUBMISSION = "approve_submission"
    REJECT_SUBMISSION = "reject_submission"
    RERATE = "rerate"
    # clubs (tournament.clubs)
    CREATE_CLUB = "create_club"
    UPDATE_CLUB = "update_club"
    ADD_ORGANISER = "add_organiser"
    REMOVE_ORGANISER = "remove_organiser"
    ADD_MEMBER = "add_member"
    UPDATE_MEMBER = "update_member"
    CREATE_NIGHT = "create_night"
    CLOSE_NIGHT = "close_night"
    REOPEN_NIGHT = "reopen_night"
    CREATE_SEASON = "create_season"
    UPDATE_SEASON = "update_season"
    ARCHIVE_SEASON = "archive_season"
    # the admin (a superuser's repairs of what no service owns)
    ADMIN_ADD = "admin_add"
    ADMIN_CHANGE = "admin_change"
    ADMIN_DELETE = "admin_delete"


# What may still happen to a closed club night (tournament.clubs): it is counted in its
# club's seasons and rated on its list, so anything else waits until it is reopened.
AFTER_CLOSING = frozenset(
    {Action.CLOSE_NIGHT, Action.REOPEN_NIGHT, Action.SUBMIT_RATINGS, Action.RERATE,
     Action.ISSUE_ENTRY_TOKEN, Action.ISSUE_ENTRY_TOKENS, Action.REVOKE_ENTRY_TOKEN}
)  # fmt: skip


def _refuse_closed_night(tournament: Tournament) -> None:
    """Every write to a tournament records its audit event inside its transaction, so refusing
    here rolls the whole write back: one check covers results, corrections, pairings,
    registrations, settings and the admin alike for a closed club night."""
    from ..clubs.models import Night
    from .errors import ServiceError

    night = (
        Night.objects.filter(tournament_id=tournament.pk, closed_at__isnull=False)
        .select_related("club")
        .first()
    )
    if night is not None:
        raise ServiceError("night_closed", date=night.date.isoformat(), club=night.club.name)


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
    if tournament is not None and action not in AFTER_CLOSING:
        _refuse_closed_night(tournament)
    bump_versions(tournament, obj)
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



def bump_versions(tournament: Tournament | None, obj: Any = None) -> None:
    """Make every cached page the write touches stale, in the write's own transaction.

    Public pages are cached under ``Tournament.content_version`` (tournament.web.caching).
    Every write records exactly one audit event, so bumping here covers results, pairings,
    registrations, settings, publishing and imports alike; a rolled-back write rolls its
    bump back too. A player's name shows in every tournament they entered and on every list
    that rates them, so a player's change (rename, merge) bumps all of those.
    """
    from ratings.models import RatingList

    where = Q(pk=tournament.pk) if tournament is not None and tournament.pk else Q()
    if isinstance(obj, Player) and obj.pk:
        theirs = Q(pk__in=Entry.objects.filter(player=obj).values("division__tournament"))
        where = (where | theirs) if where else theirs
        RatingList.objects.filter(ratings__player=obj).update(
            content_version=F("content_version") + 1
        )
    if isinstance(obj, RatingList) and obj.pk:
        RatingList.objects.filter(pk=obj.pk).update(content_version=F("content_version") + 1)
    if where:
        Tournament.objects.filter(where).update(content_version=F("content_version") + 1)
    _bump_club(tournament, obj)


def _bump_club(tournament: Tournament | None, obj: Any) -> None:
    """A club's pages show its nights' games, members and seasons: any write to those, or to
    a night's tournament, makes them stale."""
    from ..models import Club, Membership

    if isinstance(obj, Player) and obj.pk:  # a rename or merge shows on their clubs' pages
        Club.objects.filter(memberships__player=obj).update(
            content_version=F("content_version") + 1
        )
    club_id = getattr(obj, "club_id", None) if not isinstance(obj, Club) else obj.pk
    if isinstance(obj, Membership | Club) or (club_id and hasattr(obj, "club")):
        Club.objects.filter(pk=club_id).update(content_version=F("content_version") + 1)
    elif tournament is not None and tournament.pk:
        Club.objects.filter(nights__tournament=tournament).update(
            content_version=F("content_version") + 1
        )
