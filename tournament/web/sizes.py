"""Requests bigger than any upload the site takes are refused before their body is read.

A 147 MB request took a worker to 1,143 MiB: Django reads a form's body when CSRF
protection looks for its token, before any view can check a size. This middleware, first
after SecurityMiddleware, answers 413 from the declared Content-Length alone, naming the
limit (``GIBSON_MAX_UPLOAD_MB``, the bytes of one upload with all its files, plus room for
the form's other fields).
"""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseBase, JsonResponse
from django.utils import translation
from django.utils.translation import gettext as _

from .language import early_language

# A form's other fields and the multipart boundaries around its files.
FORM_ROOM = 256 * 1024


def max_request_bytes() -> int:
    return settings.MAX_UPLOAD_MB * 1024 * 1024 + FORM_ROOM


class RequestSizeMiddleware:
    """413 for a declared body over ``max_request_bytes()``; nothing of it is read."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        raw = request.META.get("CONTENT_LENGTH") or "0"
        size = int(raw) if raw.isascii() and raw.isdigit() else 0
        if size > max_request_bytes():
            # before the language middleware: the visitor's choice or browser, read here
            with translation.override(early_language(request)):
                message = _(
                    "the request is {size} bytes; uploads are limited to {limit} MB in all "
                    "(GIBSON_MAX_UPLOAD_MB): nothing was read"
                ).format(size=size, limit=settings.MAX_UPLOAD_MB)
            if request.path.startswith("/api/"):
                body = {"code": "upload_too_large", "field": "", "message": message}
                response: HttpResponse = JsonResponse({"errors": [{**body, "params": {}}]})
                response.status_code = 413
            else:
                response = HttpResponse(message, status=413, content_type="text/plain")
            response["Connection"] = "close"  # the unread body is not waited for
            return response
        return self.get_response(request)
