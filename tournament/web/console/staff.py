"""Console: a tournament's staff: its directors and scorekeepers.

A director adds a co-director or scorekeeper by making the account (username, email and a
password that passes the site's password rules) or by a one-time sign-up link; the person who
opens the link chooses their own username and password. Links are shown once, right after
they are made: only their hash is stored. A used, expired or unknown link is a plain 404 that
says nothing about which of the three it was.
"""

from __future__ import annotations

from django.contrib.auth import login
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import URLPattern, path, reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from tournament.errors import ServiceError
from tournament.refusals import refuse

from ... import services
from ...access import tournament_staff
from ...models import StaffInvite, Tournament
from ...services.staff import INVITE_DAYS, is_club_night, open_invite, revoke_invite
from ..forms.staff import AcceptInviteForm, InviteForm, StaffAccountForm
from ..permissions import can_direct, director_required


def _staff_page(
    request: HttpRequest,
    tournament: Tournament,
    *,
    account: StaffAccountForm | None = None,
    invite: InviteForm | None = None,
    link: str = "",
    error: str = "",
    status: int = 200,
) -> HttpResponse:
    night = is_club_night(tournament)
    context = {
        "tournament": tournament,
        "night": night,
        "directors": tournament.directors.order_by("username"),
        "scorekeepers": tournament.scorekeepers.order_by("username"),
        "account": account or StaffAccountForm(prefix="account", night=night),
        "invite": invite or InviteForm(prefix="invite", night=night),
        "link": link,
        "invite_days": INVITE_DAYS,
        "error": error,
        "open_invites": tournament.invites.filter(used_at__isnull=True).order_by("-created"),
    }
    return render(request, "console/staff.html", context, status=status)


@director_required
@require_http_methods(["GET", "HEAD", "POST"])
def staff(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """The staff list; a POST makes a new account for a co-director or scorekeeper."""
    if request.method != "POST":
        return _staff_page(request, tournament)
    form = StaffAccountForm(request.POST, prefix="account", night=is_club_night(tournament))
    if form.is_valid():
        data = form.cleaned_data
        try:
            services.add_staff(
                tournament,
                role=data["role"],
                actor=request.user,
                username=data["username"],
                email=data["email"],
                password=data["password"],
            )
            return redirect("console:staff", slug=tournament.slug)
        except ServiceError as exc:
            refuse(form, exc)
    return _staff_page(request, tournament, account=form, status=400)


@director_required
@require_POST
def staff_invite(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """Make a sign-up link and show it this once (it cannot be shown again)."""
    form = InviteForm(request.POST, prefix="invite", night=is_club_night(tournament))
    if form.is_valid():
        try:
            _invite, token = services.create_invite(
                tournament,
                role=form.cleaned_data["role"],
                actor=request.user,
                email=form.cleaned_data["email"],
            )
        except ServiceError as exc:
            refuse(form, exc)
        else:
            link = request.build_absolute_uri(reverse("accounts:invite", args=[token]))
            return _staff_page(request, tournament, link=link)
    return _staff_page(request, tournament, invite=form, status=400)


@director_required
@require_POST
def staff_remove(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """Take a role away; refused (400, with the reason) for the last director.

    The account is looked up among this tournament's staff only: any other id (another
    event's staff, a superuser, an id that is no account) is the same "no such staff member",
    so the form cannot be used to read the site's account names one id at a time."""
    role = request.POST.get("role", "")
    raw = str(request.POST.get("user", ""))
    ok = raw.isascii() and raw.isdigit() and len(raw) < 12
    user = tournament_staff(request.user, tournament).filter(pk=int(raw)).first() if ok else None
    if user is None:
        return _staff_page(request, tournament, error=_("no such staff member"), status=400)
    try:
        services.remove_staff(tournament, user=user, role=role, actor=request.user)
    except ServiceError as exc:
        return _staff_page(request, tournament, error=exc.message, status=400)
    if not can_direct(request.user, tournament):
        return redirect("console_site:tournaments")  # a director who stepped down
    return redirect("console:staff", slug=tournament.slug)


@director_required
@require_POST
def staff_invite_revoke(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """Turn off an unused sign-up link (400 with the reason if it is gone already)."""
    try:
        revoke_invite(tournament, request.POST.get("invite", ""), actor=request.user)
    except ServiceError as exc:
        return _staff_page(request, tournament, error=exc.message, status=400)
    return redirect("console:staff", slug=tournament.slug)


@require_http_methods(["GET", "HEAD", "POST"])
def accept_invite(request: HttpRequest, token: str) -> HttpResponse:
    """/accounts/invite/TOKEN/: choose a username and password once, then join the staff."""
    invite = open_invite(token)
    if invite is None:
        raise Http404()
    form = AcceptInviteForm(request.POST or None, initial={"email": invite.email})
    status = 200
    if request.method == "POST":
        status = 400
        if form.is_valid():
            data = form.cleaned_data
            try:
                user, invite = services.accept_invite(
                    token,
                    username=data["username"],
                    email=data["email"],
                    password=data["password"],
                )
            except ServiceError as exc:
                if exc.code == "staff_invite_invalid":
                    raise Http404() from None  # used a moment ago by someone else
                refuse(form, exc)
            else:
                login(request, user, backend="django.contrib.auth.backends.ModelBackend")
                return redirect("console:home", slug=invite.tournament.slug)
    role = StaffInvite.Role(invite.role).label
    return render(
        request,
        "accounts/invite.html",
        {"form": form, "tournament": invite.tournament, "role": role},
        status=status,
    )


urlpatterns: list[URLPattern] = [
    path("staff/", staff, name="staff"),
    path("staff/invite/", staff_invite, name="staff_invite"),
    path("staff/remove/", staff_remove, name="staff_remove"),
    path("staff/invite/revoke/", staff_invite_revoke, name="staff_invite_revoke"),
]
