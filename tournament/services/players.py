"""The player registry: creating players, changing who a player is, merging duplicates.

A Player is shared by every tournament and rating list they play in, so renaming one or
changing their ids shows on other directors' events and moves ratings. Directors (and, later,
club organisers) may add players; changing an existing player's name, ids or contact details
and merging two players is the registry's job and needs ``tournament.manage_registry``
(superusers have it). A command run from the shell names itself as the actor and is trusted:
whoever runs it already holds the database.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import transaction

from ratings.models import PlayerRating, RatedEvent, RatingHistory, RatingList
from tournament.checks import refuse_bidi_controls, refuse_tsh_separator
from tournament.errors import ServiceError

from ..access import REGISTRY_PERMISSION, allowed  # noqa: F401 (REGISTRY_PERMISSION re-exported)
from ..models import Entry, Membership, Notice, NoticeSubscription, OnlineEntry, Player
from .audit import Actor, audit

# What update_player may change; the registry's fields, not entries or ratings.
PLAYER_FIELDS = ("name", "naspa_id", "wespa_id", "absp_id", "country", "note", "email", "phone")
ID_FIELDS = {"naspa_id": "NASPA id", "wespa_id": "WESPA id", "absp_id": "ABSP id"}


def _actor(actor: Actor | str | Any, what: str) -> Actor:
    if actor is None:
        raise ServiceError("actor_required", what=what)
    return Actor.of(actor)


def may_manage_registry(actor: Actor | str | Any) -> bool:
    """A keeper of the registry (tournament.access.can_keep_registry) or a command."""
    return actor is not None and allowed(actor, "keep_registry")


def may_add_players(actor: Actor | str | Any) -> bool:
    """Directors add the players their events need; the registry's keepers may too."""
    return actor is not None and allowed(actor, "add_players")


def _clean_fields(fields: dict[str, Any], player: Player | None) -> dict[str, str]:
    """Normalise and check registry fields; ids must not belong to another player."""
    unknown = sorted(set(fields) - set(PLAYER_FIELDS))
    if unknown:
        raise ServiceError(
            "registry_unknown_field",
            field=unknown[0],
            names=", ".join(unknown),
            allowed=", ".join(PLAYER_FIELDS),
        )
    clean: dict[str, str] = {}
    for key, value in fields.items():
        text = "" if value is None else str(value)
        text = " ".join(text.split()) if key in ("name", "country") else text.strip()
        refuse_bidi_controls(text, key, field=key)
        limit = Player._meta.get_field(key).max_length
        if key == "name" and not text:
            raise ServiceError("registry_name_required", field="name")
        if key == "name":
            refuse_tsh_separator(text, "the player's name")
        if limit and len(text) > limit:
            raise ServiceError(
                "registry_too_long", field=key, what=key, maximum=limit, length=len(text)
            )
        if key == "email" and text:
            try:
                validate_email(text)
            except ValidationError:
                raise ServiceError("registry_bad_email", field="email", value=text) from None
        if key in ID_FIELDS and text:
            other = Player.objects.filter(**{key: text})
            if player is not None:
                other = other.exclude(pk=player.pk)
            taken = other.first()
            if taken is not None:
                raise ServiceError(
                    "registry_id_taken",
                    field=key,
                    label=ID_FIELDS[key],
                    value=text,
                    other=taken.name,
                )
        clean[key] = text
    return clean


def _snapshot(player: Player) -> dict[str, Any]:
    return {key: getattr(player, key) for key in PLAYER_FIELDS}


@transaction.atomic
def create_player(*, actor: Actor | str | Any, **fields: Any) -> Player:
    """Add a player to the registry (a director registering someone new)."""
    who = _actor(actor, "add a player")
    if not may_add_players(who):
        raise ServiceError("registry_permission", what="the registry")
    clean = _clean_fields({"name": fields.pop("name", ""), **fields}, None)
    player = Player.objects.create(**clean)
    audit(None, who, "create_player", player, f"player {player.name} added", after=clean)
    return player


@transaction.atomic
def update_player(player: Player, *, actor: Actor | str | Any, **fields: Any) -> Player:
    """Change an existing player's name, ids, country or contact details (registry only).

    Only the fields given are changed; the audit event keeps their old and new values.
    """
    who = _actor(actor, f"change {player.name}")
    if not may_manage_registry(who):
        raise ServiceError(
            "registry_permission", field=next(iter(fields), ""), what=", ".join(fields) or "data"
        )
    player = Player.objects.select_for_update().get(pk=player.pk)
    clean = _clean_fields(fields, player)
    before = _snapshot(player)
    changed = {k: v for k, v in clean.items() if before[k] != v}
    if not changed:
        raise ServiceError(
            "registry_nothing_to_change", field=next(iter(fields), ""), player=player.name
        )
    for key, value in changed.items():
        setattr(player, key, value)
    player.save(update_fields=list(changed))
    audit(
        None,
        who,
        "update_player",
        player,
        f"player {before['name']}: " + ", ".join(sorted(changed)),
        before={k: before[k] for k in changed},
        after=changed,
    )
    return player


def _rewrite_games(games: list[list[int]], old: int, new: int) -> list[list[int]]:
    def seat(pk: int) -> int:
        return new if pk == old else pk

    return [[r, seat(a), seat(b), sa, sb] for r, a, b, sa, sb in games]


