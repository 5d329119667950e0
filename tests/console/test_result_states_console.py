"""The console's result box reaches every result state (issue 17): `3 ff` a double forfeit,
and any line with `: REASON` after it corrects the game to what the line says, from any state;
`3 clear: REASON` takes it back to unplayed. Each checked on both records and the trail."""

from __future__ import annotations

import pytest

from pairings.services.store import PlannedGame, save_round_pairings
from tests.core.conftest import make_director
from tournament.models import AuditEvent, Game
from tournament.selectors import division_standings

from .test_results import build_event, counts, url

pytestmark = pytest.mark.django_db


@pytest.fixture
def event(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    return build_event()


@pytest.fixture
def td(client, event):
    client.force_login(make_director(event[0], "states-td"))
    return client


def records(d, *numbers):
    rows = {r.number: r for r in division_standings(d)}
    return [(rows[n].wins, rows[n].losses, rows[n].spread) for n in numbers]


def post(client, t, d, line):
    return client.post(url(t, d), {"line": line}, HTTP_HX_REQUEST="true")


def test_double_forfeit_then_corrections_through_every_state(td, event):
    t, d = event
    page = post(td, t, d, "3 ff")
    assert page.status_code == 200 and "Double forfeit" in page.content.decode()
    assert records(d, 3, 4) == [(0.0, 1.0, -50), (0.0, 1.0, -50)]
    assert AuditEvent.objects.latest("pk").action == "record_double_forfeit"
    # scores typed over a double forfeit without a reason: refused, nothing changes
    before = counts()
    page = post(td, t, d, "3 400 380")
    assert page.status_code == 400 and counts() == before
    page = post(td, t, d, "4 380 3 400: they played after all")
    assert page.status_code == 200 and "Corrected" in page.content.decode()
    assert records(d, 3, 4) == [(1.0, 0.0, 20), (0.0, 1.0, -20)]
    (game,) = Game.objects.filter(round__number=1, board=2)
    assert {game.player1.number, game.player2.number} == {3, 4}
    event_ = AuditEvent.objects.latest("pk")
    assert (event_.action, event_.reason) == ("correct_result", "they played after all")
    page = post(td, t, d, "4 f: it was #4 who left")
    assert records(d, 3, 4) == [(1.0, 0.0, 50), (0.0, 1.0, -50)]
    # a forfeit's board has no first player any more: the board line is refused, a player line
    # corrects it (player 3's score first)
    page = post(td, t, d, "b2 410 390: board line")
    assert page.status_code == 400
    page = post(td, t, d, "3 410 390: by player")
    assert records(d, 3, 4) == [(1.0, 0.0, 20), (0.0, 1.0, -20)]
    page = post(td, t, d, "b2 390 410: board line")
    assert page.status_code == 200
    assert records(d, 3, 4) == [(0.0, 1.0, -20), (1.0, 0.0, 20)]
    page = post(td, t, d, "3 clear: result on the wrong game")
    assert page.status_code == 200 and "Cleared" in page.content.decode()
    assert records(d, 3, 4) == [(0.0, 0.0, 0), (0.0, 0.0, 0)]
    assert AuditEvent.objects.latest("pk").action == "clear_result"


def test_a_typed_correction_of_an_earlier_round_warns_of_the_later_pairings(td, event):
    """`LINE: REASON` in round 1's box after round 2 is paired: the same warning and links as
    the correction form; a line without a reason (a first result) warns of nothing."""
    t, d = event
    for line in ("1 400 300", "3 410 390", "5 380 420"):
        assert post(td, t, d, line).status_code == 200
    save_round_pairings(
        d, 2, [PlannedGame(1, 3, board=1), PlannedGame(2, 5, board=2), PlannedGame(4, 6, board=3)]
    )
    for line, kind in (
        ("1 300 400: winner reversed", "corrected"),
        ("3 f: #3 never came", "forfeit"),
        ("5 ff: neither came", "double_forfeit"),
        ("1 clear: result on the wrong game", "cleared"),
    ):
        before = AuditEvent.objects.count()
        page = post(td, t, d, line)
        body = page.content.decode()
        assert page.status_code == 200 and f'data-kind="{kind}"' in body, line
        assert "Round 2 was paired from the old result of round 1." in body, line
        assert "Round 2: 3 unscored games" in body, line
        assert f'href="/t/{t.slug}/console/{d.slug}/round/2/pair/"' in body, line
        assert AuditEvent.objects.count() == before + 1  # the warning writes nothing
    body = post(td, t, d, "1 350 340").content.decode()  # unplayed again: a first result
    assert "Recorded" in body and "paired from the old result" not in body


@pytest.mark.parametrize(
    ("line", "code_words"),
    [
        ("3 clear", "no result yet"),  # nothing recorded yet: no result to clear
        ("3 400 5 380: wrong opponent", "plays #4 Dunn, Di, not #5"),
        ("9 ff", "there is no player number 9"),
    ],
)
def test_state_lines_refused_write_nothing(td, event, line, code_words):
    t, d = event
    before = counts()
    page = post(td, t, d, line)
    assert page.status_code == 400
    body = page.content.decode().replace("&#x27;", "'")
    assert code_words in body
    assert counts() == before
