"""Venue mode (issue 23): one writer per tournament, and a hosted copy that follows the venue.

A hosted director makes a venue link (``create_link``: a token shown once). The venue
instance (a laptop at the venue) downloads the tournament with it (``take_state`` on the
hosted site, ``take_tournament`` on the venue) and from then holds the authority: the hosted
tournament is a read replica that refuses every write naming the venue
(``tournament.access.check_authority``, reached through ``require`` and, for the doors that
check their caller themselves, the audit hook below).

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

When the two sides disagree (either was restored from an older backup) the venue's state
wins: the venue sends its whole tournament as a *rebase* (``_log_rebase``: after a gap the
hosted copy refused, or an answer showing the copy holds changes this log never saw
confirmed), which the copy applies over whatever it holds and audits as ``venue_rebase``; its
pages say so (``tournament.selectors.replica_note``).

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
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import date, datetime
from typing import Any

from django.core.exceptions import ValidationError
from django.db import DatabaseError, IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from pairings.models import ForbiddenPair, ScheduleRange

from ..access import LinkActor, check_authority, require
from ..errors import ServiceError
from ..models import (
    Division,
    DivisionEntryRule,
    Entry,
    EntryWindow,
    Game,
    OnlineEntry,
    PendingResult,
    Player,
    Round,
    Seat,
    Tournament,
    VenueChange,
    VenueInbox,
    VenueLink,
    VenueTake,
)
from .audit import Action, Actor, audit

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


def _log_change(tournament_id: int, action: Action, obj: Any) -> None:
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
        return  # an entrant's entry on the copy, queued for the venue (issue 23, down)
    if tournament is not None and tournament.pk:
        check_authority(tournament)
        if action not in NOT_PUSHED:
            _log_change(tournament.pk, action, obj)
    elif isinstance(obj, Player) and obj.pk and action not in NOT_PUSHED:
        # a player's name shows in every venue-held tournament they play in
        held = VenueTake.objects.filter(
            released__isnull=True, tournament__divisions__entries__player=obj
        ).values_list("tournament_id", flat=True)
        for tournament_id in set(held):
            _log_change(tournament_id, action, Tournament())


# --- after-states: what a batch carries -------------------------------------------------------


def _tournament_state(tournament: Tournament) -> dict[str, Any]:
    return {name: _iso(getattr(tournament, name)) for name in TOURNAMENT_FIELDS}


def _division_state(
    division: Division, rounds: set[int] | None, refs: dict[str, int] | None
) -> dict[str, Any]:
    """One division's settings, every entry, and the rounds asked for (all when None)."""
    state: dict[str, Any] = {"slug": division.slug}
    state.update({name: getattr(division, name) for name in DIVISION_FIELDS})
    entries = Entry.objects.filter(division=division).order_by("number")
    values = ("number", "player_id", *ENTRY_FIELDS, *(f"player__{f}" for f in PLAYER_FIELDS))
    state["entries"] = [
        {
            "number": e["number"],
            **{f: _iso(e[f]) for f in ENTRY_MOMENTS},
            "player": {
                "ref": (refs or {}).get(
                    str(e["player_id"]), e["player_id"] if refs is None else None
                ),
                "local": e["player_id"],
                **{f: e[f"player__{f}"] for f in PLAYER_FIELDS},
            },
            **{f: e[f] for f in ENTRY_FIELDS if f not in ENTRY_MOMENTS},
        }
        for e in entries.values(*values)
    ]
    rule = DivisionEntryRule.objects.filter(division=division).values(*RULE_FIELDS).first()
    state["entry_rule"] = rule
    round_rows = Round.objects.filter(division=division)
    games = Game.objects.filter(round__division=division)
    if rounds is not None:
        round_rows = round_rows.filter(number__in=rounds)
        games = games.filter(round__number__in=rounds)
    by_round: dict[int, list[dict[str, Any]]] = {}
    for g in games.order_by("round__number", "board", "id").values(
        "round__number", "player1__number", "player2__number", *GAME_FIELDS
    ):
        by_round.setdefault(g.pop("round__number"), []).append(
            {"p1": g.pop("player1__number"), "p2": g.pop("player2__number"), **g}
        )
    present = {}
    for r in round_rows.values("number", "system", "paired_at"):
        present[r["number"]] = {
            "number": r["number"],
            "system": r["system"],
            "paired_at": _iso(r["paired_at"]),
            "games": by_round.get(r["number"], []),
        }
    wanted = sorted(present) if rounds is None else sorted(rounds)
    state["round_states"] = [present.get(n, {"number": n, "deleted": True}) for n in wanted]
    state["all_rounds"] = rounds is None
    if rounds is None:
        state["schedule"] = list(
            ScheduleRange.objects.filter(division=division)
            .order_by("first_round")
            .values("first_round", "last_round", "system", "lag", "options")
        )
        state["forbidden"] = [
            [a, b, reason]
            for a, b, reason in ForbiddenPair.objects.filter(division=division).values_list(
                "entry_a__number", "entry_b__number", "reason"
            )
        ]
    return state


