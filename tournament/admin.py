"""The Django admin for every model: the director's fallback console.

Admin edits bypass the service functions' workflow, so each save and delete here still writes
an AuditEvent with the state before and after: the trail stays complete whichever door was used.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.core.serializers.json import DjangoJSONEncoder
from django.db import transaction
from django.forms.models import model_to_dict
from django.urls import reverse
from django.utils.html import format_html

from pairings.models import ForbiddenPair, ScheduleRange
from ratings.engine import RatingError

from . import models
from .rating import submit_divisions
from .services import audit


def _snapshot(obj: Any) -> dict[str, Any] | None:
    if obj is None or obj.pk is None:
        return None
    import json

    return json.loads(json.dumps(model_to_dict(obj), cls=DjangoJSONEncoder, default=str))


def _tournament_of(obj: Any) -> models.Tournament | None:
    for path in ("tournament", "division.tournament", "round.division.tournament"):
        target = obj
        try:
            for part in path.split("."):
                target = getattr(target, part)
        except AttributeError:
            continue
        if isinstance(target, models.Tournament):
            return target
    return obj if isinstance(obj, models.Tournament) else None


class AuditedAdmin(admin.ModelAdmin):
    def save_model(self, request, obj, form, change):
        before = _snapshot(type(obj).objects.filter(pk=obj.pk).first()) if change else None
        super().save_model(request, obj, form, change)
        audit(
            _tournament_of(obj),
            request.user,
            f"admin_{'change' if change else 'add'}",
            obj,
            str(obj),
            before=before,
            after=_snapshot(obj),
        )

    def delete_model(self, request, obj):
        before, tournament = _snapshot(obj), _tournament_of(obj)
        super().delete_model(request, obj)
        audit(tournament, request.user, "admin_delete", obj, str(obj), before=before)


def directs_any(user: Any) -> bool:
    return bool(
        user.is_active
        and user.is_staff
        and (user.is_superuser or models.Tournament.objects.filter(directors=user).exists())
    )


class DirectorScopedAdmin(AuditedAdmin):
    """Only a tournament's own directors see and change it; superusers see everything.

    `tournament_lookup` is the ORM path from the model to its Tournament ("" for Tournament
    itself). Django's per-model permissions are not what decides here: directing the
    tournament is.
    """

    tournament_lookup = "tournament"

    def _directed(self, request) -> Any:
        return models.Tournament.objects.filter(directors=request.user)

    def get_queryset(self, request):
        qs = super().get_queryset(request)
        if request.user.is_superuser:
            return qs
        field = f"{self.tournament_lookup}__in" if self.tournament_lookup else "pk__in"
        return qs.filter(**{field: self._directed(request)}).distinct()

    def _may(self, request, obj=None) -> bool:
        if not directs_any(request.user):
            return False
        if obj is None or request.user.is_superuser:
            return True
        tournament = _tournament_of(obj)
        return tournament is None or tournament.is_director(request.user)

    def has_module_permission(self, request):
        return directs_any(request.user)

    def has_view_permission(self, request, obj=None):
        return self._may(request, obj)

    def has_change_permission(self, request, obj=None):
        return self._may(request, obj)

    def has_delete_permission(self, request, obj=None):
        return self._may(request, obj)

    def has_add_permission(self, request, obj=None):
        return directs_any(request.user)

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        """Offer only the director's own tournaments and divisions in choice lists."""
        if not request.user.is_superuser:
            directed = self._directed(request)
            if db_field.related_model is models.Tournament:
                kwargs["queryset"] = directed
            elif db_field.related_model is models.Division:
                kwargs["queryset"] = models.Division.objects.filter(tournament__in=directed)
            elif db_field.related_model is models.Round:
                kwargs["queryset"] = models.Round.objects.filter(division__tournament__in=directed)
        return super().formfield_for_foreignkey(db_field, request, **kwargs)


class DirectorInlineMixin:
    """Inlines follow the parent's rule: the tournament's directors may edit them."""

    def _may(self, request, obj=None) -> bool:
        if not directs_any(request.user):
            return False
        tournament = _tournament_of(obj) if obj is not None else None
        return tournament is None or tournament.is_director(request.user)

    def has_view_permission(self, request, obj=None):
        return self._may(request, obj)

    def has_change_permission(self, request, obj=None):
        return self._may(request, obj)

    def has_add_permission(self, request, obj=None):
        return self._may(request, obj)

    def has_delete_permission(self, request, obj=None):
        return self._may(request, obj)


class SharedRecordAdmin(AuditedAdmin):
    """Players and clubs belong to no one tournament: any director may view, add and change."""

    def has_module_permission(self, request):
        return directs_any(request.user)

    def has_view_permission(self, request, obj=None):
        return directs_any(request.user)

    def has_add_permission(self, request):
        return directs_any(request.user)

    def has_change_permission(self, request, obj=None):
        return directs_any(request.user)

    def has_delete_permission(self, request, obj=None):
        return request.user.is_active and request.user.is_superuser


class MembershipInline(admin.TabularInline):
    model = models.Membership
    extra = 0
    autocomplete_fields = ["club"]


@admin.register(models.Club)
class ClubAdmin(SharedRecordAdmin):
    list_display = ["name", "city", "country"]
    search_fields = ["name", "city"]
    list_filter = ["country"]
    prepopulated_fields = {"slug": ["name"]}


@admin.register(models.Player)
class PlayerAdmin(SharedRecordAdmin):
    list_display = ["name", "naspa_id", "wespa_id", "country"]
    search_fields = ["name", "naspa_id", "wespa_id", "absp_id", "email"]
    list_filter = ["country", "clubs"]
    inlines = [MembershipInline]


