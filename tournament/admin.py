"""The Django admin: repairs by superusers and named officers, never a second door around the
services. Who enters at all is ``access.can_use_admin`` (tournament.admin_site): superusers
and the registry and rating officers a site administrator marked staff; directing a
tournament never opens it, and an officer who also directs sees only their own tournaments.

Games, entries and rounds are read-only here: results are corrected through
``services.correct_result`` (with a required reason, as everywhere), and games, entries and
rounds are made by pairing and registration in the console and the commands, which check the
rules (scores, divisions, player numbers, withdrawal forfeits). Existing players are changed
and merged only by the registry's keepers (``tournament.manage_registry``) through
``services.update_player``/``merge_players``; an officer who directs sees the email and phone
only where the player shared them (``access.can_see_contact``: entered one of their tournaments
online themselves), never because a director entered the player somewhere. What the admin
still saves itself (tournament and division settings, schedule ranges, forbidden pairs, clubs)
writes an AuditEvent with the state before and after, inline rows included.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import gettext_lazy

from pairings.models import ForbiddenPair, ScheduleRange
from ratings.division import request_submission, submit_divisions
from ratings.engine import RatingError
from tournament.access import can_create_tournament
from tournament.checks import check_file_name
from tournament.errors import ServiceError
from tournament.refusals import refuse
from tournament.services import correct_result
from tournament.services.audit import audit

from . import models
from .access import can_rate, can_see_contact
from .admin_base import (
    DirectorInlineMixin,
    DirectorScopedAdmin,
    FilterOnlyLookups,
    RegistryAdmin,
    SharedRecordAdmin,
    ViewOnlyAdmin,
    ViewOnlyInline,
    directed_tournaments,
    directs_any,
    keeps_registry,
    refusal,
)
from .services.players import (
    PLAYER_FIELDS,
    create_player,
    merge_players,
    update_player,
)

CONTACT_FIELDS = ("email", "phone")


class MembershipInline(admin.TabularInline):
    """Memberships are the club organisers' (tournament.clubs.services): shown, not edited."""

    model = models.Membership
    extra = 0
    fields = ["club", "since", "active", "guest"]
    readonly_fields = fields

    def has_view_permission(self, request, obj=None):
        return directs_any(request.user) or keeps_registry(request.user)

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(models.Club)
class ClubAdmin(SharedRecordAdmin):
    """Clubs are run on their own pages (/clubs/SLUG/manage/) through tournament.clubs'
    services, which keep the organisers, the rating list and the audit trail: here they are
    only looked up."""

    list_display = ["name", "city", "country"]
    search_fields = ["name", "city"]
    list_filter = ["country"]
    readonly_fields = [
        "name",
        "slug",
        "city",
        "country",
        "meets",
        "realm",
        "newcomer_rating",
        "rating_list",
    ]
    exclude = ["organisers"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


class PlayerForm(forms.ModelForm):
    """Checks a new player or a change with the service that will save it."""

    actor: Any = None

    class Meta:
        model = models.Player
        fields = list(PLAYER_FIELDS)

    def service_call(self) -> Callable[[], Any]:
        fields = {k: self.cleaned_data[k] for k in PLAYER_FIELDS if k in self.cleaned_data}
        if self.instance.pk is None:
            return lambda: create_player(actor=self.actor, **fields)
        changed = {k: v for k, v in fields.items() if k in self.changed_data}
        return lambda: update_player(self.instance, actor=self.actor, **changed)

    def clean(self):
        data = super().clean()
        if not self.errors and (self.instance.pk is None or self.has_changed()):
            changed = set(self.changed_data) & set(PLAYER_FIELDS)
            if self.instance.pk is None or changed:
                exc = refusal(self.service_call())
                if exc is not None:
                    refuse(self, exc)
        return data


@admin.register(models.Player)
class PlayerAdmin(RegistryAdmin):
    """Directors add players and look them up; the registry's keepers change and merge them."""

    form = PlayerForm
    list_display = ["name", "naspa_id", "wespa_id", "country"]
    search_fields = ["name", "naspa_id", "wespa_id", "absp_id", "email"]
    list_filter = ["country", "clubs"]
    inlines = [MembershipInline]
    actions = ["merge_two_players"]

    def has_add_permission(self, request):
        return directs_any(request.user) or keeps_registry(request.user)

    def get_search_fields(self, request):
        fields = super().get_search_fields(request)
        if keeps_registry(request.user):
            return fields
        return [f for f in fields if f not in CONTACT_FIELDS]

    def get_fields(self, request, obj=None):
        fields = list(PLAYER_FIELDS)
        if obj is not None and not can_see_contact(request.user, obj):
            fields = [f for f in fields if f not in CONTACT_FIELDS]
        return fields

    def get_inlines(self, request, obj):
        return self.inlines if obj is not None else []

    def get_actions(self, request):
        actions = super().get_actions(request)
        if not keeps_registry(request.user):
            actions.pop("merge_two_players", None)
        return actions

    def get_form(self, request, obj=None, change=False, **kwargs):
        form = super().get_form(request, obj, change=change, **kwargs)
        return type(form.__name__, (form,), {"actor": request.user})

    def save_model(self, request, obj, form, change):
        """The services save and audit; the admin's object follows what they stored."""
        if not change:
            player = form.service_call()()
            obj.pk = player.pk
            obj._state.adding = False
            obj._state.db = player._state.db
            for name in [*PLAYER_FIELDS, "created"]:
                setattr(obj, name, getattr(player, name))
            return
        if set(form.changed_data) & set(PLAYER_FIELDS):
            form.service_call()()
        obj.refresh_from_db()

    @admin.action(description="Merge the two selected players (keeps the one entered first)")
    def merge_two_players(self, request, queryset):
        if not keeps_registry(request.user):
            raise PermissionDenied
        players = list(queryset.order_by("created", "pk")[:3])
        if len(players) != 2:
            self.message_user(request, "Select exactly two players to merge.", messages.ERROR)
            return
        keep, duplicate = players
        name = duplicate.name
        try:
            merge_players(keep, duplicate, actor=request.user)
        except ServiceError as exc:
            self.message_user(request, f"{exc.message}. Nothing was merged.", messages.ERROR)
            return
        self.message_user(request, f"{name} was merged into {keep.name}.", messages.SUCCESS)


@admin.register(models.Membership)
class MembershipAdmin(RegistryAdmin):
    list_display = ["player", "club", "since", "until"]
    list_filter = ["club"]
    search_fields = ["player__name", "club__name"]
    autocomplete_fields = ["player", "club"]


# --- tournaments and divisions ----------------------------------------------------------------


class DivisionForm(forms.ModelForm):
    """A division's file name is a plain .t name, as everywhere (services.check_file_name):
    exports and the all.tsh archive write the file under it, so a path is refused here too."""

    def clean_file_name(self) -> str:
        value = self.cleaned_data.get("file_name") or ""
        if not value:
            return value  # exports name it after the slug
        try:
            return check_file_name(value)
        except ServiceError as exc:
            raise forms.ValidationError(exc.message) from exc


class DivisionInline(DirectorInlineMixin, admin.TabularInline):
    model = models.Division
    form = DivisionForm
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
    filter_horizontal = ["directors", "scorekeepers"]
    inlines = [DivisionInline]
    readonly_fields = ["desk"]
    STAFF_FIELDS = ("directors", "scorekeepers")

    def has_add_permission(self, request, obj=None):
        """Only with the creation grant, as in the console (directing one is not enough)."""
        return super().has_add_permission(request, obj) and can_create_tournament(request.user)

    def get_readonly_fields(self, request, obj=None):
        """Staff are changed here by superusers only (others use the console's Staff page): the
        pickers list every account on the site, superusers included."""
        fields = list(super().get_readonly_fields(request, obj))
        if not request.user.is_superuser:
            fields += [f for f in self.STAFF_FIELDS if f not in fields]
        return fields

    def save_related(self, request, form, formsets, change):
        """Each director or scorekeeper added or removed here writes the same audit event as
        the console's Staff page (add_staff/remove_staff), in the admin's transaction."""
        obj = form.instance
        before = {f: set(getattr(obj, f).all()) if change else set() for f in self.STAFF_FIELDS}
        super().save_related(request, form, formsets, change)
        for name, role in (("directors", "director"), ("scorekeepers", "scorekeeper")):
            now = set(getattr(obj, name).all())
            for user in sorted(now - before[name], key=lambda u: u.pk):
                audit(
                    obj,
                    request.user,
                    "add_staff",
                    obj,
                    f"{user.get_username()} is now a {role} (admin)",
                    after={"user": user.get_username(), "role": role, "new_account": False},
                )
            for user in sorted(before[name] - now, key=lambda u: u.pk):
                audit(
                    obj,
                    request.user,
                    "remove_staff",
                    obj,
                    f"{user.get_username()} is no longer a {role} (admin)",
                    before={"user": user.get_username(), "role": role},
                )

    @admin.display(description="Print & export")
    def desk(self, obj: models.Tournament) -> str:
        """The way from the admin to the venue's PDFs and the federation files."""
        if not obj.pk:
            return "available once the tournament is saved"
        url = reverse("desk:desk", args=[obj.slug])
        return format_html('<a href="{}">Scorecards, pairings, standings, exports</a>', url)


class EntryInline(ViewOnlyInline, admin.TabularInline):
    model = models.Entry
    fields = ["number", "player", "seed_rating", "career_games", "player_class", "withdrawn_round"]
    show_change_link = True


class RoundInline(ViewOnlyInline, admin.TabularInline):
    model = models.Round
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
    form = DivisionForm
    list_display = ["name", "tournament", "rounds", "rating_system"]
    search_fields = ["name", "tournament__name"]
    list_filter = ["rating_system", "tournament"]
    inlines = [ScheduleRangeInline, ForbiddenPairInline, EntryInline, RoundInline]
    actions = ["submit_to_rating_list"]

    @admin.action(description="Submit to the division's rating list (officers; others request)")
    def submit_to_rating_list(self, request, queryset):
        """Rate finished divisions, all selected or none, as the rating-list rule says.

        An officer of the division's list submits (re-rating the list); a director who is not
        one requests the submission, and an officer of the list approves or rejects it.
        """
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
        submitted: list[models.Division] = []
        requested: list[models.Division] = []
        try:
            with transaction.atomic():
                by_list: dict[int, list[models.Division]] = {}
                for d in divisions:
                    by_list.setdefault(d.rating_list_id, []).append(d)
                for group in by_list.values():
                    lst = group[0].rating_list
                    if can_rate(request.user, lst):
                        submit_divisions(group, lst, actor=request.user)
                        submitted += group
                    else:
                        for d in group:
                            request_submission(d, lst, request.user)
                        requested += group
        except (RatingError, ServiceError) as exc:
            self.message_user(request, f"{exc}. Nothing was submitted.", messages.ERROR)
            return
        if submitted:
            names = ", ".join(f"{d.name} → {d.rating_list.name}" for d in submitted)
            self.message_user(request, f"Submitted and re-rated: {names}.", messages.SUCCESS)
        if requested:
            names = ", ".join(f"{d.name} → {d.rating_list.name}" for d in requested)
            self.message_user(
                request,
                f"Submission requested (an officer of the list decides): {names}.",
                messages.SUCCESS,
            )


@admin.register(models.Entry)
class EntryAdmin(ViewOnlyAdmin):
    """Entries are registered, withdrawn and corrected in the console (numbers stay 1..N)."""

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
    list_select_related = ["player", "division__tournament"]


class GameInline(ViewOnlyInline, admin.TabularInline):
    model = models.Game
    fields = ["board", "player1", "score1", "player2", "score2", "first", "explanation"]
    ordering = ["board", "id"]
    show_change_link = True


@admin.register(models.Round)
class RoundAdmin(ViewOnlyAdmin):
    """Rounds are paired in the console; a game's result is corrected on the game's page."""

    tournament_lookup = "division__tournament"

    list_display = ["division", "number", "system", "paired_at"]
    list_filter = ["division__tournament", "division", "system"]
    search_fields = ["division__name", "division__tournament__name"]
    inlines = [GameInline]


class GameCorrectionForm(forms.ModelForm):
    """A recorded game's scores and the reason for changing them: services.correct_result."""

    reason = forms.CharField(
        max_length=300,
        required=True,
        help_text=gettext_lazy("why the result changes (kept in the audit trail)"),
        error_messages={"required": gettext_lazy("give the reason for the correction")},
    )
    actor: Any = None

    class Meta:
        model = models.Game
        fields = ["score1", "score2"]

    def service_call(self) -> Callable[[], Any]:
        game = models.Game.objects.select_related(
            "round__division__tournament", "player1__player", "player2__player"
        ).get(pk=self.instance.pk)
        score1 = self.cleaned_data.get("score1")
        score2 = self.cleaned_data.get("score2") if game.player2_id else None
        reason = self.cleaned_data.get("reason", "")
        return lambda: correct_result(game, score1, score2, reason=reason, actor=self.actor)

    def clean(self):
        data = super().clean()
        if self.errors:
            return data
        game = self.instance
        scores = ["score1", "score2"] if game.player2_id else ["score1"]
        for name in scores:
            if data.get(name) is None:
                self.add_error(name, "give the score")
        if self.errors:
            return data
        if all(data.get(name) == getattr(game, name) for name in scores):
            self.add_error("score1", "the scores are as recorded: there is nothing to correct")
            return data
        exc = refusal(self.service_call())
        if exc is not None:
            refuse(self, exc)
        return data


@admin.register(models.Game)
class GameAdmin(DirectorScopedAdmin):
    """A game's page corrects its result, with a reason; who plays whom is the pairing's job."""

    tournament_lookup = "round__division__tournament"
    form = GameCorrectionForm

    list_display = ["round", "board", "player1", "score1", "player2", "score2", "first"]
    list_filter = ["round__division__tournament", "round__division", "round__number"]
    search_fields = ["player1__player__name", "player2__player__name"]
    list_select_related = ["round__division__tournament", "player1__player", "player2__player"]
    readonly_fields = ["round", "board", "player1", "player2", "first", "explanation"]

    def get_fields(self, request, obj=None):
        scores = ["score1", "score2"] if obj is None or obj.player2_id else ["score1"]
        return ["round", "board", "player1", "player2", *scores, "first", "explanation", "reason"]

    def get_form(self, request, obj=None, change=False, **kwargs):
        form = super().get_form(request, obj, change=change, **kwargs)
        return type(form.__name__, (form,), {"actor": request.user})

    def has_add_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    def save_model(self, request, obj, form, change):
        """correct_result checks, saves and audits (with the reason); nothing else is saved."""
        form.service_call()()
        obj.refresh_from_db()


@admin.register(models.AuditEvent)
class AuditEventAdmin(FilterOnlyLookups, admin.ModelAdmin):
    """The trail is read-only: history that can be edited is no history."""

    list_display = ["at", "actor", "action", "tournament", "summary"]
    list_filter = ["action", "tournament"]
    search_fields = ["actor", "summary", "reason"]
    readonly_fields = [f.name for f in models.AuditEvent._meta.fields]

    def get_queryset(self, request):
        """Beyond Django's view permission, a director reads their own tournaments' trail."""
        qs = super().get_queryset(request)
        if request.user.is_superuser:
            return qs
        return qs.filter(tournament__in=directed_tournaments(request.user))

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


# --- accounts: who may do what site-wide ------------------------------------------------------


def account_rights(user: Any) -> dict[str, Any]:
    """What an account may do site-wide: its flags, its own permissions and its groups."""
    return {
        "is_active": user.is_active,
        "is_staff": user.is_staff,
        "is_superuser": user.is_superuser,
        "permissions": sorted(
            f"{p.content_type.app_label}.{p.codename}"
            for p in user.user_permissions.select_related("content_type")
        ),
        "groups": sorted(g.name for g in user.groups.all()),
    }


class AuditedUserAdmin(UserAdmin):
    """Django's account pages, with every change of an account's rights (staff flag,
    superuser, permissions such as ``tournament.create_tournament``, groups) written to the
    audit trail in the admin's transaction, like every other staff change."""

    def save_model(self, request, obj, form, change):
        old = get_user_model().objects.filter(pk=obj.pk).first() if change else None
        request._rights_before = account_rights(old) if old is not None else None
        super().save_model(request, obj, form, change)

    def save_related(self, request, form, formsets, change):
        super().save_related(request, form, formsets, change)
        user = form.instance
        before, after = getattr(request, "_rights_before", None), account_rights(user)
        if before == after:
            return
        audit(
            None,
            request.user,
            "admin_change" if change else "admin_add",
            user,
            f"rights of {user.get_username()} " + ("changed" if change else "set"),
            before=before,
            after=after,
        )

    def delete_model(self, request, obj):
        before, name = account_rights(obj), obj.get_username()
        super().delete_model(request, obj)
        audit(None, request.user, "admin_delete", obj, f"account {name} deleted", before=before)

    def delete_queryset(self, request, queryset):
        """The list's "delete selected" action: one audit event per account, as above."""
        for user in list(queryset):
            self.delete_model(request, user)


if admin.site.is_registered(get_user_model()):
    admin.site.unregister(get_user_model())
admin.site.register(get_user_model(), AuditedUserAdmin)