def tournament_state(
    tournament: Tournament,
    divisions: dict[int, set[int] | None] | None = None,
    refs: dict[str, int] | None = None,
) -> dict[str, Any]:
    """The after-state of ``tournament``: every division in full (``divisions`` None), or the
    divisions and rounds named ({division id: round numbers, or None for all of it}).

    ``refs`` maps this instance's player ids to the other side's (a venue's push); None means
    the ids are the other side's own (the hosted site's download)."""
    full = divisions is None
    rows = Division.objects.filter(tournament=tournament).order_by("position", "name")
    if not full:
        rows = rows.filter(pk__in=list(divisions))
    return {
        "tournament": tournament.slug,
        "settings": _tournament_state(tournament),
        "entry_window": {
            k: _iso(v)
            for k, v in (
                EntryWindow.objects.filter(tournament=tournament).values(*WINDOW_FIELDS).first()
                or {}
            ).items()
        }
        or None,
        "divisions": [_division_state(d, None if full else divisions[d.pk], refs) for d in rows],
        "all_divisions": full,
        # a venue's push: where each online entrant of the hosted site stands here
        **({"online_entries": _online_states(tournament, refs)} if refs is not None else {}),
    }


def _online_states(tournament: Tournament, refs: dict[str, int]) -> list[dict[str, Any]]:
    """On the venue: every online entrant the hosted site sent (their player is mapped to
    the hosted site's), as their hosted page must show them: status, division, number,
    place on the waiting list, paid, note. Keyed by the hosted player: applying the list
    twice, or an older and then a newer one, ends in the newer (nothing doubles).

    Sent whole with every batch (a tournament's online entrants are a few hundred rows at
    most): a director's decision touches an entrant and often the waiting list behind them,
    and a move between divisions touches two; the whole list is always right."""
    rows = []
    # each division's waiting list in its order (online_entries.waiting_position's, which
    # imports this module)
    places: dict[int, int] = {}
    lists: dict[int, int] = {}
    for pk, division_id in (
        OnlineEntry.objects.filter(tournament=tournament, status=OnlineEntry.Status.WAITING)
        .order_by("waiting_since", "pk")
        .values_list("pk", "division_id")
    ):
        lists[division_id] = places[pk] = lists.get(division_id, 0) + 1
    onlines = (
        OnlineEntry.objects.filter(tournament=tournament)
        .exclude(status__in=NOT_COUNTED)
        .select_related("division", "entry")
        .order_by("pk")
    )
    for online in onlines:
        hosted = refs.get(str(online.player_id))
        if not isinstance(hosted, int):
            continue  # the venue's own entrant: the hosted site has no record of theirs
        status, note = online.status, online.note
        entry = online.entry
        if status == OnlineEntry.Status.ENTERED and entry is None:
            # the director removed the entry itself (the console's remove, not a refusal)
            status, note = OnlineEntry.Status.WITHDRAWN, note or "removed by the venue's director"
        elif entry is not None and entry.withdrawn_round is not None and not note:
            note = f"withdrawn at the venue from round {entry.withdrawn_round} on"
        rows.append(
            {
                "player": hosted,
                "division": online.division.slug,
                "status": status,
                "number": entry.number if entry is not None else None,
                "waiting": places.get(online.pk),
                "promoted_at": _iso(online.promoted_at),
                "paid": online.paid,
                "note": note,
            }
        )
    return rows


# entries no one has confirmed (and pending ones declined): never the venue's business
NOT_COUNTED = (
    OnlineEntry.Status.UNCONFIRMED,
    OnlineEntry.Status.PENDING,
    OnlineEntry.Status.DECLINED,
)


def _apply_online(tournament: Tournament, rows: Any) -> None:
    """On the hosted copy: each online entrant's record made what the venue says (the
    venue's state wins over this copy's answers and guesses). Setting, never adding: a
    resent batch writes the same values again."""
    if not isinstance(rows, list):
        raise _bad("online_entries: a list of the venue's online entrants")
    divisions = {d.slug: d for d in Division.objects.filter(tournament=tournament)}
    wanted: dict[int, tuple[OnlineEntry, dict[str, Any], Entry | None]] = {}
    for row in rows:
        if not isinstance(row, dict) or not isinstance(row.get("player"), int):
            raise _bad(f"an online entrant names the hosted site's player: {row!r}"[:200])
        if row.get("status") not in OnlineEntry.Status.values:
            raise _bad(f"online entrant {row['player']}: status {row.get('status')!r}"[:200])
        division = divisions.get(str(row.get("division")))
        if division is None:
            raise _bad(f"online entrant {row['player']}: no division {row.get('division')!r}")
        online = (
            OnlineEntry.objects.filter(tournament=tournament, player_id=row["player"])
            .exclude(status__in=NOT_COUNTED)
            .order_by("-pk")
            .first()
        )
        if online is None:
            continue  # (not an entrant of this copy: the venue's map names someone else)
        entry = None
        if row.get("number") is not None:
            if not isinstance(row["number"], int):
                raise _bad(f"online entrant {row['player']}: number {row['number']!r}"[:200])
            entry = Entry.objects.filter(division=division, number=row["number"]).first()
            if entry is None or entry.player_id != online.player_id:
                raise _bad(f"online entrant {row['player']}: #{row['number']} is not theirs")
        online.division = division
        wanted[online.pk] = (online, row, entry)
    # two steps: an entry may pass from one entrant's record to another's (one to one)
    OnlineEntry.objects.filter(pk__in=list(wanted)).update(entry=None)
    for online, row, entry in wanted.values():
        online.entry = entry
        online.status = row["status"]
        online.paid = bool(row.get("paid"))
        online.note = str(row.get("note") or "")[:200]
        waiting = row.get("waiting")
        online.venue_position = int(waiting) if isinstance(waiting, int) and waiting > 0 else None
        if row["status"] == OnlineEntry.Status.WAITING and online.waiting_since is None:
            online.waiting_since = timezone.now()
        if row.get("promoted_at"):
            online.promoted_at = datetime.fromisoformat(row["promoted_at"])
        online.save(
            update_fields=[
                "division",
                "entry",
                "status",
                "paid",
                "note",
                "venue_position",
                "waiting_since",
                "promoted_at",
            ]
        )


