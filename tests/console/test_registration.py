"""Registration in the director's console: search, add, paste, edit, withdraw/reinstate, remove.

Fixtures are built with the services; every refusal is checked to show its message at the
field, answer 400 and leave Entry, Player and AuditEvent counts as they were.
"""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from pairings.services.store import PlannedGame, delete_round_pairings, save_round_pairings
from ratings.services import create_rating_list, import_ratings
from tests.core.conftest import make_director
from tournament import services
from tournament.errors import ServiceError
from tournament.models import AuditEvent, Entry, Game, Player
from tournament.web.forms.registration import parse_player_list

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def division():
    t = services.create_tournament(name="Spring Open", actor="test", late_entry="forfeit")
    d = services.create_division(t, name="A", rounds=5, actor="test")
    for name, rating in [("Able, Ann", 1800), ("Baker, Bo", 1700), ("Cole, Cy", 1600)]:
        services.register_player(d, name=name, rating=rating, actor="test")
    return d


@pytest.fixture
def registry():
    """Players in the registry, two with contact details, and a rating list with two of them."""
    smith = services.find_or_create_player(
        "Smith, John", naspa_id="NA1234", email="john.smith@example.org", phone="+1 555 0100"
    )
    services.find_or_create_player("Bégin, Luc", wespa_id="W77", email="luc@example.org")
    services.find_or_create_player("Smithers, Wayland", absp_id="AB9")
    lst = create_rating_list("NASPA NWL", slug="nwl")
    import_ratings(lst, 'name,rating\n"Smith, John",1734\n"Smithers, Wayland",1210\n')
    return {"smith": smith, "list": lst}


@pytest.fixture
def director_client(client, division):
    client.force_login(make_director(division.tournament, "td"))
    return client


def url(division, name="players"):
    return reverse(f"console:{name}", args=(division.tournament.slug, division.slug))


def counts():
    return (Entry.objects.count(), Player.objects.count(), AuditEvent.objects.count())


def pair(division, number, games):
    return save_round_pairings(
        division,
        number,
        [PlannedGame(a, b, board=i) for i, (a, b) in enumerate(games, 1)],
        system="manual",
        actor="test",
    )


def field_error(response, field_id):
    """The text of the error shown at one field (templates give it the id FIELD_error)."""
    html = response.content.decode()
    marker = f'id="{field_id}_error">'
    assert marker in html, f"no error at {field_id}: {html[:3000]}"
    return html.split(marker, 1)[1].split("</p>", 1)[0]


# ----------------------------------------------------------------------- the page and search


def test_page_lists_entries_with_status(director_client, division):
    e = division.entries.get(number=2)
    pair(division, 1, [(1, 3), (2, 0)])
    services.withdraw_player(e, from_round=2, actor="test")
    response = director_client.get(url(division))
    assert response.status_code == 200
    html = response.content.decode()
    assert 'id="entry-1"' in html and "Able, Ann" in html and "1800" in html
    assert "withdrawn from round 2" in html
    assert html.count(">active<") == 2


def test_search_finds_registry_and_rating_list_without_contact_details(
    director_client, division, registry
):
    response = director_client.get(url(division, "players_search"), {"name": "smith"}, **HTMX)
    assert response.status_code == 200
    html = response.content.decode()
    assert "Smith, John" in html and "NASPA NA1234" in html
    assert "1734 on NASPA NWL" in html
    assert "Smithers, Wayland" in html and "ABSP AB9" in html and "1210" in html
    assert f'value="{registry["smith"].pk}:{registry["list"].pk}"' in html
    for secret in ("john.smith@example.org", "555 0100", "example.org", "@"):
        assert secret not in html
    # accents do not stop a search; an id finds its player
    html = director_client.get(url(division, "players_search"), {"name": "begin"}).content
    assert b"WESPA W77" in html and b"luc@example.org" not in html
    html = director_client.get(url(division, "players_search"), {"name": "na1234"}).content
    assert b"Smith, John" in html


def test_search_marks_players_already_in_the_division(director_client, division):
    html = director_client.get(url(division, "players_search"), {"name": "able"}).content
    assert b"already #1 in division A" in html and b'name="pick"' not in html
    html = director_client.get(url(division, "players_search"), {"name": "zzz"}).content
    assert b"No player matches zzz" in html


# ----------------------------------------------------------------------- adding one player


