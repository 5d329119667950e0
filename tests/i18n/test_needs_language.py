"""What each player needs, in the players' own language (issue "In the players' own language").

The needs engine states each need as data and words it in English; the pages word the same
data with the catalogues (``pairings/needs_words.py``). Under English the pages' words are the
engine's exactly, on many generated divisions (exact, bounds and final modes, every place
up to 120); in French, Spanish and Polish the player's page and the commentators' page show
the translated sentences and none of the English ones; the API keeps English.
"""

from __future__ import annotations

import random
import re

import pytest
from django.test import Client
from django.utils import translation

from pairings import needs_words
from pairings.engine.needs import (
    Behind,
    Margin,
    Need,
    NeedLine,
    _line_text,
    compute_needs,
    describe,
    ordinal,
    summarize_groups,
)
from pairings.needs import needs_input_from
from tests import builders
from tests.pairings_engine.test_needs import _random_division
from tournament.models import Tournament

LANGUAGES = ["fr", "es", "pl"]


def _compare_division(seed: int, rounds_total: int, pending: int) -> int:
    """The shell's English groups against the engine's for one generated division; how many
    statements were compared."""
    rng = random.Random(seed)
    n = rng.randint(4, 12)
    cap = rng.choice([2, 3, 4, 40, 500])
    players, rows = _random_division(rng, n, 4, cap, min(pending, n // 2))
    data = needs_input_from(
        players,
        rows,
        spread_cap=rng.choice([cap, None]),
        rounds_total=rounds_total,
        prize_places=rng.choice([1, 2, 3, 4, 6]),
    )
    labels = {p.number: f"#{p.number} {p.name}" for p in players}
    compared = 0
    for pn in compute_needs(data).values():
        english = summarize_groups(pn, data.places, labels)
        assert needs_words.groups(pn, data.places, labels) == english, (seed, pn)
        for need in pn.needs:
            assert needs_words.describe(need, labels) == describe(need, labels)
            assert needs_words.describe(need) == need.text
        compared += len(english)
    return compared


def test_english_words_are_the_engines_on_generated_divisions():
    """Exact (last round paired), bounds (a round left) and final (all played) statements."""
    compared = 0
    with translation.override("en"):
        for seed in range(60):
            compared += _compare_division(seed, 4, 6)  # the last round paired: exact
            compared += _compare_division(1000 + seed, 5, 6)  # a round left: bounds
            compared += _compare_division(2000 + seed, 4, 0)  # all played: final
    assert compared > 1000


def test_english_words_of_every_condition_are_the_engines():
    """Every kind of condition, whatever the player's own margin, every statement's kind and
    every place up to 120, as the engine words them."""
    lows, highs = (-500, -40, -3, -1, 0, 1, 3, 40), (-40, -3, -1, 0, 2, 3, 40, 500)
    ranges = [(lo, hi) for lo in lows for hi in highs if lo <= hi]
    mines = [None, *(Margin(1, lo, hi) for lo, hi in ranges)]
    conditions: list = [Margin(2, lo, hi) for lo, hi in ranges]
    conditions += [
        Behind(2, 1, offset, lo, hi1)
        for offset in (-5, 0, 1, 2, 7)
        for lo, hi1 in ((1, 501), (0, 1), (-500, 0))
    ]
    conditions += [Behind(2, 1, 2002, 0, 1)]  # a tie is enough whatever P's result
    names = {2: "#2 Eads, Ed"}
    with translation.override("en"):
        for mine in mines:
            for c in conditions:
                alt = (mine, c) if mine is not None else (c,)
                for place, exact in ((1, True), (1, False), (2, True), (3, False)):
                    need = Need(1, place, "open", exact, (alt, ()))
                    assert needs_words.describe(need, names) == describe(need, names), alt
        for place in range(1, 121):
            assert needs_words.place(place) == ordinal(place)
            for status in ("clinched", "out", "open"):
                need = Need(1, place, status, True)
                assert needs_words.describe(need) == describe(need)
            for kind in KINDS:
                line = NeedLine(kind, place, max(place, 4))
                assert needs_words.line(line).text == _line_text(line), line


KINDS = ("finished", "clinched_place", "clinched_prize", "no_prize", "not_above", "contention")
KINDS += ("finishes",)


@pytest.fixture
def last_round_paired(db):
    """Ten players after two rounds, round 3 (the last) paired, four prize places."""
    return builders.last_round_paired("Need Words", "need-words")


# English words of the needs that no translated page may show
ENGLISH = [
    " or better",
    "Can no longer finish",
    "Clinched",
    "you win",
    "you lose",
    " loses",
    " wins",
    "does not",
    "sets of results on other boards",
    "in every way",
    "All 6 ways",
    "Every result it needs",
    "Exact for the games still to play",
    "whatever",
]
EXPECTED = {
    "fr": ["ou mieux", "Ne peut plus finir", "vous gagnez", "Exact pour les parties"],
    "es": ["o mejor", "Ya no puede terminar", "ganas", "Exacto para las partidas"],
    "pl": ["lub wyższe", "Nie może już zająć", "wygrasz", "Dokładne dla partii"],
}


def _text(html: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", html).split()).replace("&#x27;", "'")


def _needs_section(html: str) -> str:
    start = html.index('id="needs"')
    return _text(html[start : html.index("</section>", start)])


def _commentators_needs(html: str) -> str:
    return _text(" ".join(re.findall(r'<td class="needs">(.*?)</td>', html, flags=re.S)))


@pytest.mark.django_db
def test_english_pages_are_unchanged(last_round_paired):
    section = _needs_section(Client().get("/t/need-words/a/player/8/").content.decode())
    assert "2nd or better: in every way, you win" in section
    assert "Can no longer finish above 2nd." in section
    assert "All 6 ways, simplest first" in section
    needs = _commentators_needs(Client().get("/t/need-words/broadcast/").content.decode())
    assert "Can no longer finish" in needs and " or better" in needs


@pytest.mark.django_db
@pytest.mark.parametrize("language", LANGUAGES)
def test_needs_in_the_players_language(last_round_paired, language):
    # the commentators' page speaks the tournament's language (it is shown to a room)
    Tournament.objects.filter(pk=last_round_paired.pk).update(language=language)
    with translation.override(language):
        pages = [
            _needs_section(Client().get(f"/t/need-words/a/player/{n}/").content.decode())
            for n in range(1, 11)
        ]
        broadcast = Client().get("/t/need-words/broadcast/").content.decode()
    commentators = _commentators_needs(broadcast)
    assert commentators, "the commentators' page shows what each player needs"
    shown = " ".join(pages)
    for english in ENGLISH:
        assert english not in shown, (language, english)
        assert english not in commentators, (language, english)
    for phrase in EXPECTED[language]:
        assert phrase in shown, (language, phrase)
    assert EXPECTED[language][1] in commentators or EXPECTED[language][0] in commentators


@pytest.mark.django_db
def test_the_api_keeps_english(last_round_paired):
    with translation.override("fr"):
        body = Client().get("/api/v1/tournaments/need-words/divisions/a/needs/").json()
    lines = [line for p in body["players"] for line in p["lines"]]
    assert any("Can no longer finish" in line for line in lines)
    assert any(" or better" in line for line in lines)
    assert body["assumptions"][0].startswith("Exact for the games still to play")
