"""Venue mode: one writer per tournament, and a hosted copy that follows the venue.

A hosted director makes a venue link (``create_link``: a token shown once). The venue
instance (a laptop at the venue) downloads the tournament with it (``take_state`` on the
hosted site, ``take_tournament`` on the venue) and from then holds the authority: the hosted
tournament is a read replica that refuses every write naming the venue
(``tournament.access.check_authority``, reached through ``require`` and, for the doors that
check their caller themselves, the audit hook of ``changes``).

Up: every write of a venue-held tournament logs a ``VenueChange`` in its own transaction
(the audit hook: it runs inside every audited write), numbered per tournament and naming what
the write touched: one round of a division (results, pairings), a division (entries, its
settings), or the whole tournament. ``next_batch`` turns the unconfirmed changes into one
batch carrying the after-state of what they touched, read at that moment (full rows keyed by
natural keys: division slug, entry number, round number, a game's two player numbers), and
the hosted site applies it with ``apply_push``: in order (``last_seq_applied``; a gap is
refused), exactly once (a batch already applied is a no-op), one transaction per batch.

Why after-states read at push time rather than stored with each change: a state is
idempotent (applying it twice, or an older and then a newer one, ends in the newer state),
so a resent or overlapping batch can never double a result, and a round of 250 results is one
round's rows on the wire, not 250 copies of a growing division. The log entry itself is
written in the write's transaction, so a write confirmed at the venue is always either
applied on the hosted site or still waiting in the log, whatever is killed when.

When the two sides disagree (either was restored from an older backup): every
push starts from the copy's position (``check_position``). A copy behind this log gets the
whole tournament as a *rebase* (``_log_rebase``), which it applies over whatever it holds and
audits as ``venue_rebase``; its pages say so (``tournament.selectors.replica_note``). A copy
holding changes this laptop never had (each change carries a random key, so a laptop restored
from an older backup cannot pass its new changes off as the old ones) waits for the
director's choice with both sides shown (``conflict``). A link is bound to one laptop
(``check_laptop``; a director moves it with ``move_link``).

Down: what only the hosted copy receives while the venue holds it (players' self-reports,
online entries that count, check-ins from players' links, and the waiting lists at the take)
is queued in ``VenueInbox``; the venue pulls it (``inbox_for``), settles each item through its
own services (tournament.sync.inbox) and answers (``settle_inbox``), and the player's page
shows the answer (an entrant's withdrawal too: the venue withdraws them through its own
service). Entries made at the venue come back up with the push, and so does where each online
entrant stands there (``_online_states``: the director's later refusals, promotions, moves,
"paid" and removals), which the hosted copy takes over its own record (``_apply_online``).

Hand-back: ``reclaim`` (a hosted director takes authority back, with what the copy last
received) or ``release_link`` (the venue hands it back after a final push); either revokes
the link and is one audited action.

The parts, a module each: ``fields`` (what crosses), ``queue`` (down: what the copy queues),
``changes`` (the audit hook and the change log), ``state`` (after-states and applying them),
``hosted`` (the hosted site's side), ``take`` (the venue's side), ``inbox`` (the venue
settles what the copy queued) and ``conflict`` (the director's choice after a parting,
imported as a module). Every other name is re-exported here, so
``from tournament.services import venue`` reads as before.
"""

from .changes import (
    venue_hook,
)
from .fields import (
    BATCH_CHANGES,
    DATE_FIELDS,
    DIVISION_FIELDS,
    ENTRY_FIELDS,
    ENTRY_MOMENTS,
    GAME_FIELDS,
    NOT_PUSHED,
    PLAYER_FIELDS,
    QUEUED_ON_THE_COPY,
    REBASE_KINDS,
    RULE_FIELDS,
    TOURNAMENT_FIELDS,
    WINDOW_FIELDS,
    hash_token,
)
from .hosted import (
    apply_push,
    check_laptop,
    copy_state,
    create_link,
    link_for_token,
    move_link,
    position,
    reclaim,
    release_link,
    take_state,
)
from .inbox import (
    inbox_for,
    record_inbox_outcome,
    settle_inbox,
    venue_answers,
    venue_reports,
)
from .queue import (
    held_by_venue,
    queue_check_in,
    queue_online_entry,
    queue_self_report,
    queue_withdrawal,
)
from .state import (
    NOT_COUNTED,
    _apply_online,
    tournament_state,
)
from .take import (
    agrees,
    check_position,
    confirm_push,
    hosted_ahead,
    link_state,
    mark_released,
    next_batch,
    note_push_error,
    restart_from,
    revoked_there,
    take_tournament,
    venue_panel,
)

__all__ = [
    "hosted_ahead",
    "BATCH_CHANGES",
    "DATE_FIELDS",
    "DIVISION_FIELDS",
    "ENTRY_FIELDS",
    "ENTRY_MOMENTS",
    "GAME_FIELDS",
    "NOT_COUNTED",
    "NOT_PUSHED",
    "PLAYER_FIELDS",
    "QUEUED_ON_THE_COPY",
    "REBASE_KINDS",
    "RULE_FIELDS",
    "TOURNAMENT_FIELDS",
    "WINDOW_FIELDS",
    "_apply_online",
    "agrees",
    "apply_push",
    "check_laptop",
    "copy_state",
    "check_position",
    "confirm_push",
    "create_link",
    "hash_token",
    "held_by_venue",
    "inbox_for",
    "link_for_token",
    "link_state",
    "mark_released",
    "move_link",
    "next_batch",
    "note_push_error",
    "position",
    "queue_check_in",
    "queue_online_entry",
    "queue_self_report",
    "queue_withdrawal",
    "reclaim",
    "record_inbox_outcome",
    "release_link",
    "restart_from",
    "revoked_there",
    "settle_inbox",
    "take_state",
    "take_tournament",
    "tournament_state",
    "venue_answers",
    "venue_hook",
    "venue_panel",
    "venue_reports",
]