def test_add_by_pick_seeds_with_the_lists_rating(director_client, division, registry):
    smith, lst = registry["smith"], registry["list"]
    before = Player.objects.count()
    response = director_client.post(
        url(division, "players_add"), {"name": "smi", "pick": f"{smith.pk}:{lst.pk}"}, **HTMX
    )
    assert response.status_code == 200
    entry = division.entries.get(player=smith)
    assert (entry.number, entry.seed_rating) == (4, 1734)
    assert Player.objects.count() == before
    assert "Registered #4 Smith, John (seed 1734 on NASPA NWL)" in response.content.decode()
    assert AuditEvent.objects.filter(action="register", object_id=str(entry.pk)).exists()


def test_add_new_player_warns_on_near_duplicate_then_creates_on_confirm(
    director_client, division, registry
):
    before = counts()
    response = director_client.post(
        url(division, "players_add"), {"name": "Smith, Jon", "rating": "1500", "new": "on"}
    )
    assert response.status_code == 200
    html = response.content.decode()
    assert 'id="near"' in html and "Smith, John" in html and "NASPA NA1234" in html
    assert "john.smith@example.org" not in html
    assert counts() == before
    # "john smith" is the same name in another order: warned too
    response = director_client.post(url(division, "players_add"), {"name": "john  SMITH"})
    assert 'id="near"' in response.content.decode() and counts() == before
    response = director_client.post(
        url(division, "players_add"),
        {"name": "Smith, Jon", "rating": "1500", "player_class": "B", "confirm": "on"},
        **HTMX,
    )
    assert response.status_code == 200
    entry = division.entries.get(player__name="Smith, Jon")
    assert (entry.number, entry.seed_rating, entry.player_class) == (4, 1500, "B")
    assert Player.objects.count() == before[1] + 1


def test_add_new_player_with_no_likeness_is_registered_straight_away(director_client, division):
    response = director_client.post(
        url(division, "players_add"), {"name": "Quinn, Zed", "rating": ""}, **HTMX
    )
    assert response.status_code == 200
    assert "Registered #4 Quinn, Zed (unrated)" in response.content.decode()


@pytest.mark.parametrize(
    "data, field, message",
    [
        ({"name": ""}, "id_name", "type the player&#x27;s name"),
        ({"name": "   "}, "id_name", "type the player&#x27;s name"),
        ({"name": "X" * 201}, "id_name", "at most 200 characters"),
        ({"name": "New, Person", "rating": "-5"}, "id_rating", "greater than or equal to 0"),
        ({"name": "New, Person", "rating": "3001"}, "id_rating", "less than or equal to 3000"),
        ({"name": "New, Person", "rating": "abc"}, "id_rating", "whole number"),
        ({"name": "New, Person", "rating": "²"}, "id_rating", "whole number"),
        ({"name": "New, Person", "player_class": "X" * 11}, "id_player_class", "at most 10"),
        ({"name": "x", "pick": "abc"}, "id_name", "search again"),
        ({"name": "x", "pick": "999999"}, "id_name", "no longer in the registry"),
        ({"name": "Able, Ann", "pick": "PICK_ABLE"}, "id_name", "already registered"),
        ({"name": "x", "pick": "PICK_BADLIST"}, "id_name", "not on that rating list"),
    ],
)
def test_bad_add_input_is_refused_at_its_field(
    director_client, division, registry, data, field, message
):
    able = Player.objects.get(name="Able, Ann")
    pick = data.get("pick", "")
    if pick == "PICK_ABLE":
        data = {**data, "pick": str(able.pk)}
    elif pick == "PICK_BADLIST":
        data = {**data, "pick": f"{able.pk}:{registry['list'].pk}"}
    before = counts()
    response = director_client.post(url(division, "players_add"), data, **HTMX)
    assert response.status_code == 400
    assert message in field_error(response, field)
    assert counts() == before


def test_late_entry_after_pairing_gets_forfeits_and_says_so(director_client, division):
    pair(division, 1, [(1, 2), (3, 0)])
    pair(division, 2, [(1, 3), (2, 0)])
    response = director_client.post(
        url(division, "players_add"), {"name": "Late, Larry", "rating": "1400"}, **HTMX
    )
    assert response.status_code == 200
    html = response.content.decode()
    assert "Registered #4 Late, Larry" in html
    assert "Missed rounds 1-2: each a forfeit loss (-50)" in html
    late = division.entries.get(number=4)
    games = Game.objects.filter(player1=late).order_by("round__number")
    assert [(g.round.number, g.score1) for g in games] == [(1, -50), (2, -50)]


# ----------------------------------------------------------------------- pasting a list


