"""What the live stream tells a page: which tournaments changed, and what kind of write it was.

The stream (``tournament.stream``) sends a small message per write and no page content: the
page fetches its part again, from the same cached, versioned views it polls today. The
message's id is the write's audit event id, a sequence the database keeps, so a page that
reconnects (a dropped phone, a restarted stream process) names the last id it saw
(``Last-Event-ID``) and is sent what it missed, read back from the audit trail.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..models import AuditEvent, Tournament

# The kinds of change a page tells apart (the overlays' lower-third only cares for an
# announcement, the clock for the clock); everything else is a plain "change".
RESULT, CORRECTION, PAIRING, CLOCK, ANNOUNCEMENT, BROADCAST, CHANGE = (
    "result",
    "correction",
    "pairing",
    "clock",
    "announcement",
    "broadcast",
    "change",
)
_KINDS = {
    "record_result": RESULT,
    "record_forfeit": RESULT,
    "record_double_forfeit": RESULT,
    "self_confirm": RESULT,
    "report_card": RESULT,
    "venue_apply": RESULT,
    "correct_result": CORRECTION,
    "clear_result": CORRECTION,
    "resolve_dispute": CORRECTION,
    "pair": PAIRING,
    "pair_round": PAIRING,
    "unpair": PAIRING,
    "unpair_round": PAIRING,
    "repair_unscored": PAIRING,
    "delete_pairings": PAIRING,
    "start_clock": CLOCK,
    "pause_clock": CLOCK,
    "resume_clock": CLOCK,
    "extend_clock": CLOCK,
    "reset_clock": CLOCK,
    "post_announcement": ANNOUNCEMENT,
    "clear_announcement": ANNOUNCEMENT,
    "feature_boards": BROADCAST,
}
# Writes no public page shows (a player's pending report): never streamed, as they never bump
# the pages' versions (services.audit.UNSEEN_ACTIONS).
_UNSEEN = ("self_report", "self_dispute")
# A page away longer than this many writes is told "reload" once rather than each write.
REPLAY_LIMIT = 200


@dataclass(frozen=True)
class LiveChange:
    """One write as the stream sends it: its audit id (the event id) and its kind."""

    id: int
    kind: str


def kind_of(action: str) -> str:
    """The kind of change a page is told about for an audit ``action``."""
    return _KINDS.get(action, CHANGE)


def live_tournament(slug: str) -> tuple[int, int] | None:
    """A published tournament's id and its latest streamed write's id; None if there is no
    such published tournament (the stream is public: an unpublished one is not found)."""
    row = Tournament.objects.filter(slug=slug, published=True).values_list("pk", flat=True)
    pk = next(iter(row), None)
    if pk is None:
        return None
    return pk, last_change_id(pk)


def last_change_id(tournament_id: int) -> int:
    """The id of the tournament's latest streamed write (0 before any)."""
    last = (
        AuditEvent.objects.filter(tournament_id=tournament_id)
        .exclude(action__in=_UNSEEN)
        .order_by("-id")
        .values_list("id", flat=True)
        .first()
    )
    return last or 0


def changes_since(tournament_id: int, after: int, limit: int = REPLAY_LIMIT) -> list[LiveChange]:
    """The tournament's streamed writes after audit id ``after``, oldest first, at most
    ``limit`` + 1 (one more than the limit says "too many: reload")."""
    rows = (
        AuditEvent.objects.filter(tournament_id=tournament_id, id__gt=after)
        .exclude(action__in=_UNSEEN)
        .order_by("id")
        .values_list("id", "action")[: limit + 1]
    )
    return [LiveChange(pk, kind_of(action)) for pk, action in rows]


def content_versions(tournament_ids: list[int]) -> dict[int, int]:
    """Each tournament's content version, in one query on their primary keys: what the stream
    process polls (a fraction of a millisecond, however many pages listen) to notice a write
    made by another process when no Redis carries the news. Every seen write bumps it
    (services.audit.bump_tournament_versions)."""
    if not tournament_ids:
        return {}
    rows = Tournament.objects.filter(pk__in=tournament_ids).values_list("pk", "content_version")
    return dict(rows)