# --- applying a state (the hosted copy's push; the venue's take) ------------------------------


def _apply_settings(obj: Any, data: dict[str, Any], names: tuple[str, ...]) -> None:
    changed = []
    for name in names:
        if name not in data:
            continue
        value = data[name]
        if name in DATE_FIELDS and value is not None:
            value = date.fromisoformat(value)
        if getattr(obj, name) != value:
            setattr(obj, name, value)
            changed.append(name)
    if changed and obj.pk:
        obj.save(update_fields=changed)


def _apply_entries(
    division: Division, entries: list[dict[str, Any]], resolve: Any
) -> tuple[dict[int, int], dict[str, int]]:
    """Make the division's entries these: returns {number: entry pk} and {their player id:
    our player id}."""
    existing = {
        e["player_id"]: e
        for e in Entry.objects.filter(division=division).values(
            "pk", "number", "player_id", *ENTRY_FIELDS
        )
    }
    by_number = {e["number"]: e for e in existing.values()}
    wanted: dict[int, dict[str, Any]] = {}
    numbers: set[int] = set()
    refs: dict[str, int] = {}
    for data in entries:
        number = int(data["number"])
        if number < 1 or number in numbers:
            raise _bad(f"division {division.slug}: player number {number} twice or below 1")
        numbers.add(number)
        player_id = resolve(data["player"], division, number, by_number.get(number))
        if player_id in wanted:
            raise _bad(f"division {division.slug}: one player entered twice")
        wanted[player_id] = data
        refs[str(data["player"].get("local"))] = player_id
    gone = [e["pk"] for pid, e in existing.items() if pid not in wanted]
    if gone:
        Entry.objects.filter(pk__in=gone).delete()
    moved = [
        (existing[pid]["pk"], int(data["number"]))
        for pid, data in wanted.items()
        if pid in existing and existing[pid]["number"] != int(data["number"])
    ]
    for pk, number in moved:  # two steps: a renumbering swaps numbers between entries
        Entry.objects.filter(pk=pk).update(number=number + 1_000_000)
    for pk, number in moved:
        Entry.objects.filter(pk=pk).update(number=number)
    changed, new = [], []
    for pid, data in wanted.items():
        values = {f: data.get(f) for f in ENTRY_FIELDS}
        if values["extra"] is None:
            values["extra"] = []
        if values["seed_rating"] is None:
            values["seed_rating"] = 0
        for moment in ENTRY_MOMENTS:
            if isinstance(values[moment], str):
                values[moment] = datetime.fromisoformat(values[moment])
        if pid in existing:
            old = existing[pid]
            if any(old[f] != values[f] for f in ENTRY_FIELDS):
                changed.append(Entry(pk=old["pk"], **values))
        else:
            new.append(
                Entry(division=division, player_id=pid, number=int(data["number"]), **values)
            )
    if changed:
        Entry.objects.bulk_update(changed, list(ENTRY_FIELDS))
    if new:
        Entry.objects.bulk_create(new)
    pks = dict(Entry.objects.filter(division=division).values_list("number", "pk"))
    return pks, refs


