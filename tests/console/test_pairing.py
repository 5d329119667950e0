"""Pairing a round from the console: propose, swap, pin, publish, unpair; and who may."""

from __future__ import annotations

import re

import pytest

from pairings.models import ScheduleRange
from pairings.services.rounds import edit_proposal, propose_round
from pairings.services.store import PlannedGame, save_round_pairings
from tests.core.conftest import make_director
from tournament import services
from tournament.errors import ServiceError
from tournament.models import AuditEvent, Game, Round
from tournament.web.forms.pairing import encode_pairs

pytestmark = pytest.mark.django_db

NAMES = ["Ann", "Bob", "Cat", "Dan", "Eve", "Fay", "Gus", "Hal", "Ida"]


@pytest.fixture
def event():
    """Nine players (so a bye), round 1 played 1-2, 3-4, 5-6, 7-8 (odd numbers won), 9 bye."""
    t = services.create_tournament(name="Pair Open", gibson=False)
    d = services.create_division(t, name="A", rounds=5)
    for k, name in enumerate(NAMES):
        services.register_player(d, name=name, rating=2000 - 50 * k)
    ScheduleRange.objects.create(division=d, first_round=1, last_round=5, system="swiss")
    save_round_pairings(
        d,
        1,
        [PlannedGame(a, a + 1, board=k) for k, a in enumerate((1, 3, 5, 7), start=1)]
        + [PlannedGame(9, 0)],
        system="manual",
    )
    for a in (1, 3, 5, 7):
        services.record_result(d, 1, a, 400 + a, 350)
    return t, d


@pytest.fixture
def td(client, event):
    t, _ = event
    client.force_login(make_director(t, "pair-td"))
    return client


def url(t, d, rnd=2, what="pair"):
    return f"/t/{t.slug}/console/{d.slug}/round/{rnd}/{what}/"


def counts():
    return (Game.objects.count(), Round.objects.count(), AuditEvent.objects.count())


def hidden(body: str, prefix: str, name: str) -> str:
    m = re.search(rf'name="{prefix}-{name}" value="([^"]*)"', body)
    assert m, f"{prefix}-{name} not in the page"
    return m.group(1)


def pairs_of(text: str) -> list[tuple[int, int]]:
    return [tuple(map(int, p.split("-"))) for p in text.split()]


def opponent(pairs, n):
    for a, b in pairs:
        if n in (a, b):
            return b if a == n else a
    raise AssertionError(n)


def post(client, t, d, action, games, *, a=None, b=None, pins="", system="", rnd=2, **extra):
    data = {
        "action": action,
        f"{action}-games": games,
        f"{action}-pins": pins,
        f"{action}-system": system,
    }
    if a is not None:
        data[f"{action}-a"] = a
    if b is not None:
        data[f"{action}-b"] = b
    return client.post(url(t, d, rnd), data, **extra)


# ---------------------------------------------------------------------------- the proposal


def test_proposal_shows_explanations_and_checker_report_and_stores_nothing(td, event):
    t, d = event
    before = counts()
    response = td.get(url(t, d))
    assert response.status_code == 200
    body = response.content.decode()
    proposal = propose_round(d, 2)
    for g in proposal.games:
        assert g.explanation and g.explanation in body
    assert any(g.explanation.startswith("bye:") for g in proposal.games)
    assert 'id="checker"' in body and "No rule broken." in body
    assert 'data-measure="repeats"' in body and 'data-measure="win_diff"' in body
    assert "Largest firsts/seconds imbalance" in body
    assert pairs_of(hidden(body, "publish", "games")) == proposal.pairs
    assert counts() == before


def test_swap_creating_a_repeat_is_reported_as_a_repeat(td, event):
    t, d = event
    games = propose_round(d, 2).pairs
    # 1 met 2 in round 1: swap 1's opponent with 2 so that 1 plays 2 again
    x = opponent(games, 1)
    assert x != 2
    before = counts()
    response = post(td, t, d, "swap", encode_pairs(games), a=x, b=2)
    assert response.status_code == 200
    body = response.content.decode()
    edited = pairs_of(hidden(body, "publish", "games"))
    assert opponent(edited, 1) == 2
    assert re.search(r'data-measure="repeats"><dt>Repeats</dt><dd>1 ', body)
    assert "Rules broken:" in body and "beyond the repeat limit" in body
    assert "changed by the director; repeat 2nd meeting" in body
    # the checker names the repeat's board and players, not only a count
    board = next(b for b, (a, c) in enumerate(edited, start=1) if {a, c} == {1, 2})
    one, two = d.entries.get(number=1).player.name, d.entries.get(number=2).player.name
    assert re.search(
        rf"<li>board {board}: #(1 {one} v #2 {two}|2 {two} v #1 {one}), met in round 1</li>", body
    )
    assert counts() == before


