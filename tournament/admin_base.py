"""The admin's shared rules: every change audited through the services, directors scoped to
their own tournaments. The tournament, pairings and ratings admins build on these classes
(tournament.admin registers the event's models; this module registers nothing).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from django.contrib import admin, messages
from django.core.serializers.json import DjangoJSONEncoder
from django.db import transaction
from django.forms.models import model_to_dict
from django.http import HttpResponseRedirect

from tournament.errors import ServiceError
from tournament.services import audit

from . import models
from .access import can_direct, can_keep_registry

CONTACT_FIELDS = ("email", "phone")


def _snapshot(obj: Any) -> dict[str, Any] | None:
    if obj is None or obj.pk is None:
        return None
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


class _DryRun(Exception):
    """Rolls back a service call made only to learn whether it would be refused."""


def refusal(call: Callable[[], Any]) -> ServiceError | None:
    """Run a service call in a savepoint that is always rolled back; its refusal, if any.

    The admin validates a form before it saves; running the very service the save will run
    shows its refusal at the form's field instead of a server error after the fact.
    """
    try:
        with transaction.atomic():
            call()
            raise _DryRun
    except _DryRun:
        return None
    except ServiceError as exc:
        return exc


# The operators the admin's own filters put after a field (``country__exact``, a date range's
# ``start_date__gte``, a relation's ``clubs__id__exact``).
FILTER_SUFFIXES = ("exact", "iexact", "in", "isnull", "gte", "lte", "gt", "lt", "id", "pk")


class FilterOnlyLookups:
    """Only the lookups the page's own filters offer may come in the query string.

    Django's admin accepts any lookup on a model's own fields (``?email__startswith=sa``) and
    shows which rows match, even on columns the page hides: a yes/no oracle that rebuilt a
    player's email and phone in a few hundred requests. Here a lookup must name a field of
    ``list_filter`` (or ``date_hierarchy``) with one of the operators those filters use;
    anything else is refused (400), as Django refuses lookups across undeclared relations.
    """

    def lookup_allowed(self, lookup: str, value: Any, request: Any = None) -> bool:
        parts = lookup.split("__")
        while len(parts) > 1 and parts[-1] in FILTER_SUFFIXES:
            parts.pop()
        field = "__".join(parts)
        offered = {f if isinstance(f, str) else f[0] for f in self.list_filter}
        if getattr(self, "date_hierarchy", None):
            offered.add(self.date_hierarchy)
        return field in offered


class AuditedAdmin(FilterOnlyLookups, admin.ModelAdmin):
    """Each save and delete, inline rows included, writes an AuditEvent with before and after.

    A save the services refuse while it is written (the audit hook's checks: a tournament its
    venue runs, one handed back to its hosted site) is rolled back whole by the admin's own
    transaction and shown as the admin's error message on the same page, not a server error.
    """

    def _refused(self, request, exc: ServiceError) -> HttpResponseRedirect:
        self.message_user(request, f"{exc.message}. Nothing was changed.", messages.ERROR)
        return HttpResponseRedirect(request.get_full_path())

    def changeform_view(self, request, object_id=None, form_url="", extra_context=None):
        try:
            return super().changeform_view(request, object_id, form_url, extra_context)
        except ServiceError as exc:  # the admin's transaction was rolled back
            return self._refused(request, exc)

    def delete_view(self, request, object_id, extra_context=None):
        try:
            return super().delete_view(request, object_id, extra_context)
        except ServiceError as exc:
            return self._refused(request, exc)

    def changelist_view(self, request, extra_context=None):
        try:
            with transaction.atomic():  # a list edit or an action: all of it, or none
                return super().changelist_view(request, extra_context)
        except ServiceError as exc:
            return self._refused(request, exc)

    def save_model(self, request, obj, form, change):
        before = _snapshot(type(obj).objects.filter(pk=obj.pk).first()) if change else None
        if change and before == _snapshot(obj):
            return  # nothing changed: no write, and no audit event saying so
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

    def save_formset(self, request, form, formset, change):
        """Inline rows are audited like the page's own object (they used to go unrecorded)."""
        model = formset.model
        before = {
            id(f.instance): _snapshot(model.objects.filter(pk=f.instance.pk).first())
            for f in formset.initial_forms
        }
        deleted = [f.instance for f in formset.deleted_forms if f.instance.pk is not None]
        gone = {id(obj): (before.get(id(obj)), str(obj), _tournament_of(obj)) for obj in deleted}
        super().save_formset(request, form, formset, change)
        parent = _tournament_of(form.instance)
        for obj in formset.new_objects:
            audit(
                _tournament_of(obj) or parent,
                request.user,
                "admin_add",
                obj,
                str(obj),
                after=_snapshot(obj),
            )
        for obj, _fields in formset.changed_objects:
            if before.get(id(obj)) == _snapshot(obj):
                continue  # a form that only looked changed (a JSON field's "{}")
            audit(
                _tournament_of(obj) or parent,
                request.user,
                "admin_change",
                obj,
                str(obj),
                before=before.get(id(obj)),
                after=_snapshot(obj),
            )
        for obj in formset.deleted_objects:
            snap, name, tournament = gone.get(id(obj), (None, str(obj), None))
            audit(tournament or parent, request.user, "admin_delete", obj, name, before=snap)


