"""Log records never carry a link's secret token.

A player's self-entry link (``/e/TOKEN/``), an online entry's own page and its confirmation
(``/entry/TOKEN/``, ``/entry/confirm/TOKEN/``), a notices unsubscribe link, a sign-up's
confirmation, a staff invite, a club's join link, a weekend's confirmation and a password
reset each let whoever holds the URL act as its owner. Django logs every 4xx answer with its
path ("Bad Request: /e/TOKEN/report/") and the development server every request line, and a
server log is read by more people than the director. This filter, on every handler the site
configures (settings.LOGGING), replaces the token in a record's message and arguments with
``<link>`` (``/e/<link>/report/``) before it is written.
"""

from __future__ import annotations

import logging
import re

_SEGMENT = r"[^/\s?#\"'<>]+"
# The token-bearing routes (tournament/web/urls.py and the apps' url lists), up to the token:
# "keep" is written as it is, "token" is hidden. A route starts a path: at the start of the
# text, after a space, a quote or a parenthesis, or after an absolute URL's host.
LINK = re.compile(
    r"(?P<lead>^|[\s\"'(=]|://[^/\s\"']+)"
    r"(?P<keep>/(?:"
    r"e"
    r"|entry/confirm"
    r"|entry(?!/confirm/)"
    r"|notices/unsubscribe"
    r"|accounts/signup/confirm"
    r"|accounts/invite"
    rf"|accounts/reset/{_SEGMENT}"
    r"|clubs/join"
    rf"|weekends/{_SEGMENT}/confirm"
    r")/)"
    rf"(?!<link>|set-password/)(?P<token>{_SEGMENT})"
)
HIDDEN = "<link>"


def hide_links(value: object) -> object:
    """``value`` with every link's token hidden (other values pass unchanged)."""
    if isinstance(value, str):
        return LINK.sub(lambda m: m.group("lead") + m.group("keep") + HIDDEN, value)
    return value


class HideSelfEntryLinks(logging.Filter):
    """Hides every link's token (the name is older than the other links it now covers)."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.msg = hide_links(record.msg)
        if isinstance(record.args, tuple):
            record.args = tuple(hide_links(a) for a in record.args)
        elif isinstance(record.args, dict):
            record.args = {k: hide_links(v) for k, v in record.args.items()}
        request = getattr(record, "request", None)
        path = getattr(request, "path", "") if request is not None else ""
        if isinstance(path, str) and LINK.search(path):
            record.request = None  # the request's repr would name the path again
        return True
