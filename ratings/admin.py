from django.contrib import admin

from .models import RatingList


@admin.register(RatingList)
class RatingListAdmin(admin.ModelAdmin):
    list_display = ["name", "system", "start_date"]
    search_fields = ["name"]
    list_filter = ["system"]
    prepopulated_fields = {"slug": ["name"]}
