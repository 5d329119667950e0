"""Venue mode on the venue instance: the take, the batches, the bookkeeping, and what the
console shows."""

from __future__ import annotations

from datetime import datetime
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
    _set_aside_handed_back(slug)
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
        # a link moved from another laptop: the change log carries on from where the copy is
        at = state.get("position") or {}
        applied = int(at.get("last_seq_applied") or 0)
        take = VenueTake.objects.create(
            tournament=tournament,
            hosted_url=hosted_url.rstrip("/"),
            token=token,
            next_seq=applied + 1,
            last_pushed_seq=applied,
            hosted_key=str(at.get("last_key") or ""),
        )
        refs = _apply_state(tournament, state, resolve)
        # refs: {hosted player id: ours}; the venue keeps {ours: hosted}
        take.player_refs = {str(ours): int(theirs) for theirs, ours in refs.items()}
        take.save(update_fields=["player_refs"])
        if director is not None and getattr(director, "pk", None):
            tournament.directors.add(director)
        audit(tournament, actor, Action.VENUE_TAKE, take, f"taken from {take.hosted_url}")
    return tournament


def _set_aside_handed_back(slug: str) -> None:
    """A copy of ``slug`` here that was handed back or whose link was revoked is kept under
    another address, so this laptop can take the tournament again with a new link;
    a copy still held here is refused by the caller."""
    old = Tournament.objects.filter(slug=slug, venue_take__released__isnull=False).first()
    if old is None:
        return
    stamp = old.venue_take.released
    old.slug = f"{slug[:75]}-until-{stamp:%Y%m%d-%H%M%S}"
    old.name = f"{old.name} (this laptop's copy until {stamp:%Y-%m-%d %H:%M})"[:200]
    old.save(update_fields=["slug", "name"])


def revoked_there(take: VenueTake, detail: str) -> VenueTake:
    """The hosted site answered that the link was revoked (its director took the event back):
    this copy stops accepting changes that could never go up, says what did not, and the
    laptop may take the event again with a new link. One audited action."""
    waiting = VenueChange.objects.filter(
        tournament_id=take.tournament_id, seq__gt=take.last_pushed_seq
    ).count()
    with transaction.atomic():
        take = VenueTake.objects.select_for_update().select_related("tournament").get(pk=take.pk)
        if take.released is not None:
            return take
        take.released = timezone.now()
        take.notice = (
            f"The hosted site no longer takes this laptop's changes ({detail}). This copy "
            f"accepts no more changes; {waiting} made here never reached it: enter them on the "
            "hosted site, or take the event again with a new venue link (this copy is then "
            "kept under another address)."
        )[:500]
        take.save(update_fields=["released", "notice"])
        audit(
            take.tournament,
            "venue sync",
            Action.VENUE_RELEASE,
            take,
            f"the link was revoked on {take.hosted_url}; {waiting} changes never went up",
        )
    return take


def next_batch(take: VenueTake, limit: int = BATCH_CHANGES) -> dict[str, Any] | None:
    """The next batch of unconfirmed changes with the after-state of what they touched (read
    in one transaction, so the state is one moment's), or None when all are confirmed."""
    with transaction.atomic():
        changes = list(
            VenueChange.objects.filter(
                tournament_id=take.tournament_id, seq__gt=take.last_pushed_seq
            )
            .order_by("seq")
            .values("seq", "scope", "division_id_ref", "round_number", "kind", "key")[:limit]
        )
        if not changes:
            return None
        # the key of each change, and of the last one the copy confirmed: a copy that followed
        # another log (this laptop restored from an older backup) refuses the batch
        keys = {str(c["seq"]): c["key"] for c in changes}
        keys[str(take.last_pushed_seq)] = _key_at(take, take.last_pushed_seq)
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
        "keys": keys,
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


def _key_at(take: VenueTake, seq: int) -> str:
    """This log's key of change ``seq`` (the hosted copy's word for it once confirmed and
    the row is gone: the log was brought down from the copy)."""
    own = (
        VenueChange.objects.filter(tournament_id=take.tournament_id, seq=seq)
        .values_list("key", flat=True)
        .first()
    )
    return own if own is not None else take.hosted_key


def hosted_ahead(take: VenueTake, applied: int) -> ServiceError:
    """The refusal when the hosted copy holds changes this laptop never had (it was restored
    from an older backup): how far the copy got and how far the laptop did."""
    return ServiceError(
        "venue_hosted_ahead",
        where=str(take.tournament),
        slug=take.tournament.slug,
        applied=applied,
        ours=take.next_seq - 1,
    )


