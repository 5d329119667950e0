"""Numbers that programs read keep a dot in every language.

Under fr, es and pl Django writes a float with a decimal comma wherever a template prints it
(``{{ r.wins }}`` is "1,5"). That is right in the text people read, and wrong where a program
reads the number: a ``data-*`` attribute (the console's scripts and the tests read
``data-wins``), a ``style`` (``width: 12,5%`` is dropped by the browser), an inline script or
style block, an ``<input value>`` sent back by a form, a ``<meter>``/``<progress>`` value, a
URL's query. One event with a drawn game (so wins are halves) is read in French on the pages
that show standings and prize chances, and an HTML parser lists every such place whose number
has a comma.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from html.parser import HTMLParser
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db import transaction
from django.test import Client
from django.urls import reverse
from django.utils import translation

from pairings.services.store import PlannedGame, save_round_pairings
from tests.core.conftest import make_director
from tournament import services

# a digit, a comma, a digit: "1,5" (a name such as "Able, Ann" has a space after its comma)
DECIMAL_COMMA = re.compile(r"\d,\d")
NUMERIC_VALUE_TAGS = {"input", "meter", "progress", "option"}
NUMBER_ATTRIBUTES = {"value", "min", "max", "low", "high", "optimum", "step", "width", "height"}


class MachineNumbers(HTMLParser):
    """Collects the places of a page that a program reads: attributes (data-*, style, href and
    src queries, hx-*, numeric attributes of inputs and meters) and inline script and style
    blocks, each as ``(where, text)``."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.places: list[tuple[str, str]] = []
        self._block: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if value is None:
                continue
            read_by_a_program = (
                name.startswith(("data-", "hx-"))
                or name == "style"
                or (name in ("href", "src", "action") and "?" in value)
                or (tag in NUMERIC_VALUE_TAGS and name in NUMBER_ATTRIBUTES)
                or tag in ("svg", "rect", "line", "polyline", "circle", "path", "text")
            )
            if read_by_a_program:
                self.places.append((f"<{tag} {name}>", value))
        if tag in ("script", "style"):
            self._block = tag

    def handle_endtag(self, tag: str) -> None:
        if tag == self._block:
            self._block = None

    def handle_data(self, data: str) -> None:
        if self._block and data.strip():
            self.places.append((f"<{self._block}> block", data))


def commas(html: str) -> list[str]:
    """The machine-read places of ``html`` whose number has a decimal comma."""
    parser = MachineNumbers()
    parser.feed(html)
    return [
        f"{where}: {text[:120]!r}" for where, text in parser.places if DECIMAL_COMMA.search(text)
    ]


def test_the_parser_finds_a_comma_in_each_kind_of_place():
    """The check itself: each kind of place with a French number is reported, and the same
    numbers in text people read, or a name with a comma, are not."""
    html = (
        '<td data-wins="1,5">1,5</td><div style="width: 12,5%">Able, Ann</div>'
        '<a href="/x/?spread=2,5">2,5</a><input value="0,5"><meter value="0,25"></meter>'
        "<script>var w = 1,5;</script><p>Expected rank 2,5</p>"
    )
    found = commas(html)
    assert len(found) == 6, found
    assert not commas('<td data-wins="1.5" data-who="Able, Ann #1">1,5</td><p>2,5</p>')


@pytest.fixture(scope="module")
def event(django_db_setup: Any, django_db_blocker: Any) -> Iterator[dict[str, str]]:
    """One French event, round 1 scored with a draw (halves in the standings), round 2 paired:
    its pages' addresses. Built in a transaction rolled back at the end of the module."""
    with django_db_blocker.unblock(), transaction.atomic():
        t = services.create_tournament(name="Open des Virgules", published=True)
        t.language = "fr"  # the venue screen and the overlays follow the tournament's language
        t.save(update_fields=["language"])
        d = services.create_division(t, name="A", rounds=6)
        names = ("Able, Ann", "Baker, Bo", "Cole, Cy", "Dunn, Di", "Eads, Ed", "Fox, Fay")
        for k, name in enumerate(names):
            services.register_player(d, name=name, rating=1800 - 50 * k)
        save_round_pairings(d, 1, [PlannedGame(1, 2), PlannedGame(3, 4), PlannedGame(5, 6)])
        services.record_result(d, 1, 1, 400, 400)  # a draw: half a win each
        services.record_result(d, 1, 3, 455, 380)
        services.record_result(d, 1, 5, 390, 402)
        save_round_pairings(d, 2, [PlannedGame(1, 3), PlannedGame(2, 5), PlannedGame(4, 6)])
        services.record_result(d, 2, 1, 430, 420)
        make_director(t, "comma-td")
        yield {
            "console standings": reverse("console:standings", args=[t.slug, d.slug]),
            "public standings": reverse("public:standings", args=[t.slug, d.slug]),
            "player": reverse("public:player", args=[t.slug, d.slug, 1]),
            "venue screen": reverse("public:screen", args=[t.slug]),
            "prize chances": reverse("broadcast:prizes", args=[t.slug, d.slug]),
            "round": reverse("public:round", args=[t.slug, d.slug, 2]),
            "cross table": reverse("public:crosstable", args=[t.slug, d.slug]),
            "what if": reverse("event:what_if", args=[t.slug, d.slug, 1]),
        }
        transaction.set_rollback(True)


@pytest.mark.django_db
def test_numbers_read_by_programs_keep_a_dot_in_french(event):
    client = Client()
    client.force_login(get_user_model().objects.get(username="comma-td"))
    found: list[str] = []
    shown: list[str] = []
    for kind, path in event.items():
        with translation.override("fr"):
            response = client.get(path, HTTP_ACCEPT_LANGUAGE="fr")
        assert response.status_code == 200, (kind, path, response.status_code)
        html = response.content.decode()
        assert '<html lang="fr"' in html, kind
        found += [f"{kind} ({path}): {place}" for place in commas(html)]
        if "0,5" in html or "1,5" in html:
            shown.append(kind)
        if kind == "player":
            assert 'id="chances"' in html, "the player page shows the prize chances"
    # the halves are there, written the French way where people read them
    assert "console standings" in shown, shown
    assert not found, "numbers with a decimal comma where a program reads them:\n" + "\n".join(
        found
    )
