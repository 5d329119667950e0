"""On screen: the director's choice of featured boards for the stream's overlays."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.db import transaction
from django.utils.translation import gettext_noop

from ..access import require
from ..checks import as_int
from ..errors import ServiceError
from ..models import Division, FeaturedBoard, Tournament
from ..selectors import division_by_key
from .audit import Action, Actor, audit

# Overlays a stream shows at once rarely exceed a few boards; more is a typing mistake.
MAX_FEATURED = 8


def feature_boards(
    tournament: Tournament,
    boards: Iterable[tuple[Division | str, Any]],
    *,
    actor: Actor | str | None = None,
) -> list[FeaturedBoard]:
    """Replace the tournament's featured boards by ``boards`` (division or its name/slug,
    board number), numbered 1, 2, ... in the order given; an empty list clears them. The
    overlays follow at once (the write is audited, so the live stream announces it)."""
    require(actor, "direct", tournament, what=gettext_noop("choose the featured boards"))
    wanted: list[tuple[Division, int]] = []
    for place, (division, board) in enumerate(boards, start=1):
        what = f"featured board {place}"
        if not isinstance(division, Division):
            found = division_by_key(tournament, str(division).strip())
            if found is None:
                raise ServiceError(
                    "unknown_division",
                    field="boards",
                    tournament=tournament.name,
                    name=str(division),
                    names=", ".join(d.name for d in tournament.divisions.all()) or "none",
                )
            division = found
        elif division.tournament_id != tournament.pk:
            raise ServiceError(
                "unknown_division",
                field="boards",
                tournament=tournament.name,
                name=division.name,
                names=", ".join(d.name for d in tournament.divisions.all()) or "none",
            )
        number = as_int(board, f"{what}: board", field="boards")
        if number < 1:
            raise ServiceError(
                "below_minimum", field="boards", what=f"{what}: board", minimum=1, value=number
            )
        if (division, number) not in wanted:
            wanted.append((division, number))
    if len(wanted) > MAX_FEATURED:
        raise ServiceError(
            "invalid_argument",
            field="boards",
            detail=f"at most {MAX_FEATURED} featured boards, not {len(wanted)}",
        )
    before = [f"{f.division.name}:{f.board}" for f in tournament.featured_boards.all()]
    after = [f"{d.name}:{b}" for d, b in wanted]
    with transaction.atomic():
        FeaturedBoard.objects.filter(tournament=tournament).delete()
        made = [
            FeaturedBoard.objects.create(
                tournament=tournament, division=division, board=board, position=position
            )
            for position, (division, board) in enumerate(wanted, start=1)
        ]
        audit(
            tournament,
            actor,
            Action.FEATURE_BOARDS,
            tournament,
            f"featured boards: {', '.join(after) or 'none'}",
            before=before,
            after=after,
        )
    return made
