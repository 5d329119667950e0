"""Tournaments and divisions: creating them and their settings."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from django.db import transaction
from django.utils.text import slugify
from django.utils.translation import gettext_noop

from tournament.checks import (
    MAX_DIVISION_ROUNDS,
    MAX_SETTING_SPREAD,
    as_int,
    check_file_name,
    check_text,
    model_choices,
    setting_choice,
    setting_date,
    setting_int,
    setting_text,
)
from tournament.errors import ServiceError
from tournament.models import REALM_DEFAULTS, Division, Realm, Tournament, slug_validator
from tournament.services.audit import Actor, audit
from tournament.standings import spread_cap_fields

from ..access import require


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
    "spread_caps",
    "standings_spread_cap",
    "sum_before_spread",
    "max_rounds",
    "gibson",
    "gibson_spread",
    "late_entry",
    "paper",
    "language",
    "config",
    # where and in what lexicon: the events calendar's (tournament.selectors.calendar)
    "country",
    "region",
    "lexicon",
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
        raise ServiceError("empty_name", field="name", what="tournament name")
    check_text(name.strip(), "the tournament name", Tournament, "name", field="name")
    if realm not in REALM_DEFAULTS:
        raise ServiceError(
            "unknown_realm",
            field="realm",
            realm=realm,
            choices=", ".join(sorted(REALM_DEFAULTS)),
        )
    unknown = set(fields) - TOURNAMENT_FIELDS
    if unknown:
        raise ServiceError("unknown_setting", names=", ".join(sorted(unknown)))
    preset = {k: v for k, v in REALM_DEFAULTS[realm].items() if k in TOURNAMENT_FIELDS}
    preset.update(fields)
    if slug is None:
        slug = _unique_slug(name)
    elif Tournament.objects.filter(slug=slug).exists():
        raise ServiceError("tournament_slug_taken", field="slug", slug=slug)
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
    require(actor, "direct", tournament, what=gettext_noop("add divisions"))
    if not name or not name.strip():
        raise ServiceError("empty_name", field="name", what=f"{tournament.slug}: division name")
    check_text(name.strip(), "the division name", Division, "name", field="name")
    if file_name:
        check_file_name(file_name)
    if tournament.divisions.filter(name=name).exists():
        raise ServiceError("division_exists", field="name", tournament=tournament.slug, name=name)
    what = f"division {name}: rounds"
    rounds = as_int(rounds, what, field="rounds")
    if rounds < 1:
        raise ServiceError("below_minimum", field="rounds", what=what, minimum=1, value=rounds)
    taken = set(tournament.divisions.values_list("slug", flat=True))
    if slug is None:
        # "setup", "staff"... are console pages: a division named "Setup" becomes "setup-2".
        slug = division_slug(name, taken | RESERVED_DIVISION_SLUGS)
    elif not slug_validator.regex.search(slug) or len(slug) > 50:
        raise ServiceError("bad_slug", field="slug", slug=slug)
    elif slug in RESERVED_DIVISION_SLUGS:
        raise ServiceError("setup_reserved_slug", field="slug", value=slug)
    elif slug in taken:
        raise ServiceError(
            "division_slug_taken", field="slug", tournament=tournament.slug, slug=slug
        )
    what = f"division {name}: prize places"
    prize_places = as_int(prize_places, what, field="prize_places")
    if prize_places < 0:
        raise ServiceError(
            "below_minimum", field="prize_places", what=what, minimum=0, value=prize_places
        )
    division = Division.objects.create(
        tournament=tournament,
        name=name.strip(),
        slug=slug,
        prize_places=prize_places,
        rounds=rounds,
        position=tournament.divisions.count(),
        rating_system=rating_system or str(REALM_DEFAULTS[tournament.realm]["rating_system"]),
        # The name is a division's own ("../../admin" is a fine name); its file is the slug's.
        file_name=file_name or f"{slug}.t",
        config=config or {},
    )
    audit(tournament, actor, "create_division", division, f"division {division.name}")
    return division


# --------------------------------------------------------------------------- console settings
# Setting up and editing a tournament from the director's console. Every value is checked here
# (not only in the page's form), so a refusal names its field whichever interface asked.

# One-word console pages under /t/SLUG/console/: a division slug equal to one would hide it.
RESERVED_DIVISION_SLUGS = frozenset({"setup", "staff", "new", "standings", "weekend", "federation"})
EDITABLE_TOURNAMENT_FIELDS = frozenset((TOURNAMENT_FIELDS - {"config"}) | {"name", "realm"})
DIVISION_FIELDS = frozenset(
    {"name", "slug", "rounds", "rating_system", "rating_list", "prize_places", "file_name"}
)


def setting_caps(value: Any, field: str) -> list[int]:
    """Spread caps as a director types them: one number for every round, or a list by round
    ("100,100,150", "[100, 100, 150]"; the last cap holds for later rounds), blank for none.
    Each cap is refused at ``field`` as a single cap would be."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return []
    if isinstance(value, str):
        items: list[Any] = [v for v in re.split(r"[\s,]+", value.strip().strip("[]")) if v]
    elif isinstance(value, list | tuple):
        items = list(value)
    else:
        items = [value]
    caps = []
    for item in items:
        cap = setting_int(item, field, "the spread cap", minimum=1, maximum=MAX_SETTING_SPREAD)
        assert cap is not None  # not optional: a blank item was refused
        caps.append(cap)
    return caps


