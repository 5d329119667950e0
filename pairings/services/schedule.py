"""A division's pairing settings: schedule ranges (which system pairs which rounds) and
forbidden pairs (players who must never meet).

Each write runs the model's own ``full_clean()`` (overlapping ranges, a pair across divisions)
after the checks here, so the rules live with the models and every refusal still names a field.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import NON_FIELD_ERRORS, ValidationError
from django.db import transaction
from django.utils.translation import gettext_noop

from pairings.engine import Schedule, ScheduleEntry, system_names
from pairings.models import ForbiddenPair, ScheduleRange
from tournament.access import require
from tournament.checks import MAX_DIVISION_ROUNDS, setting_choice, setting_int, setting_text
from tournament.errors import ServiceError
from tournament.models import Division, Entry
from tournament.services.audit import Actor, audit

# A lag of L pairs round r from the results of round r-1-L; more than a few is a slip.
MAX_LAG = 5
RANGE_FIELDS = frozenset({"first_round", "last_round", "system", "lag"})


def _range_snapshot(r: ScheduleRange) -> dict[str, Any]:
    return {
        "first_round": r.first_round,
        "last_round": r.last_round,
        "system": r.system,
        "lag": r.lag,
    }


def _full_clean(obj: Any, default_field: str) -> None:
    """The model's own validation, its messages turned into a refusal at a field."""
    try:
        obj.full_clean(exclude=["division"])
    except ValidationError as exc:
        errors = exc.message_dict
        field, messages = next(iter(errors.items()))
        if field == NON_FIELD_ERRORS:
            field = default_field
        raise ServiceError("model_rule", rule="; ".join(messages), field=field) from None


def _check_range(division: Division, values: dict[str, Any], pk: int | None) -> dict[str, Any]:
    unknown = set(values) - RANGE_FIELDS
    if unknown:
        raise ServiceError(
            "setup_unknown_setting", what="schedule range", names=", ".join(sorted(unknown))
        )
    first = setting_int(
        values.get("first_round"),
        "first_round",
        "first round",
        minimum=1,
        maximum=MAX_DIVISION_ROUNDS,
    )
    last = setting_int(
        values.get("last_round"),
        "last_round",
        "last round",
        minimum=first,
        maximum=MAX_DIVISION_ROUNDS,
    )
    if last > division.rounds:
        raise ServiceError(
            "setup_range_beyond",
            field="last_round",
            last=last,
            rounds=division.rounds,
            division=division.name,
        )
    system = setting_choice(values.get("system"), "system", "pairing system", system_names())
    lag = setting_int(values.get("lag", 0), "lag", "lag", minimum=0, maximum=MAX_LAG)
    other = (
        ScheduleRange.objects.filter(
            division=division, first_round__lte=last, last_round__gte=first
        )
        .exclude(pk=pk)
        .first()
    )
    if other is not None:
        raise ServiceError(
            "setup_range_overlap", field="first_round", first=first, last=last, other=str(other)
        )
    return {"first_round": first, "last_round": last, "system": system, "lag": lag}


@transaction.atomic
def add_schedule_range(
    division: Division, *, actor: Actor | str | None, **fields: Any
) -> ScheduleRange:
    """Pair rounds first..last of the division with one system (and lag)."""
    require(actor, "direct", division.tournament, what=gettext_noop("change the pairing schedule"))
    checked = _check_range(division, fields, None)
    rng = ScheduleRange(division=division, **checked)
    _full_clean(rng, "first_round")
    rng.save()
    audit(
        division.tournament,
        actor,
        "add_schedule_range",
        rng,
        f"division {division.name}: {rng}",
        after=_range_snapshot(rng),
    )
    return rng


@transaction.atomic
def update_schedule_range(
    schedule_range: ScheduleRange, *, actor: Actor | str | None, **fields: Any
) -> ScheduleRange:
    """Change a range's rounds, system or lag; the others of the division may not overlap."""
    require(
        actor,
        "direct",
        schedule_range.division.tournament,
        what=gettext_noop("change the pairing schedule"),
    )
    rng = ScheduleRange.objects.select_for_update().get(pk=schedule_range.pk)
    division = rng.division
    before = _range_snapshot(rng)
    checked = _check_range(division, {**before, **fields}, rng.pk)
    for key, value in checked.items():
        setattr(rng, key, value)
    _full_clean(rng, "first_round")
    if _range_snapshot(rng) == before:
        return rng
    rng.save()
    audit(
        division.tournament,
        actor,
        "update_schedule_range",
        rng,
        f"division {division.name}: {rng}",
        before=before,
        after=_range_snapshot(rng),
    )
    return rng