def agrees(take: VenueTake, applied: int, key: Any) -> bool:
    """Whether the hosted copy, at change ``applied`` under ``key``, followed this laptop's
    own log. Not when this laptop never had that change (it was restored from an
    older backup) or had another under that number; a copy that names no key (an older
    site) is judged by the number alone."""
    if applied <= 0:
        return True
    if not key:
        return applied < take.next_seq
    if applied >= take.next_seq:
        return False
    return _key_at(take, applied) == key


def confirm_push(
    take: VenueTake, answer: dict[str, Any], batch: dict[str, Any] | None = None
) -> VenueTake:
    """Record what the hosted copy confirmed (its last applied change, its player ids).

    When its answer shows the copy holds changes this log never had (this laptop was
    restored from an older backup), nothing is confirmed and ``venue_hosted_ahead`` is
    raised: the director chooses (``resolve``), the laptop's state does not silently win.
    An answer lost on the way is no such thing: the copy holds this log's own changes."""
    applied = int(answer.get("last_seq_applied") or 0)
    key = answer.get("last_key")
    refs = dict(take.player_refs)
    for ours, theirs in (answer.get("players") or {}).items():
        refs[str(ours)] = int(theirs)
    with transaction.atomic():
        newest = VenueTake.objects.select_for_update().get(pk=take.pk)
        if not agrees(newest, applied, key):
            raise hosted_ahead(newest, applied)
        newest.last_pushed_seq = max(applied, newest.last_pushed_seq)
        newest.hosted_key = str(key or "")[:16]
        newest.last_push = timezone.now()
        newest.last_error = ""
        newest.player_refs = refs
        newest.save(
            update_fields=[
                "last_pushed_seq",
                "hosted_key",
                "last_push",
                "last_error",
                "player_refs",
            ]
        )
    return newest


# a laptop clock further off the hosted site's than this is named on its console
CLOCK_SKEW_MINUTES = 5
CLOCK_WORDS = "This laptop's clock is"


def _check_clock(take: VenueTake, theirs: Any) -> None:
    """Warn when this laptop's clock is far off the hosted site's: every result,
    check-in and notice is stamped with it, and the round clock counts down by it."""
    try:
        there = datetime.fromisoformat(str(theirs))
    except ValueError:
        return
    off = (timezone.now() - there).total_seconds() / 60
    note = ""
    if abs(off) > CLOCK_SKEW_MINUTES:
        way = "ahead of" if off > 0 else "behind"
        note = (
            f"{CLOCK_WORDS} {abs(off):.0f} minutes {way} the hosted site's: results, check-ins "
            "and the round clock are stamped with it. Set this laptop's date and time."
        )
    # (another notice, a restore found, stays until the clock has something to say over it)
    mine = not take.notice or take.notice.startswith(CLOCK_WORDS)
    if mine and note != take.notice:
        VenueTake.objects.filter(pk=take.pk).update(notice=note)
        take.notice = note


def check_position(take: VenueTake, at: dict[str, Any]) -> VenueTake:
    """Every push, even one with nothing to send, starts here with the copy's position.
    Behind this log (restored from an older backup): the whole event goes again
    as a rebase, and the laptop says so. Ahead with this log's own changes (an answer lost
    on the way): confirmed. Holding changes this laptop never had: ``venue_hosted_ahead``."""
    _check_clock(take, at.get("now"))
    if "last_seq_applied" not in at:
        return take  # (a hosted site that does not say: judged by its answers to batches)
    applied = int(at.get("last_seq_applied") or 0)
    key = at.get("last_key")
    rebasing = VenueChange.objects.filter(
        tournament_id=take.tournament_id, seq__gt=take.last_pushed_seq, kind__in=REBASE_KINDS
    ).exists()
    if rebasing:
        return take  # the whole event goes up next, whatever the copy holds
    if not agrees(take, applied, key):
        raise hosted_ahead(take, applied)
    if applied < take.last_pushed_seq:
        restart_from(take, applied)
        note = (
            f"{timezone.now():%Y-%m-%d %H:%M} UTC: the hosted copy held only changes up to "
            f"{applied} of the {take.last_pushed_seq} it had confirmed (it was restored from a "
            "backup): this laptop sent it the whole event again."
        )
        VenueTake.objects.filter(pk=take.pk).update(notice=note)
    elif applied > take.last_pushed_seq:
        VenueTake.objects.filter(pk=take.pk).update(
            last_pushed_seq=applied, hosted_key=str(key or "")[:16]
        )
    take.refresh_from_db()
    return take


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
        # what the last push found (the copy was behind, ...), and a parting to choose on
        "notice": take.notice,
        "diverged": take.diverged or None,
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