def check_tournament_settings(
    values: dict[str, Any], current: Tournament | None = None
) -> dict[str, Any]:
    """The settings in ``values`` checked and normalised; ``current`` supplies the rest.

    A bye is a win, so its spread is not negative; a forfeit is a loss, so its spread is not
    positive; a cap and a round count are at least 1 when given.
    """
    unknown = set(values) - EDITABLE_TOURNAMENT_FIELDS
    if unknown:
        raise ServiceError(
            "setup_unknown_setting", what="tournament", names=", ".join(sorted(unknown))
        )
    out: dict[str, Any] = {}
    for key, value in values.items():
        if key == "name":
            out[key] = setting_text(value, key, "the tournament name", 200, required=True)
        elif key == "venue":
            out[key] = setting_text(value, key, "the venue", 200)
        elif key in ("country", "region"):
            out[key] = setting_text(value, key, f"the {key}", 100)
        elif key == "lexicon":
            out[key] = setting_text(value, key, "the lexicon", 20).upper()
        elif key == "realm":
            out[key] = setting_choice(value, key, "realm", [str(r) for r in Realm.values])
        elif key in ("start_date", "end_date"):
            out[key] = setting_date(value, key, key.replace("_", " "))
        elif key == "bye_spread":
            out[key] = setting_int(
                value, key, "the bye spread", minimum=0, maximum=MAX_SETTING_SPREAD
            )
        elif key == "forfeit_spread":
            out[key] = setting_int(
                value, key, "the forfeit spread", minimum=-MAX_SETTING_SPREAD, maximum=0
            )
        elif key in ("spread_cap", "spread_caps"):
            out["spread_cap"], out["spread_caps"] = spread_cap_fields(setting_caps(value, key))
        elif key == "max_rounds":
            out[key] = setting_int(
                value,
                key,
                "the maximum number of rounds",
                minimum=1,
                maximum=MAX_DIVISION_ROUNDS,
                optional=True,
            )
        elif key == "gibson_spread":
            out[key] = setting_int(
                value, key, "the Gibson spread", minimum=0, maximum=10 * MAX_SETTING_SPREAD
            )
        elif key in ("standings_spread_cap", "sum_before_spread", "gibson"):
            out[key] = bool(value)
        elif key == "late_entry":
            out[key] = setting_choice(
                value, key, "late entry rule", model_choices(Tournament, "late_entry")
            )
        elif key == "paper":
            out[key] = setting_choice(value, key, "paper", model_choices(Tournament, "paper"))
        elif key == "language":
            out[key] = setting_choice(value, key, "language", model_choices(Tournament, "language"))
    start = out.get("start_date", current.start_date if current else None)
    end = out.get("end_date", current.end_date if current else None)
    if start and end and end < start:
        raise ServiceError("setup_ends_before_start", field="end_date", start=start, end=end)
    return out


def _rating_systems() -> list[str]:
    from ratings.engine import system_names

    return system_names()


