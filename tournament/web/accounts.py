"""Accounts: sign up, sign in and out, change and reset a password, on the site's own pages.

Anyone signs up at /accounts/signup/ (username, e-mail address, password twice): the account
stays inactive until the link mailed to the address is opened and confirmed (a button, so a
mail scanner that fetches links confirms nothing). Sign-ups are limited per address like
sign-in failures (SIGN_UPS_PER_ADDRESS per window), each one being a mail the site sends.
A ``next`` page (an organiser's invitation that sent a signed-out newcomer to sign in) rides
along the sign-up form, the mailed link and the confirmation, which ends on it.

Directors, co-directors and scorekeepers sign in here (not in the admin, which is for repairs
by a superuser). Django's own auth views do the work; these are only their URLs and templates.
"""

from __future__ import annotations

import hashlib
import math
import time
from typing import Any

from axes.backends import AxesStandaloneBackend
from axes.exceptions import AxesBackendPermissionDenied
from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.core import signing
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import redirect, render
from django.urls import path, reverse, reverse_lazy
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme, urlencode
from django.utils.translation import gettext, gettext_lazy
from django.views.decorators.http import require_http_methods
from django.views.generic import TemplateView

from tournament.errors import ServiceError
from tournament.models import Notice
from tournament.refusals import refuse
from tournament.services.accounts import (
    confirm_days,
    confirm_sign_up,
    resend_sign_up,
    sign_up,
)

from ..throttle import client_address
from .console.staff import accept_invite
from .forms.staff import SignUpForm

# --- known devices: lock the guessing, not the owner ---------------------------------------
#
# A flood of wrong sign-ins from an address (made-up names, or one name's password guessed)
# locks that address, or that name at that address, for minutes: a venue's director behind the
# same address would be locked out with the guesser. A browser that signed in to an account
# before carries a signed cookie naming it (set at that sign-in); a try for that account from
# that browser is checked against its own budget (AXES_FAILURE_LIMIT wrong passwords per
# AXES_COOLOFF_TIME) instead of the address's and axes' locks, so the right password still
# signs in. A guesser has no such cookie (it is signed with the site's secret and names the
# account), and a stolen one is spent after as many guesses as the address would allow.

DEVICE_COOKIE = "gibson_device"
DEVICE_SALT = "gibson.sign-in-device"
DEVICE_DAYS = 90
DEVICE_NAMES = 5  # the accounts one browser remembers (a shared laptop at the desk)


def _device_names(request: HttpRequest) -> list[str]:
    """The account names this browser signed in to before (its signed cookie), newest first."""
    value = request.COOKIES.get(DEVICE_COOKIE, "")
    if not value:
        return []
    try:
        names = signing.loads(value, salt=DEVICE_SALT, max_age=DEVICE_DAYS * 86400)
    except signing.BadSignature:
        return []
    if not isinstance(names, list):
        return []
    return [n for n in names if isinstance(n, str)][:DEVICE_NAMES]


def _device_key(request: HttpRequest, username: str) -> str:
    digest = hashlib.sha256(
        f"{request.COOKIES.get(DEVICE_COOKIE, '')}|{username.casefold()}".encode()
    ).hexdigest()[:32]
    return f"signin:device:{digest}"


def known_device(request: HttpRequest, username: Any) -> bool:
    """Whether this browser signed in to ``username`` before and has not since spent its own
    budget of wrong passwords for it (then it is a stranger again until the cool-off ends)."""
    name = str(username or "").strip().casefold()
    if not name or name not in _device_names(request):
        return False
    try:
        failures = int(cache.get(_device_key(request, name), 0))
    except Exception:  # noqa: BLE001 - a cache failure: the device's budget cannot be read
        return False
    return failures < settings.AXES_FAILURE_LIMIT


def _count_device_failure(request: HttpRequest, username: str) -> None:
    seconds = int(settings.AXES_COOLOFF_TIME.total_seconds())
    key = _device_key(request, username.casefold())
    try:
        cache.add(key, 0, timeout=seconds)
        cache.incr(key)
    except Exception:  # noqa: BLE001 - expired between add and incr, or the cache failed
        pass