def _apply_games(rnd: Round, games: list[dict[str, Any]], pks: dict[int, int]) -> None:
    """Make the round's games these, keyed by their two player numbers: only what differs is
    written (a round of 250 results where 10 changed writes 10 games)."""
    numbers = {pk: n for n, pk in pks.items()}
    existing = {}
    for g in Game.objects.filter(round=rnd).values("pk", "player1_id", "player2_id", *GAME_FIELDS):
        key = (numbers.get(g["player1_id"]), numbers.get(g["player2_id"]) or 0)
        existing[key] = g
    wanted: dict[tuple[int, int], dict[str, Any]] = {}
    for data in games:
        key = (int(data["p1"]), int(data["p2"] or 0))
        for n in key:
            if n and n not in pks:
                raise _bad(f"round {rnd.number}: player #{n} is not an entry of the division")
        if key in wanted:
            raise _bad(f"round {rnd.number}: the game #{key[0]} v #{key[1]} twice")
        wanted[key] = data
    gone = [g["pk"] for key, g in existing.items() if key not in wanted]
    if gone:
        Game.objects.filter(pk__in=gone).delete()
    changed, new = [], []
    for key, data in wanted.items():
        values = {f: data.get(f) for f in GAME_FIELDS}
        values["explanation"] = values["explanation"] or ""
        if values["first"] is None:
            values["first"] = 4
        if key in existing:
            old = existing[key]
            if any(old[f] != values[f] for f in GAME_FIELDS):
                changed.append(Game(pk=old["pk"], **values))
        else:
            new.append(
                Game(
                    round=rnd,
                    player1_id=pks[key[0]],
                    player2_id=pks[key[1]] if key[1] else None,
                    **values,
                )
            )
    if changed:
        Game.objects.bulk_update(changed, list(GAME_FIELDS))
    if new:
        made = Game.objects.bulk_create(new)
        seats = []
        for game in made:
            seats.append(Seat(game=game, round=rnd, entry_id=game.player1_id, side=1))
            if game.player2_id:
                seats.append(Seat(game=game, round=rnd, entry_id=game.player2_id, side=2))
        Seat.objects.bulk_create(seats)


def _apply_entry_rule(division: Division, rule: Any) -> None:
    """The division's online entry rule (its cap and band: the venue settles entries by it)."""
    if rule is None:
        DivisionEntryRule.objects.filter(division=division).delete()
        return
    values = {f: rule.get(f) for f in RULE_FIELDS}
    values["fee_amount"] = values["fee_amount"] or ""
    values["fee_currency"] = values["fee_currency"] or ""
    DivisionEntryRule.objects.update_or_create(division=division, defaults=values)


def _apply_window(tournament: Tournament, window: Any) -> None:
    if not window:
        EntryWindow.objects.filter(tournament=tournament).delete()
        return
    values = {
        f: datetime.fromisoformat(window[f]) if window.get(f) else None for f in WINDOW_FIELDS
    }
    if values["opens_at"] is None or values["closes_at"] is None:
        raise _bad("an entry window has its opening and its closing")
    EntryWindow.objects.update_or_create(tournament=tournament, defaults=values)


def _apply_division(division: Division, data: dict[str, Any], resolve: Any) -> dict[str, int]:
    pks, refs = _apply_entries(division, data.get("entries") or [], resolve)
    if "entry_rule" in data:
        _apply_entry_rule(division, data["entry_rule"])
    rounds = {r.number: r for r in Round.objects.filter(division=division)}
    listed = set()
    for rd in data.get("round_states") or []:
        number = int(rd["number"])
        listed.add(number)
        rnd = rounds.get(number)
        if rd.get("deleted"):
            if rnd is not None:
                rnd.delete()
            continue
        paired_at = datetime.fromisoformat(rd["paired_at"]) if rd.get("paired_at") else None
        if rnd is None:
            rnd = Round.objects.create(
                division=division, number=number, system=rd.get("system") or "", paired_at=paired_at
            )
        elif (rnd.system, rnd.paired_at) != (rd.get("system") or "", paired_at):
            rnd.system, rnd.paired_at = rd.get("system") or "", paired_at
            rnd.save(update_fields=["system", "paired_at"])
        _apply_games(rnd, rd.get("games") or [], pks)
    if data.get("all_rounds"):
        Round.objects.filter(division=division).exclude(number__in=listed).delete()
    if "schedule" in data:
        ScheduleRange.objects.filter(division=division).delete()
        ScheduleRange.objects.bulk_create(
            [ScheduleRange(division=division, **row) for row in data["schedule"]]
        )
    if "forbidden" in data:
        ForbiddenPair.objects.filter(division=division).delete()
        ForbiddenPair.objects.bulk_create(
            [
                ForbiddenPair(division=division, entry_a_id=pks[a], entry_b_id=pks[b], reason=why)
                for a, b, why in data["forbidden"]
            ]
        )
    return refs


def _apply_state(tournament: Tournament, state: dict[str, Any], resolve: Any) -> dict[str, int]:
    """Make ``tournament`` what ``state`` says; returns {their player id: our player id}."""
    try:
        _apply_settings(tournament, state.get("settings") or {}, TOURNAMENT_FIELDS)
        if "entry_window" in state:
            _apply_window(tournament, state["entry_window"])
        refs: dict[str, int] = {}
        listed = set()
        for data in state.get("divisions") or []:
            slug = str(data["slug"])
            listed.add(slug)
            division = Division.objects.filter(tournament=tournament, slug=slug).first()
            if division is None:
                division = Division(tournament=tournament, slug=slug)
                _apply_settings(division, data, DIVISION_FIELDS)
                division.full_clean(exclude=["rating_list"])
                division.save()
            else:
                _apply_settings(division, data, DIVISION_FIELDS)
            refs.update(_apply_division(division, data, resolve))
        if state.get("all_divisions"):
            Division.objects.filter(tournament=tournament).exclude(slug__in=listed).delete()
        return refs
    except ServiceError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise _bad(f"{type(exc).__name__}: {str(exc)[:300]}") from exc
    except (IntegrityError, ValidationError, DatabaseError) as exc:
        raise _bad(str(exc)[:200]) from exc


