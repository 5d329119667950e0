"""Small things a director's weekend met at the desk (issue 31).

Clearing a result echoed "None" for both scores; "5 0 0" (typed to clear a game) recorded a
tie at 0; the check-in box's Enter did nothing, silently, when no one or several people
matched. Each is checked here on the page the director used.
"""

from __future__ import annotations

import pytest

from tests.core.conftest import make_director
from tournament import services
from tournament.models import AuditEvent, Entry
from tournament.scoreline import ScoreLineError, parse_score_line

from .test_results import build_event, counts, url

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def event(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    return build_event(name="Desk Open")


@pytest.fixture
def td(client, event):
    client.force_login(make_director(event[0], "desk-td"))
    return client


def test_clearing_a_result_echoes_no_score_not_none(td, event):
    t, d = event
    assert td.post(url(t, d), {"line": "3 410 390"}, **HTMX).status_code == 200
    page = td.post(url(t, d), {"line": "3 clear: result on the wrong game"}, **HTMX)
    html = page.content.decode()
    assert page.status_code == 200 and "Cleared" in html
    answer = html[html.index('id="answer"') :]
    assert "None" not in answer
    assert answer.count("no score") == 2
    assert "#3 v #4 is unplayed again" in answer


@pytest.mark.parametrize("text", ["5 0 0", "b2 0 0", "3 0 4 0", "3 0 0: typed to clear it"])
def test_a_nil_nil_line_is_refused_and_says_what_to_type(td, event, text):
    t, d = event
    before = counts()
    page = td.post(url(t, d), {"line": text}, **HTMX)
    assert page.status_code == 400
    html = page.content.decode()
    assert "a 0-0 tie is not recorded (almost surely a slip)" in html
    assert "ff if neither played" in html and "clear: REASON" in html
    assert counts() == before


def test_the_score_line_reader_refuses_only_nil_nil():
    with pytest.raises(ScoreLineError) as info:
        parse_score_line("5 0 0")
    assert info.value.message.startswith("#5: a 0-0 tie is not recorded")
    assert "5 ff if neither played, 5 f for a forfeit, 5 clear: REASON" in info.value.message
    assert parse_score_line("5 0 1").scores == (0, 1)  # a low score is recorded (and warned)
    assert parse_score_line("5 350 350").scores == (350, 350)  # a real tie


# ----------------------------------------------------------------------- the check-in box


@pytest.fixture
def two_smiths(event):
    t, a = event
    b = services.create_division(t, name="B", rounds=5)
    services.register_player(b, name="Smith, John", rating=1500)
    services.register_player(b, name="Smithers, Wayland", rating=1400)
    return t, a, b


def checkin(td, t, q):
    return td.get(f"/t/{t.slug}/console/setup/checkin/", {"q": q}).content.decode()


def answer(html: str) -> str:
    return html.split('id="find-answer" role="status" aria-live="polite">', 1)[1].split("</p>")[0]


def test_the_check_in_box_says_who_matches_no_one_or_several(td, two_smiths):
    t, a, b = two_smiths
    before = (AuditEvent.objects.count(), Entry.objects.filter(checked_in_at__isnull=False).count())
    html = checkin(td, t, "zebra")
    assert answer(html) == "No one matches zebra."
    html = checkin(td, t, "smith")
    assert answer(html) == (
        "2 players match smith: B #1 Smith, John; B #2 Smithers, Wayland. Type more of the "
        "name, or the number."
    )
    assert html.count(" hidden>") == len(a.entries.all())  # division A's rows are hidden
    assert answer(checkin(td, t, "smithers")) == (
        "One player matches smithers: B #2 Smithers, Wayland."
    )
    assert answer(checkin(td, t, "")) == ""
    # looking checks no one in
    assert (
        AuditEvent.objects.count(),
        Entry.objects.filter(checked_in_at__isnull=False).count(),
    ) == before