def directs_any(user: Any) -> bool:
    return bool(
        user.is_active
        and user.is_staff
        and (user.is_superuser or models.Tournament.objects.filter(directors=user).exists())
    )


def keeps_registry(user: Any) -> bool:
    """Staff with ``tournament.manage_registry`` (superusers have it)."""
    return bool(user.is_active and user.is_staff and can_keep_registry(user))


def directed_tournaments(user: Any) -> Any:
    return models.Tournament.objects.filter(directors=user)


def _scoped_foreignkey(user: Any, db_field: Any, kwargs: dict[str, Any]) -> None:
    """Offer only the director's own tournaments, divisions, rounds and entries in choices."""
    if user.is_superuser:
        return
    directed = directed_tournaments(user)
    related = db_field.related_model
    if related is models.Tournament:
        kwargs["queryset"] = directed
    elif related is models.Division:
        kwargs["queryset"] = models.Division.objects.filter(tournament__in=directed)
    elif related is models.Round:
        kwargs["queryset"] = models.Round.objects.filter(division__tournament__in=directed)
    elif related is models.Entry:
        kwargs["queryset"] = models.Entry.objects.filter(division__tournament__in=directed)


class DirectorScopedAdmin(AuditedAdmin):
    """Only a tournament's own directors see and change it; superusers see everything.

    `tournament_lookup` is the ORM path from the model to its Tournament ("" for Tournament
    itself). Django's per-model permissions are not what decides here: directing the
    tournament is.
    """

    tournament_lookup = "tournament"

    def directed_tournaments(self, request) -> Any:
        return directed_tournaments(request.user)

    def get_queryset(self, request):
        qs = super().get_queryset(request)
        if request.user.is_superuser:
            return qs
        field = f"{self.tournament_lookup}__in" if self.tournament_lookup else "pk__in"
        return qs.filter(**{field: self.directed_tournaments(request)}).distinct()

    def _may(self, request, obj=None) -> bool:
        if not directs_any(request.user):
            return False
        if obj is None or request.user.is_superuser:
            return True
        tournament = _tournament_of(obj)
        return tournament is None or can_direct(request.user, tournament)

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
        _scoped_foreignkey(request.user, db_field, kwargs)
        return super().formfield_for_foreignkey(db_field, request, **kwargs)


class ViewOnlyAdmin(DirectorScopedAdmin):
    """Directors look here; the console and the services make and change these rows."""

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class DirectorInlineMixin:
    """Inlines follow the parent's rule: the tournament's directors may edit them."""

    def _may(self, request, obj=None) -> bool:
        if not directs_any(request.user):
            return False
        tournament = _tournament_of(obj) if obj is not None else None
        return tournament is None or can_direct(request.user, tournament)

    def has_view_permission(self, request, obj=None):
        return self._may(request, obj)

    def has_change_permission(self, request, obj=None):
        return self._may(request, obj)

    def has_add_permission(self, request, obj=None):
        return self._may(request, obj)

    def has_delete_permission(self, request, obj=None):
        return self._may(request, obj)

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        _scoped_foreignkey(request.user, db_field, kwargs)
        return super().formfield_for_foreignkey(db_field, request, **kwargs)


class ViewOnlyInline(DirectorInlineMixin):
    """Shown for reference only: posted rows are ignored, none is added or deleted."""

    extra = 0
    can_delete = False

    def get_readonly_fields(self, request, obj=None):
        return list(self.fields)

    def has_change_permission(self, request, obj=None):
        return False

    def has_add_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


# --- players and clubs: the registry ------------------------------------------------------------


class SharedRecordAdmin(AuditedAdmin):
    """Clubs belong to no one tournament: any director may view, add and change."""

    def has_module_permission(self, request):
        return directs_any(request.user) or keeps_registry(request.user)

    def has_view_permission(self, request, obj=None):
        return directs_any(request.user) or keeps_registry(request.user)

    def has_add_permission(self, request):
        return directs_any(request.user)

    def has_change_permission(self, request, obj=None):
        return directs_any(request.user)

    def has_delete_permission(self, request, obj=None):
        return request.user.is_active and request.user.is_superuser


class RegistryAdmin(SharedRecordAdmin):
    """Who a player is, and which clubs they belong to, is changed by the registry's keepers."""

    def has_add_permission(self, request):
        return keeps_registry(request.user)

    def has_change_permission(self, request, obj=None):
        return keeps_registry(request.user)
