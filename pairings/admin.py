from django.contrib import admin

from .models import ForbiddenPair, ScheduleRange


@admin.register(ScheduleRange)
class ScheduleRangeAdmin(admin.ModelAdmin):
    list_display = ("division", "first_round", "last_round", "system", "lag", "options")
    list_filter = ("system",)
    search_fields = ("division__name", "division__tournament__name")


@admin.register(ForbiddenPair)
class ForbiddenPairAdmin(admin.ModelAdmin):
    list_display = ("division", "entry_a", "entry_b", "reason")
    raw_id_fields = ("entry_a", "entry_b")
    search_fields = ("division__name", "entry_a__player__name", "entry_b__player__name")
