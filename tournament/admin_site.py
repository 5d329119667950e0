"""The admin site itself: who may enter at all (``access.can_use_admin``).

Django's own rule lets in every account with the staff flag; here the flag is necessary but
not enough: the account must be a superuser or a named registry or rating officer. Each
model's page then applies its own rules (admin_base).
"""

from __future__ import annotations

from django.contrib import admin
from django.contrib.admin.apps import AdminConfig


class GibsonAdminSite(admin.AdminSite):
    def has_permission(self, request) -> bool:
        from .access import can_use_admin  # models are not loaded yet when this module is

        return can_use_admin(request.user)


class GibsonAdminConfig(AdminConfig):
    """Installed instead of ``django.contrib.admin`` so ``admin.site`` is GibsonAdminSite."""

    default_site = "tournament.admin_site.GibsonAdminSite"
