from django.contrib import admin

from .models import PlayerRating, RatedEvent, RatingHistory, RatingList


@admin.register(RatingList)
class RatingListAdmin(admin.ModelAdmin):
    list_display = ["name", "system", "start_date", "dirty_from", "rerated_at"]
    search_fields = ["name"]
    list_filter = ["system"]
    prepopulated_fields = {"slug": ["name"]}
    readonly_fields = ["dirty_from", "rerated_at"]


@admin.register(PlayerRating)
class PlayerRatingAdmin(admin.ModelAdmin):
    """Current values are computed by re-rating; only the imported start is edited here."""

    list_display = ["player", "rating_list", "rating", "career_games", "start_rating"]
    list_filter = ["rating_list"]
    search_fields = ["player__name"]
    raw_id_fields = ["player"]
    readonly_fields = ["rating", "career_games", "deviation", "volatility", "state",
                       "last_event_date"]


@admin.register(RatedEvent)
class RatedEventAdmin(admin.ModelAdmin):
    list_display = ["date", "name", "rating_list", "configured_rounds", "system"]
    list_filter = ["rating_list"]
    search_fields = ["name"]
    raw_id_fields = ["division"]
    readonly_fields = ["games"]


@admin.register(RatingHistory)
class RatingHistoryAdmin(admin.ModelAdmin):
    list_display = ["player", "event", "before", "after", "games", "expected", "actual"]
    list_filter = ["event__rating_list"]
    search_fields = ["player__name", "event__name"]
    raw_id_fields = ["player", "event"]
