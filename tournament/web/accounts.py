"""Accounts: sign in and out, change and reset a password, on the site's own pages.

Directors, co-directors and scorekeepers sign in here (not in the admin, which is for repairs
by a superuser). Django's own auth views do the work; these are only their URLs and templates.
"""

from django.contrib.auth import views as auth_views
from django.urls import path, reverse_lazy

from .console.staff import accept_invite

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
