"""Log records never carry a player's self-entry link, nor an online entry's own or
confirmation link (``/entry/TOKEN/``, ``/entry/confirm/TOKEN/``, a weekend form's).

The link's token (``/e/TOKEN/``) is the only thing that lets a player report their results;
Django logs every 4xx answer with its path ("Bad Request: /e/TOKEN/report/"), and a server log
is read by more people than the director. This filter, on every handler, replaces the token
in a record's message and arguments with ``/e/<link>/`` before it is written.
"""

from __future__ import annotations

import logging
import re

# the secret links: a self-entry page, an online entrant's own page and the mailed
# confirmations (an entry's, a weekend form's), whose token confirms an entry for a player
LINK = re.compile(r"(/e/|/entry/(?:confirm/)?|/weekends/[\w-]+/confirm/)[A-Za-z0-9_-]{16,}")
HIDDEN = r"\1<link>"


def hide_links(value: object) -> object:
    """``value`` with every secret link's token hidden (other values pass unchanged)."""
    if isinstance(value, str):
        return LINK.sub(HIDDEN, value)
    return value


class HideSelfEntryLinks(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        record.msg = hide_links(record.msg)
        if isinstance(record.args, tuple):
            record.args = tuple(hide_links(a) for a in record.args)
        elif isinstance(record.args, dict):
            record.args = {k: hide_links(v) for k, v in record.args.items()}
        request = getattr(record, "request", None)
        if request is not None and LINK.search(getattr(request, "path", "") or ""):
            record.request = None  # the request's repr would name the path again
        return True
