"""Tournaments and divisions: creating them and their settings."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.db import transaction
from django.utils.text import slugify

from ..models import (
    REALM_DEFAULTS,
    Division,
    Realm,
    Tournament,
)
from ._common import (
    _as_int,
)
from .audit import Actor, audit
from .errors import ServiceError


def _unique_slug(base: str) -> str:
    root = slugify(base)[:100] or "tournament"
    slug, n = root, 2
    while Tournament.objects.filter(slug=slug).exists():
        slug = f"{root}-{n}"
        n += 1
    return slug


# --------------------------------------------------------------------------- tournaments


TOURNAMENT_FIELDS = {
    "start_date",
    "end_date",
    "venue",
    "bye_spread",
    "forfeit_spread",
    "spread_cap",
    "standings_spread_cap",
    "sum_before_spread",
    "max_rounds",
    "gibson",
    "gibson_spread",
    "late_entry",
    "paper",
    "config",
}


@transaction.atomic
def create_tournament(
    *,
    name: str,
    realm: str = Realm.NASPA,
    actor: Actor | str | None = None,
    directors: Iterable[Any] = (),
    slug: str | None = None,
    **fields: Any,
) -> Tournament:
    """Create a tournament with its realm's defaults; explicit fields override the preset."""
    if not name or not name.strip():
        raise ServiceError("tournament name: must not be empty")
    if realm not in REALM_DEFAULTS:
        raise ServiceError(
            f"realm {realm!r}: unknown; choose one of {', '.join(sorted(REALM_DEFAULTS))}"
        )
    unknown = set(fields) - TOURNAMENT_FIELDS
    if unknown:
        raise ServiceError(f"tournament: unknown setting(s) {', '.join(sorted(unknown))}")
    preset = {k: v for k, v in REALM_DEFAULTS[realm].items() if k in TOURNAMENT_FIELDS}
    preset.update(fields)
    if slug is None:
        slug = _unique_slug(name)
    elif Tournament.objects.filter(slug=slug).exists():
        raise ServiceError(f"tournament slug {slug!r} is already taken")
    tournament = Tournament.objects.create(name=name.strip(), slug=slug, realm=realm, **preset)
    if directors:
        tournament.directors.set(list(directors))
    audit(tournament, actor, "create_tournament", tournament, f"created {tournament.name}")
    return tournament


@transaction.atomic
def create_division(
    tournament: Tournament,
    *,
    name: str,
    rounds: int = 7,
    rating_system: str | None = None,
    actor: Actor | str | None = None,
    file_name: str = "",
    config: dict | None = None,
) -> Division:
    if not name or not name.strip():
        raise ServiceError(f"{tournament.slug}: division name must not be empty")
    if tournament.divisions.filter(name=name).exists():
        raise ServiceError(f"{tournament.slug}: division {name!r} already exists")
    rounds = _as_int(rounds, f"division {name}: rounds")
    if rounds < 1:
        raise ServiceError(f"division {name}: rounds must be at least 1, not {rounds}")
    division = Division.objects.create(
        tournament=tournament,
        name=name.strip(),
        rounds=rounds,
        position=tournament.divisions.count(),
        rating_system=rating_system or str(REALM_DEFAULTS[tournament.realm]["rating_system"]),
        file_name=file_name or f"{name.strip().lower()}.t",
        config=config or {},
    )
    audit(tournament, actor, "create_division", division, f"division {division.name}")
    return division