def test_pin_forces_two_players_to_meet_and_repairs_around_them(td, event):
    t, d = event
    engine = propose_round(d, 2)
    games = engine.pairs
    assert opponent(games, 1) != 4  # 1 won round 1, 4 lost: a pin across score groups
    response = post(td, t, d, "pin", encode_pairs(games), a=1, b=4)
    assert response.status_code == 200
    body = response.content.decode()
    edited = pairs_of(hidden(body, "publish", "games"))
    assert opponent(edited, 1) == 4
    # the old opponents of 1 and 4 now play each other (or one of them has the bye)
    assert opponent(edited, opponent(games, 1)) == opponent(games, 4)
    assert pairs_of(hidden(body, "publish", "pins")) == [(1, 4)]
    assert "pinned by the director" in body and 'class="pinned"' in body
    numbers = sorted(n for p in edited for n in p if n)
    assert numbers == list(range(1, 10))
    # the checker ran on the edited round: more win difference than the engine's
    proposal = edit_proposal(d, 2, games, pin=(1, 4))
    assert proposal.pairs == edited
    assert proposal.report.quality["win_diff"] > engine.report.quality["win_diff"]
    value = f"{proposal.report.quality['win_diff']:g}"
    assert f'<dd>{value} <small class="muted">(engine: ' in body


