"""``{% live_stream tournament %}``: the script that keeps a public page live through the stream.

It writes ``<script src=live.js data-live=STREAM data-path=/t/SLUG/live/ data-since=ID>``:
a static file (no inline script, so no nonce; the page may be cached whole and served to
anyone) naming where the stream is (``GIBSON_STREAM_URL``) and the last write the page was
built at, so a write made between the build and the stream's opening is sent too. Without a
stream configured it writes nothing and the page polls as before.
"""

from __future__ import annotations

from typing import Any

from django import template
from django.conf import settings
from django.templatetags.static import static
from django.utils.html import format_html

from ..selectors.live import last_change_id

register = template.Library()


@register.simple_tag
def live_stream(tournament: Any) -> str:
    base = settings.GIBSON_STREAM_URL
    if not base or tournament is None or not getattr(tournament, "published", False):
        return ""
    return format_html(
        '<script src="{}" defer data-live="{}" data-path="/t/{}/live/" data-since="{}"></script>',
        static("tournament/live.js"),
        base,
        tournament.slug,
        last_change_id(tournament.pk),
    )