def test_parse_player_list_reads_both_shapes():
    rows, problems = parse_player_list(
        'Name,Rating,Class\n"Smith, John",1734,B\nDoe Jane\t1500\n\nSurname, Given 1650\nMono 0\n'
    )
    assert problems == []
    assert [(r.name, r.rating, r.player_class, r.line) for r in rows] == [
        ("Smith, John", 1734, "B", 2),
        ("Doe Jane", 1500, "", 3),
        ("Surname, Given", 1650, "", 5),
        ("Mono", 0, "", 6),
    ]
    rows, problems = parse_player_list("name rating\nA B 1200\nA b 1300\nC 1x\n1500\nD\n")
    assert [r.name for r in rows] == ["A B"]
    assert [n for n, _ in problems] == [3, 4, 5, 6]
    assert "already on line 2" in problems[0][1]


def test_paste_registers_a_list(director_client, division):
    text = "Dunn, Di 1500\nEvans, Ed,1400,C\nFox, Fay 0\n"
    response = director_client.post(url(division, "players_paste"), {"lines": text}, **HTMX)
    assert response.status_code == 200
    assert "Registered 3 players: #4 Dunn, Di, #5 Evans, Ed, #6 Fox, Fay." in (
        response.content.decode()
    )
    evans = division.entries.get(number=5)
    assert (evans.seed_rating, evans.player_class) == (1400, "C")


@pytest.mark.parametrize(
    "text, message",
    [
        ("Dunn, Di 1500\nEvans, Ed 17x4\nFox, Fay 1200", "line 2: Evans, Ed: &#x27;17x4&#x27;"),
        ("Dunn, Di 1500\nEvans, Ed abc", "line 2: Evans, Ed abc: no rating at the end"),
        ("Dunn, Di 1500\n\nFox, Fay 3500", "line 3: Fox, Fay: rating 3500 is above 3000"),
        ("Dunn, Di 1500\nFox, Fay", "line 2: Fox, Fay: no rating at the end"),
        ("\n\nDunn, Di 1500\nFox, Fay", "line 4: Fox, Fay: no rating at the end"),
        ("Dunn, Di 1500\nFox, Fay ²", "line 2: Fox, Fay: &#x27;²&#x27; is not a rating"),
        ("Dunn, Di,1500,B,extra", "line 1: too many columns"),
        ("Dunn, Di,1500,ABCDEFGHIJK", "line 1: Dunn, Di: class"),
        ("Dunn, Di 1500\ndunn, di 1400", "line 2: dunn, di is already on line 1"),
        ("Dunn, Di 1500\nCole, Cy 1600", "line 2: division A: Cole, Cy is already registered"),
        ("   \n\n", "the list has no players"),
        ("\n,\n", "line 2: no name"),
    ],
)
def test_bad_paste_is_refused_naming_the_line_and_registers_nothing(
    director_client, division, text, message
):
    before = counts()
    response = director_client.post(url(division, "players_paste"), {"lines": text}, **HTMX)
    assert response.status_code == 400
    assert message in field_error(response, "id_lines")
    assert counts() == before


# ----------------------------------------------------------------------- edit, withdraw, remove


def test_edit_seed_rating_and_class(director_client, division):
    e = division.entries.get(number=2)
    response = director_client.post(
        url(division, "players_edit"),
        {"entry": e.pk, "seed_rating": "1725", "player_class": "A"},
        **HTMX,
    )
    assert response.status_code == 200
    e.refresh_from_db()
    assert (e.seed_rating, e.player_class) == (1725, "A")
    event = AuditEvent.objects.get(action="update_entry")
    assert event.before == {"seed_rating": 1700, "player_class": ""}
    assert event.after == {"seed_rating": 1725, "player_class": "A"}


@pytest.mark.parametrize(
    "data, field, message",
    [
        ({"seed_rating": "-1"}, "seed_rating", "greater than or equal to 0"),
        ({"seed_rating": "3001"}, "seed_rating", "less than or equal to 3000"),
        ({"seed_rating": ""}, "seed_rating", "required"),
        ({"seed_rating": "1e3"}, "seed_rating", "whole number"),
        ({"seed_rating": "1700", "player_class": "X" * 11}, "player_class", "at most 10"),
    ],
)
def test_bad_edit_is_refused_at_its_field(director_client, division, data, field, message):
    e = division.entries.get(number=2)
    before = counts()
    response = director_client.post(url(division, "players_edit"), {"entry": e.pk, **data})
    assert response.status_code == 400
    assert message in field_error(response, f"id_e{e.pk}_{field}")
    assert counts() == before
    e.refresh_from_db()
    assert (e.seed_rating, e.player_class) == (1700, "")


