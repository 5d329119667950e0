"""Down (venue mode): what players sent to the hosted site, pulled and settled here.

Each item goes through the venue's own services: a result report through its self-entry
service, as if the player had used a link of this instance (a director's entry still wins: a
game already recorded refuses it); an online entry through its entries service, under this
instance's rules (window, cap and waiting list, band, one entry per player); a check-in
through its check-in service (a player the director removed or withdrew here is refused).
Its outcome is kept on the link in the same transaction, so an item pulled twice (the answer
was lost on the way back) is answered again, never settled twice. An entry made here names
the hosted site's player in the link's player map, so the push brings it up as that player.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db import transaction

from ..errors import ServiceError
from ..models import Division, Entry, OnlineEntry, Player, VenueTake
from ..services import checkin, venue
from ..services import online_entries as oe
from ..services.audit import Actor
from ..services.selfentry import issue_token, report_own_result
from . import client

WORDS = {
    "pending": "entered; waiting for your opponent's report",
    "confirmed": "recorded",
    "disputed": "your opponent reported other scores: a director settles the game",
}


def _ours(link: VenueTake, hosted_player: Any) -> int | None:
    """This instance's player for the hosted site's player id, from the link's map."""
    for ours, theirs in link.player_refs.items():
        if theirs == hosted_player:
            return int(ours)
    return None


def _entrant(link: VenueTake, item: dict[str, Any]) -> Player:
    """The player an entry queued on the hosted site is for: known to the link, else by a
    federation id, else by name as the entry form finds them (nearly the same name is the
    same player; two near names refuse it)."""
    ours = _ours(link, item.get("player"))
    if ours is not None:
        return Player.objects.get(pk=ours)
    for field in ("naspa_id", "wespa_id", "absp_id"):
        value = str(item.get(field) or "")
        if value:
            found = Player.objects.filter(**{field: value}).first()
            if found is not None:
                return found
    player = oe.find_entrant(item.get("name"))
    if player.pk is None:
        for field in ("naspa_id", "wespa_id", "absp_id", "country"):
            setattr(player, field, str(item.get(field) or ""))
    return player


def _settle_entry(link: VenueTake, item: dict[str, Any]) -> tuple[str, str, str, Any]:
    """An online entry: entered here (in, or waiting by the cap) or refused by this side's
    rules. Returns (status, state, words, (our player, theirs) to map)."""
    division = Division.objects.filter(
        tournament_id=link.tournament_id, slug=item.get("division")
    ).first()
    if division is None:
        return "refused", "", "the venue has no such division", None
    player = _entrant(link, item)
    online = oe.enter_from_hosted(
        division,
        player=player,
        email=str(item.get("email") or ""),
        rating=int(item.get("rating") or 0),
        made=datetime.fromisoformat(item["made"]),
        paid=bool(item.get("paid")),
        notices_opt_in=item.get("notices") is True,
        actor=Actor(f"entrant {player.name} (from the hosted site)"),
    )
    if online.status == OnlineEntry.Status.WAITING:
        words = (
            f"on division {division.name}'s waiting list at the venue, "
            f"number {oe.waiting_position(online)}"
        )
        return "accepted", "waiting", words, (player.pk, item.get("player"))
    words = f"#{online.entry.number} in division {division.name}"
    return "accepted", "entered", words, (player.pk, item.get("player"))


def _settle_check_in(link: VenueTake, item: dict[str, Any]) -> tuple[str, str]:
    ours = _ours(link, item.get("player"))
    entry = (
        Entry.objects.filter(division__tournament_id=link.tournament_id, player_id=ours)
        .select_related("division", "player")
        .first()
        if ours is not None
        else None
    )
    if entry is None:
        return "refused", "you are no longer entered at the venue: see its director"
    checkin.check_in(entry, actor=Actor(f"{entry.name} (checked in on the hosted site)"))
    return "accepted", "checked in"


def _settle_withdraw(link: VenueTake, item: dict[str, Any]) -> tuple[str, str]:
    """An entrant's withdrawal made on the hosted site: through this instance's own withdraw
    service (refused once round 1 is paired here: its words say so)."""
    ours = _ours(link, item.get("player"))
    online = (
        OnlineEntry.objects.filter(
            tournament_id=link.tournament_id, player_id=ours, status__in=oe.LIVE
        )
        .select_related("division", "player", "entry")
        .first()
        if ours is not None
        else None
    )
    if online is None:
        return "refused", "you are not entered at the venue: see its director"
    oe.withdraw_from_hosted(
        online, actor=Actor(f"entrant {online.player.name} (withdrew on the hosted site)")
    )
    return "accepted", "withdrawn"


def _settle(link: VenueTake, item: dict[str, Any]) -> tuple[str, str, str]:
    kind = item.get("kind") or "report"
    state, ref = "", None
    with transaction.atomic():
        try:
            with transaction.atomic():
                if kind == "entry":
                    status, state, words, ref = _settle_entry(link, item)
                elif kind == "check_in":
                    status, words = _settle_check_in(link, item)
                elif kind == "withdraw":
                    status, words = _settle_withdraw(link, item)
                else:
                    status, words = _settle_report(link, item)
        except ServiceError as exc:
            status, words = "refused", exc.message
        venue.record_inbox_outcome(link, _memory_key(item), status, words, state=state, ref=ref)
    return status, words, state


def _settle_report(link: VenueTake, item: dict[str, Any]) -> tuple[str, str]:
    """A result reported: through this instance's self-entry service."""
    entry = Entry.objects.filter(
        division__tournament_id=link.tournament_id,
        division__slug=item.get("division"),
        number=item.get("number"),
    ).first()
    if entry is None:
        return "refused", "no such player at the venue"
    token = entry.entry_token or issue_token(entry, "venue inbox")
    outcome = report_own_result(token, item["score"], item["opp_score"], round_number=item["round"])
    return "accepted", WORDS.get(outcome.status, outcome.status)


def _memory_key(item: dict[str, Any]) -> str:
    """What this laptop remembers a settled item by: the hosted site's id with its random key
    (a hosted site restored from a backup gives old ids to new reports; the id
    alone would answer them from memory and enter nothing)."""
    return str(item.get("key") or item["id"])


def pull(link: VenueTake) -> tuple[int, dict[str, Any]]:
    """Pull what waits (reports, entries, check-ins), settle each once, send the answers;
    returns how many, and the hosted copy's position in this laptop's change log."""
    answer = client.fetch_inbox(link.hosted_url, link.token)
    answers = []
    for item in answer["items"]:
        done = link.inbox_done.get(_memory_key(item))
        status, words, state = (list(done) + [""])[:3] if done else _settle(link, item)
        answers.append(
            {
                "id": item["id"],
                "key": item.get("key"),
                "status": status,
                "outcome": words,
                "state": state,
            }
        )
    if answers:
        client.settle_inbox(link.hosted_url, link.token, {"settled": answers})
    return len(answers), answer.get("position") or {}
