"""Venue mode's after-states: what a batch carries, and applying a state (the hosted copy's
push, the venue's take)."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from django.core.exceptions import ValidationError
from django.db import DatabaseError, IntegrityError
from django.utils import timezone

from pairings.models import ForbiddenPair, ScheduleRange

from ...errors import ServiceError
from ...models import (
    Division,
    DivisionEntryRule,
    Entry,
    EntryWindow,
    Game,
    OnlineEntry,
    Round,
    Seat,
    Tournament,
)
from .fields import (
    DATE_FIELDS,
    DIVISION_FIELDS,
    ENTRY_FIELDS,
    ENTRY_MOMENTS,
    GAME_FIELDS,
    PLAYER_FIELDS,
    RULE_FIELDS,
    TOURNAMENT_FIELDS,
    WINDOW_FIELDS,
    _bad,
    _iso,
)

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
