"""Names never carry invisible direction controls (issue "Authority in one place": a name
with U+202E displayed reversed, as another player's). Refused with the code point named, at
registration, in the registry and for tournament names; letters of right-to-left scripts are
names like any other."""

from __future__ import annotations

import pytest

from tournament import services
from tournament.errors import ServiceError
from tournament.models import Entry, Player

pytestmark = pytest.mark.django_db


@pytest.fixture
def division():
    t = services.create_tournament(name="Direction Open")
    return services.create_division(t, name="A")


@pytest.mark.parametrize("control", ["\u202e", "\u202d", "\u2066", "\u2069"])
def test_registration_refuses_a_direction_control(division, control):
    with pytest.raises(ServiceError) as refused:
        services.register_player(division, name=f"Love, Ann{control}", rating=1500)
    assert refused.value.code == "bidi_control"
    assert refused.value.field == "name"
    assert f"U+{ord(control):04X}" in refused.value.message
    assert Entry.objects.count() == 0 and Player.objects.count() == 0


def test_right_to_left_letters_are_a_name_like_any_other(division):
    entry = services.register_player(division, name="حداد, سامي", rating=1500)
    assert entry.player.name == "حداد, سامي"


def test_the_registry_and_tournament_names_refuse_it_too(division):
    from django.contrib.auth import get_user_model

    keeper = get_user_model().objects.create_superuser("keeper", "k@example.org", "pw-long-1!")
    player = services.register_player(division, name="Love, Ann", rating=1500).player
    with pytest.raises(ServiceError) as refused:
        services.update_player(player, actor=keeper, name="\u202eLove, Ann")
    assert refused.value.code == "bidi_control"
    with pytest.raises(ServiceError) as refused:
        services.create_tournament(name="Open \u202e")
    assert refused.value.code == "bidi_control"


@pytest.mark.parametrize("control", ["\u202e", "\u202b", "\u2067"])
def test_a_new_registry_player_refuses_a_direction_control(division, control):
    """The console's "a new person of that name" (register_new_player) and a pasted list
    check names with the same validator as a registration (issue 31, item 5d)."""
    with pytest.raises(ServiceError) as refused:
        services.register_new_player(division, name=f"{control}Love, Ann", actor="test")
    assert refused.value.code == "bidi_control"
    assert refused.value.field == "name"
    assert f"U+{ord(control):04X}" in refused.value.message
    rows = [services.NewEntry(f"Love, Ann{control}", 1500, "", 3)]
    with pytest.raises(ServiceError) as refused:
        services.register_players(division, rows, actor="test")
    assert refused.value.code == "reg_list_line"
    assert "line 3" in refused.value.message
    assert f"U+{ord(control):04X}" in refused.value.message
    assert Entry.objects.count() == 0 and Player.objects.count() == 0
