"""iCalendar (RFC 5545) for the events calendar: one VEVENT per event, all-day dates.

Written here rather than by a library: the subset is small (text escaping, line folding at
75 octets, all-day dates whose end is the day after the last) and the suite checks the result
with a real parser (``icalendar`` from PyPI, a dev dependency).
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable
from dataclasses import dataclass

PRODID = "-//Gibson//Events calendar//EN"


@dataclass(frozen=True)
class CalendarEntry:
    uid: str
    name: str
    start: datetime.date
    end: datetime.date | None  # the last day played (inclusive); None: a one-day event
    stamp: datetime.datetime  # when the entry was made (UTC), RFC 5545's DTSTAMP
    location: str = ""
    description: str = ""
    url: str = ""
    status: str = "CONFIRMED"


def escape_text(text: str) -> str:
    """A TEXT value: backslash, semicolon, comma and newline escaped (RFC 5545 3.3.11)."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = "".join(ch for ch in text if ch == "\n" or ch == "\t" or ord(ch) >= 32)
    return text.replace("\\", "\\\\").replace(";", "\\;").replace(",", "\\,").replace("\n", "\\n")


def fold(line: str) -> str:
    """A content line cut into lines of at most 75 octets, each further one starting with a
    space (never inside a UTF-8 character)."""
    out: list[str] = []
    current = ""
    size = 0
    limit = 75
    for ch in line:
        n = len(ch.encode("utf-8"))
        if size + n > limit:
            out.append(current)
            current, size, limit = " ", 1, 75
        current += ch
        size += n
    out.append(current)
    return "\r\n".join(out)


def _date(d: datetime.date) -> str:
    return d.strftime("%Y%m%d")


def _stamp(t: datetime.datetime) -> str:
    if t.tzinfo is not None:
        t = t.astimezone(datetime.UTC)
    return t.strftime("%Y%m%dT%H%M%SZ")


def write_calendar(entries: Iterable[CalendarEntry], name: str = "Events") -> str:
    """The whole VCALENDAR, CRLF line ends, as RFC 5545 asks."""
    lines = [
        "BEGIN:VCALENDAR",
        "VERSION:2.0",
        f"PRODID:{PRODID}",
        "CALSCALE:GREGORIAN",
        "METHOD:PUBLISH",
        f"X-WR-CALNAME:{escape_text(name)}",
    ]
    for e in entries:
        last = e.end if e.end is not None and e.end >= e.start else e.start
        lines += [
            "BEGIN:VEVENT",
            f"UID:{escape_text(e.uid)}",
            f"DTSTAMP:{_stamp(e.stamp)}",
            f"DTSTART;VALUE=DATE:{_date(e.start)}",
            f"DTEND;VALUE=DATE:{_date(last + datetime.timedelta(days=1))}",
            f"SUMMARY:{escape_text(e.name)}",
            f"STATUS:{e.status}",
        ]
        if e.location:
            lines.append(f"LOCATION:{escape_text(e.location)}")
        if e.description:
            lines.append(f"DESCRIPTION:{escape_text(e.description)}")
        if e.url:
            lines.append(f"URL:{e.url}")
        lines.append("END:VEVENT")
    lines.append("END:VCALENDAR")
    return "".join(fold(line) + "\r\n" for line in lines)