def check_division_settings(
    tournament: Tournament,
    values: dict[str, Any],
    division: Division | None = None,
    *,
    taken_names: Iterable[str] = (),
    taken_slugs: Iterable[str] = (),
) -> dict[str, Any]:
    """A division's settings checked and normalised against the tournament's other divisions.

    Rounds may not go below the rounds already paired (their games would be orphaned); a slug
    may not equal a console page's name or another division's slug.
    """
    from ratings.models import RatingList
    from tournament.selectors import last_round_number

    unknown = set(values) - DIVISION_FIELDS
    if unknown:
        raise ServiceError(
            "setup_unknown_setting", what="division", names=", ".join(sorted(unknown))
        )
    others = tournament.divisions.all()
    if division is not None:
        others = others.exclude(pk=division.pk)
    names = {n.lower() for n in others.values_list("name", flat=True)}
    names |= {n.lower() for n in taken_names}
    slugs = set(others.values_list("slug", flat=True)) | set(taken_slugs)
    out: dict[str, Any] = {}
    label = values.get("name") or (division.name if division else "")
    if "name" in values:
        name = setting_text(values["name"], "name", "the division name", 50, required=True)
        if name.lower() in names:
            raise ServiceError("setup_name_taken", field="name", what="division name", value=name)
        out["name"] = name
        label = name
    if "slug" in values:
        slug = "" if values["slug"] is None else str(values["slug"]).strip()
        if not slug:
            if division is not None and "name" not in out:
                slug = division.slug
            else:
                slug = division_slug(label, slugs | RESERVED_DIVISION_SLUGS)
        if len(slug) > 50 or not slug_validator.regex.search(slug):
            raise ServiceError("setup_bad_slug", field="slug", value=slug)
        if slug in RESERVED_DIVISION_SLUGS:
            raise ServiceError("setup_reserved_slug", field="slug", value=slug)
        if slug in slugs:
            raise ServiceError("setup_name_taken", field="slug", what="division slug", value=slug)
        out["slug"] = slug
    if "rounds" in values:
        rounds = setting_int(
            values["rounds"],
            "rounds",
            f"division {label}: rounds",
            minimum=1,
            maximum=MAX_DIVISION_ROUNDS,
        )
        paired = last_round_number(division) if division is not None else 0
        if rounds < paired:
            raise ServiceError("setup_rounds_paired", field="rounds", division=label, paired=paired)
        out["rounds"] = rounds
    if "rating_system" in values:
        out["rating_system"] = setting_choice(
            values["rating_system"], "rating_system", "rating system", _rating_systems()
        )
    if "rating_list" in values:
        value = values["rating_list"]
        if value in (None, ""):
            out["rating_list"] = None
        elif isinstance(value, RatingList):
            out["rating_list"] = value
        else:
            found = RatingList.objects.filter(
                pk=setting_int(value, "rating_list", "rating list", minimum=1)
            ).first()
            if found is None:
                raise ServiceError(
                    "setup_choice",
                    field="rating_list",
                    what="rating list",
                    value=value,
                    choices="the lists shown",
                )
            out["rating_list"] = found
    if "prize_places" in values:
        out["prize_places"] = setting_int(
            values["prize_places"], "prize_places", "prize places", minimum=0, maximum=1000
        )
    if "file_name" in values:
        out["file_name"] = check_file_name(values["file_name"])
    return out


def _plain_value(value: Any) -> Any:
    if hasattr(value, "isoformat"):
        return value.isoformat()
    if hasattr(value, "pk"):
        return value.pk
    return value


