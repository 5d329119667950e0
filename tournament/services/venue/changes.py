"""Venue mode's change log: the audit hook that checks the authority again and logs every
write of a venue-held tournament, in the write's transaction."""

from __future__ import annotations

from typing import Any

from django.db.models import F

from ...access import authority_facts, check_authority
from ...models import (
    Division,
    Game,
    OnlineEntry,
    PendingResult,
    Player,
    Round,
    Tournament,
    VenueChange,
    VenueInbox,
    VenueLink,
    VenueTake,
)
from ..audit import Action
from .fields import (
    NOT_PUSHED,
    QUEUED_ON_THE_COPY,
)
from .queue import (
    held_by_venue,
)

# --- the audit hook: the authority check again, and the change log ----------------------------


def _scope(obj: Any) -> tuple[str, int | None, int | None]:
    """What a write touched: (scope, division id, round number)."""
    if isinstance(obj, PendingResult):
        obj = Game(round_id=obj.game.round_id) if obj.game_id else None
    if isinstance(obj, Game) and obj.round_id:
        found = Round.objects.filter(pk=obj.round_id).values_list("division_id", "number").first()
        if found:
            return VenueChange.Scope.ROUND, found[0], found[1]
    if isinstance(obj, Round) and obj.division_id and obj.number:
        return VenueChange.Scope.ROUND, obj.division_id, obj.number
    if isinstance(obj, Division) and obj.pk:
        return VenueChange.Scope.DIVISION, obj.pk, None
    division_id = getattr(obj, "division_id", None)
    if isinstance(division_id, int):
        return VenueChange.Scope.DIVISION, division_id, None
    return VenueChange.Scope.TOURNAMENT, None, None


def _log_change(
    tournament_id: int, action: Action, obj: Any, *, take_pk: int | None | bool = False
) -> None:
    """Log a write for the venue holding the tournament here; ``take_pk`` is that venue's
    take when the caller read it already (None: no venue holds it), else it is read."""
    if take_pk is False:
        take_pk = (
            VenueTake.objects.filter(tournament_id=tournament_id, released__isnull=True)
            .values_list("pk", flat=True)
            .first()
        )
    if take_pk is None:
        return
    VenueTake.objects.filter(pk=take_pk).update(next_seq=F("next_seq") + 1)
    seq = VenueTake.objects.filter(pk=take_pk).values_list("next_seq", flat=True).get() - 1
    scope, division_id, round_number = _scope(obj)
    VenueChange.objects.create(
        tournament_id=tournament_id,
        seq=seq,
        kind=str(action),
        scope=scope,
        division_id_ref=division_id,
        round_number=round_number,
    )


def venue_hook(tournament: Tournament | None, action: Action, obj: Any) -> None:
    """Inside every audited write: refuse it on a tournament this instance does not hold (a
    replica of a venue's, or one handed back), and log it when a venue holds it here."""
    if isinstance(obj, (VenueLink, VenueTake, VenueInbox)):
        return  # the link's own bookkeeping (apply, take back, release, the queue)
    if (
        isinstance(obj, OnlineEntry)
        and action in QUEUED_ON_THE_COPY
        and tournament is not None
        and held_by_venue(tournament) is not None
    ):
        return  # an entrant's entry on the copy, queued for the venue (venue mode, down)
    if tournament is not None and tournament.pk:
        facts = authority_facts(tournament.pk)  # one query for the check and the log
        check_authority(tournament, facts=facts)
        if action not in NOT_PUSHED:
            _log_change(tournament.pk, action, obj, take_pk=facts["held_take"])
    elif isinstance(obj, Player) and obj.pk and action not in NOT_PUSHED:
        # a player's name shows in every venue-held tournament they play in
        held = VenueTake.objects.filter(
            released__isnull=True, tournament__divisions__entries__player=obj
        ).values_list("tournament_id", flat=True)
        for tournament_id in set(held):
            _log_change(tournament_id, action, Tournament())