def test_htmx_swap_answers_with_the_proposal_fragment_only(td, event):
    t, d = event
    games = propose_round(d, 2).pairs
    response = post(
        td,
        t,
        d,
        "swap",
        encode_pairs(games),
        a=games[0][0],
        b=games[1][0],
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 200
    body = response.content.decode()
    assert '<section id="proposal"' in body and "<html" not in body
    edited = pairs_of(hidden(body, "publish", "games"))
    assert opponent(edited, games[0][0]) == games[1][1]


# ---------------------------------------------------------------------------- publishing


def test_publish_stores_exactly_the_edited_round_with_one_audit_event(td, event):
    t, d = event
    games = propose_round(d, 2).pairs
    x = opponent(games, 1)
    body = post(td, t, d, "swap", encode_pairs(games), a=x, b=2).content.decode()
    edited = pairs_of(hidden(body, "publish", "games"))
    before_events = AuditEvent.objects.count()
    response = post(td, t, d, "publish", encode_pairs(edited))
    assert response.status_code == 302
    assert response["Location"] == f"/t/{t.slug}/console/{d.slug}/"
    assert AuditEvent.objects.count() == before_events + 1
    event_ = AuditEvent.objects.order_by("-id").first()
    assert event_.action == "pair_round" and event_.actor == "pair-td"
    stored = [
        (g.player1.number, g.player2.number if g.player2_id else 0)
        for g in Game.objects.filter(round__division=d, round__number=2).order_by("board", "id")
    ]
    played = [p for p in stored if p[1]]
    assert sorted(played, key=lambda p: p) == sorted(p for p in edited if p[1])
    assert [p for p in stored if not p[1]] == [p for p in edited if not p[1]]
    assert opponent(stored, 1) == 2
    # a second publish of the same round is refused, with the way out offered
    again = post(td, t, d, "publish", encode_pairs(edited))
    assert again.status_code == 400
    assert "already paired" in again.content.decode()
    assert "Unpair round 2" in again.content.decode()


@pytest.mark.parametrize(
    "games, message",
    [
        ("1-2 3-4", "not paired: 5, 6, 7, 8, 9"),
        ("garbage", "not readable"),
        ("", "not readable"),
        ("1-2 3-4 5-6 7-8 9-1", "paired twice"),
        ("1-2 3-4 5-6 7-8 9-10", "no player number 10"),
        ("1-1 3-4 5-6 7-8 9-0 2-0", "cannot play against themselves"),
        ("1-2 3-4 5-6 7-8 9-0 0-0", "a bye without a player"),
        ("1-3 2-4 5-7 6-8 9-0", None),
        ("1-3 2-0 5-7 6-8 9-0 4-0", "3 byes for 9 active players"),
        ("1-٣ 2-4", "not readable"),
        ("99999999999999-1", "not readable"),
    ],
)
def test_forged_or_invalid_pairings_are_refused_and_nothing_is_written(td, event, games, message):
    t, d = event
    before = counts()
    response = post(td, t, d, "publish", games)
    if message is None:  # a valid pairing the director chose by hand is theirs to publish
        assert response.status_code == 302
        return
    assert response.status_code == 400
    assert message in response.content.decode()
    assert counts() == before


def test_withdrawn_player_in_the_form_is_refused(td, event):
    t, d = event
    entry = d.entries.get(number=9)
    services.withdraw_player(entry, from_round=2)
    games = propose_round(d, 2).pairs
    assert all(9 not in p for p in games)
    before = counts()
    response = post(td, t, d, "publish", "1-2 3-4 5-6 7-8 9-0")
    assert response.status_code == 400
    assert "#9 Ida has withdrawn" in response.content.decode()
    assert counts() == before
    # the proposal without the withdrawn player publishes, with their forfeit added
    assert post(td, t, d, "publish", encode_pairs(games)).status_code == 302
    assert Game.objects.filter(round__number=2, player1__number=9, player2=None).exists()


def test_bad_swap_and_pin_show_the_message_at_the_field(td, event):
    t, d = event
    games = propose_round(d, 2).pairs
    text = encode_pairs(games)
    before = counts()
    same_game = post(td, t, d, "swap", text, a=games[0][0], b=games[0][1])
    assert same_game.status_code == 400
    assert 'id="id_swap-b_error"' in same_game.content.decode()
    assert "already play each other" in same_game.content.decode()
    unknown = post(td, t, d, "pin", text, a=42, b=1)
    assert unknown.status_code == 400
    assert 'id="id_pin-a_error"' in unknown.content.decode()
    assert "#42 is not a player of this round" in unknown.content.decode()
    missing = post(td, t, d, "swap", text, a=1)
    assert missing.status_code == 400 and 'id="id_swap-b_error"' in missing.content.decode()
    self_swap = post(td, t, d, "swap", text, a=3, b=3)
    assert self_swap.status_code == 400 and "two different players" in self_swap.content.decode()
    assert post(td, t, d, "swap", text, a="x", b="1").status_code == 400
    # an unknown action
    odd = td.post(url(t, d), {"action": "drop", "drop-games": text})
    assert odd.status_code == 400 and "unknown action" in odd.content.decode()
    assert counts() == before


# ---------------------------------------------------------------------------- refusals


def test_round_whose_previous_round_has_no_results_is_refused(td, event):
    t, d = event
    save_round_pairings(
        d,
        2,
        [
            PlannedGame(1, 3),
            PlannedGame(5, 7),
            PlannedGame(2, 4),
            PlannedGame(6, 8),
            PlannedGame(9, 0),
        ],
        system="manual",
    )
    before = counts()
    response = td.get(url(t, d, 3))
    assert response.status_code == 400
    assert "round 2 is incomplete" in response.content.decode()
    # round 2 itself: already paired, unpair offered
    paired = td.get(url(t, d, 2))
    assert paired.status_code == 400
    body = paired.content.decode()
    assert "already paired" in body and "Unpair round 2" in body
    assert f'action="{url(t, d, 2, "unpair")}"' in body
    assert counts() == before


def test_round_with_results_is_refused(td, event):
    t, d = event
    before = counts()
    response = td.get(url(t, d, 1))
    assert response.status_code == 400
    assert "already has results" in response.content.decode()
    assert "Unpair" not in response.content.decode()
    assert counts() == before


def test_constraints_that_leave_no_pairing_are_a_message(td, event):
    t, d = event
    ScheduleRange.objects.filter(division=d).update(
        options={"max_meetings": 1, "hard_repeat_limit": True}
    )
    services.withdraw_player(d.entries.get(number=9), from_round=2)
    for n in range(3, 9):
        services.withdraw_player(d.entries.get(number=n), from_round=2)
    before = counts()
    response = td.get(url(t, d, 2))  # 1 and 2 are left and have met
    assert response.status_code == 400
    assert 'role="alert"' in response.content.decode()
    assert counts() == before


def test_bad_round_numbers(td, event):
    t, d = event
    assert td.get(url(t, d, 0)).status_code == 400
    assert td.get(url(t, d, 10**30)).status_code == 400
    assert td.post(url(t, d, 10**30, "unpair")).status_code == 400
    assert td.get(f"/t/{t.slug}/console/nope/round/2/pair/").status_code == 404
    with pytest.raises(ServiceError):
        propose_round(d, "2")


# ---------------------------------------------------------------------------- unpairing


def test_unpair_allowed_when_only_the_bye_has_a_score(td, event):
    t, d = event
    games = propose_round(d, 2).pairs
    assert post(td, t, d, "publish", encode_pairs(games)).status_code == 302
    bye = Game.objects.get(round__division=d, round__number=2, player2=None)
    assert bye.score1 == t.bye_spread  # scored at pairing time; not a result
    page = td.get(url(t, d, 3)).content.decode()
    assert "Unpair round 2" in page  # the undo of the last pairing
    before_events = AuditEvent.objects.count()
    response = td.post(url(t, d, 2, "unpair"))
    assert response.status_code == 302 and response["Location"] == url(t, d, 2)
    assert not Game.objects.filter(round__division=d, round__number=2).exists()
    assert AuditEvent.objects.count() == before_events + 1
    assert td.get(url(t, d, 2)).status_code == 200  # and it can be paired again


def test_unpair_refused_when_a_played_game_has_a_score(td, event):
    t, d = event
    games = propose_round(d, 2).pairs
    post(td, t, d, "publish", encode_pairs(games))
    a, _ = next(p for p in games if p[1])
    services.record_result(d, 2, a, 410, 300)
    before = counts()
    response = td.post(url(t, d, 2, "unpair"))
    assert response.status_code == 400
    assert "already has results" in response.content.decode()
    assert counts() == before


def test_unpair_refused_for_a_round_before_the_last_paired_one(td, event):
    t, d = event
    save_round_pairings(
        d,
        2,
        [
            PlannedGame(1, 3),
            PlannedGame(5, 7),
            PlannedGame(2, 4),
            PlannedGame(6, 8),
            PlannedGame(9, 0),
        ],
        system="manual",
    )
    save_round_pairings(
        d,
        3,
        [
            PlannedGame(1, 5),
            PlannedGame(2, 6),
            PlannedGame(3, 9),
            PlannedGame(4, 8),
            PlannedGame(7, 0),
        ],
        system="manual",
    )
    before = counts()
    response = td.post(url(t, d, 2, "unpair"))
    assert response.status_code == 400
    assert "round 3 is paired after it; unpair round 3 first" in response.content.decode()
    assert counts() == before


def test_unpair_of_an_unpaired_round_is_a_message(td, event):
    t, d = event
    before = counts()
    response = td.post(url(t, d, 4, "unpair"))
    assert response.status_code == 400
    assert "no pairings" in response.content.decode()
    assert counts() == before


# ---------------------------------------------------------------------------- who may


def test_anonymous_visitors_are_sent_to_sign_in(client, event):
    t, d = event
    before = counts()
    for response in (
        client.get(url(t, d)),
        client.post(url(t, d), {"action": "publish"}),
        client.post(url(t, d, 1, "unpair")),
    ):
        assert response.status_code == 302
        assert response["Location"].startswith("/accounts/login/")
    assert counts() == before


def test_other_tournaments_director_and_scorekeepers_are_refused(client, event):
    t, d = event
    other = services.create_tournament(name="Other Open")
    client.force_login(make_director(other, "other-td"))
    games = encode_pairs(propose_round(d, 2).pairs)
    before = counts()
    assert client.get(url(t, d)).status_code == 403
    assert post(client, t, d, "publish", games).status_code == 403
    assert client.post(url(t, d, 1, "unpair")).status_code == 403

    from django.contrib.auth import get_user_model

    keeper = get_user_model().objects.create_user("keeper", "k@example.org", "pw-long-enough-1")
    t.scorekeepers.add(keeper)
    client.force_login(keeper)
    assert client.get(url(t, d)).status_code == 403
    assert post(client, t, d, "publish", games).status_code == 403
    assert client.post(url(t, d, 1, "unpair")).status_code == 403
    assert counts() == before


# ---------------------------------------------------------------------------- swap and pin rules


def test_swap_and_pin_with_the_bye_player_keep_one_bye():
    from pairings.services.rounds import pin_pair, swap_players

    pairs = [(1, 2), (3, 4), (5, 0)]
    assert swap_players(pairs, 2, 5) == [(1, 5), (3, 4), (2, 0)]
    assert swap_players(pairs, 1, 3) == [(3, 2), (1, 4), (5, 0)]
    # pinning the bye's player: their partner's old opponent takes the bye
    assert pin_pair(pairs, 5, 1) == [(2, 0), (3, 4), (5, 1)]
    assert pin_pair(pairs, 1, 5) == [(1, 5), (3, 4), (2, 0)]
    assert pin_pair(pairs, 1, 4) == [(1, 4), (3, 2), (5, 0)]
    for bad, code in (
        ((1, 2), "pairing_pin_exists"),
        ((1, 1), "pairing_same_player"),
        ((1, 9), "pairing_not_in_round"),
        ((1, 0), "pairing_not_in_round"),
    ):
        with pytest.raises(ServiceError) as exc:
            pin_pair(pairs, *bad)
        assert exc.value.code == code


def test_edit_keeps_the_bye_last_and_the_pin_while_it_stands(event):
    _, d = event
    games = propose_round(d, 2).pairs
    bye = games[-1][0]
    partner = games[0][0]
    pinned = edit_proposal(d, 2, games, pin=(bye, partner))
    assert pinned.pairs[-1][1] == 0 and pinned.games[-1].board == 0
    assert [g.board for g in pinned.games[:-1]] == list(range(1, len(games)))
    assert pinned.pins == [(bye, partner)]
    # a later swap that breaks the pin drops it; one that leaves it keeps it
    other = next(a for a, b in pinned.pairs if b and {a, b} != {bye, partner})
    broken = edit_proposal(d, 2, pinned.pairs, pins=pinned.pins, swap=(bye, other))
    assert broken.pins == []
    kept = edit_proposal(d, 2, pinned.pairs, pins=pinned.pins + [(7, 99)])
    assert kept.pins == [(bye, partner)]


def test_first_round_without_a_schedule_offers_the_systems(client):
    t = services.create_tournament(name="Fresh Open")
    d = services.create_division(t, name="A", rounds=3)
    for k, name in enumerate(NAMES[:4]):
        services.register_player(d, name=name, rating=1800 - k)
    client.force_login(make_director(t, "fresh-td"))
    before = counts()
    refused = client.get(url(t, d, 1))
    assert refused.status_code == 400
    body = refused.content.decode()
    assert "no pairing system scheduled" in body and '<select name="system"' in body
    chosen = client.get(url(t, d, 1), {"system": "koth"})
    assert chosen.status_code == 200
    assert '<option value="koth" selected>' in chosen.content.decode()
    assert hidden(chosen.content.decode(), "publish", "system") == "koth"
    bad = client.get(url(t, d, 1), {"system": "nonsense"})
    assert bad.status_code == 400 and "unknown pairing system" in bad.content.decode()
    assert counts() == before
    games = hidden(chosen.content.decode(), "publish", "games")
    assert post(client, t, d, "publish", games, system="koth", rnd=1).status_code == 302
    assert Round.objects.get(division=d, number=1).system == "koth"


def test_pin_that_makes_a_second_repeat_says_so_within_the_repeat_limit(td, event):
    """Repeats allowed (max_meetings=2): the checker breaks no rule, but the pin of 7 v 6 makes
    their old opponents 3 and 4 meet again, which the verdict and the warnings must name."""
    t, d = event
    ScheduleRange.objects.filter(division=d).update(options={"max_meetings": 2})
    games = propose_round(d, 2).pairs
    met = ({1, 2}, {3, 4}, {5, 6}, {7, 8})  # round 1
    # a pin of two who have not met, whose engine opponents met in round 1: the one swap that
    # realises the pin makes those two meet again
    pin = next(
        (p, q)
        for p in range(1, 10)
        for q in range(p + 1, 10)
        if {p, q} not in met
        and opponent(games, p) not in (q, 0)
        and opponent(games, q)
        and {opponent(games, p), opponent(games, q)} in met
    )
    proposal = edit_proposal(d, 2, games, pin=pin)
    assert proposal.report.ok and proposal.report.warnings
    knock_on = {opponent(games, pin[0]), opponent(games, pin[1])}
    warning = " ".join(proposal.report.warnings)
    assert all(f"#{n}" in warning for n in knock_on) and "not asked for" in warning
    body = post(td, t, d, "pin", encode_pairs(games), a=pin[0], b=pin[1]).content.decode()
    assert "No rule broken, but read the 1 warning below." in body
    # the engine's own round has no such warning
    assert propose_round(d, 2).report.warnings == []


def test_the_engine_runs_once_per_state_of_the_division(td, event, monkeypatch):
    """Issue 40: looking at the proposal, swapping, pinning and reloading ran the engine again
    each time on the same field (0.6 CPU-s at 500 players with COP); it runs once per state of
    the division, and any audited write (here a withdrawal) makes a new proposal."""
    import pairings.services.proposals as proposals

    t, d = event
    runs = []
    real = proposals.run_engine
    monkeypatch.setattr(proposals, "run_engine", lambda *args: runs.append(1) or real(*args))
    games = propose_round(d, 2).pairs
    assert td.get(url(t, d, 2)).status_code == 200
    edit_proposal(d, 2, games)
    assert (
        post(td, t, d, "swap", encode_pairs(games), a=games[0][0], b=games[1][0]).status_code == 200
    )
    assert len(runs) == 1
    services.withdraw_player(d.entries.get(number=9), from_round=2)
    after = propose_round(d, 2)
    assert len(runs) == 2
    assert 9 not in {n for pair in after.pairs for n in pair}