@transaction.atomic
def setup_tournament(
    *,
    name: str,
    realm: str = Realm.NASPA,
    actor: Actor | str | None = None,
    director: Any = None,
    divisions: Iterable[dict[str, Any]] = (),
    **fields: Any,
) -> Tournament:
    """A new draft tournament and its divisions, its creator as director.

    Everything is checked before anything is written; a division's refusal names its field as
    ``divisions.N.FIELD`` (N counting from 0) so a page can show it at that division's row.
    Settings left out take the realm's preset (bye and forfeit spread, rating system).
    """
    checked = check_tournament_settings({"name": name, "realm": realm, **fields})
    name, realm = checked.pop("name"), checked.pop("realm")
    default_system = str(REALM_DEFAULTS[realm]["rating_system"])
    planned: list[dict[str, Any]] = []
    names: list[str] = []
    slugs: list[str] = []
    probe = Tournament(name=name, realm=realm)  # unsaved: no other divisions yet
    for i, values in enumerate(divisions):
        values = {"rating_system": default_system, "slug": "", **values}
        if values.get("rating_system") in (None, ""):
            values["rating_system"] = default_system
        try:
            ok = _check_new_division(probe, values, names, slugs)
        except ServiceError as exc:
            exc.field = f"divisions.{i}.{exc.field or 'name'}"
            raise
        names.append(ok["name"])
        slugs.append(ok["slug"])
        planned.append(ok)
    tournament = create_tournament(
        name=name,
        realm=realm,
        actor=actor,
        directors=[director] if getattr(director, "pk", None) else [],
        published=False,
        **checked,
    )
    for ok in planned:
        division = create_division(
            tournament,
            name=ok["name"],
            slug=ok["slug"],
            rounds=ok.get("rounds", 7),
            rating_system=ok["rating_system"],
            prize_places=ok.get("prize_places", 0),
            actor=actor,
        )
        if ok.get("rating_list") is not None:
            # Part of the division's creation (same transaction), not a later change.
            Division.objects.filter(pk=division.pk).update(rating_list=ok["rating_list"])
    return tournament


def _check_new_division(
    probe: Tournament, values: dict[str, Any], names: list[str], slugs: list[str]
) -> dict[str, Any]:
    """Check a division of a tournament not yet saved: only the names given so far count."""
    from ratings.models import RatingList

    label = setting_text(values.get("name"), "name", "the division name", 50, required=True)
    if label.lower() in {n.lower() for n in names}:
        raise ServiceError("setup_name_taken", field="name", what="division name", value=label)
    slug = str(values.get("slug") or "").strip() or division_slug(
        label, set(slugs) | RESERVED_DIVISION_SLUGS
    )
    if len(slug) > 50 or not slug_validator.regex.search(slug):
        raise ServiceError("setup_bad_slug", field="slug", value=slug)
    if slug in RESERVED_DIVISION_SLUGS:
        raise ServiceError("setup_reserved_slug", field="slug", value=slug)
    if slug in slugs:
        raise ServiceError("setup_name_taken", field="slug", what="division slug", value=slug)
    out: dict[str, Any] = {"name": label, "slug": slug}
    out["rounds"] = setting_int(
        values.get("rounds", 7),
        "rounds",
        f"division {label}: rounds",
        minimum=1,
        maximum=MAX_DIVISION_ROUNDS,
    )
    out["rating_system"] = setting_choice(
        values.get("rating_system"), "rating_system", "rating system", _rating_systems()
    )
    out["prize_places"] = setting_int(
        values.get("prize_places", 0), "prize_places", "prize places", minimum=0, maximum=1000
    )
    rating_list = values.get("rating_list")
    if rating_list not in (None, "") and not isinstance(rating_list, RatingList):
        found = RatingList.objects.filter(
            pk=setting_int(rating_list, "rating_list", "rating list", minimum=1)
        ).first()
        if found is None:
            raise ServiceError(
                "setup_choice",
                field="rating_list",
                what="rating list",
                value=rating_list,
                choices="the lists shown",
            )
        rating_list = found
    out["rating_list"] = rating_list or None
    return out


@transaction.atomic
def update_tournament(
    tournament: Tournament, *, actor: Actor | str | None, **fields: Any
) -> Tournament:
    """Change a tournament's settings; one audit event with the changed values before/after."""
    require(actor, "direct", tournament, what=gettext_noop("change settings"))
    checked = check_tournament_settings(fields, current=tournament)
    before = {k: _plain_value(getattr(tournament, k)) for k in checked}
    changed = {k: v for k, v in checked.items() if getattr(tournament, k) != v}
    if not changed:
        return tournament
    for key, value in changed.items():
        setattr(tournament, key, value)
    tournament.save(update_fields=list(changed))
    audit(
        tournament,
        actor,
        "update_tournament",
        tournament,
        f"settings: {', '.join(sorted(changed))}",
        before={k: before[k] for k in changed},
        after={k: _plain_value(v) for k, v in changed.items()},
    )
    return tournament