# --- the hosted site: links, the download, the pushes, the hand-back --------------------------


def create_link(actor: Any, tournament: Tournament, venue_name: str) -> tuple[VenueLink, str]:
    """A new venue link for ``tournament``; returns it and its token (shown this once)."""
    require(actor, "direct", tournament, what="hand it to a venue")
    venue_name = (venue_name or "").strip()[:100] or "the venue"
    with transaction.atomic():
        live = VenueLink.objects.filter(tournament=tournament, revoked__isnull=True).first()
        if live is not None:
            raise ServiceError("venue_link_exists", where=str(tournament), venue=live.venue_name)
        token = "gv_" + secrets.token_urlsafe(32)
        user = getattr(actor, "user", actor)
        link = VenueLink.objects.create(
            tournament=tournament,
            token_hash=hash_token(token),
            venue_name=venue_name,
            created_by=user if getattr(user, "pk", None) else None,
        )
        audit(tournament, actor, Action.CREATE_VENUE_LINK, link, f"link to {venue_name}")
    return link, token


def link_for_token(token: Any, *, lock: bool = False) -> VenueLink:
    """The live link ``token`` opens, else a refusal saying which (unknown, or revoked)."""
    if not isinstance(token, str) or not token:
        raise ServiceError("venue_bad_token")
    rows = VenueLink.objects.select_related("tournament")
    if lock:
        rows = rows.select_for_update()
    link = rows.filter(token_hash=hash_token(token)).first()
    if link is None:
        raise ServiceError("venue_bad_token")
    if link.revoked is not None:
        raise ServiceError(
            "venue_link_revoked",
            where=str(link.tournament),
            when=f"{link.revoked:%Y-%m-%d %H:%M} UTC",
            who=link.revoked_by or "a director",
        )
    return link


def take_state(token: Any) -> dict[str, Any]:
    """The venue's download: the tournament's full state, and from this moment the hosted
    copy is a replica (in the same transaction, so no write falls between the two)."""
    with transaction.atomic():
        link = link_for_token(token, lock=True)
        if link.taken is not None and link.last_seq_applied:
            raise ServiceError(
                "venue_already_taken",
                where=str(link.tournament),
                when=f"{link.taken:%Y-%m-%d %H:%M} UTC",
            )
        # a second download before any push (the laptop died while storing it) is the same
        link.taken = link.taken or timezone.now()
        link.save(update_fields=["taken"])
        audit(link.tournament, LinkActor(link.pk, link.venue_name), Action.VENUE_TAKEN, link)
        state = tournament_state(link.tournament)
        # the waiting lists go down as entries to settle, in their order: the venue keeps
        # them under its own rules (its cap, its promotions) from now
        waiting = OnlineEntry.objects.filter(
            tournament=link.tournament, status=OnlineEntry.Status.WAITING
        ).select_related("player", "division")
        for online in waiting.order_by("waiting_since", "pk"):
            queue_online_entry(link, online, LinkActor(link.pk, link.venue_name))
    state["venue"] = link.venue_name
    return state


def _hosted_resolver(tournament: Tournament) -> Any:
    """How a pushed entry names its player on the hosted site: by the id the venue learnt
    from an earlier answer (it must play in this tournament: a link writes to its own
    tournament only), else the player already at that number under that name, else a
    registry player with the same federation id, else a new player."""
    ours = set(
        Entry.objects.filter(division__tournament=tournament).values_list("player_id", flat=True)
    )
    # and the entrants whose online entries this copy queued for the venue (issue 23, down)
    ours.update(
        OnlineEntry.objects.filter(tournament=tournament).values_list("player_id", flat=True)
    )

    def resolve(data: dict[str, Any], division: Division, number: int, at: Any) -> int:
        ref = data.get("ref")
        if ref is not None:
            if not isinstance(ref, int) or ref not in ours:
                raise ServiceError(
                    "venue_foreign_player",
                    division=division.slug,
                    number=number,
                    player=ref,
                    where=str(tournament),
                )
            return ref
        name = str(data.get("name") or "").strip()
        if at is not None and Player.objects.filter(pk=at["player_id"], name=name).exists():
            return at["player_id"]
        for field in ("naspa_id", "wespa_id", "absp_id"):
            value = str(data.get(field) or "")
            if value:
                found = Player.objects.filter(**{field: value}).values_list("pk", flat=True).first()
                if found:
                    ours.add(found)
                    return found
        if not name:
            raise _bad(f"division {division.slug} entry #{number}: a player needs a name")
        player = Player(**{f: str(data.get(f) or "") for f in PLAYER_FIELDS})
        player.full_clean(exclude=["clubs"])
        player.save()
        ours.add(player.pk)
        return player.pk

    return resolve


