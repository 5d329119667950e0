"""Refusals: one place for the web face.

A service refuses a change by raising ``ServiceError`` (nothing was written). The web face
answers it here, once, instead of in a hand-written ``except ServiceError`` block per view:
``RefusalMiddleware`` catches any refusal a view lets through and answers

- a script (``wants_json``): JSON ``{"ok": false, "code": ..., "error": message}``;
- an htmx request: a small ``role="alert"`` fragment sent to the page's refusal region
  (``#refusal`` in base.html, by ``HX-Retarget``), where the person sees and hears it;
- a page: the site's refusal page with the message and a way back, in the page's language;

each with the status of the refusal's code (``tournament.refusals.refusal_status``: 404 not
found, 403 not allowed, 409 not now, else 400). The other faces have their one place too: the
API's exception handler (``tournament/api/errors.py``) and the commands' base
(``tournament/management/base.py``).

A view that must show the page again with the form as the person typed it (a director's
console form) keeps one short block and puts the message at its field with
``tournament.refusals.refuse`` (below the faces, so the admin's forms use it too).
"""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse, HttpResponseBase, JsonResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from tournament.errors import ServiceError
from tournament.refusals import refusal_status

from .errors import wants_json

# the page-level region base.html keeps for refusals answered to an htmx request
REGION = "#refusal"


# the refusal page's heading for each status class; any other status is bad input
HEADINGS = {
    404: gettext_lazy("Not found"),
    403: gettext_lazy("Not allowed"),
    409: gettext_lazy("Not possible now"),
    429: gettext_lazy("Too many attempts"),
    503: gettext_lazy("The database is busy"),
    507: gettext_lazy("The server's disk is full"),
}


def heading(status: int) -> str:
    """The refusal page's heading for a status class."""
    return str(HEADINGS.get(status, _("That did not work")))


def back_link(request: HttpRequest) -> str:
    """Where "back" goes: the page the person came from (the Referer, when it is this site's),
    else the home page."""
    came_from = request.headers.get("Referer", "")
    if came_from and url_has_allowed_host_and_scheme(
        came_from, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return came_from
    return reverse("public:home")


def refusal_response(request: HttpRequest, exc: ServiceError) -> HttpResponse:
    """The web face's answer to a refusal: JSON for a script, an alert fragment for htmx, the
    refusal page for a person; the status from the code."""
    status = refusal_status(exc.code)
    message = exc.message
    response: HttpResponse
    if wants_json(request):
        body = {"ok": False, "code": exc.code, "error": message}
        response = JsonResponse(body, status=status)
    elif getattr(request, "htmx", False):
        context = {"heading": heading(status), "message": message}
        response = render(request, "tournament/_refusal.html", context, status=status)
        response["HX-Retarget"] = REGION
        response["HX-Reswap"] = "innerHTML show:top"
        # refusals.js swaps a refusal whatever its status (base.html swaps only 2xx and 400)
        response["Gibson-Refusal"] = exc.code
    else:
        context = {
            "heading": heading(status),
            "message": message,
            "back": back_link(request),
        }
        response = render(request, "tournament/refusal.html", context, status=status)
    if status == 503:
        response["Retry-After"] = "5"
    return response


class RefusalMiddleware:
    """Any refusal a view lets through is answered here (see the module's docstring)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if isinstance(exception, ServiceError):
            return refusal_response(request, exception)
        return None
