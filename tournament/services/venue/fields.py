"""Venue mode: what crosses between the venue and the hosted copy (the fields of each row,
the writes that are not pushed, the batch size), and the helpers every part shares."""

from __future__ import annotations

import hashlib
from datetime import date, datetime
from typing import Any

from ...errors import ServiceError
from ..audit import Action

# What a tournament, a division, an entry and a game carry across (the site's own things, a
# rating list, staff, self-entry tokens, stay where they are).
TOURNAMENT_FIELDS = (
    "name",
    "start_date",
    "end_date",
    "venue",
    "realm",
    "bye_spread",
    "forfeit_spread",
    "spread_cap",
    "spread_caps",
    "standings_spread_cap",
    "sum_before_spread",
    "max_rounds",
    "gibson",
    "gibson_spread",
    "late_entry",
    "paper",
    "published",
    "config",
    "round_minutes",
    "language",
)
DATE_FIELDS = ("start_date", "end_date")
DIVISION_FIELDS = (
    "name",
    "prize_places",
    "position",
    "rounds",
    "rating_system",
    "file_name",
    "config",
)
ENTRY_FIELDS = (
    "seed_rating",
    "career_games",
    "player_class",
    "withdrawn_round",
    "withdrawal_score",
    "extra",
    "checked_in_at",
)
ENTRY_MOMENTS = ("checked_in_at",)
RULE_FIELDS = ("cap", "rating_min", "rating_max", "fee_amount", "fee_currency")
WINDOW_FIELDS = ("opens_at", "closes_at", "closed_at")
# what an entrant does on the hosted copy while a venue holds it: queued for the venue, not a
# write of the tournament's play (the venue settles it through its own services)
# (and an unconfirmed entry withdrawn: the venue never had it)
QUEUED_ON_THE_COPY = frozenset(
    {
        "online_entry",
        "confirm_online_entry",
        "withdraw_online_entry",
        Action.VENUE_QUEUE,
        Action.RESEND_ENTRY_LINK,  # a mail sent again: nothing of the event changes
    }
)
PLAYER_FIELDS = ("name", "naspa_id", "wespa_id", "absp_id", "country")
GAME_FIELDS = ("board", "score1", "score2", "first", "explanation")

# Every concrete field of each model a batch carries is declared here: carried (the tuples
# above) or staying where it is (below, with why). A field added to one of these models
# tomorrow is in neither, and ``undeclared_fields`` (run by tests/venue_mode/test_fields.py)
# names it, instead of venue mode silently leaving it behind on one side.
CARRIED: dict[str, tuple[str, ...]] = {
    "Tournament": TOURNAMENT_FIELDS,
    "Division": DIVISION_FIELDS,
    "Entry": ENTRY_FIELDS,
    "Player": PLAYER_FIELDS,
    "Game": GAME_FIELDS,
    "DivisionEntryRule": RULE_FIELDS,
    "EntryWindow": WINDOW_FIELDS,
}
# the keys a row is found by (its slug, number, round and players, its parent), the site's own
# bookkeeping (ids, created, versions, an import in progress), its private or local things
# (contact details, self-entry tokens, the rating list it reads), derived values
STAYS: dict[str, tuple[str, ...]] = {
    "Tournament": (
        "id",
        "slug",
        "created",
        "importing",
        "content_version",
        # not carried when venue mode was written and not since: the table names them so a
        # decision to carry them is one line above (and the venue's copy of them wins a rebase)
        "country",
        "region",
        "lexicon",
        "records_private",
    ),
    "Division": ("id", "tournament", "slug", "rating_list"),
    "Entry": ("id", "division", "player", "number", "entry_token", "entry_token_revoked_at"),
    "Player": ("id", "email", "phone", "note", "created", "search_key"),
    "Game": ("id", "round", "player1", "player2"),
    "DivisionEntryRule": ("id", "division"),
    "EntryWindow": ("id", "tournament", "updated"),
}


def undeclared_fields(model_fields: dict[str, list[str]] | None = None) -> list[str]:
    """``Model.field`` for every concrete field of a carried model that is neither carried nor
    declared to stay, and for every declared name the model no longer has (a rename).

    ``model_fields`` (model name: its field names) defaults to the models themselves."""
    if model_fields is None:
        from django.apps import apps

        model_fields = {
            name: [f.name for f in apps.get_model("tournament", name)._meta.concrete_fields]
            for name in CARRIED
        }
    problems = []
    for name, fields in sorted(model_fields.items()):
        declared = set(CARRIED.get(name, ())) | set(STAYS.get(name, ()))
        problems += [f"{name}.{f}: not declared" for f in fields if f not in declared]
        problems += [f"{name}.{f}: no such field" for f in sorted(declared - set(fields))]
    return problems


# Writes whose effect the hosted copy does not carry: the room's clock and notices, staff,
# players' private links and their pending reports (the venue's own business).
NOT_PUSHED = frozenset(
    {
        Action.START_CLOCK,
        Action.PAUSE_CLOCK,
        Action.RESUME_CLOCK,
        Action.EXTEND_CLOCK,
        Action.RESET_CLOCK,
        Action.POST_ANNOUNCEMENT,
        Action.CLEAR_ANNOUNCEMENT,
        Action.ADD_STAFF,
        Action.REMOVE_STAFF,
        Action.CREATE_INVITE,
        Action.ACCEPT_INVITE,
        Action.REVOKE_INVITE,
        Action.ISSUE_ENTRY_TOKEN,
        Action.ISSUE_ENTRY_TOKENS,
        Action.REVOKE_ENTRY_TOKEN,
        Action.SELF_REPORT,
        Action.SELF_DISPUTE,
        Action.VENUE_RELEASE,
        Action.VENUE_TAKE,
        Action.RESEND_ENTRY_LINK,
    }
)

# changes that send the whole state as a rebase ("restored": the name before "rebase")
REBASE_KINDS = frozenset({"rebase", "restored"})

# change rows per batch: a 23-round event of 500 players is about 6,000; each batch carries
# the rows its changes touched (the entries of a division, the rounds), well under a request's
# 2.5 MB limit
BATCH_CHANGES = 5000


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _iso(value: Any) -> Any:
    return value.isoformat() if isinstance(value, (date, datetime)) else value


def _bad(detail: str) -> ServiceError:
    return ServiceError("venue_bad_change", detail=detail)
