"""``cop`` from the shell: the ``pair`` command pairs with the division's own simulated
chances (seeded, so a dry run and the real pairing agree) and the boards cite them."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command

from pairings.chances import cop_options
from pairings.engine import PairingOptions
from pairings.selectors import build_field
from pairings.services.store import PlannedGame, save_round_pairings
from tournament import services
from tournament.models import Game

pytestmark = pytest.mark.django_db


@pytest.fixture
def division():
    """Eight players, rounds 1-2 scored, round 3 (the last) to pair; 3 places paid."""
    t = services.create_tournament(name="Cop Open", gibson=True)
    d = services.create_division(t, name="A", rounds=3, prize_places=3)
    for k in range(8):
        services.register_player(d, name=f"Player {k + 1}", rating=1900 - 50 * k)
    save_round_pairings(
        d, 1, [PlannedGame(1, 2), PlannedGame(3, 4), PlannedGame(5, 6), PlannedGame(7, 8)]
    )
    for board_first in (1, 3, 5, 7):
        services.record_result(d, 1, board_first, 450, 350)
    save_round_pairings(
        d, 2, [PlannedGame(1, 3), PlannedGame(5, 7), PlannedGame(2, 4), PlannedGame(6, 8)]
    )
    for board_first in (1, 5, 2, 6):
        services.record_result(d, 2, board_first, 420, 400)
    d.refresh_from_db()
    return d


def test_shell_options_carry_the_divisions_chances(division):
    field = build_field(division, 3)
    opts = cop_options(division, field, PairingOptions())
    assert opts.prize_bands == [3]
    assert set(opts.cop_chances) == set(range(1, 9))
    assert abs(sum(c[0] for c in opts.cop_chances.values()) - 1) < 1e-6
    again = cop_options(division, field, PairingOptions())
    assert again.cop_chances == opts.cop_chances


def test_pair_command_pairs_the_last_round_with_cop(division):
    out = StringIO()
    call_command(
        "pair", division.tournament.slug, "--round", "3", "--system", "cop", "--json", stdout=out
    )
    games = json.loads(out.getvalue())
    assert len(games) == 4
    assert all("%" in g["explanation"] for g in games), games
    top = next(g for g in games if 1 in (g["first"], g["second"]))
    # 1 and 5 are 2-0: the last round's King of the Hill among the cash contenders
    assert {top["first"], top["second"]} == {1, 5}
    assert "KOTH among cash contenders" in top["explanation"]
    stored = Game.objects.filter(round__division=division, round__number=3)
    assert set(stored.values_list("round__system", flat=True)) == {"cop"}


def test_a_bad_cop_setting_is_refused_by_name_and_pairs_nothing(division):
    from django.core.management import CommandError

    from pairings.models import ScheduleRange

    ScheduleRange.objects.create(
        division=division, first_round=3, last_round=3, system="cop", options={"cop_threshold": 0}
    )
    with pytest.raises(CommandError, match="cop_threshold"):
        call_command("pair", division.tournament.slug, "--round", "3", stdout=StringIO())
    assert not Game.objects.filter(round__division=division, round__number=3).exists()


def test_the_console_offers_cop_and_proposes_with_it(division, client):
    from tests.core.conftest import make_director

    t = division.tournament
    client.force_login(make_director(t, "cop-td"))
    page = client.get(f"/t/{t.slug}/console/{division.slug}/round/3/pair/?system=cop")
    body = page.content.decode()
    assert page.status_code == 200, body[:500]
    assert 'value="cop"' in body
    assert "KOTH among cash contenders" in body