def test_update_entry_service_refuses_absurd_values():
    t = services.create_tournament(name="S", actor="test")
    d = services.create_division(t, name="A", actor="test")
    e = services.register_player(d, name="A, B", rating=1500, actor="test")
    before = AuditEvent.objects.count()
    for kwargs, what in [
        ({"seed_rating": 3001}, "from 0 (unrated) to 3000"),
        ({"seed_rating": -1}, "from 0 (unrated) to 3000"),
        ({"seed_rating": "x"}, "from 0 (unrated) to 3000"),
        ({"player_class": "X" * 11}, "longer than 10"),
        ({}, "give a new seed rating, class or NASPA id"),
    ]:
        with pytest.raises(ServiceError, match=re.escape(what)) as exc:
            services.update_entry(e, actor="test", **kwargs)
        assert exc.value.code.startswith("reg_") and exc.value.field
    # a NASPA id is checked as the registry checks one: direction controls, the column's length
    for naspa_id in ("NA\u202e1", "N" * 21):
        with pytest.raises(ServiceError) as exc:
            services.update_entry(e, naspa_id=naspa_id, actor="test")
        assert exc.value.field == "naspa_id" and "naspa_id" in exc.value.message
    assert AuditEvent.objects.count() == before
    services.update_entry(e, seed_rating=1500, actor="test")  # no change: no event
    assert AuditEvent.objects.count() == before


def test_withdraw_then_reinstate_from_the_next_round(director_client, division):
    pair(division, 1, [(1, 2), (3, 0)])
    e = division.entries.get(number=2)
    response = director_client.post(
        url(division, "players_withdraw"), {"entry": e.pk, "round": "1"}, **HTMX
    )
    assert response.status_code == 200
    assert "withdrawn from round 1. 1 paired round recorded as a forfeit (-50)" in (
        response.content.decode()
    )
    e.refresh_from_db()
    assert e.withdrawn_round == 1
    # round 1 is paired: reinstating into it is refused, at the round field
    before = counts()
    response = director_client.post(
        url(division, "players_reinstate"), {"entry": e.pk, "round": "1"}, **HTMX
    )
    assert response.status_code == 400
    assert "round 1 of division A is already paired; delete its pairings first" in field_error(
        response, f"id_e{e.pk}_round"
    )
    # a later round would leave round 2 with no record
    response = director_client.post(
        url(division, "players_reinstate"), {"entry": e.pk, "round": "3"}, **HTMX
    )
    assert response.status_code == 400
    assert "reinstate #2 Baker, Bo from round 2" in field_error(response, f"id_e{e.pk}_round")
    assert counts() == before
    response = director_client.post(
        url(division, "players_reinstate"), {"entry": e.pk, "round": "2"}, **HTMX
    )
    assert response.status_code == 200
    assert "#2 Baker, Bo plays again from round 2." in response.content.decode()
    e.refresh_from_db()
    assert (e.withdrawn_round, e.withdrawal_score) == (None, None)
    # the forfeit of round 1 stays; round 2 pairs the player again
    assert Game.objects.get(round__number=1, player1=e).score1 == -50
    pair(division, 2, [(1, 2), (3, 0)])
    assert Game.objects.filter(round__number=2, player2=e).exists()
    event = AuditEvent.objects.get(action="reinstate")
    assert event.before == {"withdrawn_round": 1, "withdrawal_score": -50}


@pytest.mark.parametrize(
    "view, data, message",
    [
        ("players_withdraw", {"round": "0"}, "greater than or equal to 1"),
        ("players_withdraw", {"round": "x"}, "whole number"),
        ("players_withdraw", {"round": ""}, "required"),
        ("players_reinstate", {"round": "1"}, "is not withdrawn"),
    ],
)
def test_bad_status_change_is_refused_at_the_round(director_client, division, view, data, message):
    e = division.entries.get(number=3)
    before = counts()
    response = director_client.post(url(division, view), {"entry": e.pk, **data}, **HTMX)
    assert response.status_code == 400
    assert message in field_error(response, f"id_e{e.pk}_round")
    assert counts() == before


def test_withdraw_refused_by_the_service_shows_at_the_round(director_client, division):
    pair(division, 1, [(1, 2), (3, 0)])
    services.record_result(division, 1, 1, 400, 350, actor="test")
    e = division.entries.get(number=2)
    before = counts()
    response = director_client.post(
        url(division, "players_withdraw"), {"entry": e.pk, "round": "1"}, **HTMX
    )
    assert response.status_code == 400
    assert "already has a result" in field_error(response, f"id_e{e.pk}_round")
    assert counts() == before


