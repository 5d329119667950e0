"""Every API refusal in one shape: ``{"errors": [{"code", "field", "message", "params"}]}``.

Codes are keys of ``tournament.errors.CODES`` (a service's own refusal keeps its
code; DRF's errors get the API's codes under ``# api``), so a client branches on ``code`` and
shows ``message``. Nothing here returns HTML: a client's mistake is a 4xx, a busy or
unreachable database a 503 (``database_busy``, ``database_unavailable``), a full disk a 507
(``disk_full``), a bug a 500
(``server_error``, logged with its traceback), each in the same shape.
"""

from __future__ import annotations

import logging
from typing import Any

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.db import InterfaceError, OperationalError
from django.http import Http404
from rest_framework import exceptions, status
from rest_framework.response import Response

from tournament.errors import CODES, ServiceError

from ..dbhealth import is_database_busy, is_disk_full

log = logging.getLogger(__name__)

# DRF's field error codes -> ours; anything else a field refuses is a wrong value type.
FIELD_CODES = {
    "required": "field_required",
    "null": "wrong_type",
    "invalid": "wrong_type",
    "unknown_field": "unknown_field",
}


def error(code: str, field: str = "", **params: str | int) -> dict[str, Any]:
    """One error entry, worded by CODES like a service refusal (ServiceError.as_dict)."""
    return {"code": code, "field": field, "message": CODES[code].format(**params), "params": params}


def body(*errors: dict[str, Any]) -> dict[str, Any]:
    return {"errors": list(errors)}


def _field_errors(detail: Any, prefix: str = "") -> list[dict[str, Any]]:
    """Flatten a ValidationError's detail (dicts, lists, ErrorDetail) into error entries."""
    out: list[dict[str, Any]] = []
    if isinstance(detail, dict):
        for key, value in detail.items():
            name = "" if key in ("non_field_errors", "__all__") else str(key)
            out += _field_errors(value, f"{prefix}.{name}" if prefix and name else name or prefix)
    elif isinstance(detail, list):
        for item in detail:
            out += _field_errors(item, prefix)
    else:
        drf_code = getattr(detail, "code", "invalid")
        code = FIELD_CODES.get(drf_code, "wrong_type")
        name = prefix or "body"
        if code == "unknown_field":
            out.append(error(code, prefix, name=name, allowed=str(detail)))
        elif code == "field_required":
            out.append(error(code, prefix, name=name))
        else:
            out.append(error(code, prefix, name=name, detail=str(detail)))
    return out


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """DRF's EXCEPTION_HANDLER: map every refusal to the one error shape."""
    if isinstance(exc, ServiceError):
        entry = exc.as_dict()
        if entry["field"] == "line":  # the console's one-line entry; the API has fields
            entry["field"] = ""
        return Response(body(entry), status=status.HTTP_400_BAD_REQUEST)
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, DjangoPermissionDenied):
        exc = exceptions.PermissionDenied()
    if is_disk_full(exc):
        # no retry mends it: the client's person tells whoever runs the server
        log.error("API: the server's disk is full (%s)", exc)
        return Response(body(error("disk_full")), status=507)
    if isinstance(exc, (OperationalError, InterfaceError)):
        # a busy SQLite, a PostgreSQL restarting: nothing was written; the client may retry
        # (other database errors are bugs: the 500 below, logged)
        code = "database_busy" if is_database_busy(exc) else "database_unavailable"
        log.warning("API: %s (%s)", code, exc)
        return Response(body(error(code)), status=503, headers={"Retry-After": "5"})
    if not isinstance(exc, exceptions.APIException):
        # a real bug: logged with its traceback, answered in the API's shape (never HTML)
        log.error("API: unexpected error", exc_info=exc)
        return Response(body(error("server_error")), status=500)
    headers: dict[str, str] = {}
    if getattr(exc, "auth_header", None):
        headers["WWW-Authenticate"] = exc.auth_header
    if getattr(exc, "wait", None) is not None:
        headers["Retry-After"] = str(int(exc.wait))
    code_status = exc.status_code
    if isinstance(exc, exceptions.ParseError):
        entries = [error("malformed_json", detail=str(exc.detail))]
    elif isinstance(exc, (exceptions.NotAuthenticated, exceptions.AuthenticationFailed)):
        entries = [error("not_authenticated")]
    elif isinstance(exc, exceptions.PermissionDenied):
        entries = [error("permission_denied", detail=str(exc.detail))]
    elif isinstance(exc, exceptions.NotFound):
        entries = [error("not_found", detail=str(exc.detail))]
    elif isinstance(exc, exceptions.Throttled):
        entries = [error("throttled", wait=int(exc.wait or 1))]
    elif isinstance(exc, exceptions.MethodNotAllowed):
        method = context["request"].method if context.get("request") else ""
        entries = [error("method_not_allowed", method=method)]
    elif isinstance(exc, exceptions.UnsupportedMediaType):
        request = context.get("request")
        media = request.content_type if request is not None else ""
        entries = [error("unsupported_media_type", media_type=media)]
    elif isinstance(exc, exceptions.NotAcceptable):
        entries = [error("not_acceptable")]
    elif isinstance(exc, exceptions.ValidationError):
        entries = _field_errors(exc.detail) or [error("bad_request", detail="invalid request")]
    else:
        entries = [error("bad_request", detail=str(exc.detail))]
    return Response(body(*entries), status=code_status, headers=headers)
