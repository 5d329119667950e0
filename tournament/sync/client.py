"""The venue's HTTP calls to its hosted site: download, push a batch, hand back.

Plain urllib (no new dependency): JSON in and out, the link's token in the Authorization
header (``Venue <token>``), a timeout short enough that a dead link fails fast. Every failure
becomes a ServiceError: ``venue_unreachable`` (no answer: try again later, nothing is lost)
or ``venue_refused`` (the hosted site answered no; its code and words are kept).
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

from ..errors import ServiceError

TIMEOUT = 30.0


def _call(base: str, path: str, token: str, body: Any = None) -> dict[str, Any]:
    url = base.rstrip("/") + "/api/v1/venue/" + path
    data = None if body is None else json.dumps(body, separators=(",", ":")).encode()
    request = urllib.request.Request(
        url,
        data=data,
        method="GET" if body is None else "POST",
        headers={
            "Authorization": f"Venue {token}",
            "Content-Type": "application/json",
            "Accept": "application/json",
        },
    )
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT) as answer:  # noqa: S310 - the director's URL
            return json.loads(answer.read() or b"{}")
    except urllib.error.HTTPError as exc:
        try:
            errors = json.loads(exc.read() or b"{}").get("errors") or [{}]
        except ValueError:
            errors = [{}]
        first = errors[0] if isinstance(errors, list) and errors else {}
        raise ServiceError(
            "venue_refused",
            url=base,
            detail=first.get("message") or f"HTTP {exc.code}",
            remote=first.get("code") or f"http_{exc.code}",
            remote_params=first.get("params") or {},
        ) from exc
    except (urllib.error.URLError, TimeoutError, ConnectionError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise ServiceError("venue_unreachable", url=base, detail=str(reason)) from exc
    except ValueError as exc:
        raise ServiceError("venue_unreachable", url=base, detail=f"not JSON: {exc}") from exc


def fetch_state(base: str, token: str) -> dict[str, Any]:
    return _call(base, "state/", token)


def push_batch(base: str, token: str, batch: dict[str, Any]) -> dict[str, Any]:
    return _call(base, "push/", token, batch)


def release(base: str, token: str) -> dict[str, Any]:
    return _call(base, "release/", token, {})


def fetch_inbox(base: str, token: str) -> dict[str, Any]:
    return _call(base, "inbox/", token)


def settle_inbox(base: str, token: str, answers: dict[str, Any]) -> dict[str, Any]:
    return _call(base, "inbox/", token, answers)
