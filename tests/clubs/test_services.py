"""The clubs service layer's refusals, denials and audit trail (tournament.clubs.services).

Bad input from the issue (a player ticked twice, a game between players of different nights,
a score out of range, overlapping seasons) is refused with a code and the field to show it at,
and writes nothing: every table the services touch, and the audit trail, are counted before
and after. An organiser of another club is refused by every service; each write leaves one
audit event naming who did it; a club's organisers direct its nights and nobody else does.
"""

from __future__ import annotations

import datetime

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AnonymousUser

from ratings.models import RatedEvent
from tournament.clubs import services as cs
from tournament.clubs.models import Night, Season
from tournament.errors import ServiceError
from tournament.models import (
    AuditEvent,
    Club,
    Entry,
    Game,
    Membership,
    Player,
    Round,
    Tournament,
)
from tournament.services.results import record_result

pytestmark = pytest.mark.django_db

PW = "pw-long-enough-1"
FIELD = ["Ann Lee", "Bob Ray", "Cy Dee", "Di Eve"]


@pytest.fixture(autouse=True)
def _fast_passwords(settings):
    """Accounts are made in every test; a deliberately slow hash would dominate the run."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def user(name: str, **extra):
    return get_user_model().objects.create_user(name, f"{name}@example.org", PW, **extra)


def counts() -> dict[str, int]:
    models = (
        Club,
        Membership,
        Player,
        Tournament,
        Night,
        Season,
        Entry,
        Round,
        Game,
        RatedEvent,
        AuditEvent,
    )
    out = {m.__name__: m.objects.count() for m in models}
    out["organisers"] = Club.organisers.through.objects.count()
    out["closed"] = Night.objects.filter(closed_at__isnull=False).count()
    out["archived"] = Season.objects.filter(archived_at__isnull=False).count()
    return out


def refused(call, code: str, field: str | None = None) -> ServiceError:
    """``call()`` must be refused with ``code`` (at ``field``) and write nothing."""
    before = counts()
    with pytest.raises(ServiceError) as info:
        call()
    assert info.value.code == code, info.value.message
    if field is not None:
        assert info.value.field == field
    assert counts() == before
    return info.value


@pytest.fixture
def org():
    return user("org")


@pytest.fixture
def club(org):
    club = cs.create_club(name="Riverside", slug="riverside", actor=org)
    for name in FIELD:
        cs.add_member(club, name, actor=org)
    return club


@pytest.fixture
def night(club, org):
    return cs.create_night(club, date="2026-03-03", players=FIELD, games=2, actor=org)


def score_round(night, number: int) -> None:
    division = night.tournament.divisions.get()
    for g in Game.objects.filter(
        round__division=division, round__number=number, player2__isnull=False
    ):
        record_result(division, number, g.player1.number, 400, 350, actor="test")


# --- bad input from the issue -----------------------------------------------------------------


def test_a_player_ticked_twice(club, org):
    err = refused(
        lambda: cs.create_night(club, date="2026-03-03", players=[*FIELD, "Ann Lee"], actor=org),
        "player_ticked_twice",
        "players",
    )
    assert "Ann Lee" in err.message


def test_a_player_ticked_twice_by_object_and_id(club, org):
    ann = Player.objects.get(name="Ann Lee")
    refused(
        lambda: cs.create_night(
            club, date="2026-03-03", players=[ann, "Bob Ray", ann.pk], actor=org
        ),
        "player_ticked_twice",
        "players",
    )


def test_a_player_ticked_as_member_and_guest(club, org):
    refused(
        lambda: cs.create_night(
            club, date="2026-03-03", players=FIELD, guests=["Bob Ray"], actor=org
        ),
        "player_ticked_twice",
        "guests",
    )


def test_a_game_between_players_of_different_nights(club, org, night):
    other = cs.create_night(club, date="2026-03-10", players=["Ann Lee", "Eve Fox"], actor=org)
    err = refused(
        lambda: cs.log_game(
            night, player="Ann", opponent="Eve Fox", score=400, opp_score=350, actor=org
        ),
        "not_at_night",
        "opponent",
    )
    assert "Eve Fox" in err.message
    refused(
        lambda: cs.log_game(
            other, player="Eve", opponent="Bob Ray", score=400, opp_score=350, actor=org
        ),
        "not_at_night",
        "opponent",
    )


def test_a_game_with_a_player_entry_of_another_night(club, org, night):
    """An Entry of another night must not be paired here by its number (it would pair whoever
    holds that number tonight)."""
    other = cs.create_night(
        club, date="2026-03-10", players=["Eve Fox", "Gus Tee", "Hal Ivy"], actor=org
    )
    gus = other.tournament.divisions.get().entries.get(player__name="Gus Tee")  # #2 there
    ann = night.tournament.divisions.get().entries.get(player__name="Ann Lee")
    refused(
        lambda: cs.log_game(night, player=ann, opponent=gus, score=400, opp_score=350, actor=org),
        "not_at_night",
        "opponent",
    )


@pytest.mark.parametrize(
    "score, opp, field", [(1501, 300, "score"), (400, -1, "opp_score"), ("lots", 300, "score")]
)
def test_a_score_out_of_range(night, org, score, opp, field):
    refused(
        lambda: cs.log_game(
            night, player="Ann", opponent="Bob", score=score, opp_score=opp, actor=org
        ),
        "not_a_number" if score == "lots" else "score_out_of_range",
        field,
    )


def test_a_score_out_of_range_on_a_drawn_game(night, org):
    cs.pair_next_game(night, actor=org)
    g = Game.objects.filter(round__division__tournament=night.tournament).first()
    division = night.tournament.divisions.get()
    refused(
        lambda: record_result(division, 1, g.player1.number, 2000, 300, actor=org),
        "score_out_of_range",
        "score",
    )


def test_a_season_overlapping_another(club, org):
    cs.create_season(club, name="Spring", start_date="2026-03-01", end_date="2026-05-31", actor=org)
    for start, end in (
        ("2026-05-31", "2026-08-31"),
        ("2026-01-01", "2026-03-01"),
        ("2026-04-01", "2026-04-30"),
        ("2025-01-01", "2027-01-01"),
    ):
        err = refused(
            lambda s=start, e=end: cs.create_season(
                club, name="Summer", start_date=s, end_date=e, actor=org
            ),
            "season_overlaps",
            "start_date",
        )
        assert "Spring" in err.message


def test_a_season_moved_onto_another(club, org):
    cs.create_season(club, name="Spring", start_date="2026-03-01", end_date="2026-05-31", actor=org)
    summer = cs.create_season(
        club, name="Summer", start_date="2026-06-01", end_date="2026-08-31", actor=org
    )
    refused(
        lambda: cs.update_season(summer, start_date="2026-05-15", actor=org),
        "season_overlaps",
        "start_date",
    )


def test_seasons_of_different_clubs_may_overlap(club, org):
    other = cs.create_club(name="Hillside", actor=org)
    cs.create_season(club, name="2026", start_date="2026-01-01", end_date="2026-12-31", actor=org)
    cs.create_season(other, name="2026", start_date="2026-01-01", end_date="2026-12-31", actor=org)
    assert Season.objects.count() == 2


@pytest.mark.parametrize(
    "kwargs, code, field",
    [
        ({"date": "2026-02-30"}, "not_a_date", "date"),
        ({"draw": "random,golf"}, "unknown_draw", "draw"),
        ({"games": 0}, "number_too_large", "games"),
        ({"games": 13}, "number_too_large", "games"),
        ({"players": ["Ann Lee"]}, "night_needs_players", "players"),
        ({"players": ["Ann Lee", 10**9]}, "no_such_player", "players"),
    ],
)
def test_other_bad_night_input(club, org, kwargs, code, field):
    args = {"date": "2026-03-03", "players": FIELD, "actor": org, **kwargs}
    refused(lambda: cs.create_night(club, **args), code, field)


@pytest.mark.parametrize(
    "kwargs, code, field",
    [
        ({"end_date": "2025-12-31"}, "season_ends_before_start", "end_date"),
        ({"start_date": "soon"}, "not_a_date", "start_date"),
        ({"preset": "golf"}, "unknown_preset", "preset"),
        ({"rule": {"win": "many"}}, "not_a_points_value", "win"),
        ({"rule": {"best_nights": -1}}, "number_too_large", "best_nights"),
        ({"rule": {"bogus": 1}}, "unknown_rule_setting", "bogus"),
        ({"name": ""}, "empty_name", "name"),
    ],
)
def test_other_bad_season_input(club, org, kwargs, code, field):
    args = {
        "name": "2026",
        "start_date": "2026-01-01",
        "end_date": "2026-12-31",
        "actor": org,
        **kwargs,
    }
    refused(lambda: cs.create_season(club, **args), code, field)


def test_log_game_refusals(club, org, night):
    refused(
        lambda: cs.log_game(
            night, player="Ann", opponent="Ann Lee", score=400, opp_score=300, actor=org
        ),
        "self_pairing",
        "opponent",
    )
    refused(
        lambda: cs.log_game(night, player="9", opponent="Ann", score=400, opp_score=300, actor=org),
        "unknown_player",
        "player",
    )
    cs.add_member(club, "Ann Other", actor=org)
    cs.add_night_player(night, "Ann Other", actor=org)
    refused(
        lambda: cs.log_game(
            night, player="Ann", opponent="Bob", score=400, opp_score=300, actor=org
        ),
        "ambiguous_name",
        "player",
    )


def test_log_game_refuses_a_player_already_drawn_against_another(night, org):
    cs.pair_next_game(night, actor=org)
    g = (
        Game.objects.filter(round__division__tournament=night.tournament)
        .select_related("player1__player")
        .first()
    )
    others = Entry.objects.filter(division=g.round.division).exclude(
        pk__in=[g.player1_id, g.player2_id]
    )
    refused(
        lambda: cs.log_game(
            night,
            player=g.player1.number,
            opponent=others[0].number,
            score=400,
            opp_score=300,
            actor=org,
        ),
        "already_playing",
        "player",
    )


def test_closing_needs_every_result_and_a_closed_night_is_fixed(night, org):
    refused(lambda: cs.close_night(night, actor=org), "night_without_games")
    cs.pair_next_game(night, actor=org)
    refused(lambda: cs.close_night(night, actor=org), "night_games_missing")
    score_round(night, 1)
    cs.close_night(night, actor=org)
    refused(lambda: cs.close_night(night, actor=org), "night_closed")
    refused(lambda: cs.pair_next_game(night, actor=org), "night_closed")
    refused(
        lambda: cs.log_game(
            night, player="Ann", opponent="Bob", score=400, opp_score=300, actor=org
        ),
        "night_closed",
    )
    refused(lambda: cs.add_night_player(night, "Late Comer", actor=org), "night_closed")


def test_an_archived_season_is_fixed(club, org):
    season = cs.create_season(
        club, name="2026", start_date="2026-01-01", end_date="2026-12-31", actor=org
    )
    cs.archive_season(season, actor=org)
    refused(lambda: cs.archive_season(season, actor=org), "season_archived")
    refused(lambda: cs.update_season(season, name="Renamed", actor=org), "season_archived")


def test_no_actor_at_all_is_refused(club, night):
    refused(
        lambda: cs.create_night(club, date="2026-03-03", players=FIELD, actor=None),
        "actor_required",
    )
    refused(lambda: cs.add_member(club, "New Member", actor=None), "actor_required")
    refused(lambda: cs.create_club(name="Nobody's", actor=None), "actor_required")


# --- the organiser of another club is refused by every service --------------------------------


@pytest.fixture
def stranger():
    """The organiser of another club (and nothing else)."""
    other = user("other-org")
    cs.create_club(name="Hillside", slug="hillside", actor=other)
    return other


def _season(club, org):
    return cs.create_season(
        club, name="2026", start_date="2026-01-01", end_date="2026-12-31", actor=org
    )


DENIED = {
    "update_club": lambda c, n, o, s: cs.update_club(c, meets="Fridays", actor=s),
    "add_organiser": lambda c, n, o, s: cs.add_organiser(c, s, actor=s),
    "remove_organiser": lambda c, n, o, s: cs.remove_organiser(c, o, actor=s),
    "add_member": lambda c, n, o, s: cs.add_member(c, "Zed New", actor=s),
    "update_member": lambda c, n, o, s: cs.update_member(
        Membership.objects.filter(club=c).first(), active=False, actor=s
    ),
    "create_night": lambda c, n, o, s: cs.create_night(
        c, date="2026-04-07", players=FIELD, actor=s
    ),
    "add_night_player": lambda c, n, o, s: cs.add_night_player(n, "Zed New", actor=s),
    "pair_next_game": lambda c, n, o, s: cs.pair_next_game(n, actor=s),
    "log_game": lambda c, n, o, s: cs.log_game(
        n, player="Ann", opponent="Bob", score=400, opp_score=300, actor=s
    ),
    "close_night": lambda c, n, o, s: cs.close_night(n, actor=s),
    "reopen_night": lambda c, n, o, s: cs.reopen_night(n, actor=s, reason="x"),
    "create_season": lambda c, n, o, s: cs.create_season(
        c, name="2027", start_date="2027-01-01", end_date="2027-12-31", actor=s
    ),
    "update_season": lambda c, n, o, s: cs.update_season(c.seasons.get(), name="X", actor=s),
    "archive_season": lambda c, n, o, s: cs.archive_season(c.seasons.get(), actor=s),
}


@pytest.mark.parametrize("service", list(DENIED))
def test_organiser_of_another_club_is_refused(club, org, night, stranger, service):
    if service == "reopen_night":  # something to reopen
        cs.pair_next_game(night, actor=org)
        score_round(night, 1)
        cs.close_night(night, actor=org)
    elif service == "close_night":  # something that could be closed
        cs.pair_next_game(night, actor=org)
        score_round(night, 1)
    elif service in ("update_season", "archive_season"):
        _season(club, org)
    call = DENIED[service]
    err = refused(lambda: call(club, night, org, stranger), "organiser_required")
    assert "other-org" in err.message and "Riverside" in err.message
    # and the club's own organiser may (the refusal was about who, not what)
    if service not in ("add_organiser", "remove_organiser"):
        DENIED[service](club, night, org, org)


def test_a_plain_signed_in_user_and_a_lapsed_organiser_are_refused(club, org, night):
    nobody = user("nobody")
    refused(lambda: cs.pair_next_game(night, actor=nobody), "organiser_required")
    helper = user("helper")
    cs.add_organiser(club, helper, actor=org)
    cs.pair_next_game(night, actor=helper)
    cs.remove_organiser(club, helper, actor=org)
    refused(
        lambda: cs.log_game(
            night, player="Ann", opponent="Bob", score=1, opp_score=2, actor=helper
        ),
        "organiser_required",
    )


def test_a_superuser_may_run_any_club(club, night):
    admin = user("admin", is_superuser=True, is_staff=True)
    assert cs.pair_next_game(night, actor=admin) == 1


def test_the_last_organiser_stays(club, org):
    refused(lambda: cs.remove_organiser(club, org, actor=org), "last_organiser", "user")


# --- every write leaves one audit event naming who ----------------------------------------------


def _audited(action: str, actor: str, call) -> object:
    before = AuditEvent.objects.filter(action=action).count()
    result = call()
    events = AuditEvent.objects.filter(action=action).order_by("pk")
    assert events.count() == before + 1, action
    assert events.last().actor == actor, action
    return result


def test_every_club_write_is_audited(org):
    club = _audited("create_club", "org", lambda: cs.create_club(name="Audit Club", actor=org))
    _audited("update_club", "org", lambda: cs.update_club(club, meets="Tuesdays", actor=org))
    helper = user("helper")
    _audited("add_organiser", "org", lambda: cs.add_organiser(club, helper, actor=org))
    _audited("remove_organiser", "helper", lambda: cs.remove_organiser(club, org, actor=helper))
    m = None
    for name in FIELD:
        m = _audited("add_member", "helper", lambda n=name: cs.add_member(club, n, actor=helper))
    _audited("update_member", "helper", lambda: cs.update_member(m, active=False, actor=helper))
    night = _audited(
        "create_night",
        "helper",
        lambda: cs.create_night(club, date="2026-03-03", players=FIELD, games=2, actor=helper),
    )
    assert AuditEvent.objects.filter(action="create_night").last().tournament == night.tournament
    _audited("register", "helper", lambda: cs.add_night_player(night, "Late Comer", actor=helper))
    _audited("pair_round", "helper", lambda: cs.pair_next_game(night, actor=helper))
    score_round(night, 1)
    # a game without a draw, on a night not drawn yet: its pairing and its result, audited
    two = cs.create_night(club, date="2026-03-10", players=FIELD[:2], games=1, actor=helper)
    pairs = AuditEvent.objects.filter(action="pair").count()
    _audited(
        "record_result",
        "helper",
        lambda: cs.log_game(
            two, player="Ann", opponent="Bob", score=400, opp_score=390, actor=helper
        ),
    )
    assert AuditEvent.objects.filter(action="pair").count() == pairs + 1
    assert Game.objects.filter(round__division__tournament=two.tournament).count() == 1
    _audited("close_night", "helper", lambda: cs.close_night(night, actor=helper))
    _audited("reopen_night", "helper", lambda: cs.reopen_night(night, actor=helper, reason="typo"))
    assert AuditEvent.objects.filter(action="reopen_night").last().reason == "typo"
    season = _audited(
        "create_season",
        "helper",
        lambda: cs.create_season(
            club, name="2026", start_date="2026-01-01", end_date="2026-12-31", actor=helper
        ),
    )
    _audited(
        "update_season", "helper", lambda: cs.update_season(season, preset="wins", actor=helper)
    )
    _audited("archive_season", "helper", lambda: cs.archive_season(season, actor=helper))


def test_an_unchanged_update_writes_no_event(club, org):
    before = counts()
    cs.update_club(club, meets=club.meets, actor=org)
    m = Membership.objects.filter(club=club).first()
    cs.update_member(m, active=m.active, actor=org)
    assert counts() == before


# --- organisers direct their club's nights ------------------------------------------------------


def test_tournament_is_director_for_the_clubs_organisers_only(club, org, night, stranger):
    t = night.tournament
    assert t.is_director(org) and t.is_scorekeeper(org)
    assert not t.is_director(stranger) and not t.is_scorekeeper(stranger)
    assert not t.is_director(user("nobody"))
    assert not t.is_director(AnonymousUser())
    assert not t.is_director(None)
    helper = user("helper")
    assert not t.is_director(helper)
    cs.add_organiser(club, helper, actor=org)
    assert t.is_director(helper)  # today's organisers, not those of that night
    cs.remove_organiser(club, helper, actor=org)
    assert not t.is_director(helper)
    org.is_active = False
    org.save()
    assert not t.is_director(org)


def test_an_organiser_does_not_direct_other_tournaments(club, org, stranger):
    open_event = Tournament.objects.create(
        name="Open", slug="open-2026", start_date=datetime.date(2026, 5, 1)
    )
    assert not open_event.is_director(org)
    hill = Club.objects.get(slug="hillside")
    hill_night = cs.create_night(hill, date="2026-03-03", players=FIELD[:2], actor=stranger)
    assert hill_night.tournament.is_director(stranger)
    assert not hill_night.tournament.is_director(org)


# --- a closed night is fixed; drawing by rating -----------------------------------------------


def test_a_closed_night_refuses_result_corrections(night, org):
    """Closed, it counts in the seasons and the club ratings: a correction waits for a reopen
    (the check sits in audit(), so every tournament service refuses it and rolls back)."""
    from tournament.services.results import correct_player_result

    cs.pair_next_game(night, actor=org)
    score_round(night, 1)
    cs.close_night(night, actor=org)
    g = Game.objects.filter(
        round__division__tournament=night.tournament, player2__isnull=False
    ).first()
    division = night.tournament.divisions.get()
    events = AuditEvent.objects.count()
    with pytest.raises(ServiceError) as refused:
        correct_player_result(division, 1, g.player1.number, 300, 450, reason="typo", actor=org)
    assert refused.value.code == "night_closed"
    assert Game.objects.get(pk=g.pk).score1 == g.score1
    assert AuditEvent.objects.count() == events
    cs.reopen_night(night, actor=org, reason="typo on board 1")
    correct_player_result(division, 1, g.player1.number, 300, 450, reason="typo", actor=org)
    assert Game.objects.get(pk=g.pk).score1 in (300, 450)


def test_a_night_drawn_by_rating(club, org):
    """By rating is the first game's draw (King of the Hill on ratings: 1 v 2, 3 v 4, ...);
    later games are winners play winners, and "rating" later in the list is refused."""
    night = cs.create_night(club, date="2026-03-03", players=FIELD, draw="rating", actor=org)
    assert night.draws()[:2] == ["rating", "koth"]
    assert cs.pair_next_game(night, actor=org) == 1
    games = Game.objects.filter(round__division__tournament=night.tournament, round__number=1)
    pairs = sorted(
        tuple(sorted((g.player1.number, g.player2.number))) for g in games if g.player2_id
    )
    assert pairs[0] == (1, 2)
    with pytest.raises(ServiceError) as refused:
        cs.create_night(club, date="2026-03-10", players=FIELD, draw="random,rating", actor=org)
    assert refused.value.code == "rating_draw_first_only" and refused.value.field == "draw"


def test_page_words_are_not_club_slugs(org):
    """/clubs/new/ and /clubs/mine/ are pages: a club named "New" gets "new-2"; asking for
    the slug "mine" is refused at the slug field."""
    assert cs.create_club(name="New", actor=org).slug == "new-2"
    with pytest.raises(ServiceError) as refused:
        cs.create_club(name="Mine Club", slug="mine", actor=org)
    assert refused.value.code == "club_slug_taken" and refused.value.field == "slug"


def test_a_night_of_three_gets_no_federation_files(club, org, client):
    """Fewer than 4 players: all.tsh and .TOU are refused with the reason, on the desk's
    export URL too (not only hidden on the night's page)."""
    from tournament.interchange.exports import render_export

    night = cs.create_night(club, date="2026-03-03", players=FIELD[:3], actor=org)
    for fmt in ("all.tsh", "tou"):
        with pytest.raises(ServiceError) as refused:
            render_export(night.tournament, fmt)
        assert refused.value.code == "night_too_small_to_submit"
        assert "4 or more players" in refused.value.message
    client.force_login(org)
    response = client.get(f"/t/{night.tournament.slug}/desk/export/all.tsh")
    assert response.status_code == 400
    assert "4 or more players" in response.content.decode()
    assert render_export(night.tournament, "csv").data  # standings still export
    four = cs.create_night(club, date="2026-03-10", players=FIELD, actor=org)
    assert render_export(four.tournament, "all.tsh").data


def test_the_console_refuses_a_closed_night(night, org, client):
    """The full console of a night is the tournament console: on a closed night a result
    line is refused at the line with the reason (reopen first), nothing written."""
    cs.pair_next_game(night, actor=org)
    score_round(night, 1)
    cs.close_night(night, actor=org)
    cs.reopen_night(night, actor=org, reason="one more game")
    cs.pair_next_game(night, actor=org)
    g = Game.objects.filter(
        round__division__tournament=night.tournament, round__number=2, player2__isnull=False
    ).first()
    division = night.tournament.divisions.get()
    record_result(division, 2, g.player1.number, 400, 300, actor=org)
    for other in Game.objects.filter(
        round__division=division, round__number=2, score1__isnull=True
    ):
        record_result(
            division,
            2,
            other.player1.number,
            400 if other.player2_id else 50,
            300 if other.player2_id else None,
            actor=org,
        )
    cs.close_night(night, actor=org)
    client.force_login(org)
    events, games = AuditEvent.objects.count(), list(Game.objects.values_list("score1", "score2"))
    url = f"/t/{night.tournament.slug}/console/club/round/2/results/correct/"
    response = client.post(url, {"game": g.pk, "score1": 350, "score2": 300, "reason": "typo"})
    assert response.status_code == 400
    assert "closed; reopen it" in response.content.decode()
    assert AuditEvent.objects.count() == events
    assert list(Game.objects.values_list("score1", "score2")) == games
