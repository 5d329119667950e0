"""Venue mode on the hosted site: links, the download, the pushes, the hand-back."""

from __future__ import annotations

import secrets
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_noop

from ...access import LinkActor, require
from ...errors import ServiceError
from ...models import (
    Division,
    Entry,
    OnlineEntry,
    Player,
    Tournament,
    VenueLink,
)
from ..audit import Action, Actor, audit
from .fields import (
    PLAYER_FIELDS,
    _bad,
    hash_token,
)
from .queue import (
    queue_online_entry,
)
from .state import (
    _apply_online,
    _apply_state,
    tournament_state,
)

# --- the hosted site: links, the download, the pushes, the hand-back --------------------------


def create_link(actor: Any, tournament: Tournament, venue_name: str) -> tuple[VenueLink, str]:
    """A new venue link for ``tournament``; returns it and its token (shown this once)."""
    require(actor, "direct", tournament, what=gettext_noop("hand it to a venue"))
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


def _laptop_words(link: VenueLink) -> dict[str, str]:
    return {
        "laptop": link.laptop_name or "another laptop",
        "since": f"{link.laptop_since:%Y-%m-%d %H:%M} UTC" if link.laptop_since else "earlier",
    }


def check_laptop(link: VenueLink, laptop: tuple[str, str] | None) -> None:
    """One laptop per link: the first laptop that takes it (or, for a link taken
    before links were bound, pushes to it) holds it; any other is refused naming that one,
    until a director moves the link (``move_link``). Call inside the link's lock."""
    laptop_id, name = laptop or ("", "")
    if link.laptop_id and laptop_id != link.laptop_id:
        raise ServiceError("venue_link_bound", where=str(link.tournament), **_laptop_words(link))
    if laptop_id and not link.laptop_id:
        link.laptop_id, link.laptop_name = laptop_id[:64], (name or "a laptop")[:100]
        link.laptop_since = timezone.now()
        link.save(update_fields=["laptop_id", "laptop_name", "laptop_since"])


def position(link: VenueLink) -> dict[str, Any]:
    """Where this copy stands in the venue's change log: every call of the venue is answered
    with it, so a laptop sees at once a copy restored from a backup (behind), or one holding
    changes it never had (the laptop was restored)."""
    return {
        "last_seq_applied": link.last_seq_applied,
        "last_key": link.last_key,
        # this site's clock: the laptop warns its director when its own is far off
        "now": timezone.now().isoformat(),
    }


# the venue's word is written down at most this often (a push every 2 s need not write)
HEARD_EVERY = 30


def _heard_from(link: VenueLink) -> None:
    """The venue asked something: the copy's pages stop counting its silence."""
    now = timezone.now()
    if link.last_contact and (now - link.last_contact).total_seconds() < HEARD_EVERY:
        return
    link.last_contact = now
    VenueLink.objects.filter(pk=link.pk).update(last_contact=now)


def take_state(token: Any, laptop: tuple[str, str] | None = None) -> dict[str, Any]:
    """The venue's download: the tournament's full state, and from this moment the hosted
    copy is a replica (in the same transaction, so no write falls between the two).

    The link is bound to the laptop that takes it: the same laptop may download again (it
    died while storing it), another is refused naming the first, until a director moves the
    link; a laptop taking a moved link carries on the change log from where the copy is."""
    with transaction.atomic():
        link = link_for_token(token, lock=True)
        check_laptop(link, laptop)
        first = link.taken is None
        link.taken = link.taken or timezone.now()
        link.save(update_fields=["taken"])
        _heard_from(link)
        audit(link.tournament, LinkActor(link.pk, link.venue_name), Action.VENUE_TAKEN, link)
        state = tournament_state(link.tournament)
        # the waiting lists go down as entries to settle, in their order: the venue keeps
        # them under its own rules (its cap, its promotions) from now
        if first:
            waiting = OnlineEntry.objects.filter(
                tournament=link.tournament, status=OnlineEntry.Status.WAITING
            ).select_related("player", "division")
            for online in waiting.order_by("waiting_since", "pk"):
                queue_online_entry(link, online, LinkActor(link.pk, link.venue_name))
    state["venue"] = link.venue_name
    state["position"] = position(link)
    return state


def copy_state(token: Any, laptop: tuple[str, str] | None = None) -> dict[str, Any]:
    """What this copy holds now, for the laptop bound to the link: to show the director what
    a resend would remove, or to bring the copy's newer state down. A read."""
    link = link_for_token(token)
    check_laptop(link, laptop)
    _heard_from(link)
    state = tournament_state(link.tournament)
    state["position"] = position(link)
    return state


def _live_link_locked(tournament: Tournament) -> VenueLink:
    """The tournament's unrevoked link, locked for this transaction, or the refusal."""
    link = (
        VenueLink.objects.select_for_update()
        .filter(tournament=tournament, revoked__isnull=True)
        .first()
    )
    if link is None:
        raise ServiceError("venue_no_link", where=str(tournament))
    return link