def apply_push(token: Any, payload: Any) -> dict[str, Any]:
    """Apply one batch of a venue's changes, in order and exactly once, in one transaction.

    ``payload``: {"tournament": slug, "after": seq, "upto": seq, "state": after-state}. A
    batch the copy already holds (``upto`` <= last applied) is answered without a write; one
    that starts past it (``after`` > last applied: the copy was restored from an older backup)
    is refused naming where to resume. Nothing is written on any refusal.
    """
    if not isinstance(payload, dict):
        raise _bad("the body is not a batch of changes")
    with transaction.atomic():
        link = link_for_token(token, lock=True)
        tournament = link.tournament
        if payload.get("tournament") != tournament.slug:
            raise ServiceError(
                "venue_wrong_tournament", where=str(tournament), other=payload.get("tournament")
            )
        try:
            after, upto = int(payload["after"]), int(payload["upto"])
        except (KeyError, TypeError, ValueError) as exc:
            raise _bad("a batch names the changes it carries: after and upto") from exc
        if link.taken is None:
            raise ServiceError("venue_not_taken", where=str(tournament))
        actor = LinkActor(link.pk, link.venue_name)
        require(actor, "direct", tournament, what="apply a venue's changes")
        was = link.last_seq_applied
        rebase = payload.get("rebase") is True
        if upto <= was:  # (a rebase is numbered past what this copy holds: this one is old)
            return {"last_seq_applied": was, "applied": False, "players": {}, "was": was}
        if not rebase and (after > was or upto < after):
            raise ServiceError("venue_gap", where=str(tournament), applied=was, after=after)
        state = payload.get("state")
        if not isinstance(state, dict) or state.get("tournament") != tournament.slug:
            raise ServiceError(
                "venue_wrong_tournament",
                where=str(tournament),
                other=(state or {}).get("tournament") if isinstance(state, dict) else None,
            )
        if rebase and state.get("all_divisions") is not True:
            raise _bad("a rebase carries the whole tournament")
        refs = _apply_state(tournament, state, _hosted_resolver(tournament))
        _link_online_entries(tournament)
        if "online_entries" in state:
            _apply_online(tournament, state["online_entries"])
        link.last_seq_applied = max(upto, was) if rebase else upto
        link.last_push = timezone.now()
        link.save(update_fields=["last_seq_applied", "last_push"])
        if rebase:
            audit(
                tournament,
                actor,
                Action.VENUE_REBASE,
                link,
                f"the venue {link.venue_name}'s state replaced this copy's (this copy held "
                f"changes up to {was}, the venue sent {after + 1}..{upto}: one side was "
                "restored from a backup)",
            )
        else:
            audit(
                tournament,
                actor,
                Action.VENUE_APPLY,
                link,
                f"venue {link.venue_name}: changes {after + 1}..{upto}",
            )
    return {
        "last_seq_applied": link.last_seq_applied,
        "applied": True,
        "players": refs,
        "was": was,
    }


def _link_online_entries(tournament: Tournament) -> None:
    """Entries the venue made from online entries queued here came back up with the push:
    each entrant's page points at their entry again (they check in from it)."""
    waiting = OnlineEntry.objects.filter(
        tournament=tournament,
        status__in=(OnlineEntry.Status.ENTERED, OnlineEntry.Status.WAITING),
        entry__isnull=True,
    )
    for online in waiting:
        entry = (
            Entry.objects.filter(division__tournament=tournament, player_id=online.player_id)
            .filter(online__isnull=True)
            .first()
        )
        if entry is not None:  # (a waiting entrant the venue moved into a freed place too)
            if online.status == OnlineEntry.Status.WAITING:
                online.promoted_at = timezone.now()
            online.entry, online.status = entry, OnlineEntry.Status.ENTERED
            online.division_id = entry.division_id
            online.save(update_fields=["entry", "status", "division", "promoted_at"])


def _revoke(link: VenueLink, actor: Any, action: Action, who: str, summary: str) -> VenueLink:
    link.revoked = timezone.now()
    link.revoked_by = who[:100]
    link.save(update_fields=["revoked", "revoked_by"])
    audit(link.tournament, actor, action, link, summary)
    return link


def reclaim(actor: Any, tournament: Tournament) -> VenueLink:
    """A hosted director takes the tournament back from its venue (event over, or the laptop
    lost): the copy as last received becomes the tournament again, the link is revoked and
    the venue's later pushes are refused. One audited action."""
    require(actor, "reclaim", tournament, what="take it back from the venue")
    with transaction.atomic():
        link = (
            VenueLink.objects.select_for_update()
            .filter(tournament=tournament, revoked__isnull=True)
            .first()
        )
        if link is None:
            raise ServiceError("venue_no_link", where=str(tournament))
        who = Actor.of(actor).name
        # the venue's waiting lists stop counting: this copy's own order does again
        OnlineEntry.objects.filter(tournament=tournament).update(venue_position=None)
        return _revoke(
            link,
            actor,
            Action.RECLAIM_FROM_VENUE,
            who,
            f"taken back from venue {link.venue_name} with changes up to {link.last_seq_applied}",
        )