def remember_device(
    sender: object, request: HttpRequest | None = None, user: Any = None, **kwargs: object
) -> None:
    """``user_logged_in`` receiver: a password sign-in (one ThrottledBackend saw) marks the
    browser as known for that account (the cookie is set on the way out, by the gate)."""
    if request is None or user is None or not getattr(request, "_sign_in_password", False):
        return  # not a password sign-in (a confirmed sign-up, an invite, a test's login)
    name = user.get_username().casefold()
    names = [name, *(n for n in _device_names(request) if n != name)][:DEVICE_NAMES]
    request._sign_in_device_names = names  # type: ignore[attr-defined]
    try:
        cache.delete(_device_key(request, name))
    except Exception:  # noqa: BLE001
        pass


def set_device_cookie(request: HttpRequest, response: HttpResponseBase) -> None:
    """Set the known-device cookie a sign-in asked for (remember_device)."""
    names = getattr(request, "_sign_in_device_names", None)
    if names:
        response.set_cookie(
            DEVICE_COOKIE,
            signing.dumps(names, salt=DEVICE_SALT),
            max_age=DEVICE_DAYS * 86400,
            secure=settings.SESSION_COOKIE_SECURE,
            httponly=True,
            samesite="Lax",
        )


def paced_try(request: HttpRequest, username: Any) -> bool:
    """Whether a try refused by a lock (the address's budget, or axes' name at this address)
    may still have its password checked: once per SIGN_IN_RETRY_SECONDS for a name at an
    address, counted from the name's first refused try there, and at most
    SIGN_IN_FAILURES_PER_BURST such checks per burst window for the whole address (a flood's
    password checks stay bounded). So the owner without a known browser waits a short delay,
    not the lock's minutes; a wrong password in such a try counts as any other (and where
    axes holds the name, is answered with its lock page)."""
    name = str(username or "").strip().casefold()
    if not name:
        return False
    if getattr(request, "_sign_in_paced", False):
        return True  # claimed already (the gate, then the backend, ask for one request)
    address = client_address(request) or "unknown"
    digest = hashlib.sha256(name.encode()).hexdigest()[:32]
    key = f"signin:paced:{address}:{digest}"
    delay = settings.SIGN_IN_RETRY_SECONDS
    now = time.time()
    try:
        since = cache.get(key)
        if not isinstance(since, (int, float)):
            cache.set(key, now, timeout=delay * 4 + 60)  # the first refused try starts the wait
            return False
        if now - since < delay:
            return False
        cache.set(key, now, timeout=delay * 4 + 60)  # the next one after another delay
        window = int(now // settings.SIGN_IN_BURST_SECONDS)
        cap = f"signin:paced-all:{address}:{window}"
        cache.add(cap, 0, timeout=settings.SIGN_IN_BURST_SECONDS * 2)
        if int(cache.incr(cap)) > settings.SIGN_IN_FAILURES_PER_BURST:
            return False
    except Exception:  # noqa: BLE001 - a cache failure: the lock decides
        return False
    request._sign_in_paced = True  # type: ignore[attr-defined]
    return True


class ThrottledBackend(AxesStandaloneBackend):
    """django-axes' check before the password check, for sign-ins that come with a request.

    Every sign-in page (this site's and the admin's) passes its request; a sign-in without
    one (a test client's login(), a script) has no address to throttle by, and goes on to
    the password check unthrottled instead of failing.
    """

    def authenticate(self, request, username=None, password=None, **kwargs):  # noqa: ANN001
        if request is None:
            return None
        request._sign_in_password = True  # type: ignore[attr-defined] # remember_device reads it
        if known_device(request, username):
            # the owner's browser: its own budget, not the address's or axes' locks (the
            # password is checked by ModelBackend next; a wrong one counts for this device)
            request._sign_in_device_try = str(username).strip()  # type: ignore[attr-defined]
            return None
        if sign_in_wait(request) and not paced_try(request, username):
            # made-up names from one address: axes counts per name and address, so each new
            # name started afresh (600 attempts over 200 names were never stopped)
            request.axes_locked_out = True
            raise AxesBackendPermissionDenied("too many failed sign-ins from this address")
        # Counted as a failure before the password is checked, given back if it signs in
        # (or axes refuses it): four tries at once all passed the check above and all hashed
        # a password when the count came after the check.
        _reserve(request)
        try:
            return super().authenticate(request, username=username, password=password, **kwargs)
        except AxesBackendPermissionDenied:
            if paced_try(request, username):
                # the name is locked at this address, and its short delay has passed: the
                # password is checked (a wrong one meets axes' lock again, as its answer)
                request.axes_locked_out = False  # type: ignore[attr-defined]
                return None
            release_sign_in(request)
            raise


# An address's budgets of wrong sign-ins, whatever the names: (setting of the count, seconds).
# The burst's and the minute's budgets bound a flood's password checks (each costs ~0.4 s of
# a core: 30 at once took public standings to a tenth of their rate, bench_web.py --abuse,
# and ten at once still to a third); the window's keeps the total per five minutes. The
# five-minute window stays last (failed_sign_ins reads it).
def _budgets() -> list[tuple[int, int]]:
    return [
        (settings.SIGN_IN_FAILURES_PER_BURST, settings.SIGN_IN_BURST_SECONDS),
        (settings.SIGN_IN_FAILURES_PER_MINUTE, 60),
        (settings.SIGN_IN_FAILURES_PER_ADDRESS, settings.SIGN_IN_WINDOW_SECONDS),
    ]


def _address_keys(request: HttpRequest, now: float) -> list[tuple[str, int, int, float]]:
    """(cache key, limit, window seconds, seconds to the window's end) for each budget."""
    address = client_address(request) or "unknown"
    keys = []
    for limit, seconds in _budgets():
        window = int(now // seconds)
        left = (window + 1) * seconds - now
        keys.append((f"signin:failed:{seconds}:{address}:{window}", limit, seconds, left))
    return keys


def failed_sign_ins(request: HttpRequest) -> int:
    """Failed sign-ins from this request's address in the current five-minute window (0 if
    the cache cannot say: a cache failure must not lock anyone out)."""
    key = _address_keys(request, time.time())[-1][0]
    try:
        return int(cache.get(key, 0))
    except Exception:  # noqa: BLE001 - any cache backend's failure
        return 0


def sign_in_wait(request: HttpRequest) -> int:
    """Seconds this address must wait before a sign-in is tried again (0: go ahead): until
    the end of the first window whose budget of failures it has spent. One cache read for
    both budgets (the gate asks this before the session or the form is read); 0 when the
    cache fails."""
    keys = _address_keys(request, time.time())
    try:
        counts = cache.get_many([k for k, *_ in keys])
    except Exception:  # noqa: BLE001
        return 0
    waits = [left for key, limit, _, left in keys if int(counts.get(key, 0)) >= limit]
    return math.ceil(max(waits)) if waits else 0


def sign_in_refusal_text(wait: int) -> str:
    """What a refused sign-in from a flooding address is told."""
    return gettext(
        "Too many wrong sign-ins from your address: at most {burst} in {burst_seconds} "
        "seconds, {per_minute} a minute and {per_address} in {window_minutes} minutes, "
        "whatever the names. Try again in {wait} seconds (your own name: in {retry} seconds)."
    ).format(
        burst=settings.SIGN_IN_FAILURES_PER_BURST,
        burst_seconds=settings.SIGN_IN_BURST_SECONDS,
        per_minute=settings.SIGN_IN_FAILURES_PER_MINUTE,
        per_address=settings.SIGN_IN_FAILURES_PER_ADDRESS,
        window_minutes=settings.SIGN_IN_WINDOW_SECONDS // 60,
        wait=wait,
        retry=settings.SIGN_IN_RETRY_SECONDS,
    )


def _add(keys: list[tuple[str, int]], delta: int) -> None:
    for key, seconds in keys:
        try:
            cache.add(key, 0, timeout=seconds * 2)
            cache.incr(key, delta)
        except Exception:  # noqa: BLE001 - expired between add and incr, or the cache failed
            pass


def _reserve(request: HttpRequest) -> None:
    """Count this try as a failure of its address now (its keys kept on the request, so the
    give-back hits the same windows)."""
    keys = [(key, seconds) for key, _, seconds, _ in _address_keys(request, time.time())]
    request._sign_in_reserved = keys  # type: ignore[attr-defined]
    _add(keys, 1)


def release_sign_in(request: HttpRequest | None = None, **kwargs: object) -> None:
    """Give back a try counted in advance: it signed in (``user_logged_in`` receiver) or no
    password was checked. Nothing when none was counted (a sign-in by other means)."""
    keys = getattr(request, "_sign_in_reserved", None)
    if keys:
        request._sign_in_reserved = None  # type: ignore[union-attr]
        _add(keys, -1)


def count_failed_sign_in(
    sender: object, credentials: dict, request: HttpRequest | None = None, **kwargs: object
) -> None:
    """``user_login_failed`` receiver (connected in TournamentConfig.ready): one more failure
    for the address, whichever name it tried (already counted when ThrottledBackend saw it
    first). A try refused because its name or address is already locked, or the one that
    just locked its name (axes), does not count (a colleague at the same venue address still
    signs in while one name is locked)."""
    if request is None:
        return
    device_try = getattr(request, "_sign_in_device_try", None)
    if device_try:
        _count_device_failure(request, device_try)  # the device's budget, not the address's
        # axes (whose receiver ran first) may have marked the name locked at this address:
        # that lock is for strangers; this browser gets the form again until its own is spent
        request.axes_locked_out = False  # type: ignore[attr-defined]
        return
    if getattr(request, "axes_locked_out", False):
        release_sign_in(request)
        return
    if getattr(request, "_sign_in_reserved", None):
        request._sign_in_reserved = None  # type: ignore[attr-defined]
        return  # counted before the password check
    _add([(key, seconds) for key, _, seconds, _ in _address_keys(request, time.time())], 1)


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


def _sign_up_key(request: HttpRequest) -> str:
    address = client_address(request) or "unknown"
    window = int(time.time() // settings.SIGN_IN_WINDOW_SECONDS)
    return f"signup:{address}:{window}"


def sign_ups_from(request: HttpRequest) -> int:
    """Sign-ups from this request's address in the current window (0 if the cache fails)."""
    try:
        return int(cache.get(_sign_up_key(request), 0))
    except Exception:  # noqa: BLE001 - any cache backend's failure
        return 0


def _count_sign_up(request: HttpRequest) -> None:
    key = _sign_up_key(request)
    try:
        cache.add(key, 0, timeout=settings.SIGN_IN_WINDOW_SECONDS * 2)
        cache.incr(key)
    except Exception:  # noqa: BLE001 - expired between add and incr, or the cache failed
        pass


def next_page(request: HttpRequest) -> str:
    """The ``next`` path the request carries (form field, else query), if it is a page of this
    site: a full address, another host or a scheme is dropped, so no link of ours sends a
    newcomer elsewhere after confirming."""
    wanted = request.POST.get("next") or request.GET.get("next") or ""
    if not wanted.startswith("/") or not url_has_allowed_host_and_scheme(
        wanted, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return ""
    return wanted


def _with_next(url: str, wanted: str) -> str:
    return f"{url}?{urlencode({'next': wanted})}" if wanted else url


def _sign_up_page(request: HttpRequest, form: SignUpForm, status: int = 200) -> HttpResponse:
    return render(
        request,
        "accounts/signup.html",
        {"form": form, "days": confirm_days(), "next": next_page(request)},
        status=status,
    )


@require_http_methods(["GET", "HEAD", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    """/accounts/signup/: a new inactive account and its confirmation mail; 429 once the
    address has signed up SIGN_UPS_PER_ADDRESS times in the window (nothing made or sent)."""
    if request.method != "POST":
        return _sign_up_page(request, SignUpForm())
    form = SignUpForm(request.POST)
    if sign_ups_from(request) >= settings.SIGN_UPS_PER_ADDRESS:
        form.is_valid()
        form.add_error(None, "too many sign-ups from this address: try again in a few minutes")
        response = _sign_up_page(request, form, 429)
        response["Retry-After"] = str(settings.SIGN_IN_WINDOW_SECONDS)
        return response
    if form.is_valid():
        data = form.cleaned_data
        try:
            made = sign_up(
                username=data["username"],
                email=data["email"],
                password=data["password"],
                site=request.build_absolute_uri("/").rstrip("/"),
                next_page=next_page(request),
            )
        except ServiceError as exc:
            refuse(form, exc)
        else:
            _count_sign_up(request)
            # the service queued the link (or, for an address that has an account, the
            # owner's note: the same answer here) and it was sent after the commit
            made.mail.refresh_from_db()
            if made.mail.state == Notice.State.FAILED:
                messages.warning(
                    request,
                    gettext_lazy(
                        "Our mail server is not answering just now: the mail will follow as "
                        "soon as it is back."
                    ),
                )
            return redirect("accounts:signup_sent")
    return _sign_up_page(request, form, 400)


RESEND_SECONDS = 300  # one "send the link again" per address typed in this time


@require_http_methods(["GET", "HEAD", "POST"])
def signup_sent(request: HttpRequest) -> HttpResponse:
    """ "Check your email", with "Send the link again": a POST with the address resends the
    confirmation of an account awaiting it. The answer is the same whether there is one (no
    way to learn whose address signed up); one resend per address each RESEND_SECONDS, and
    each counts as a sign-up from the client's address."""
    context: dict[str, Any] = {}
    status = 200
    if request.method == "POST":
        address = " ".join(str(request.POST.get("email", "")).split())[:254]
        context["resend_email"] = address
        digest = hashlib.sha256(address.lower().encode("utf-8", "replace")).hexdigest()[:24]
        if not address or "@" not in address:
            context["resend_error"], status = "Type the e-mail address you signed up with.", 400
        else:
            try:
                fresh = cache.add("signup:resend:" + digest, 1, timeout=RESEND_SECONDS)
            except Exception:  # noqa: BLE001 - a cache down: the client's own count holds
                fresh = True
            if not fresh or sign_ups_from(request) >= settings.SIGN_UPS_PER_ADDRESS:
                context["resend_error"] = (
                    "A link was sent again to that address a moment ago: wait a few minutes "
                    "for it before asking once more."
                )
                status = 429
            else:
                _count_sign_up(request)
                try:
                    resend_sign_up(address)
                except ServiceError as exc:
                    context["resend_error"], status = exc.message, 400
                else:
                    context["resent"] = True
    response = render(request, "accounts/signup_sent.html", context, status=status)
    if status == 429:
        response["Retry-After"] = str(RESEND_SECONDS)
    return response


@require_http_methods(["GET", "HEAD", "POST"])
def signup_confirm(request: HttpRequest, token: str) -> HttpResponse:
    """The mailed link: a button confirms (a GET changes nothing); confirming signs in, and
    goes on to the link's ``next`` page when it has one."""
    wanted = next_page(request)
    context = {
        "heading": gettext_lazy("Confirm your e-mail address"),
        "token": token,
        "next": wanted,
        "action": _with_next(reverse("accounts:signup_confirm", args=[token]), wanted),
    }
    if request.method != "POST":
        return render(request, "accounts/signup_confirm.html", context)
    try:
        user = confirm_sign_up(token)
    except ServiceError as exc:
        context["error"] = exc.message
        return render(request, "accounts/signup_confirm.html", context, status=400)
    login(request, user, backend="django.contrib.auth.backends.ModelBackend")
    if wanted:
        messages.success(request, gettext_lazy("Your address is confirmed and you are signed in."))
        return redirect(wanted)
    return redirect("accounts:signup_done")


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
            extra_context={"heading": gettext_lazy("Change your password")},
        ),
        name="password_change",
    ),
    path(
        "password/done/",
        auth_views.PasswordChangeDoneView.as_view(
            template_name="accounts/done.html",
            extra_context={
                "heading": gettext_lazy("Password changed"),
                "text": gettext_lazy("Your new password is set."),
            },
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
            extra_context={"heading": gettext_lazy("Reset your password")},
        ),
        name="password_reset",
    ),
    path(
        "reset/sent/",
        auth_views.PasswordResetDoneView.as_view(
            template_name="accounts/done.html",
            extra_context={
                "heading": gettext_lazy("Check your email"),
                "text": gettext_lazy(
                    "If an account has that address, a link to set a new password is on its way."
                ),
            },
        ),
        name="reset_sent",
    ),
    path(
        "reset/<uidb64>/<token>/",
        auth_views.PasswordResetConfirmView.as_view(
            template_name="accounts/form.html",
            success_url=reverse_lazy("accounts:reset_done"),
            extra_context={"heading": gettext_lazy("Choose a new password")},
        ),
        name="password_reset_confirm",
    ),
    path(
        "reset/done/",
        auth_views.PasswordResetCompleteView.as_view(
            template_name="accounts/done.html",
            extra_context={
                "heading": gettext_lazy("Password set"),
                "text": gettext_lazy("You can sign in with it now."),
            },
        ),
        name="reset_done",
    ),
    path("signup/", signup, name="signup"),
    path("signup/sent/", signup_sent, name="signup_sent"),
    path("signup/confirm/<str:token>/", signup_confirm, name="signup_confirm"),
    path(
        "signup/done/",
        TemplateView.as_view(
            template_name="accounts/signed_up.html",
            extra_context={"heading": gettext_lazy("Your account is ready")},
        ),
        name="signup_done",
    ),
    # A one-time sign-up link for a co-director or scorekeeper (console staff page).
    path("invite/<str:token>/", accept_invite, name="invite"),
]
