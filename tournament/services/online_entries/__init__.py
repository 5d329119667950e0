"""Entries online: a published tournament takes entries from a public form, fills each
division up to its cap and keeps the rest on that division's waiting list, in order.

A director opens entries (``open_entries``: from/until) and gives each division that takes
them a rule (``set_division_rule``: a cap, a rating band or "player picks", the fee as text).
A player enters (``submit_entry``) signed in with an account, or with an e-mail address whose
mailed link they must follow (``confirm_entry``) before the entry counts. Either way they are
found in the registry as the console's registration finds them: a registry player picked by
id, else a name, and a name nearly the same as a registry player's (the console's
``near_duplicates``) is that player, never a second one.

A counted entry becomes an ``Entry`` through ``register_player`` (the console's service:
numbers, late-entry rules and the audit trail follow) when its division has room, else it
waits. An entrant withdrawing before round 1 is paired frees their place (``remove_entry``:
numbers close up) and the first waiting entrant takes it (``promote``). The entrant's personal
link carries a 192-bit secret of which only the SHA-256 is stored.

No one enters in another player's name: an entry naming a player already in the registry
counts only once that player confirms it (signed in with the account whose address is the one
the registry holds for them, or by the link mailed to that address, never to the address the
entrant typed) or a director approves it (``approve_entry``). Until then it is ``pending``: it
holds no place, is not counted against the cap and bars no one, so a prankster cannot fill a
capped division nor lock the real player out. The player's confirmation gives the entry a new
personal link (the maker's stops working). An entry making a new player counts as before.

Every write here is one transaction with its audit event; the director's actions require
``direct`` on the tournament; the entrant's own actions are checked by their link's secret.

The parts, a module each: ``window`` (open, close, the rule as shown; the statuses and
secrets), ``entrant`` (the entrant's side), ``director`` (a division's rule and the director's
list) and ``weekend`` (a weekend's form). Every public name is re-exported here, so
``from tournament.services import online_entries as oe`` reads as before.
"""

from .director import (
    ENTRY_ACTIONS,
    apply_entry_action,
    demote_entry,
    director_rows,
    mark_paid,
    move_online_entry,
    online_entry,
    promote_entry,
    refuse_entry,
    set_division_rule,
)
from .entrant import (
    Confirmed,
    Submitted,
    approve_entry,
    confirm_entry,
    confirm_entry_link,
    division_rule,
    enter_from_hosted,
    entry_for_link,
    find_entrant,
    promote_checked_in,
    submit_entry,
    waiting_list,
    waiting_position,
    window_state,
    withdraw_entry,
    withdraw_from_hosted,
)
from .weekend import (
    WeekendSubmitted,
    confirm_weekend_entries,
    confirm_weekend_links,
    submit_weekend_entries,
)
from .window import (
    BARRING,
    LIVE,
    PENDING_PER_PLAYER,
    TOKEN_BYTES,
    Status,
    band_text,
    close_entries,
    describe_rule,
    entries_actor,
    in_band,
    link_hash,
    open_entries,
    speaks_for,
)

__all__ = [
    "BARRING",
    "ENTRY_ACTIONS",
    "Confirmed",
    "LIVE",
    "PENDING_PER_PLAYER",
    "Status",
    "Submitted",
    "TOKEN_BYTES",
    "WeekendSubmitted",
    "apply_entry_action",
    "approve_entry",
    "band_text",
    "close_entries",
    "confirm_entry",
    "confirm_entry_link",
    "confirm_weekend_entries",
    "confirm_weekend_links",
    "demote_entry",
    "director_rows",
    "describe_rule",
    "division_rule",
    "enter_from_hosted",
    "entries_actor",
    "entry_for_link",
    "find_entrant",
    "in_band",
    "link_hash",
    "mark_paid",
    "move_online_entry",
    "online_entry",
    "open_entries",
    "promote_checked_in",
    "promote_entry",
    "refuse_entry",
    "set_division_rule",
    "speaks_for",
    "submit_entry",
    "submit_weekend_entries",
    "waiting_list",
    "waiting_position",
    "window_state",
    "withdraw_entry",
    "withdraw_from_hosted",
]
