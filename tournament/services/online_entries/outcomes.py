"""What the entry services answer: the entry made or confirmed and the secrets to show or mail
once (never stored).

A module of its own, importing only the models, so the entry mails (``services.entry_mail``)
can name these types without importing the entry services that queue them.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...models import OnlineEntry


@dataclass(frozen=True)
class Submitted:
    """What ``submit_entry`` did: the online entry, the personal link's secret (shown or mailed
    once, never stored), and the e-mail confirmation's secret when one is needed."""

    online: OnlineEntry
    link_token: str
    confirm_token: str | None
    # "player": a pending entry whose confirmation goes to the address the registry holds for
    # the player (``confirm_token`` is for that address, never the entrant's); "director": a
    # pending entry only a director's approval makes count (the registry holds no address)
    awaits: str = ""
    new_player: bool = False  # the entry made the player (a weekend's other events reuse them)
    link_nonce: str = ""  # what the queued mail holds in the links' place (entry_mail)
    confirm_nonce: str = ""


@dataclass(frozen=True)
class Confirmed:
    """What a confirmation link did: the online entry and, when the player confirmed an entry
    someone made for them, its new personal link's secret (the maker's link stops working)."""

    online: OnlineEntry
    link_token: str | None
    link_nonce: str = ""


@dataclass(frozen=True)
class WeekendSubmitted:
    """What ``submit_weekend_entries`` did: one ``Submitted`` per event entered, in the
    weekend's order; ``confirm_token`` is the one mailed link confirming them all (None when
    signed in: the entries count at once)."""

    entries: list[Submitted]
    confirm_token: str | None
