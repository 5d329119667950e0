"""Pairing settings stored per division: the schedule of systems and the forbidden pairs.

Only settings live here; pairings themselves are games (tournament.Game), and the engine that
makes them (pairings.engine) never touches the database.
"""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext

from .engine import system_names


def pairing_system_choices() -> list[tuple[str, str]]:
    """The model's choices, read from the engine's registry each time they are asked for, so
    a system registered later is a valid choice without a migration."""
    return [(name, name) for name in system_names()]


class ScheduleRange(models.Model):
    """Rounds first..last of a division are paired by one system (TSH's ``autopair``)."""

    division = models.ForeignKey(
        "tournament.Division", on_delete=models.CASCADE, related_name="schedule_ranges"
    )
    first_round = models.PositiveIntegerField()
    last_round = models.PositiveIntegerField()
    system = models.CharField(
        max_length=20, choices=pairing_system_choices, help_text="pairing system"
    )
    lag = models.PositiveSmallIntegerField(
        default=0,
        help_text="0 = pair from the previous round's results; 1 = from the round before (lagged)",
    )
    options = models.JSONField(
        default=dict,
        blank=True,
        help_text='engine settings for these rounds, e.g. {"fontes_rounds": 3, "max_meetings": 2}',
    )

    class Meta:
        ordering = ["division", "first_round"]
        constraints = [
            models.CheckConstraint(
                condition=Q(last_round__gte=models.F("first_round")), name="range_ends_after_start"
            ),
            models.CheckConstraint(condition=Q(first_round__gte=1), name="range_starts_at_1"),
        ]

    def __str__(self) -> str:
        lag = f", lag {self.lag}" if self.lag else ""
        return f"rounds {self.first_round}-{self.last_round}: {self.system}{lag}"

    def clean(self) -> None:
        from .engine import PairingOptions

        known = {f for f in PairingOptions.__dataclass_fields__}
        unknown = sorted(set(self.options or {}) - known)
        if unknown:
            raise ValidationError({"options": f"unknown pairing options: {', '.join(unknown)}"})
        overlapping = ScheduleRange.objects.filter(
            division_id=self.division_id,
            first_round__lte=self.last_round,
            last_round__gte=self.first_round,
        ).exclude(pk=self.pk)
        if overlapping.exists():
            raise ValidationError(gettext("overlaps {other}").format(other=overlapping.first()))


class ForbiddenPair(models.Model):
    """Two entries who must never be paired (family, teammates, a car-pool)."""

    division = models.ForeignKey(
        "tournament.Division", on_delete=models.CASCADE, related_name="forbidden_pairs"
    )
    entry_a = models.ForeignKey(
        "tournament.Entry", on_delete=models.CASCADE, related_name="forbidden_as_a"
    )
    entry_b = models.ForeignKey(
        "tournament.Entry", on_delete=models.CASCADE, related_name="forbidden_as_b"
    )
    reason = models.CharField(max_length=200, blank=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=~Q(entry_a=models.F("entry_b")), name="forbidden_pair_two_players"
            ),
            models.UniqueConstraint(fields=["entry_a", "entry_b"], name="unique_forbidden_pair"),
        ]

    def __str__(self) -> str:
        return f"#{self.entry_a.number} never v #{self.entry_b.number}"

    def clean(self) -> None:
        if self.entry_a_id and self.entry_b_id and self.division_id:
            for e in (self.entry_a, self.entry_b):
                if e.division_id != self.division_id:
                    raise ValidationError(
                        gettext("#{number} is not in this division").format(number=e.number)
                    )