def release_link(token: Any) -> dict[str, Any]:
    """The venue hands the tournament back (after its final push): the link is revoked."""
    with transaction.atomic():
        link = link_for_token(token, lock=True)
        actor = LinkActor(link.pk, link.venue_name)
        _revoke(
            link,
            actor,
            Action.VENUE_RELEASE,
            str(actor),
            f"handed back by venue {link.venue_name} with changes up to {link.last_seq_applied}",
        )
    return {"released": True, "last_seq_applied": link.last_seq_applied}


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


# --- down: what players send to the hosted site while the venue holds the tournament --------


def held_by_venue(tournament: Tournament) -> VenueLink | None:
    """The live link of a venue holding ``tournament`` (this copy is its replica), or None."""
    return VenueLink.objects.filter(
        tournament=tournament, taken__isnull=False, revoked__isnull=True
    ).first()


def queue_self_report(
    link: VenueLink, entry: Entry, round_number: int, mine: int, theirs: int, actor: Any
) -> VenueInbox:
    """A player's report made on the replica: queued for the venue, which enters it through
    its own services (a director's entry there still wins) and answers with the outcome."""
    item = VenueInbox.objects.create(
        link=link, entry=entry, round_number=round_number, score=mine, opp_score=theirs
    )
    audit(
        link.tournament,
        actor,
        Action.SELF_REPORT,
        link,
        f"#{entry.number} {entry.name} round {round_number}: {mine}-{theirs}, sent to the venue",
    )
    return item


def queue_online_entry(link: VenueLink, online: OnlineEntry, actor: Any) -> VenueInbox:
    """An online entry that counts (signed in, or its e-mail confirmed) on the replica: sent
    to the venue, which enters it under its own rules (cap, waiting list, duplicates) and
    answers; until then the entrant's page says it is with the venue."""
    online.status = OnlineEntry.Status.SENT
    online.save(update_fields=["status"])
    item = VenueInbox.objects.create(link=link, kind=VenueInbox.Kind.ENTRY, online=online)
    audit(
        link.tournament,
        actor,
        Action.VENUE_QUEUE,
        item,
        f"{online.player.name} entered {online.division.name} online, sent to the venue",
    )
    return item


def queue_check_in(link: VenueLink, entry: Entry, actor: Any) -> VenueInbox:
    """A player checking in from their link on the replica: sent to the venue (once; a second
    tap while the first waits changes nothing)."""
    waiting = VenueInbox.objects.filter(
        link=link, kind=VenueInbox.Kind.CHECK_IN, entry=entry, status=VenueInbox.Status.QUEUED
    ).first()
    if waiting is not None:
        return waiting
    online = OnlineEntry.objects.filter(entry=entry).first()
    item = VenueInbox.objects.create(
        link=link, kind=VenueInbox.Kind.CHECK_IN, entry=entry, online=online
    )
    audit(
        link.tournament,
        actor,
        Action.VENUE_QUEUE,
        item,
        f"{entry.division.name} #{entry.number} {entry.name} checked in, sent to the venue",
    )
    return item


def queue_withdrawal(link: VenueLink, online: OnlineEntry, actor: Any) -> VenueInbox:
    """An entrant withdrawing from their link on the replica: sent to the venue, which
    withdraws them through its own service (or refuses: round 1 paired there); once (a second
    tap while the first waits changes nothing). Their record here is unchanged until the
    venue answers."""
    waiting = VenueInbox.objects.filter(
        link=link, kind=VenueInbox.Kind.WITHDRAW, online=online, status=VenueInbox.Status.QUEUED
    ).first()
    if waiting is not None:
        return waiting
    item = VenueInbox.objects.create(link=link, kind=VenueInbox.Kind.WITHDRAW, online=online)
    audit(
        link.tournament,
        actor,
        Action.VENUE_QUEUE,
        item,
        f"{online.player.name} withdrew from {online.division.name}, sent to the venue",
    )
    return item


def _inbox_row(item: VenueInbox) -> dict[str, Any]:
    row: dict[str, Any] = {"id": item.pk, "kind": item.kind}
    if item.entry_id is not None:
        row.update(
            division=item.entry.division.slug,
            number=item.entry.number,
            player=item.entry.player_id,
        )
    if item.kind == VenueInbox.Kind.REPORT:
        row.update(round=item.round_number, score=item.score, opp_score=item.opp_score)
    elif item.kind == VenueInbox.Kind.ENTRY and item.online is not None:
        online, player = item.online, item.online.player
        row.update(
            division=online.division.slug,
            player=player.pk,
            name=player.name,
            **{f: getattr(player, f) for f in PLAYER_FIELDS if f != "name"},
            email=online.email,
            rating=online.rating,
            paid=online.paid,
            notices=online.notices,
            made=_iso(online.created),
        )
    elif item.kind == VenueInbox.Kind.WITHDRAW and item.online is not None:
        online = item.online
        row.update(division=online.division.slug, player=online.player_id, name=online.player.name)
    return row


