"""What a closed club night still allows, and the hooks the clubs app registers on audit()
(the closed-night rule, the club pages' versions)."""

from __future__ import annotations

from typing import Any

from django.db.models import F

from tournament.errors import ServiceError

from ...models import Club, Membership, Player, Tournament
from ...services.audit import UNSEEN_ACTIONS, Action
from ..models import Night
from .clubs import (
    FEDERATION_MIN_PLAYERS,
)

# What may still happen to a closed club night: it is counted in its club's seasons and rated
# on its list, so anything else waits until it is reopened.
AFTER_CLOSING = frozenset(
    {
        Action.CLOSE_NIGHT,
        Action.REOPEN_NIGHT,
        Action.SUBMIT_RATINGS,
        Action.RERATE,
        Action.DOWNLOAD_FEDERATION_FILE,  # a record of a file sent, not a change to the night
        Action.ISSUE_ENTRY_TOKEN,
        Action.ISSUE_ENTRY_TOKENS,
        Action.REVOKE_ENTRY_TOKEN,
    }
)


def _night_of(tournament: Tournament) -> tuple[Any, ...] | None:
    """The tournament's club night as (closed_at, date, club id, club name), or None."""
    return (
        Night.objects.filter(tournament_id=tournament.pk)
        .values_list("closed_at", "date", "club_id", "club__name")
        .first()
    )


def refuse_closed_night(
    tournament: Tournament | None, action: Action, obj: Any, *, night: Any = False
) -> None:
    """An audit hook (registered in ``ClubsConfig.ready``). Every write to a tournament records
    its audit event inside its transaction, so refusing here rolls the whole write back: one
    check covers results, corrections, pairings, registrations, settings and the admin alike
    for a closed club night. ``night`` is ``_night_of(tournament)`` when read already."""
    if tournament is None or action in AFTER_CLOSING:
        return
    if night is False:
        night = _night_of(tournament)
    if night is not None and night[0] is not None:
        raise ServiceError("night_closed", date=night[1].isoformat(), club=night[3])


def bump_club_versions(
    tournament: Tournament | None, action: Action, obj: Any, *, night: Any = False
) -> None:
    """An audit hook: a club's pages show its nights' games, members and seasons, so any write
    to those, or to a night's tournament, makes them stale in the write's transaction.
    ``night`` is ``_night_of(tournament)`` when read already (None: not a club night)."""
    if action in UNSEEN_ACTIONS:
        return
    if isinstance(obj, Player) and obj.pk:  # a rename or merge shows on their clubs' pages
        Club.objects.filter(memberships__player=obj).update(
            content_version=F("content_version") + 1
        )
    club_id = getattr(obj, "club_id", None) if not isinstance(obj, Club) else obj.pk
    if isinstance(obj, Membership | Club) or (club_id and hasattr(obj, "club")):
        Club.objects.filter(pk=club_id).update(content_version=F("content_version") + 1)
    elif tournament is not None and tournament.pk:
        if night is False:
            Club.objects.filter(nights__tournament=tournament).update(
                content_version=F("content_version") + 1
            )
        elif night is not None:
            Club.objects.filter(pk=night[2]).update(content_version=F("content_version") + 1)


def club_night_hook(tournament: Tournament | None, action: Action, obj: Any) -> None:
    """The two hooks above as one (registered in ``ClubsConfig.ready``): the tournament's
    night read once for both, so a write to a tournament that is no club night costs one
    query here (speed: a result line's queries). The closed-night check comes first, so
    a refused write bumps nothing."""
    night = _night_of(tournament) if tournament is not None and tournament.pk else None
    refuse_closed_night(tournament, action, obj, night=night)
    bump_club_versions(tournament, action, obj, night=night)


def refuse_small_night_files(tournament: Tournament, fmt: str, facts: list[dict]) -> None:
    """An export check (registered in ``ClubsConfig.ready``): a club night of fewer than
    FEDERATION_MIN_PLAYERS gets no federation files, wherever they are asked for."""
    if fmt not in ("all.tsh", "tou") or not hasattr(tournament, "club_night"):
        return
    players = sum(f["players"] for f in facts)
    if players < FEDERATION_MIN_PLAYERS:
        raise ServiceError(
            "night_too_small_to_submit",
            field="format",
            format=fmt,
            players=players,
            minimum=FEDERATION_MIN_PLAYERS,
        )