def move_link(actor: Any, tournament: Tournament) -> VenueLink:
    """A hosted director frees the live link from its laptop (it broke, or the event moves to
    another one): the next laptop that takes it holds it, and the old one's pushes are
    refused. The copy stays the venue's replica meanwhile. One audited action."""
    require(
        actor, "reclaim", tournament, what=gettext_noop("move its venue link to another laptop")
    )
    with transaction.atomic():
        link = _live_link_locked(tournament)
        was = link.laptop_name or "no laptop yet"
        link.laptop_id, link.laptop_name, link.laptop_since = "", "", None
        link.save(update_fields=["laptop_id", "laptop_name", "laptop_since"])
        audit(
            tournament,
            actor,
            Action.MOVE_VENUE_LINK,
            link,
            f"venue link to {link.venue_name} freed from {was}: the next laptop to take it "
            f"holds it, from change {link.last_seq_applied}",
        )
    return link


def _hosted_resolver(tournament: Tournament) -> Any:
    """How a pushed entry names its player on the hosted site: by the id the venue learnt
    from an earlier answer (it must play in this tournament: a link writes to its own
    tournament only), else the player already at that number under that name, else a
    registry player with the same federation id, else a new player."""
    ours = set(
        Entry.objects.filter(division__tournament=tournament).values_list("player_id", flat=True)
    )
    # and the entrants whose online entries this copy queued for the venue (venue mode, down)
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


def apply_push(token: Any, payload: Any, laptop: tuple[str, str] | None = None) -> dict[str, Any]:
    """Apply one batch of a venue's changes, in order and exactly once, in one transaction.

    ``payload``: {"tournament": slug, "after": seq, "upto": seq, "state": after-state}. A
    batch the copy already holds (``upto`` <= last applied) is answered without a write; one
    that starts past it (``after`` > last applied: the copy was restored from an older backup)
    is refused naming where to resume. Nothing is written on any refusal.

    Each change has a key: a batch that overlaps the last change this copy applied
    must carry that change under the same key, else the laptop's log is not the one this
    copy followed (it was restored from an older backup and wrote new changes under the
    same numbers) and it is refused as ``venue_diverged`` (a rebase, the director's choice,
    still replaces it). Only the laptop bound to the link pushes.
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
        require(actor, "direct", tournament, what=gettext_noop("apply a venue's changes"))
        check_laptop(link, laptop)
        _heard_from(link)
        was = link.last_seq_applied
        rebase = payload.get("rebase") is True
        if upto <= was:  # (a rebase is numbered past what this copy holds: this one is old)
            return {"applied": False, "players": {}, "was": was, **position(link)}
        if not rebase and (after > was or upto < after):
            raise ServiceError("venue_gap", where=str(tournament), applied=was, after=after)
        keys = payload.get("keys")
        if not rebase and was and link.last_key and isinstance(keys, dict):
            # the batch's own key of change ``was`` (its ``after`` key when it starts there)
            theirs = keys.get(str(was))
            if theirs != link.last_key:
                raise ServiceError("venue_diverged", where=str(tournament), applied=was)
        state = _batch_state(tournament, payload, rebase)
        refs = _apply_state(tournament, state, _hosted_resolver(tournament))
        _link_online_entries(tournament)
        if "online_entries" in state:
            _apply_online(tournament, state["online_entries"])
        link.last_seq_applied = max(upto, was) if rebase else upto
        link.last_key = (
            str((keys or {}).get(str(upto)) or "")[:16] if isinstance(keys, dict) else ""
        )
        link.last_push = timezone.now()
        link.save(update_fields=["last_seq_applied", "last_key", "last_push"])
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
    return {"applied": True, "players": refs, "was": was, **position(link)}


def _batch_state(tournament: Tournament, payload: dict[str, Any], rebase: bool) -> dict:
    """The batch's after-state, refused unless it is this tournament's (and whole, for a
    rebase that replaces the copy)."""
    state = payload.get("state")
    if not isinstance(state, dict) or state.get("tournament") != tournament.slug:
        raise ServiceError(
            "venue_wrong_tournament",
            where=str(tournament),
            other=(state or {}).get("tournament") if isinstance(state, dict) else None,
        )
    if rebase and state.get("all_divisions") is not True:
        raise _bad("a rebase carries the whole tournament")
    return state


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
    require(actor, "reclaim", tournament, what=gettext_noop("take it back from the venue"))
    with transaction.atomic():
        link = _live_link_locked(tournament)
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


def release_link(token: Any, laptop: tuple[str, str] | None = None) -> dict[str, Any]:
    """The venue hands the tournament back (after its final push): the link is revoked."""
    with transaction.atomic():
        link = link_for_token(token, lock=True)
        check_laptop(link, laptop)
        actor = LinkActor(link.pk, link.venue_name)
        _revoke(
            link,
            actor,
            Action.VENUE_RELEASE,
            str(actor),
            f"handed back by venue {link.venue_name} with changes up to {link.last_seq_applied}",
        )
    return {"released": True, "last_seq_applied": link.last_seq_applied}
