"""Rating lists in the admin: officers keep a list, directors see their own events' part of it.

Submitting to a list or re-rating it changes every later rating on it, so only the list's
officers (``RatingList.officers``; superusers too) change a list, its players' starting values
or its events, and they re-rate through ``ratings.division.rerate``. A director sees the
ratings, events and history of their own tournaments' players and divisions, and requests a
submission (``SubmissionRequest``) that an officer approves or rejects here. Saves are audited.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import Q

from ratings.division import approve_submission, reject_submission, rerate
from tournament.access import can_rate
from tournament.admin_base import AuditedAdmin, directs_any
from tournament.errors import ServiceError

from .engine import RatingError
from .models import PlayerRating, RatedEvent, RatingHistory, RatingList, SubmissionRequest


def keeps_any_list(user: Any) -> bool:
    return bool(
        user.is_active
        and user.is_staff
        and (user.is_superuser or RatingList.objects.filter(officers=user).exists())
    )


def may_look(user: Any) -> bool:
    return directs_any(user) or keeps_any_list(user)


class RatingScopedAdmin(AuditedAdmin):
    """Rows of a list: its officers change them; a director reads their own tournaments' rows.

    ``list_lookup`` is the ORM path to the RatingList; ``tournament_filter`` the filter that
    ties a row to a tournament the user directs.
    """

    list_lookup = "rating_list"
    tournament_filter = ""

    def get_queryset(self, request):
        qs = super().get_queryset(request)
        user = request.user
        if user.is_superuser:
            return qs
        mine = Q(**{f"{self.list_lookup}__officers": user})
        if self.tournament_filter:
            mine |= Q(**{self.tournament_filter: user})
        return qs.filter(mine).distinct()

    def _list_of(self, obj: Any) -> RatingList | None:
        target = obj
        for part in self.list_lookup.split("__"):
            target = getattr(target, part, None)
        return target

    def has_module_permission(self, request):
        return may_look(request.user)

    def has_view_permission(self, request, obj=None):
        return may_look(request.user)

    def has_change_permission(self, request, obj=None):
        if obj is None:
            return keeps_any_list(request.user)
        lst = self._list_of(obj)
        return bool(request.user.is_staff and lst and can_rate(request.user, lst))

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return request.user.is_active and request.user.is_superuser

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        if db_field.related_model is RatingList and not request.user.is_superuser:
            kwargs["queryset"] = RatingList.objects.filter(officers=request.user)
        return super().formfield_for_foreignkey(db_field, request, **kwargs)


@admin.register(RatingList)
class RatingListAdmin(RatingScopedAdmin):
    """Directors need every list's name to pick one; its officers change it and re-rate it."""

    list_lookup = ""
    list_display = ["name", "system", "start_date", "dirty_from", "rerated_at"]
    search_fields = ["name"]
    list_filter = ["system"]
    prepopulated_fields = {"slug": ["name"]}
    filter_horizontal = ["officers"]
    actions = ["rerate_lists"]

    def get_queryset(self, request):
        return admin.ModelAdmin.get_queryset(self, request)

    def _list_of(self, obj: Any) -> RatingList | None:
        return obj

    def get_readonly_fields(self, request, obj=None):
        fields = ["dirty_from", "rerated_at"]
        if obj is not None:
            fields.append("system")  # switching systems re-rates the list: the rerate action
        if not request.user.is_superuser:
            fields.append("officers")
        return fields

    def has_add_permission(self, request):
        return request.user.is_active and request.user.is_superuser

    @admin.action(description="Re-rate the selected lists (their officers)")
    def rerate_lists(self, request, queryset):
        lists = list(queryset)
        if not all(can_rate(request.user, lst) for lst in lists):
            raise PermissionDenied
        for lst in lists:
            try:
                rerate(lst, actor=request.user)
            except (RatingError, ServiceError) as exc:
                self.message_user(request, f"{lst.name}: {exc}", messages.ERROR)
                return
        names = ", ".join(lst.name for lst in lists)
        self.message_user(request, f"Re-rated: {names}.", messages.SUCCESS)


@admin.register(PlayerRating)
class PlayerRatingAdmin(RatingScopedAdmin):
    """Current values are computed by re-rating; only the imported start is edited here."""

    tournament_filter = "player__entries__division__tournament__directors"
    list_display = ["player", "rating_list", "rating", "career_games", "start_rating"]
    list_filter = ["rating_list"]
    search_fields = ["player__name"]
    raw_id_fields = ["player"]
    readonly_fields = [
        "player",
        "rating_list",
        "rating",
        "career_games",
        "deviation",
        "volatility",
        "state",
        "last_event_date",
    ]


@admin.register(RatedEvent)
class RatedEventAdmin(RatingScopedAdmin):
    tournament_filter = "division__tournament__directors"
    list_display = ["date", "name", "rating_list", "configured_rounds", "system"]
    list_filter = ["rating_list"]
    search_fields = ["name"]
    raw_id_fields = ["division"]
    readonly_fields = ["rating_list", "division", "games"]


@admin.register(RatingHistory)
class RatingHistoryAdmin(RatingScopedAdmin):
    """Derived by re-rating: read-only for everyone."""

    list_lookup = "event__rating_list"
    tournament_filter = "event__division__tournament__directors"
    list_display = ["player", "event", "before", "after", "games", "expected", "actual"]
    list_filter = ["event__rating_list"]
    search_fields = ["player__name", "event__name"]
    raw_id_fields = ["player", "event"]

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(SubmissionRequest)
class SubmissionRequestAdmin(RatingScopedAdmin):
    """Directors' requests to put a division on a list; the list's officers decide."""

    tournament_filter = "division__tournament__directors"
    list_display = [
        "division",
        "rating_list",
        "status",
        "requested_by",
        "requested_at",
        "decided_by",
    ]
    list_filter = ["status", "rating_list"]
    search_fields = ["division__name", "division__tournament__name"]
    readonly_fields = [f.name for f in SubmissionRequest._meta.fields]
    actions = ["approve", "reject"]

    def has_change_permission(self, request, obj=None):
        return False

    def get_actions(self, request):
        actions = super().get_actions(request)
        if not keeps_any_list(request.user):
            actions.pop("approve", None)
            actions.pop("reject", None)
        return actions

    def _decide(self, request, queryset, decide, verb: str) -> None:
        done = []
        for req in queryset.select_related("division", "rating_list"):
            try:
                decide(req, request.user)
            except (RatingError, ServiceError) as exc:
                self.message_user(request, f"{req}: {exc}", messages.ERROR)
                continue
            done.append(f"{req.division.name} → {req.rating_list.name}")
        if done:
            self.message_user(request, f"{verb}: {', '.join(done)}.", messages.SUCCESS)

    @admin.action(description="Approve: submit the division and re-rate the list")
    def approve(self, request, queryset):
        self._decide(request, queryset, approve_submission, "Approved and submitted")

    @admin.action(description="Reject the request")
    def reject(self, request, queryset):
        self._decide(request, queryset, reject_submission, "Rejected")
