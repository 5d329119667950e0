"""/console/api-token/: a signed-in user issues and revokes their API token.

The key is shown once, on the page answering the POST that issued it, and never again: the
page only says when the current token was issued. Scripts send it as
``Authorization: Token KEY`` (docs/api.md).
"""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import URLPattern, path
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods

from ...services.api_tokens import api_token_created, issue_api_token, revoke_api_token


@never_cache
@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def api_token(request: HttpRequest) -> HttpResponse:
    key = None
    revoked = False
    if request.method == "POST":
        action = request.POST.get("action", "")
        if action == "issue":
            key = issue_api_token(request.user)
        elif action == "revoke":
            revoked = revoke_api_token(request.user)
        else:
            return render(
                request,
                "console/api_token.html",
                {"created": api_token_created(request.user), "error": _("choose issue or revoke")},
                status=400,
            )
    context = {"key": key, "revoked": revoked, "created": api_token_created(request.user)}
    return render(request, "console/api_token.html", context)


urlpatterns: list[URLPattern] = [path("", api_token, name="api_token")]
