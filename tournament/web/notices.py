"""The unsubscribe link of every notice e-mail: /notices/unsubscribe/TOKEN/.

A GET only asks ("Stop e-mail notices of TOURNAMENT for NAME?"): mail scanners and link
previews open links, and must not unsubscribe anyone. A POST unsubscribes and says so; a second
POST says the same. The token is the only credential (an HMAC of the subscription's salt with
the site's secret key; tournament.services.notices), so CSRF protection adds nothing here and
would break the one-click unsubscribe mail programs send from the ``List-Unsubscribe-Post``
header (RFC 8058): the view is exempt. An unknown token is a plain 404. The page never shows the
e-mail address, and is private (no-store, no referrer to other sites).
"""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import URLPattern, path
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods

from ..selectors import subscription_by_token
from ..services.notices import unsubscribe as unsubscribe_service


def _private(response: HttpResponse) -> HttpResponse:
    response["Cache-Control"] = "private, no-store"
    response["Referrer-Policy"] = "same-origin"
    response["X-Robots-Tag"] = "noindex, nofollow"
    return response


@csrf_exempt
@require_http_methods(["GET", "HEAD", "POST"])
def unsubscribe(request: HttpRequest, token: str) -> HttpResponse:
    """Ask (GET), or stop the notices (POST)."""
    subscription = subscription_by_token(token)
    if subscription is None:
        raise Http404("no such link")
    done = False
    if request.method == "POST":
        # a link gone meanwhile: notice_unknown_link, RefusalMiddleware's 404 page
        subscription = unsubscribe_service(token)
        done = True
    context = {
        "tournament": subscription.tournament,
        "player": subscription.player,
        "active": subscription.active,
        "done": done,
        "token": token,
    }
    return _private(render(request, "notices/unsubscribe.html", context))


urlpatterns: list[URLPattern] = [
    path("unsubscribe/<str:token>/", unsubscribe, name="unsubscribe"),
]
