"""Writes for a club's members: join, lapse, guests."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils import timezone

from tournament.checks import check_text
from tournament.errors import ServiceError

from ...models import Club, Membership, Player
from ...services.audit import Actor, audit
from ...services.entries import find_or_create_player
from .clubs import (
    _date,
    check_organiser,
)

# --------------------------------------------------------------------------- members


def _player(value: Player | int | str, what: str, field: str) -> Player:
    """A registry player by object or id, or by name (found once or created)."""
    if isinstance(value, Player):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        player = Player.objects.filter(pk=value).first()
        if player is None:
            raise ServiceError("no_such_player", field=field, what=what, value=value)
        return player
    # a name typed by an organiser: stray spaces are slips (a file's names are kept byte for
    # byte by the importers; a person's typing is not)
    name = check_text(" ".join(str(value or "").split()), what, Player, "name", field=field)
    if not name:
        raise ServiceError("empty_name", field=field, what=what)
    return find_or_create_player(name)


def _membership_snapshot(m: Membership) -> dict[str, Any]:
    return {
        "player": m.player.name,
        "since": m.since.isoformat() if m.since else None,
        "active": m.active,
        "guest": m.guest,
    }


@transaction.atomic
def add_member(
    club: Club,
    player: Player | int | str,
    *,
    actor: Actor | str | Any,
    since: Any = None,
    guest: bool = False,
) -> Membership:
    """Add a member (or a guest) to the club; a guest who joins becomes a member."""
    who = check_organiser(club, actor)
    p = _player(player, "the member's name", "name")
    joined = _date(since, "joined", "since") if since not in (None, "") else None
    existing = Membership.objects.select_for_update().filter(club=club, player=p).first()
    if existing is not None:
        if existing.guest and not guest:
            before = _membership_snapshot(existing)
            existing.guest, existing.active = False, True
            existing.since = joined or existing.since or timezone.localdate()
            existing.save()
            audit(
                None,
                who,
                "update_member",
                club,
                f"{p.name} joined {club.name}",
                before=before,
                after=_membership_snapshot(existing),
            )
            return existing
        raise ServiceError("already_member", field="name", name=p.name, club=club.name)
    m = Membership.objects.create(
        club=club, player=p, guest=guest, since=None if guest else joined or timezone.localdate()
    )
    audit(
        None,
        who,
        "add_member",
        club,
        f"{p.name} {'visits' if guest else 'joined'} {club.name}",
        after=_membership_snapshot(m),
    )
    return m


@transaction.atomic
def update_member(membership: Membership, *, actor: Actor | str | Any, **fields: Any) -> Membership:
    """Mark a member lapsed or active again, a guest or a member, or change when they joined."""
    club = membership.club
    who = check_organiser(club, actor)
    m = Membership.objects.select_for_update().select_related("player").get(pk=membership.pk)
    unknown = set(fields) - {"active", "guest", "since"}
    if unknown:
        raise ServiceError("unknown_member_setting", names=", ".join(sorted(unknown)))
    before = _membership_snapshot(m)
    for key in ("active", "guest"):
        if key in fields:
            if not isinstance(fields[key], bool):
                raise ServiceError("not_yes_no", field=key, what=key, value=fields[key])
            setattr(m, key, fields[key])
    if "since" in fields:
        m.since = _date(fields["since"], "joined", "since") if fields["since"] else None
    if _membership_snapshot(m) == before:
        return m
    m.save()
    audit(
        None,
        who,
        "update_member",
        club,
        f"{m.player.name} in {club.name} changed",
        before=before,
        after=_membership_snapshot(m),
    )
    return m