@transaction.atomic
def merge_players(keep: Player, duplicate: Player, *, actor: Actor | str | Any) -> Player:
    """Make ``duplicate`` part of ``keep``: entries, ratings and memberships move, it goes.

    Refused when the two play in one division (one person cannot hold two entries there) or
    have different federation ids. Rating lists with a moved game are marked for re-rating
    from that event, since the two rating histories become one.
    """
    who = _actor(actor, f"merge {duplicate.name} into {keep.name}")
    if not may_manage_registry(who):
        raise ServiceError("registry_permission", what="merging players")
    if keep.pk == duplicate.pk:
        raise ServiceError("registry_merge_same")
    keep = Player.objects.select_for_update().get(pk=keep.pk)
    duplicate = Player.objects.select_for_update().get(pk=duplicate.pk)
    for key, label in ID_FIELDS.items():
        a, b = getattr(keep, key), getattr(duplicate, key)
        if a and b and a != b:
            raise ServiceError(
                "registry_merge_ids_differ",
                keep=keep.name,
                duplicate=duplicate.name,
                label=label,
                a=a,
                b=b,
            )
    both = (
        Entry.objects.filter(player=keep, division__entries__player=duplicate)
        .select_related("division__tournament")
        .first()
    )
    if both is not None:
        raise ServiceError(
            "registry_merge_same_division",
            keep=keep.name,
            duplicate=duplicate.name,
            division=both.division.name,
            tournament=both.division.tournament.name,
        )
    # entries online follow the player too (they hold the player, protected); two live ones
    # in one tournament would be one person entered twice: the director settles that first
    S = OnlineEntry.Status
    live = (S.ENTERED, S.WAITING, S.UNCONFIRMED, S.PENDING)
    twice = (
        OnlineEntry.objects.filter(player=keep, status__in=live)
        .filter(tournament__online_entries__player=duplicate)
        .filter(tournament__online_entries__status__in=live)
        .select_related("tournament")
        .first()
    )
    if twice is not None:
        raise ServiceError(
            "registry_merge_both_online",
            keep=keep.name,
            duplicate=duplicate.name,
            tournament=twice.tournament.name,
        )
    before = {"keep": _snapshot(keep), "duplicate": {"pk": duplicate.pk, **_snapshot(duplicate)}}

    # Rated events hold player keys in their games: one event with both is two seats for one.
    dirty: dict[int, Any] = {}
    # Every event submitted a player's games gave them a rating row on its list, so only those
    # lists' events are read (a rare registry job: reading their games is fine).
    events = [
        ev
        for ev in RatedEvent.objects.filter(rating_list__ratings__player=duplicate).distinct()
        if any(duplicate.pk in (g[1], g[2]) for g in ev.games)
    ]
    for ev in events:
        ids = {g[1] for g in ev.games} | {g[2] for g in ev.games}
        if keep.pk in ids and duplicate.pk in ids:
            raise ServiceError(
                "registry_merge_same_game",
                keep=keep.name,
                duplicate=duplicate.name,
                division=ev.name,
            )
    for ev in events:
        ev.games = _rewrite_games(ev.games, duplicate.pk, keep.pk)
        ev.save(update_fields=["games"])
        first = dirty.get(ev.rating_list_id)
        dirty[ev.rating_list_id] = ev.date if first is None else min(first, ev.date)
    RatingHistory.objects.filter(player=duplicate).update(player=keep)
    kept_lists = set(
        PlayerRating.objects.filter(player=keep).values_list("rating_list_id", flat=True)
    )
    PlayerRating.objects.filter(player=duplicate, rating_list_id__in=kept_lists).delete()
    PlayerRating.objects.filter(player=duplicate).update(player=keep)
    for lst in RatingList.objects.select_for_update().filter(pk__in=list(dirty)):
        date = dirty[lst.pk]
        if lst.dirty_from is None or date < lst.dirty_from:
            lst.dirty_from = date
            lst.save(update_fields=["dirty_from"])

    entries = Entry.objects.filter(player=duplicate).count()
    Entry.objects.filter(player=duplicate).update(player=keep)
    OnlineEntry.objects.filter(player=duplicate).update(player=keep)
    clubs = set(Membership.objects.filter(player=keep).values_list("club_id", flat=True))
    Membership.objects.filter(player=duplicate, club_id__in=clubs).delete()
    Membership.objects.filter(player=duplicate).update(player=keep)
    # e-mail notices follow the entries; where both were subscribed to one tournament, the
    # kept one's subscription stands and takes the other's log of notices
    kept_subs = {s.tournament_id: s for s in NoticeSubscription.objects.filter(player=keep)}
    for sub in NoticeSubscription.objects.filter(player=duplicate):
        if sub.tournament_id in kept_subs:
            Notice.objects.filter(subscription=sub).update(
                subscription=kept_subs[sub.tournament_id]
            )
            sub.delete()
    NoticeSubscription.objects.filter(player=duplicate).update(player=keep)

    # The kept player takes what only the duplicate knew (an id, an email); ids are unique,
    # so the duplicate goes first.
    filled = {
        k: getattr(duplicate, k)
        for k in PLAYER_FIELDS
        if not getattr(keep, k) and getattr(duplicate, k)
    }
    duplicate_pk, duplicate_name = duplicate.pk, duplicate.name
    duplicate.delete()
    for key, value in filled.items():
        setattr(keep, key, value)
    if filled:
        keep.save(update_fields=list(filled))
    audit(
        None,
        who,
        "merge_players",
        keep,
        f"player {duplicate_name} (#{duplicate_pk}) merged into {keep.name}: "
        f"{entries} entr{'y' if entries == 1 else 'ies'} moved",
        before=before,
        after={**_snapshot(keep), "entries_moved": entries, "lists_to_rerate": sorted(dirty)},
    )
    return keep
