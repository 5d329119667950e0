"""A player's rating history as an inline SVG chart, drawn on the server.

Pure: points in, SVG text out, no Django. The chart is plain SVG markup inside the page, so it
reads without JavaScript, prints, and scales to a phone's width (a ``viewBox`` with
``width="100%"``; the height follows the aspect ratio). Every piece of text (list names, the
title) is escaped, so a name like ``<script>`` is shown, never run.

One line per rating list; each point is (date of the event, rating after it). A history of a
few thousand events is one ``<polyline>`` per list with its points rounded to 0.1 unit, so the
drawing stays a few tens of kilobytes and takes milliseconds.
"""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from xml.sax.saxutils import escape as _escape

Point = tuple[datetime.date, int]
Series = tuple[str, Sequence[Point]]

WIDTH = 640
HEIGHT = 280
LEFT, RIGHT, TOP, BOTTOM = 48, 12, 14, 36
COLOURS = ("#1d4d3a", "#b5562a", "#2b5fa8", "#8a5300", "#7a2f86", "#444444")
MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
RATING_STEPS = (10, 20, 25, 50, 100, 200, 250, 500, 1000)
MAX_Y_TICKS = 6
MAX_X_TICKS = 7
DOTS_UP_TO = 60  # more points than this and the dots would only blur the line


def esc(text: object) -> str:
    """Text safe inside an element or a double-quoted attribute."""
    return _escape(str(text), {'"': "&quot;", "'": "&#39;"})


def _y_ticks(low: int, high: int) -> tuple[int, int, list[int]]:
    """A rounded rating range covering low..high and its tick values (a "nice" step)."""
    span = max(high - low, 1)
    step = next((s for s in RATING_STEPS if span / s <= MAX_Y_TICKS - 1), RATING_STEPS[-1])
    lo = (low // step) * step
    hi = -((-high) // step) * step
    if hi == lo:
        hi = lo + step
    while (hi - lo) // step + 1 > MAX_Y_TICKS + 1:  # huge ranges: widen the step
        step *= 2
        lo = (low // step) * step
        hi = -((-high) // step) * step
    return lo, hi, list(range(lo, hi + 1, step))


def _x_ticks(first: datetime.date, last: datetime.date) -> list[tuple[datetime.date, str]]:
    """Dates to label along the bottom: years for long histories, else months, else days."""
    days = (last - first).days
    ticks: list[tuple[datetime.date, str]] = []
    if days > 3 * 365:
        years = list(range(first.year + 1, last.year + 1))
        step = max(1, -(-len(years) // MAX_X_TICKS))
        ticks = [(datetime.date(y, 1, 1), str(y)) for y in years[::step]]
    elif days > 60:
        months = []
        y, m = first.year, first.month
        while True:
            m += 1
            if m > 12:
                y, m = y + 1, 1
            d = datetime.date(y, m, 1)
            if d > last:
                break
            months.append(d)
        step = max(1, -(-len(months) // MAX_X_TICKS))
        ticks = [(d, f"{MONTHS[d.month - 1]} {d.year}") for d in months[::step]]
    if not ticks:  # a short history: label its first and last day
        ticks = [(first, first.isoformat())]
        if last != first:
            ticks.append((last, last.isoformat()))
    return ticks


def rating_chart(series: Sequence[Series], *, title: str = "Rating history") -> str:
    """The SVG of one line per (list name, [(date, rating), ...]); a note if there is none.

    Dates run left to right (one calendar, so lists share the axis), ratings bottom to top;
    axes carry rating values and dates. Points need not be sorted.
    """
    lines = [(name, sorted(points)) for name, points in series if points]
    head = (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'width="100%" role="img" aria-label="{esc(title)}" class="rating-chart" '
        f'style="max-width:{WIDTH}px;height:auto;background:#fff">'
        f"<title>{esc(title)}</title>"
    )
    if not lines:
        return (
            head + f'<text x="{WIDTH // 2}" y="{HEIGHT // 2}" text-anchor="middle" '
            'font-size="14" fill="#666">No rated events yet</text></svg>'
        )
    all_points = [p for _, pts in lines for p in pts]
    first = min(d for d, _ in all_points)
    last = max(d for d, _ in all_points)
    lo, hi, y_ticks = _y_ticks(min(r for _, r in all_points), max(r for _, r in all_points))
    plot_w = WIDTH - LEFT - RIGHT
    plot_h = HEIGHT - TOP - BOTTOM
    day0 = first.toordinal()
    day_span = max(last.toordinal() - day0, 1)

    def x_of(d: datetime.date) -> float:
        if last == first:
            return LEFT + plot_w / 2
        return LEFT + (d.toordinal() - day0) * plot_w / day_span

    def y_of(r: float) -> float:
        return TOP + (hi - r) * plot_h / (hi - lo)

    out = [head, '<g font-family="system-ui,sans-serif" font-size="11" fill="#444">']
    for v in y_ticks:
        y = y_of(v)
        out.append(
            f'<line x1="{LEFT}" y1="{y:.1f}" x2="{WIDTH - RIGHT}" y2="{y:.1f}" stroke="#e4e4e4"/>'
            f'<text x="{LEFT - 4}" y="{y + 4:.1f}" text-anchor="end">{v}</text>'
        )
    base = TOP + plot_h
    for d, label in _x_ticks(first, last):
        x = x_of(d)
        out.append(
            f'<line x1="{x:.1f}" y1="{base}" x2="{x:.1f}" y2="{base + 4}" stroke="#999"/>'
            f'<text x="{x:.1f}" y="{base + 16}" text-anchor="middle">{esc(label)}</text>'
        )
    out.append(
        f'<line x1="{LEFT}" y1="{base}" x2="{WIDTH - RIGHT}" y2="{base}" stroke="#999"/>'
        f'<line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{base}" stroke="#999"/>'
        f'<text x="{LEFT + plot_w / 2:.1f}" y="{HEIGHT - 4}" text-anchor="middle">date</text>'
        f'<text x="12" y="{TOP + plot_h / 2:.1f}" text-anchor="middle" '
        f'transform="rotate(-90 12 {TOP + plot_h / 2:.1f})">rating</text></g>'
    )
    for i, (name, pts) in enumerate(lines):
        colour = COLOURS[i % len(COLOURS)]
        coords = " ".join(f"{x_of(d):.1f},{y_of(r):.1f}" for d, r in pts)
        out.append(
            f'<g><title>{esc(name)}</title><polyline fill="none" stroke="{colour}" '
            f'stroke-width="2" stroke-linejoin="round" points="{coords}"/>'
        )
        if len(pts) <= DOTS_UP_TO:
            out.extend(
                f'<circle cx="{x_of(d):.1f}" cy="{y_of(r):.1f}" r="3" fill="{colour}">'
                f"<title>{esc(name)}: {r} on {d.isoformat()}</title></circle>"
                for d, r in pts
            )
        out.append("</g>")
    if len(lines) > 1:  # a legend only when there is more than one list to tell apart
        out.extend(_legend([name for name, _ in lines]))
    out.append("</svg>")
    return "".join(out)


def _legend(names: list[str]) -> list[str]:
    """Each list's colour and name, top left of the plot."""
    out = []
    for i, name in enumerate(names):
        colour = COLOURS[i % len(COLOURS)]
        y = TOP + 4 + i * 14
        out.append(
            f'<rect x="{LEFT + 8}" y="{y}" width="10" height="10" fill="{colour}"/>'
            f'<text x="{LEFT + 22}" y="{y + 9}" font-size="11" '
            f'font-family="system-ui,sans-serif">{esc(name)}</text>'
        )
    return out