@transaction.atomic
def delete_schedule_range(schedule_range: ScheduleRange, *, actor: Actor | str | None) -> None:
    """Remove a range; its rounds fall back to the division's default system."""
    require(
        actor,
        "direct",
        schedule_range.division.tournament,
        what=gettext_noop("change the pairing schedule"),
    )
    division = schedule_range.division
    before = _range_snapshot(schedule_range)
    text = str(schedule_range)
    schedule_range.delete()
    audit(
        division.tournament,
        actor,
        "delete_schedule_range",
        division,
        f"division {division.name}: removed {text}",
        before=before,
    )


def _entry_by_number(division: Division, value: Any, field: str) -> Entry:
    number = setting_int(value, field, "player number", minimum=1)
    entry = division.entries.select_related("player").filter(number=number).first()
    if entry is None:
        raise ServiceError("setup_no_player", field=field, division=division.name, number=number)
    return entry


@transaction.atomic
def add_forbidden_pair(
    division: Division,
    *,
    actor: Actor | str | None,
    number_a: Any,
    number_b: Any,
    reason: str = "",
) -> ForbiddenPair:
    """Keep two players of the division apart in every pairing (family, teammates)."""
    require(actor, "direct", division.tournament, what=gettext_noop("change forbidden pairs"))
    a = _entry_by_number(division, number_a, "number_a")
    b = _entry_by_number(division, number_b, "number_b")
    if a.pk == b.pk:
        raise ServiceError("setup_pair_same", field="number_b")
    if a.number > b.number:
        a, b = b, a
    exists = ForbiddenPair.objects.filter(
        division=division, entry_a__in=[a, b], entry_b__in=[a, b]
    ).exists()
    if exists:
        raise ServiceError("setup_pair_exists", field="number_a", a=a.number, b=b.number)
    reason = setting_text(reason, "reason", "the reason", 200)
    pair = ForbiddenPair(division=division, entry_a=a, entry_b=b, reason=reason)
    _full_clean(pair, "number_a")
    pair.save()
    audit(
        division.tournament,
        actor,
        "add_forbidden_pair",
        pair,
        f"division {division.name}: #{a.number} {a.name} never v #{b.number} {b.name}",
        after={"a": a.number, "b": b.number, "reason": reason},
    )
    return pair


@transaction.atomic
def delete_forbidden_pair(pair: ForbiddenPair, *, actor: Actor | str | None) -> None:
    """Let the two players meet again."""
    require(actor, "direct", pair.division.tournament, what=gettext_noop("change forbidden pairs"))
    division = pair.division
    a, b = pair.entry_a.number, pair.entry_b.number
    before = {"a": a, "b": b, "reason": pair.reason}
    pair.delete()
    audit(
        division.tournament,
        actor,
        "delete_forbidden_pair",
        division,
        f"division {division.name}: #{a} and #{b} may meet again",
        before=before,
    )


def schedule_from_autopair(division: Division, rows: list[Any]) -> list[str]:
    """Create the division's ScheduleRange rows from kept config.tsh ``autopair`` rows.

    Rows are ``[division, source_round, target_round, command, [args]]``. A row for another
    division is ignored; a TSH command the engine does not offer, or a row overlapping an
    earlier one, is skipped with a warning (returned) so an import never fails on it.
    """
    warnings: list[str] = []
    made: list[ScheduleEntry] = []
    for row in rows:
        div, source, target, command, args = row
        if str(div).lower() != division.name.lower():
            continue
        line = " ".join(
            ["autopair", str(div), str(source), str(target), str(command), *map(str, args)]
        )
        try:
            [entry] = Schedule.from_autopair([line]).entries
        except ValueError as exc:
            warnings.append(f"division {division.name}: {exc} ({line})")
            continue
        if any(e.first <= entry.last and entry.first <= e.last for e in made):
            warnings.append(f"division {division.name}: overlapping autopair skipped ({line})")
            continue
        made.append(entry)
    ScheduleRange.objects.bulk_create(
        ScheduleRange(
            division=division,
            first_round=e.first,
            last_round=e.last,
            system=e.system,
            lag=e.lag,
            options=dict(e.params),
        )
        for e in made
    )
    return warnings