def test_remove_before_round_1_closes_up_the_numbers(director_client, division):
    services.register_player(division, name="Dunn, Di", rating=1500, actor="test")
    baker = division.entries.get(number=2)
    players_before = Player.objects.count()
    response = director_client.post(url(division, "players_remove"), {"entry": baker.pk}, **HTMX)
    assert response.status_code == 200
    assert "Removed #2 Baker, Bo. Players #3-#4 moved up one number." in (response.content.decode())
    assert list(division.entries.order_by("number").values_list("number", "player__name")) == [
        (1, "Able, Ann"),
        (2, "Cole, Cy"),
        (3, "Dunn, Di"),
    ]
    assert Player.objects.count() == players_before  # the registry keeps the player
    event = AuditEvent.objects.get(action="remove_entry")
    assert event.after == {"renumbered": [[3, 2], [4, 3]]}
    # the next registration takes the next free number
    assert services.register_player(division, name="Eve, E", actor="test").number == 4


def test_remove_after_round_1_is_paired_is_refused(director_client, division):
    pair(division, 1, [(1, 2), (3, 0)])
    e = division.entries.get(number=1)
    before = counts()
    response = director_client.post(url(division, "players_remove"), {"entry": e.pk}, **HTMX)
    assert response.status_code == 400
    assert (
        "round 1 of division A is already paired, so #1 Able, Ann can only be withdrawn, "
        "not removed" in response.content.decode()
    )
    assert counts() == before
    with pytest.raises(ServiceError) as exc:
        services.remove_entry(e, actor="test")
    assert exc.value.code == "reg_remove_paired"


# ----------------------------------------------------------------------- who may do it


def test_anonymous_is_sent_to_sign_in(client, division):
    for name in ("players", "players_search"):
        response = client.get(url(division, name))
        assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")
    before = counts()
    response = client.post(url(division, "players_add"), {"name": "X, Y", "rating": "1"})
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")
    assert counts() == before


def test_other_directors_and_scorekeepers_are_refused(client, division):
    from django.contrib.auth import get_user_model

    other = services.create_tournament(name="Other Open", actor="test")
    stranger = make_director(other, "other-td")
    keeper = get_user_model().objects.create_user("keeper", "k@example.org", "pw-long-enough-1")
    division.tournament.scorekeepers.add(keeper)
    e = division.entries.get(number=1)
    before = counts()
    for user in (stranger, keeper):
        client.force_login(user)
        assert client.get(url(division)).status_code == 403
        assert client.get(url(division, "players_search"), {"name": "ab"}).status_code == 403
        for name, data in [
            ("players_add", {"name": "X, Y"}),
            ("players_paste", {"lines": "X, Y 1500"}),
            ("players_edit", {"entry": e.pk, "seed_rating": "1"}),
            ("players_withdraw", {"entry": e.pk, "round": "1"}),
            ("players_remove", {"entry": e.pk}),
        ]:
            assert client.post(url(division, name), data).status_code == 403
    assert counts() == before


def test_an_entry_of_another_tournament_is_refused(director_client, division):
    other = services.create_tournament(name="Other Open", actor="test")
    od = services.create_division(other, name="A", actor="test")
    foreign = services.register_player(od, name="Far, Away", rating=1500, actor="test")
    before = counts()
    for name, data in [
        ("players_edit", {"seed_rating": "1"}),
        ("players_withdraw", {"round": "1"}),
        ("players_remove", {}),
        ("players_reinstate", {"round": "1"}),
    ]:
        for entry in (foreign.pk, "abc", ""):
            response = director_client.post(url(division, name), {"entry": entry, **data}, **HTMX)
            assert response.status_code == 400
            assert "there is no such player in division A" in response.content.decode()
    assert counts() == before
    foreign.refresh_from_db()
    assert (foreign.number, foreign.seed_rating) == (1, 1500)


def test_get_on_a_write_url_is_not_allowed(director_client, division):
    assert director_client.get(url(division, "players_add")).status_code == 405
    assert director_client.post(url(division), {}).status_code == 405


