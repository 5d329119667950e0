"""Pairing schedules and forbidden pairs: scoped to the director's tournaments, audited.

The same rule as the rest of the admin (tournament.admin.DirectorScopedAdmin): a director sees
and changes only their own tournaments' rows, and choice lists offer only their divisions and
entries, so a forbidden pair cannot name another event's player.
"""

from django.contrib import admin

from tournament.admin_base import DirectorScopedAdmin

from .models import ForbiddenPair, ScheduleRange


@admin.register(ScheduleRange)
class ScheduleRangeAdmin(DirectorScopedAdmin):
    tournament_lookup = "division__tournament"

    list_display = ("division", "first_round", "last_round", "system", "lag", "options")
    list_filter = ("system",)
    search_fields = ("division__name", "division__tournament__name")


@admin.register(ForbiddenPair)
class ForbiddenPairAdmin(DirectorScopedAdmin):
    tournament_lookup = "division__tournament"

    list_display = ("division", "entry_a", "entry_b", "reason")
    raw_id_fields = ("entry_a", "entry_b")
    search_fields = ("division__name", "entry_a__player__name", "entry_b__player__name")
