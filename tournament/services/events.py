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
    slug_validator,
)
from ._common import (
    _as_int,
)
from .audit import Actor, audit
from .errors import ServiceError


def division_slug(name: str, taken: set[str]) -> str:
    """A URL slug for a division name ("A" -> "a", "Open / Lite" -> "open-lite"), unique in
    ``taken``; names never become paths, so any name is safe."""
    root = (slugify(name) or "division")[:44].strip("-") or "division"
    slug, n = root, 2
    while slug in taken:
        slug, n = f"{root}-{n}", n + 1
    return slug


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
    published: bool = True,
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
    tournament = Tournament.objects.create(
        name=name.strip(), slug=slug, realm=realm, published=published, **preset
    )
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
    slug: str | None = None,
    prize_places: int = 0,
) -> Division:
    """Add a division; its slug (for URLs) comes from the name unless one is given."""
    if not name or not name.strip():
        raise ServiceError(f"{tournament.slug}: division name must not be empty")
    if tournament.divisions.filter(name=name).exists():
        raise ServiceError(f"{tournament.slug}: division {name!r} already exists")
    rounds = _as_int(rounds, f"division {name}: rounds")
    if rounds < 1:
        raise ServiceError(f"division {name}: rounds must be at least 1, not {rounds}")
    taken = set(tournament.divisions.values_list("slug", flat=True))
    if slug is None:
        slug = division_slug(name, taken)
    elif not slug_validator.regex.search(slug) or len(slug) > 50:
        raise ServiceError(
            f"division slug {slug!r}: use lower-case letters, digits and single hyphens"
        )
    elif slug in taken:
        raise ServiceError(f"{tournament.slug}: a division already has the slug {slug!r}")
    prize_places = _as_int(prize_places, f"division {name}: prize places")
    if prize_places < 0:
        raise ServiceError(f"division {name}: prize places must not be negative")
    division = Division.objects.create(
        tournament=tournament,
        name=name.strip(),
        slug=slug,
        prize_places=prize_places,
        rounds=rounds,
        position=tournament.divisions.count(),
        rating_system=rating_system or str(REALM_DEFAULTS[tournament.realm]["rating_system"]),
        file_name=file_name or f"{name.strip().lower()}.t",
        config=config or {},
    )
    audit(tournament, actor, "create_division", division, f"division {division.name}")
    return division