@admin.register(models.Membership)
class MembershipAdmin(SharedRecordAdmin):
    list_display = ["player", "club", "since", "until"]
    list_filter = ["club"]
    search_fields = ["player__name", "club__name"]
    autocomplete_fields = ["player", "club"]


class DivisionInline(DirectorInlineMixin, admin.TabularInline):
    model = models.Division
    extra = 0
    fields = ["name", "rounds", "rating_system", "rating_list", "file_name", "position"]
    show_change_link = True


@admin.register(models.Tournament)
class TournamentAdmin(DirectorScopedAdmin):
    tournament_lookup = ""

    list_display = ["name", "slug", "start_date", "venue", "realm"]
    search_fields = ["name", "slug", "venue"]
    list_filter = ["realm", "start_date"]
    prepopulated_fields = {"slug": ["name"]}
    filter_horizontal = ["directors"]
    inlines = [DivisionInline]
    readonly_fields = ["desk"]

    @admin.display(description="Print & export")
    def desk(self, obj: models.Tournament) -> str:
        """The way from the admin to the venue's PDFs and the federation files."""
        if not obj.pk:
            return "available once the tournament is saved"
        url = reverse("desk:desk", args=[obj.slug])
        return format_html('<a href="{}">Scorecards, pairings, standings, exports</a>', url)


class EntryInline(DirectorInlineMixin, admin.TabularInline):
    model = models.Entry
    extra = 0
    fields = ["number", "player", "seed_rating", "career_games", "player_class", "withdrawn_round"]
    autocomplete_fields = ["player"]
    show_change_link = True


class RoundInline(DirectorInlineMixin, admin.TabularInline):
    model = models.Round
    extra = 0
    fields = ["number", "system", "paired_at"]
    show_change_link = True


class ScheduleRangeInline(DirectorInlineMixin, admin.TabularInline):
    model = ScheduleRange
    extra = 0
    fields = ["first_round", "last_round", "system", "lag", "options"]
    verbose_name = "pairing schedule range"


class ForbiddenPairInline(DirectorInlineMixin, admin.TabularInline):
    model = ForbiddenPair
    extra = 0
    fields = ["entry_a", "entry_b", "reason"]
    raw_id_fields = ["entry_a", "entry_b"]


@admin.register(models.Division)
class DivisionAdmin(DirectorScopedAdmin):
    list_display = ["name", "tournament", "rounds", "rating_system"]
    search_fields = ["name", "tournament__name"]
    list_filter = ["rating_system", "tournament"]
    inlines = [ScheduleRangeInline, ForbiddenPairInline, EntryInline, RoundInline]
    actions = ["submit_to_rating_list"]

    @admin.action(description="Submit to the division's rating list (re-rates the list)")
    def submit_to_rating_list(self, request, queryset):
        """The admin's way to rate a finished event: all selected divisions or none."""
        divisions = list(queryset.select_related("tournament", "rating_list").order_by("name"))
        if not all(self._may(request, d) for d in divisions):
            raise PermissionDenied
        missing = [d.name for d in divisions if d.rating_list_id is None]
        if missing:
            self.message_user(
                request,
                f"Division {', '.join(missing)} has no rating list: choose one on the "
                "division's page first. Nothing was submitted.",
                messages.ERROR,
            )
            return
        try:
            with transaction.atomic():
                by_list: dict[int, list[models.Division]] = {}
                for d in divisions:
                    by_list.setdefault(d.rating_list_id, []).append(d)
                for group in by_list.values():
                    submit_divisions(group, group[0].rating_list, actor=request.user)
        except RatingError as exc:
            self.message_user(request, f"{exc}. Nothing was submitted.", messages.ERROR)
            return
        names = ", ".join(f"{d.name} → {d.rating_list.name}" for d in divisions)
        self.message_user(request, f"Submitted and re-rated: {names}.", messages.SUCCESS)


@admin.register(models.Entry)
class EntryAdmin(DirectorScopedAdmin):
    tournament_lookup = "division__tournament"

    list_display = [
        "number",
        "player",
        "division",
        "seed_rating",
        "player_class",
        "withdrawn_round",
    ]
    search_fields = ["player__name", "player__naspa_id"]
    list_filter = ["division__tournament", "division", "player_class"]
    autocomplete_fields = ["player"]
    list_select_related = ["player", "division__tournament"]


class GameInline(DirectorInlineMixin, admin.TabularInline):
    model = models.Game
    extra = 0
    fields = ["board", "player1", "score1", "player2", "score2", "first", "explanation"]
    raw_id_fields = ["player1", "player2"]
    ordering = ["board", "id"]


@admin.register(models.Round)
class RoundAdmin(DirectorScopedAdmin):
    tournament_lookup = "division__tournament"

    list_display = ["division", "number", "system", "paired_at"]
    list_filter = ["division__tournament", "division", "system"]
    search_fields = ["division__name", "division__tournament__name"]
    inlines = [GameInline]


@admin.register(models.Game)
class GameAdmin(DirectorScopedAdmin):
    tournament_lookup = "round__division__tournament"

    list_display = ["round", "board", "player1", "score1", "player2", "score2", "first"]
    list_filter = ["round__division__tournament", "round__division", "round__number"]
    search_fields = ["player1__player__name", "player2__player__name"]
    raw_id_fields = ["player1", "player2"]
    list_select_related = ["round__division__tournament", "player1__player", "player2__player"]


@admin.register(models.AuditEvent)
class AuditEventAdmin(admin.ModelAdmin):
    """The trail is read-only: history that can be edited is no history."""

    list_display = ["at", "actor", "action", "tournament", "summary"]
    list_filter = ["action", "tournament"]
    search_fields = ["actor", "summary", "reason"]
    readonly_fields = [f.name for f in models.AuditEvent._meta.fields]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
