"""Venue mode on the venue instance: the take, the batches, the bookkeeping, and what the
console shows."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils import timezone

from ...errors import ServiceError
from ...models import (
    Division,
    Player,
    Tournament,
    VenueChange,
    VenueLink,
    VenueTake,
)
from ..audit import Action, audit
from .fields import (
    BATCH_CHANGES,
    PLAYER_FIELDS,
    REBASE_KINDS,
    TOURNAMENT_FIELDS,
    _iso,
)
from .state import (
    _apply_settings,
    _apply_state,
    tournament_state,
)

# --- the venue instance: the take, the batches, the bookkeeping -------------------------------


def take_tournament(
    state: dict[str, Any], hosted_url: str, token: str, actor: Any = None, director: Any = None
) -> Tournament:
    """Create the downloaded tournament here as the authority, with its link to push to."""
    slug = str(state.get("tournament") or "")
    if Tournament.objects.filter(slug=slug).exists():
        raise ServiceError(
            "venue_exists_here",
            slug=slug,
            detail="remove it, or take the event into another Gibson instance",
        )

    def resolve(data: dict[str, Any], division: Division, number: int, at: Any) -> int:
        for field in ("naspa_id", "wespa_id", "absp_id"):
            value = str(data.get(field) or "")
            if value:
                found = Player.objects.filter(**{field: value}).values_list("pk", flat=True).first()
                if found:
                    return found
        player = Player.objects.create(**{f: str(data.get(f) or "") for f in PLAYER_FIELDS})
        return player.pk

    with transaction.atomic():
        tournament = Tournament(slug=slug, name=str(state.get("settings", {}).get("name") or slug))
        _apply_settings(tournament, state.get("settings") or {}, TOURNAMENT_FIELDS)
        tournament.save()
        take = VenueTake.objects.create(
            tournament=tournament, hosted_url=hosted_url.rstrip("/"), token=token
        )
        refs = _apply_state(tournament, state, resolve)
        # refs: {hosted player id: ours}; the venue keeps {ours: hosted}
        take.player_refs = {str(ours): int(theirs) for theirs, ours in refs.items()}
        take.save(update_fields=["player_refs"])
        if director is not None and getattr(director, "pk", None):
            tournament.directors.add(director)
        audit(tournament, actor, Action.VENUE_TAKE, take, f"taken from {take.hosted_url}")
    return tournament


def next_batch(take: VenueTake, limit: int = BATCH_CHANGES) -> dict[str, Any] | None:
    """The next batch of unconfirmed changes with the after-state of what they touched (read
    in one transaction, so the state is one moment's), or None when all are confirmed."""
    with transaction.atomic():
        changes = list(
            VenueChange.objects.filter(
                tournament_id=take.tournament_id, seq__gt=take.last_pushed_seq
            )
            .order_by("seq")
            .values("seq", "scope", "division_id_ref", "round_number", "kind")[:limit]
        )
        if not changes:
            return None
        tournament = Tournament.objects.get(pk=take.tournament_id)
        present = set(Division.objects.filter(tournament=tournament).values_list("pk", flat=True))
        divisions: dict[int, set[int] | None] = {}
        full = False
        for c in changes:
            division_id = c["division_id_ref"]
            if c["scope"] == VenueChange.Scope.TOURNAMENT or division_id not in present:
                full = True
                break
            if c["scope"] == VenueChange.Scope.DIVISION:
                divisions[division_id] = None
            elif division_id not in divisions or divisions[division_id] is not None:
                divisions.setdefault(division_id, set()).add(c["round_number"])
        state = tournament_state(tournament, None if full else divisions, take.player_refs)
    return {
        "tournament": tournament.slug,
        "after": take.last_pushed_seq,
        "upto": changes[-1]["seq"],
        "changes": len(changes),
        "state": state,
        # the two sides disagreed (one was restored from a backup): this whole state replaces
        # the hosted copy's, whatever it holds
        "rebase": any(c["kind"] in REBASE_KINDS for c in changes),
    }


def _log_rebase(take: VenueTake, after: int) -> None:
    """Log one change past ``after`` and past this log that sends the whole state as a rebase."""
    seq = max(after, take.next_seq - 1) + 1
    take.next_seq = seq + 1
    VenueChange.objects.create(
        tournament_id=take.tournament_id,
        seq=seq,
        kind="rebase",
        scope=VenueChange.Scope.TOURNAMENT,
    )


def confirm_push(
    take: VenueTake, answer: dict[str, Any], batch: dict[str, Any] | None = None
) -> VenueTake:
    """Record what the hosted copy confirmed (its last applied change, its player ids).

    When its answer shows the two sides disagree, the venue's state wins: the hosted copy
    holds changes this log never saw confirmed (this laptop was restored from an older backup,
    or an answer was lost on the way) and a whole-state rebase is logged to go up next."""
    applied = int(answer.get("last_seq_applied") or 0)
    refs = dict(take.player_refs)
    for ours, theirs in (answer.get("players") or {}).items():
        refs[str(ours)] = int(theirs)
    was = answer.get("was")
    with transaction.atomic():
        newest = VenueTake.objects.select_for_update().get(pk=take.pk)
        behind = applied >= newest.next_seq
        unseen = (
            batch is not None
            and not batch.get("rebase")
            and isinstance(was, int)
            and was > int(batch["after"])
        )
        if behind or unseen:
            _log_rebase(newest, applied)
        newest.last_pushed_seq = applied
        newest.last_push = timezone.now()
        newest.last_error = ""
        newest.player_refs = refs
        newest.save(
            update_fields=["next_seq", "last_pushed_seq", "last_push", "last_error", "player_refs"]
        )
    return newest


def note_push_error(take: VenueTake, message: str) -> None:
    """Keep the last refusal or failure for the console (nothing else changes)."""
    VenueTake.objects.filter(pk=take.pk).update(
        last_error=message[:500], last_error_at=timezone.now()
    )


def restart_from(take: VenueTake, applied: int) -> None:
    """The hosted copy holds fewer changes than this side thought (it was restored from an
    older backup): send the whole state from what it has, as a rebase (the venue's wins)."""
    with transaction.atomic():
        newest = VenueTake.objects.select_for_update().get(pk=take.pk)
        newest.last_pushed_seq = applied
        _log_rebase(newest, applied)
        newest.save(update_fields=["last_pushed_seq", "next_seq"])


def mark_released(take: VenueTake, actor: Any = None) -> VenueTake:
    """The venue's side of the hand-back: from now this copy refuses writes."""
    with transaction.atomic():
        take.released = timezone.now()
        take.save(update_fields=["released"])
        audit(
            take.tournament,
            actor,
            Action.VENUE_RELEASE,
            take,
            f"handed back to {take.hosted_url}",
        )
    return take


def link_state(take: VenueTake) -> dict[str, Any]:
    """The console's view of the link: last push, changes waiting, last error."""
    waiting = VenueChange.objects.filter(
        tournament_id=take.tournament_id, seq__gt=take.last_pushed_seq
    ).count()
    return {
        "tournament": take.tournament.slug,
        "hosted_url": take.hosted_url,
        "taken": _iso(take.taken),
        "last_push": _iso(take.last_push),
        "last_pushed_seq": take.last_pushed_seq,
        "changes_waiting": waiting,
        "last_error": take.last_error,
        "last_error_at": _iso(take.last_error_at),
        "released": _iso(take.released),
    }


# --- what the console shows -------------------------------------------------------------------


def venue_panel(tournament: Tournament) -> dict[str, Any]:
    """The console's view of venue mode for ``tournament`` on this instance: the hosted
    side's live link (who holds it, what arrived), or the venue side's link state."""
    link = (
        VenueLink.objects.filter(tournament=tournament, revoked__isnull=True)
        .order_by("-created")
        .first()
    )
    take = VenueTake.objects.filter(tournament=tournament).first()
    return {
        "venue_link": link,
        "venue_take": take,
        "venue_state": link_state(take) if take is not None else None,
    }