def test_reinstate_service_rules(division):
    e = division.entries.get(number=3)
    with pytest.raises(ServiceError) as exc:
        services.reinstate_player(e, 1, actor="test")
    assert exc.value.code == "reg_not_withdrawn"
    # a withdrawal announced ahead (from round 3, nothing paired): back from round 1
    services.withdraw_player(e, from_round=3, actor="test")
    for bad, code in [
        (0, "reg_round_number"),
        ("x", "reg_round_number"),
        (2, "reg_reinstate_not_next"),
    ]:
        with pytest.raises(ServiceError) as exc:
            services.reinstate_player(e, bad, actor="test")
        assert (exc.value.code, exc.value.field) == (code, "round")
    services.reinstate_player(e, 1, actor="test")
    e.refresh_from_db()
    assert e.withdrawn_round is None
    # after deleting a paired round's pairings, the player can come back into it
    pair(division, 1, [(1, 2), (3, 0)])
    services.withdraw_player(e, from_round=1, actor="test")
    with pytest.raises(ServiceError, match="round 1 of division A is already paired"):
        services.reinstate_player(e, 1, actor="test")
    delete_round_pairings(division, 1, actor="test")
    services.reinstate_player(e, from_round=1, actor="test")
    assert division.entries.get(number=3).withdrawn_round is None


# ------------------------------------------------------------------------------- NASPA ids


def test_a_director_gives_the_naspa_id_the_registry_lacks(director_client, division):
    """Issue 31: NASPA ids could not be entered in the console, so a federation file needed
    the admin. The edit form takes one while the registry has none, audited."""
    e = division.entries.get(number=2)
    page = director_client.get(url(division)).content.decode()
    assert f'id="id_e{e.pk}_naspa_id"' in page
    response = director_client.post(
        url(division, "players_edit"),
        {"entry": e.pk, "seed_rating": "1700", "player_class": "", "naspa_id": " NA4242 "},
        **HTMX,
    )
    assert response.status_code == 200
    assert "NASPA id NA4242" in response.content.decode()
    assert Player.objects.get(pk=e.player_id).naspa_id == "NA4242"
    event = AuditEvent.objects.get(action="update_entry")
    assert (event.before["naspa_id"], event.after["naspa_id"]) == ("", "NA4242")
    # once held, the form shows it and offers no box: the registry's keepers change it
    page = director_client.get(url(division)).content.decode()
    assert f'id="id_e{e.pk}_naspa_id"' not in page and "NASPA id NA4242" in page


def test_a_director_cannot_replace_a_held_or_anothers_naspa_id(director_client, division):
    services.find_or_create_player("Dunn, Di", naspa_id="NA7")
    held = division.entries.get(number=1)
    Player.objects.filter(pk=held.player_id).update(naspa_id="NA1")
    other = division.entries.get(number=3)
    before = counts()
    refused = director_client.post(
        url(division, "players_edit"),
        {"entry": held.pk, "seed_rating": "1800", "naspa_id": "NA2"},
    )
    assert refused.status_code == 400
    assert "already has NASPA id NA1" in field_error(refused, f"id_e{held.pk}_naspa_id")
    taken = director_client.post(
        url(division, "players_edit"),
        {"entry": other.pk, "seed_rating": "1600", "naspa_id": "NA7"},
    )
    assert taken.status_code == 400 and "Dunn, Di" in taken.content.decode()
    assert counts() == before
    assert Player.objects.get(pk=held.player_id).naspa_id == "NA1"
    assert Player.objects.get(pk=other.player_id).naspa_id == ""


def test_a_registry_keeper_may_replace_a_naspa_id_and_others_may_not(division):
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Permission

    e = division.entries.get(number=1)
    Player.objects.filter(pk=e.player_id).update(naspa_id="NA1")
    director = make_director(division.tournament, "td2")
    with pytest.raises(ServiceError) as refused:
        services.update_entry(e, naspa_id="", actor=director)
    assert refused.value.code == "reg_naspa_id_held"
    keeper = get_user_model().objects.create_user("keeper", "k@example.org", "pw-long-1")
    keeper.user_permissions.add(Permission.objects.get(codename="manage_registry"))
    division.tournament.directors.add(keeper)
    keeper = get_user_model().objects.get(pk=keeper.pk)  # permissions cache
    services.update_entry(e, naspa_id="NA9", actor=keeper)
    assert Player.objects.get(pk=e.player_id).naspa_id == "NA9"
    # a director of another tournament is refused before anything is read
    other = services.create_tournament(name="Other", actor="test")
    stranger = make_director(other, "stranger")
    with pytest.raises(ServiceError) as denied:
        services.update_entry(e, naspa_id="NA10", actor=stranger)
    assert denied.value.code == "not_allowed"
