"""Accounts: sign in and out, change and reset a password, on the site's own pages.

Directors, co-directors and scorekeepers sign in here (not in the admin, which is for repairs
by a superuser). Django's own auth views do the work; these are only their URLs and templates.
"""

from __future__ import annotations

import math
import time

from axes.backends import AxesStandaloneBackend
from axes.exceptions import AxesBackendPermissionDenied
from django.conf import settings
from django.contrib.auth import views as auth_views
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import path, reverse_lazy
from django.utils import timezone

from .addresses import client_address
from .console.staff import accept_invite


class ThrottledBackend(AxesStandaloneBackend):
    """django-axes' check before the password check, for sign-ins that come with a request.

    Every sign-in page (this site's and the admin's) passes its request; a sign-in without
    one (a test client's login(), a script) has no address to throttle by, and goes on to
    the password check unthrottled instead of failing.
    """

    def authenticate(self, request, username=None, password=None, **kwargs):  # noqa: ANN001
        if request is None:
            return None
        if failed_sign_ins(request) >= settings.SIGN_IN_FAILURES_PER_ADDRESS:
            # made-up names from one address: axes counts per name and address, so each new
            # name started afresh (600 attempts over 200 names were never stopped)
            request.axes_locked_out = True
            raise AxesBackendPermissionDenied("too many failed sign-ins from this address")
        return super().authenticate(request, username=username, password=password, **kwargs)


def _address_key(request: HttpRequest) -> str:
    address = client_address(request) or "unknown"
    window = int(time.time() // settings.SIGN_IN_WINDOW_SECONDS)
    return f"signin:failed:{address}:{window}"


def failed_sign_ins(request: HttpRequest) -> int:
    """Failed sign-ins from this request's address in the current window (0 if the cache
    cannot say: a cache failure must not lock anyone out)."""
    try:
        return int(cache.get(_address_key(request), 0))
    except Exception:  # noqa: BLE001 - any cache backend's failure
        return 0


def count_failed_sign_in(
    sender: object, credentials: dict, request: HttpRequest | None = None, **kwargs: object
) -> None:
    """``user_login_failed`` receiver (connected in TournamentConfig.ready): one more failure
    for the address, whichever name it tried. A try refused because its name or address is
    already locked checked no password and does not count (a colleague at the same venue
    address still signs in while one name is locked)."""
    if request is None or getattr(request, "axes_locked_out", False):
        return
    key = _address_key(request)
    try:
        cache.add(key, 0, timeout=settings.SIGN_IN_WINDOW_SECONDS * 2)
        cache.incr(key)
    except Exception:  # noqa: BLE001 - expired between add and incr, or the cache failed
        pass


def lockout(
    request: HttpRequest,
    original_response: HttpResponse | None = None,
    credentials: dict | None = None,
) -> HttpResponse:
    """The page a locked-out sign-in gets (django-axes): status 429, and when to try again.

    The cool-off runs from the latest wrong password (AXES_COOLOFF_TIME), so "now + cool-off"
    is the time the lock ends; Retry-After says the same to a machine.
    """
    cool_off = settings.AXES_COOLOFF_TIME
    seconds = int(cool_off.total_seconds())
    until = timezone.localtime(timezone.now() + cool_off)
    username = ""
    field = getattr(settings, "AXES_USERNAME_FORM_FIELD", "username")
    if credentials:
        username = str(credentials.get(field) or credentials.get("username") or "")
    elif request.method == "POST":
        username = str(request.POST.get(field, ""))
    response = render(
        request,
        "registration/lockout.html",
        {
            "failure_limit": settings.AXES_FAILURE_LIMIT,
            "username": username[:150],
            "until": until,
            "minutes": math.ceil(seconds / 60),
        },
        status=429,
    )
    response["Retry-After"] = str(seconds)
    return response


urlpatterns = [
    path(
        "login/",
        auth_views.LoginView.as_view(template_name="accounts/login.html"),
        name="login",
    ),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path(
        "password/",
        auth_views.PasswordChangeView.as_view(
            template_name="accounts/form.html",
            success_url=reverse_lazy("accounts:password_changed"),
            extra_context={"heading": "Change your password"},
        ),
        name="password_change",
    ),
    path(
        "password/done/",
        auth_views.PasswordChangeDoneView.as_view(
            template_name="accounts/done.html",
            extra_context={"heading": "Password changed", "text": "Your new password is set."},
        ),
        name="password_changed",
    ),
    path(
        "reset/",
        auth_views.PasswordResetView.as_view(
            template_name="accounts/form.html",
            email_template_name="accounts/reset_email.txt",
            subject_template_name="accounts/reset_subject.txt",
            success_url=reverse_lazy("accounts:reset_sent"),
            extra_context={"heading": "Reset your password"},
        ),
        name="password_reset",
    ),
    path(
        "reset/sent/",
        auth_views.PasswordResetDoneView.as_view(
            template_name="accounts/done.html",
            extra_context={
                "heading": "Check your email",
                "text": "If an account has that address, a link to set a new password is on "
                "its way.",
            },
        ),
        name="reset_sent",
    ),
    path(
        "reset/<uidb64>/<token>/",
        auth_views.PasswordResetConfirmView.as_view(
            template_name="accounts/form.html",
            success_url=reverse_lazy("accounts:reset_done"),
            extra_context={"heading": "Choose a new password"},
        ),
        name="password_reset_confirm",
    ),
    path(
        "reset/done/",
        auth_views.PasswordResetCompleteView.as_view(
            template_name="accounts/done.html",
            extra_context={"heading": "Password set", "text": "You can sign in with it now."},
        ),
        name="reset_done",
    ),
    # A one-time sign-up link for a co-director or scorekeeper (console staff page).
    path("invite/<str:token>/", accept_invite, name="invite"),
]
