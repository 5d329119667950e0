"""``{% live_strip tournament division %}``: the announcement and round clock on a public page.

A tag rather than a view's context, so a page shows the strip by one line in its template
(the public pages are edited by several hands). The pages are cached whole per version: the
strip is written as of the build, with the clock's end as a time of day (right until the
next change, which makes a new version) and no server time, and htmx fetches the fresh strip
with the countdown (tournament.web.venue.live_strip) once the page is open.
"""

from __future__ import annotations

from typing import Any

from django import template

from ..web.venue import strip_context

register = template.Library()


@register.inclusion_tag("venue/strip_tag.html")
def live_strip(tournament: Any, division: Any = None) -> dict[str, Any]:
    slug = getattr(division, "slug", division) or None
    return strip_context(tournament, slug, fresh=False)
