"""``/docs/``: the manual, built from docs/ by ``manage.py build_manual`` (serve and serve_demo
build it at start).

A director at a venue without internet reads the manual from the laptop that runs the event,
so the site serves the built pages itself: read-only files under ``settings.MANUAL_DIR``,
no sign-in, no database. A folder answers with its ``index.html`` (MkDocs' page URLs end in
``/``, and its relative links need that slash, so ``/docs/venue`` redirects to
``/docs/venue/``). A path outside the folder, or a file it does not hold, is the manual's own
404 page. The pages are MkDocs-material's, whose small inline scripts (the theme's settings,
search) carry no nonce: this view alone lets inline scripts run; the pages hold nothing a
visitor wrote.
"""

from __future__ import annotations

import mimetypes
from pathlib import Path

from csp.decorators import csp_replace
from django.conf import settings
from django.core.exceptions import SuspiciousFileOperation
from django.http import (
    FileResponse,
    HttpRequest,
    HttpResponse,
    HttpResponseNotFound,
    HttpResponseRedirect,
)
from django.utils._os import safe_join
from django.views.decorators.http import require_safe

NOT_BUILT = (
    "The manual is not built on this site. Build it with: manage.py build_manual "
    "(serve and serve_demo build it at start). Its pages are also docs/ in the repository.\n"
)


def _file(root: Path, path: str) -> Path | None:
    """The file under ``root`` that ``path`` names (a folder's index.html), or None."""
    try:
        target = Path(safe_join(root, path))
    except SuspiciousFileOperation:
        return None
    if target.is_dir():
        target = target / "index.html"
    return target if target.is_file() else None


@require_safe
@csp_replace({"script-src": ["'self'", "'unsafe-inline'"]})
def manual(request: HttpRequest, path: str = "") -> HttpResponse:
    """One file of the built manual."""
    root = Path(settings.MANUAL_DIR)
    if not (root / "index.html").is_file():
        return HttpResponseNotFound(NOT_BUILT, content_type="text/plain; charset=utf-8")
    found = _file(root, path)
    if found is None:
        missing = root / "404.html"
        body = missing.read_bytes() if missing.is_file() else b"Not found\n"
        return HttpResponseNotFound(body, content_type="text/html; charset=utf-8")
    if found.name == "index.html" and path and not path.endswith(("/", "index.html")):
        return HttpResponseRedirect(f"{request.path}/")
    kind, encoding = mimetypes.guess_type(found.name)
    response = FileResponse(found.open("rb"), content_type=kind or "application/octet-stream")
    if encoding:
        response.headers["Content-Encoding"] = encoding
    response.headers["Cache-Control"] = "public, max-age=300"
    return response