@transaction.atomic
def update_division(division: Division, *, actor: Actor | str | None, **fields: Any) -> Division:
    """Change a division's settings (name, slug, rounds, rating system and list, prizes)."""
    require(actor, "direct", division.tournament, what=gettext_noop("change settings"))
    division = Division.objects.select_for_update().get(pk=division.pk)
    checked = check_division_settings(division.tournament, fields, division)
    changed = {k: v for k, v in checked.items() if getattr(division, k) != v}
    if not changed:
        return division
    before = {k: _plain_value(getattr(division, k)) for k in changed}
    for key, value in changed.items():
        setattr(division, key, value)
    division.save(update_fields=list(changed))
    audit(
        division.tournament,
        actor,
        "update_division",
        division,
        f"division {division.name}: {', '.join(sorted(changed))}",
        before=before,
        after={k: _plain_value(v) for k, v in changed.items()},
    )
    return division


@transaction.atomic
def set_chances_visibility(
    division: Division,
    *,
    actor: Actor | str | None,
    hide: Any = False,
    hide_last: Any = 0,
) -> Division:
    """Hide a division's prize chances from the public (``hide``), or only for the last
    ``hide_last`` rounds of the event (the tension of the final rounds kept, or a director
    who does not want players told their odds before the last pairings). Kept in
    ``Division.config["chances"]``, read by ``pairings.chances.chances_hidden``; the staff
    still see them. One audit event with the setting before and after."""
    require(actor, "direct", division.tournament, what=gettext_noop("change settings"))
    division = Division.objects.select_for_update().get(pk=division.pk)
    last = setting_int(
        hide_last or 0,
        "chances_hide_last",
        f"division {division.name}: hide chances for the last rounds",
        minimum=0,
        maximum=MAX_DIVISION_ROUNDS,
    )
    after = {"hide": bool(hide), "hide_last": last}
    config = dict(division.config or {})
    before = dict(config.get("chances") or {"hide": False, "hide_last": 0})
    if before == after:
        return division
    config["chances"] = after
    division.config = config
    division.save(update_fields=["config"])
    audit(
        division.tournament,
        actor,
        "division_chances",
        division,
        f"division {division.name}: prize chances "
        + (
            "hidden" if after["hide"] else f"hidden for the last {last} rounds" if last else "shown"
        ),
        before=before,
        after=after,
    )
    return division


@transaction.atomic
def add_division(tournament: Tournament, *, actor: Actor | str | None, **fields: Any) -> Division:
    """Add a division from the console, every setting checked first (see create_division)."""
    require(actor, "direct", tournament, what=gettext_noop("add divisions"))
    values = {"slug": "", **fields}
    if values.get("rating_system") in (None, ""):
        values["rating_system"] = str(REALM_DEFAULTS[tournament.realm]["rating_system"])
    checked = check_division_settings(tournament, values)
    division = create_division(
        tournament,
        name=checked["name"],
        slug=checked["slug"],
        rounds=checked.get("rounds", 7),
        rating_system=checked["rating_system"],
        prize_places=checked.get("prize_places", 0),
        actor=actor,
    )
    if checked.get("rating_list") is not None:
        Division.objects.filter(pk=division.pk).update(rating_list=checked["rating_list"])
        division.rating_list = checked["rating_list"]
    return division


@transaction.atomic
def publish_tournament(
    tournament: Tournament, published: bool, actor: Actor | str | None
) -> Tournament:
    """Show a draft on the public pages and feeds, or hide it again; audited either way."""
    require(actor, "direct", tournament, what=gettext_noop("publish or unpublish"))
    published = bool(published)
    if tournament.published == published:
        return tournament
    tournament.published = published
    tournament.save(update_fields=["published"])
    audit(
        tournament,
        actor,
        "publish_tournament" if published else "unpublish_tournament",
        tournament,
        "published" if published else "hidden (draft)",
        before={"published": not published},
        after={"published": published},
    )
    return tournament
