"""ratings.chart: the pure SVG rating chart."""

from __future__ import annotations

import datetime
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

from ratings.chart import rating_chart
from tests.conftest import REPO

NS = "{http://www.w3.org/2000/svg}"
D = datetime.date


def parse(svg: str) -> ET.Element:
    root = ET.fromstring(svg)
    assert root.tag == NS + "svg"
    return root


def test_chart_is_well_formed_with_axes_and_dates():
    pts = [(D(2020, 1, 5) + datetime.timedelta(days=40 * i), 1400 + 7 * i) for i in range(50)]
    root = parse(rating_chart([("NWL", pts)], title="Rating history of Ann"))
    assert root.get("viewBox") and root.get("width") == "100%"  # scales to a phone
    texts = [t.text for t in root.iter(NS + "text")]
    assert "rating" in texts and "date" in texts
    assert "2021" in texts and "2024" in texts  # year labels for a five-year history
    ys = [int(t) for t in texts if t and t.isdigit() and 1000 < int(t) < 3000]
    assert min(ys) <= 1400 and max(ys) >= 1400 + 7 * 49
    (line,) = root.iter(NS + "polyline")
    assert len(line.get("points").split()) == 50


def test_points_follow_dates_and_ratings():
    svg = rating_chart([("L", [(D(2024, 1, 1), 1500), (D(2024, 6, 1), 1600)])])
    (line,) = parse(svg).iter(NS + "polyline")
    (x1, y1), (x2, y2) = (tuple(map(float, p.split(","))) for p in line.get("points").split())
    assert x2 > x1 and y2 < y1  # later is to the right, higher is up


def test_text_is_escaped():
    evil = '<script>alert("x")</script> & "Bob"'
    svg = rating_chart([(evil, [(D(2024, 1, 1), 1500)])], title=evil)
    assert "<script>" not in svg
    root = parse(svg)
    assert root.find(NS + "title").text == evil
    assert root.get("aria-label") == evil


def test_empty_single_and_several_lists():
    assert "No rated events yet" in rating_chart([])
    one = parse(rating_chart([("L", [(D(2024, 1, 1), 1500)])]))
    assert len(list(one.iter(NS + "circle"))) == 1
    both = parse(rating_chart([("A", [(D(2024, 1, 1), 1500)]), ("B", [(D(2024, 3, 1), 900)])]))
    assert len(list(both.iter(NS + "polyline"))) == 2
    assert {"A", "B"} <= {t.text for t in both.iter(NS + "text")}  # a legend


def test_short_history_labels_months_or_days():
    months = parse(rating_chart([("L", [(D(2024, 1, 10), 1500), (D(2024, 8, 1), 1510)])]))
    assert any(re.fullmatch(r"[A-Z][a-z]{2} 2024", t.text or "") for t in months.iter(NS + "text"))
    days = parse(rating_chart([("L", [(D(2024, 1, 10), 1500), (D(2024, 1, 12), 1510)])]))
    assert "2024-01-10" in {t.text for t in days.iter(NS + "text")}


def test_chart_module_imports_no_django():
    code = "import sys, ratings.chart; assert not [m for m in sys.modules if 'django' in m]"
    subprocess.run([sys.executable, "-c", code], cwd=REPO, check=True)
