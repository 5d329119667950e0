"""Venue mode when the two sides parted: the laptop was restored from an older
backup, so the hosted copy holds changes this laptop never had.

Nothing is pushed until the director chooses, with both sides shown (``compare``: what the
copy holds that the laptop does not, and the other way round, in a division's and a round's
words): keep the venue's state (``keep_venue``: the whole event goes up as a rebase, and what
only the copy held is removed there), or bring the copy's state down (``take_hosted``: the
laptop's own changes since its backup are replaced). Either is one audited action.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_noop

from ...access import require
from ...errors import ServiceError
from ...models import Division, Player, Tournament, VenueChange, VenueTake
from ..audit import Action, audit
from .fields import PLAYER_FIELDS
from .state import _apply_state, tournament_state
from .take import _log_rebase

# examples named per line: a director reads what goes, not a dump of it
EXAMPLES = 3


def _games(division: dict[str, Any]) -> dict[int, dict[tuple[int, int], tuple[Any, Any]]]:
    rounds: dict[int, dict[tuple[int, int], tuple[Any, Any]]] = {}
    for rd in division.get("round_states") or []:
        if rd.get("deleted"):
            continue
        rounds[int(rd["number"])] = {
            (int(g["p1"]), int(g["p2"] or 0)): (g.get("score1"), g.get("score2"))
            for g in rd.get("games") or []
        }
    return rounds


def _names(division: dict[str, Any]) -> dict[int, str]:
    return {int(e["number"]): str(e["player"].get("name") or "") for e in division["entries"]}


def _only(mine: dict[str, Any], other: dict[str, Any]) -> list[str]:
    """What ``mine`` holds that ``other`` does not, a line per division, round or entry."""
    lines: list[str] = []
    theirs = {d["slug"]: d for d in other.get("divisions") or []}
    for division in mine.get("divisions") or []:
        label = f"division {division.get('name') or division['slug']}"
        there = theirs.get(division["slug"])
        if there is None:
            lines.append(f"{label}, with its {len(division['entries'])} players")
            continue
        names, their_names = _names(division), _names(there)
        for number, name in sorted(names.items()):
            if their_names.get(number) != name:
                lines.append(f"{label}: #{number} {name}")
        their_games = _games(there)
        for number, games in sorted(_games(division).items()):
            other_round = their_games.get(number)
            if other_round is None:
                lines.append(f"{label}, round {number}: paired, {len(games)} games")
                continue
            differ = [
                (pair, scores)
                for pair, scores in sorted(games.items())
                if scores[0] is not None and other_round.get(pair) != scores
            ]
            if differ:
                shown = ", ".join(
                    f"#{p1} {names.get(p1, '?')} {s1}-{s2} #{p2} {names.get(p2, '?')}"
                    for (p1, p2), (s1, s2) in differ[:EXAMPLES]
                )
                more = f" and {len(differ) - EXAMPLES} more" if len(differ) > EXAMPLES else ""
                lines.append(f"{label}, round {number}: {len(differ)} results ({shown}{more})")
    return lines


def compare(take: VenueTake, hosted: dict[str, Any]) -> dict[str, list[str]]:
    """Both sides in words: ``hosted_only`` (what sending the venue's state would remove from
    the copy) and ``venue_only`` (what bringing the copy down would remove here)."""
    ours = tournament_state(take.tournament, None, take.player_refs)
    return {"hosted_only": _only(hosted, ours), "venue_only": _only(ours, hosted)}


def note_divergence(take: VenueTake, applied: int, sides: dict[str, list[str]]) -> VenueTake:
    """Keep what the push found for the console and ``venue_status``: pushes wait for the
    director's choice from now (nothing is lost meanwhile: this laptop's writes are logged)."""
    take.diverged = {
        "hosted_seq": applied,
        "found": timezone.now().isoformat(),
        "hosted_only": sides["hosted_only"][:50],
        "venue_only": sides["venue_only"][:50],
    }
    VenueTake.objects.filter(pk=take.pk).update(diverged=take.diverged)
    return take


def _settled(take: VenueTake, actor: Any) -> VenueTake:
    require(
        actor, "direct", take.tournament, what=gettext_noop("choose between it and its hosted copy")
    )
    take = VenueTake.objects.select_for_update().select_related("tournament").get(pk=take.pk)
    if not take.diverged:
        raise ServiceError("venue_not_diverged", where=str(take.tournament))
    return take


def keep_venue(take: VenueTake, actor: Any = None) -> VenueTake:
    """The director keeps this laptop's state: it goes up whole at the next push as a rebase,
    and what only the copy held (listed on the console) is removed there."""
    with transaction.atomic():
        take = _settled(take, actor)
        gone = take.diverged.get("hosted_only") or []
        _log_rebase(take, int(take.diverged.get("hosted_seq") or 0))
        take.diverged, take.notice = {}, ""
        take.save(update_fields=["next_seq", "diverged", "notice"])
        audit(
            take.tournament,
            actor,
            Action.VENUE_RESOLVE,
            take,
            "kept the venue's state; the hosted copy loses: " + ("; ".join(gone) or "nothing"),
        )
    return take


def take_hosted(take: VenueTake, state: dict[str, Any], actor: Any = None) -> VenueTake:
    """The director brings the hosted copy's state down: this laptop's tournament becomes
    what the copy holds (``state``, its ``copy_state``), its own changes since its backup are
    replaced, and its change log carries on from the copy's position."""
    at = state.get("position") or {}
    tournament: Tournament = take.tournament
    if state.get("tournament") != tournament.slug or state.get("all_divisions") is not True:
        raise ServiceError(
            "venue_wrong_tournament", where=str(tournament), other=state.get("tournament")
        )
    with transaction.atomic():
        take = _settled(take, actor)
        gone = take.diverged.get("venue_only") or []
        hosted_to_ours = {int(h): int(o) for o, h in take.player_refs.items()}

        def resolve(data: dict[str, Any], division: Division, number: int, present: Any) -> int:
            found = hosted_to_ours.get(data.get("ref"))
            if found is not None and Player.objects.filter(pk=found).exists():
                return found
            for field in ("naspa_id", "wespa_id", "absp_id"):
                value = str(data.get(field) or "")
                if value:
                    pk = (
                        Player.objects.filter(**{field: value}).values_list("pk", flat=True).first()
                    )
                    if pk:
                        return pk
            return Player.objects.create(**{f: str(data.get(f) or "") for f in PLAYER_FIELDS}).pk

        refs = _apply_state(tournament, state, resolve)
        applied = int(at.get("last_seq_applied") or 0)
        VenueChange.objects.filter(tournament=tournament).delete()
        take.player_refs = {
            **take.player_refs,
            **{str(ours): int(theirs) for theirs, ours in refs.items()},
        }
        take.next_seq, take.last_pushed_seq = applied + 1, applied
        take.hosted_key = str(at.get("last_key") or "")[:16]
        take.diverged, take.notice, take.last_error = {}, "", ""
        take.save(
            update_fields=[
                "player_refs",
                "next_seq",
                "last_pushed_seq",
                "hosted_key",
                "diverged",
                "notice",
                "last_error",
            ]
        )
        audit(
            tournament,
            actor,
            Action.VENUE_RESOLVE,
            take,
            "brought the hosted copy's state down; this laptop loses: "
            + ("; ".join(gone) or "nothing"),
        )
    return take