def inbox_for(token: Any) -> dict[str, Any]:
    """The venue's pull: what is still waiting for it (reports, entries, check-ins), oldest
    first. A player is named by this site's id too, which the venue's pushes use back."""
    link = link_for_token(token)
    items = VenueInbox.objects.filter(link=link, status=VenueInbox.Status.QUEUED).select_related(
        "entry__division", "online__player", "online__division"
    )
    return {"items": [_inbox_row(i) for i in items]}


def settle_inbox(token: Any, payload: Any) -> dict[str, Any]:
    """The venue's answers: each report accepted or refused, with the words the player sees.
    Only this link's own reports are touched; an answer already given stays as it was."""
    rows = payload.get("settled") if isinstance(payload, dict) else None
    if not isinstance(rows, list):
        raise _bad("settled: a list of answers")
    with transaction.atomic():
        link = link_for_token(token, lock=True)
        done = 0
        for row in rows:
            try:
                pk, status = int(row["id"]), str(row["status"])
            except (KeyError, TypeError, ValueError) as exc:
                raise _bad(f"an answer names its report and status: {row!r}"[:200]) from exc
            if status not in (VenueInbox.Status.ACCEPTED, VenueInbox.Status.REFUSED):
                raise _bad(f"status {status!r}: accepted or refused")
            outcome = str(row.get("outcome") or "")[:300]
            item = (
                VenueInbox.objects.select_for_update()
                .filter(pk=pk, link=link, status=VenueInbox.Status.QUEUED)
                .first()
            )
            if item is None:
                continue
            item.status, item.outcome, item.settled = status, outcome, timezone.now()
            item.save(update_fields=["status", "outcome", "settled"])
            if item.kind == VenueInbox.Kind.ENTRY and item.online is not None:
                _settle_online(item.online, status, str(row.get("state") or ""), outcome)
            elif item.kind == VenueInbox.Kind.WITHDRAW and item.online is not None:
                if status == VenueInbox.Status.ACCEPTED:  # (the push brings the rest: numbers)
                    item.online.status = OnlineEntry.Status.WITHDRAWN
                    item.online.venue_position = None
                    item.online.save(update_fields=["status", "venue_position"])
            done += 1
        if done:
            audit(
                link.tournament,
                LinkActor(link.pk, link.venue_name),
                Action.SELF_CONFIRM,
                link,
                f"venue {link.venue_name} answered {done} players' reports",
            )
    return {"settled": done}


def _settle_online(online: OnlineEntry, status: str, state: str, outcome: str) -> None:
    """The venue's answer to a queued online entry, on the entrant's own record here: in the
    division or on its waiting list at the venue, or refused there (with its words). The entry
    itself comes up with the venue's next push."""
    if online.status != OnlineEntry.Status.SENT:
        return
    if status == VenueInbox.Status.REFUSED:
        online.status = OnlineEntry.Status.REFUSED
    elif state == "waiting":
        online.status = OnlineEntry.Status.WAITING
        online.waiting_since = timezone.now()
    else:
        online.status = OnlineEntry.Status.ENTERED
    online.note = outcome[:200]
    online.save(update_fields=["status", "waiting_since", "note"])


def venue_reports(entry: Entry) -> list[VenueInbox]:
    """A player's reports and check-ins sent to the venue, newest first (their page shows
    the outcome)."""
    return list(VenueInbox.objects.filter(entry=entry).order_by("-id")[:5])


def venue_answers(online: OnlineEntry) -> list[VenueInbox]:
    """An entrant's online entry and check-ins sent to the venue, newest first."""
    rows = VenueInbox.objects.filter(online=online)
    if online.entry_id is not None:
        rows = rows | VenueInbox.objects.filter(entry_id=online.entry_id)
    return list(rows.order_by("-id")[:5])


def record_inbox_outcome(
    take: VenueTake,
    item_id: int,
    status: str,
    outcome: str,
    *,
    state: str = "",
    ref: tuple[int, Any] | None = None,
) -> None:
    """On the venue: a pulled item was settled (in the transaction that settled it); an entry
    made here maps its player to the hosted site's (``ref``: ours, theirs), so the push names
    the hosted site's player."""
    with transaction.atomic():
        row = VenueTake.objects.select_for_update().get(pk=take.pk)
        row.inbox_done = {**row.inbox_done, str(item_id): [status, outcome[:300], state]}
        fields = ["inbox_done"]
        if ref is not None and isinstance(ref[1], int):
            row.player_refs = {**row.player_refs, str(ref[0]): ref[1]}
            fields.append("player_refs")
        row.save(update_fields=fields)
        take.inbox_done, take.player_refs = row.inbox_done, row.player_refs
