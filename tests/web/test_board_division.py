"""A board shown to players names its division when the tournament has more than one.

Each division numbers its boards from 1, as TSH's .t files and the interchange exports do, so
"board 2" alone sent a player of division A and one of division B to different tables
(issue 31). The round page, the player's page and the self-entry scorecard name the division
then; a tournament of one division keeps the plain "board 2".
"""

from __future__ import annotations

import html
import re

import pytest

from pairings.services.store import PlannedGame, save_round_pairings
from tournament import services
from tournament.models import Entry
from tournament.services.selfentry import ensure_tokens

pytestmark = pytest.mark.django_db

CAPTION = "Boards of division A: each division numbers its own from 1."


def _text(response) -> str:
    assert response.status_code == 200, response.status_code
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", response.content.decode())).split())


def _pages(client, t, d) -> dict[str, str]:
    """The texts of round 2's page, player 1's page and player 1's self-entry scorecard, with
    round 2 paired on boards 1 and 2 (player 1 plays #4 on board 1)."""
    save_round_pairings(d, 2, [PlannedGame(1, 4, board=1), PlannedGame(2, 3, board=2)], force=True)
    ensure_tokens(d, "test")
    token = Entry.objects.get(division=d, number=1).entry_token
    return {
        "round": _text(client.get(f"/t/{t.slug}/{d.slug}/round/2/")),
        "player": _text(client.get(f"/t/{t.slug}/{d.slug}/player/1/")),
        "scorecard": _text(client.get(f"/e/{token}/")),
    }


def test_with_two_divisions_every_board_shown_to_players_names_its_division(client, event):
    t, d = event
    b = services.create_division(t, name="B", rounds=3)
    for name in ("Ford, Fay", "Gray, Gus", "Hill, Hal", "Ives, Ida"):
        services.register_player(b, name=name, rating=1200)
    save_round_pairings(b, 1, [PlannedGame(1, 2, board=1), PlannedGame(3, 4, board=2)])
    pages = _pages(client, t, d)
    assert CAPTION in pages["round"]
    assert CAPTION in pages["player"]
    # the heading of player 1's current game names the division
    assert "Round 2: you v #4 Dunn, Di, division A, board 1 " in pages["scorecard"]


def test_with_one_division_a_board_is_just_its_number(client, event):
    t, d = event
    pages = _pages(client, t, d)
    assert all("each division numbers" not in text for text in pages.values())
    assert "Round 2: you v #4 Dunn, Di, board 1 " in pages["scorecard"]
