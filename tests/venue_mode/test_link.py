"""Venue mode in one process (issue 23): the link, the replica's refusals, the push door's
checks (each denial writes nothing), the change log and the hand-back. The two-process run
is test_two_sites.py."""

from __future__ import annotations

import copy

import pytest

from pairings.services.store import PlannedGame, save_round_pairings
from tests.core.conftest import make_director
from tournament import services
from tournament.errors import ServiceError
from tournament.models import (
    AuditEvent,
    Entry,
    Game,
    Player,
    Tournament,
    VenueChange,
    VenueLink,
    VenueTake,
)
from tournament.services import venue

pytestmark = pytest.mark.django_db

PUSH = "/api/v1/venue/push/"
STATE = "/api/v1/venue/state/"


def event(name: str = "Venue Open", players: int = 4):
    t = services.create_tournament(name=name)
    d = services.create_division(t, name="A", rounds=3)
    for n in range(1, players + 1):
        services.register_player(d, name=f"Player{n}, Test", rating=1500 + n)
    games = [PlannedGame(2 * k + 1, 2 * k + 2, board=k + 1) for k in range(players // 2)]
    save_round_pairings(d, 1, games, system="manual", actor="test")
    return t, d


def auth(token: str) -> dict[str, str]:
    return {"HTTP_AUTHORIZATION": f"Venue {token}"}


def taken(client, name="Venue Open"):
    t, d = event(name)
    _link, token = venue.create_link("test", t, "Hall B")
    answer = client.get(STATE, **auth(token))
    assert answer.status_code == 200, answer.content
    return t, d, token, answer.json()


def scored(state: dict, score1: int = 400, score2: int = 350) -> dict:
    """The state a venue would send after scoring round 1's first game."""
    state = copy.deepcopy(state)
    state["divisions"][0]["round_states"][0]["games"][0].update(score1=score1, score2=score2)
    return state


def push(client, token, state, after=0, upto=1, slug=None):
    body = {"tournament": slug or state["tournament"], "after": after, "upto": upto, "state": state}
    return client.post(PUSH, body, content_type="application/json", **auth(token))


def test_the_token_is_kept_only_as_its_hash_and_one_live_link_per_tournament():
    t, _d = event()
    link, token = venue.create_link("test", t, "Hall B")
    assert token not in link.token_hash and link.token_hash == venue.hash_token(token)
    with pytest.raises(ServiceError) as refused:
        venue.create_link("test", t, "Hall C")
    assert refused.value.code == "venue_link_exists"


def test_a_taken_tournament_refuses_every_other_writer_naming_the_venue(client):
    t, d, _token, state = taken(client)
    assert state["divisions"][0]["entries"][0]["player"]["name"] == "Player1, Test"
    director = make_director(t, "hosted-td")
    before = AuditEvent.objects.count()
    with pytest.raises(ServiceError) as refused:
        services.record_result(d, 1, 1, 400, 350, actor=director)
    assert refused.value.code == "venue_holds_authority"
    assert "Hall B" in refused.value.message
    with pytest.raises(ServiceError):  # the operator's trusted door too
        services.register_player(d, name="Late, Lou", rating=1000)
    assert AuditEvent.objects.count() == before
    # a door that checks its caller itself (the admin, an import) meets the audit hook
    from tournament.services.audit import audit

    with pytest.raises(ServiceError) as hooked:
        audit(t, "admin", "admin_change", d, "a repair")
    assert hooked.value.code == "venue_holds_authority"
    # a player's own report is queued for the venue, never written to the game here
    entry = Entry.objects.get(division=d, number=1)
    entry.entry_token = "t" * 40
    entry.save(update_fields=["entry_token"])
    assert services.report_own_result("t" * 40, 400, 350).status == "queued"
    assert not Game.objects.filter(round__division=d, score1__isnull=False).exists()
    # reading is untouched
    assert client.get(f"/api/v1/tournaments/{t.slug}/").status_code == 200


def test_a_push_applies_once_in_order_and_the_public_copy_follows(client):
    t, d, token, state = taken(client)
    version = Tournament.objects.get(pk=t.pk).content_version
    answer = push(client, token, scored(state), after=0, upto=3)
    assert answer.status_code == 200, answer.content
    assert answer.json()["last_seq_applied"] == 3
    game = Game.objects.get(round__division=d, player1__number=1)
    assert (game.score1, game.score2) == (400, 350)
    assert Tournament.objects.get(pk=t.pk).content_version > version
    standings = client.get(f"/api/v1/tournaments/{t.slug}/divisions/{d.slug}/standings/").json()
    assert "400" in str(standings) or standings  # the standings read the new game
    # the same batch again: a no-op, nothing doubled
    again = push(client, token, scored(state, 999, 1), after=0, upto=3)
    answered = again.json()
    assert answered.pop("now")  # the hosted site's clock, for the laptop's check
    assert answered == {
        "last_seq_applied": 3,
        "last_key": "",
        "applied": False,
        "players": {},
        "was": 3,
    }
    game.refresh_from_db()
    assert (game.score1, game.score2) == (400, 350)
    # a gap (the copy holds 3, the batch starts after 5) is refused, naming where to resume
    gap = push(client, token, scored(state, 410, 300), after=5, upto=7)
    assert gap.status_code == 400
    assert gap.json()["errors"][0]["code"] == "venue_gap"
    assert gap.json()["errors"][0]["params"]["applied"] == 3
    game.refresh_from_db()
    assert game.score1 == 400


@pytest.mark.parametrize(
    "case",
    ["unknown token", "no token", "other tournament", "foreign player", "bad game", "revoked"],
)
def test_each_denial_is_clear_and_writes_nothing(client, case):
    t, d, token, state = taken(client)
    other, od = event("Other Open")
    services.register_player(od, name="Stranger, Sam", rating=1400)
    stranger = Player.objects.get(name="Stranger, Sam")
    body_state = scored(state)
    slug = None
    if case == "unknown token":
        token = "gv_not-a-token"
    elif case == "no token":
        token = ""
    elif case == "other tournament":
        slug = other.slug
        body_state["tournament"] = other.slug
    elif case == "foreign player":
        body_state["divisions"][0]["entries"][0]["player"]["ref"] = stranger.pk
    elif case == "bad game":
        body_state["divisions"][0]["round_states"][0]["games"][0]["p2"] = 99
    elif case == "revoked":
        venue.reclaim("test", t)
    events = AuditEvent.objects.count()
    answer = push(client, token, body_state, slug=slug)
    assert answer.status_code == 400, answer.content
    code = answer.json()["errors"][0]["code"]
    assert (
        code
        == {
            "unknown token": "venue_bad_token",
            "no token": "venue_bad_token",
            "other tournament": "venue_wrong_tournament",
            "foreign player": "venue_foreign_player",
            "bad game": "venue_bad_change",
            "revoked": "venue_link_revoked",
        }[case]
    )
    assert AuditEvent.objects.count() == events
    assert not Game.objects.filter(round__division=d, score1__isnull=False).exists()
    assert VenueLink.objects.get(tournament=t).last_seq_applied == 0
    # the other tournament was never touched
    assert Entry.objects.filter(division__tournament=other).count() == 5


def test_a_hosted_director_takes_it_back_in_one_audited_action(client):
    t, d, token, state = taken(client)
    push(client, token, scored(state), after=0, upto=2)
    director = make_director(t, "hosted-td")
    outsider = make_director(event("Elsewhere")[0], "outsider")
    with pytest.raises(ServiceError) as refused:
        venue.reclaim(outsider, t)
    assert refused.value.code == "not_allowed"
    venue.reclaim(director, t)
    assert AuditEvent.objects.filter(tournament=t, action="reclaim_from_venue").count() == 1
    services.record_result(d, 1, 3, 380, 370, actor=director)  # a writer again
    late = push(client, token, scored(state, 1, 2), after=2, upto=4)
    assert late.json()["errors"][0]["code"] == "venue_link_revoked"
    assert Game.objects.get(round__division=d, player1__number=1).score1 == 400


def test_the_venue_logs_each_write_in_its_transaction_and_batches_the_after_state(client):
    """The venue's side in one database: a tournament taken from a state (another slug)."""
    t, _d, _token, state = taken(client)
    state = copy.deepcopy(state)
    state["tournament"] = "venue-copy"
    local = venue.take_tournament(state, "http://hosted.example", "gv_x", "test")
    take = VenueTake.objects.get(tournament=local)
    assert len(take.player_refs) == 4
    d = local.divisions.get()
    services.record_result(d, 1, 1, 400, 350, actor="test")
    services.record_result(d, 1, 3, 390, 380, actor="test")
    changes = list(VenueChange.objects.filter(tournament=local).values_list("seq", "scope"))
    assert changes == [(1, "round"), (2, "round")]
    with pytest.raises(ServiceError):  # a refused write logs nothing
        services.record_result(d, 1, 1, 410, 300, actor="test")
    assert VenueChange.objects.filter(tournament=local).count() == 2
    batch = venue.next_batch(take)
    assert (batch["after"], batch["upto"], batch["changes"]) == (0, 2, 2)
    division = batch["state"]["divisions"][0]
    assert [r["number"] for r in division["round_states"]] == [1]
    assert division["entries"][0]["player"]["ref"] in {p.pk for p in Player.objects.all()}
    assert [g["score1"] for g in division["round_states"][0]["games"]] == [400, 390]
    venue.confirm_push(take, {"last_seq_applied": 2, "players": {}})
    assert venue.next_batch(VenueTake.objects.get(pk=take.pk)) is None
    venue.mark_released(VenueTake.objects.get(pk=take.pk), "test")
    with pytest.raises(ServiceError) as refused:
        services.record_result(d, 1, 1, 410, 300, actor="test")
    assert refused.value.code in ("venue_released", "already_recorded")
    with pytest.raises(ServiceError) as refused:
        services.register_player(d, name="Late, Lou", rating=1000)
    assert refused.value.code == "venue_released"


def test_the_console_page_hands_over_shows_the_link_and_takes_back(client):
    t, d = event("Console Open")
    director = make_director(t, "console-td")
    client.force_login(director)
    url = f"/t/{t.slug}/console/venue-mode/"
    page = client.post(url, {"action": "link", "venue_name": "Hall C"})
    assert page.status_code == 200
    token = VenueLink.objects.get(tournament=t)
    body = page.content.decode()
    assert "venue_take" in body and "gv_" in body and token.token_hash not in body
    again = client.get(url).content.decode()
    assert "gv_" not in again and "Hall C" in again  # the token is never shown again
    plain = body.split("venue_take http://testserver ")[1].split("<")[0].strip()
    assert client.get(STATE, **auth(plain)).status_code == 200
    home = client.get(f"/t/{t.slug}/console/?stay=1").content.decode()
    assert "Run from the venue Hall C" in home
    refused = client.post(url, {"action": "link", "venue_name": "Hall D"})
    assert refused.status_code == 400 and "is run from the venue Hall C" in refused.content.decode()
    back = client.post(url, {"action": "reclaim"})
    assert back.status_code == 200 and "Taken back" in back.content.decode()
    services.record_result(d, 1, 1, 400, 350, actor=director)


def test_a_players_report_on_the_replica_is_queued_for_the_venue_and_answered(client):
    t, d, token, _state = taken(client)
    entry = Entry.objects.get(division=d, number=1)
    entry.entry_token = "p" * 40
    entry.save(update_fields=["entry_token"])
    outcome = services.report_own_result("p" * 40, 400, 350, round_number=1)
    assert outcome.status == "queued"
    page = client.get("/e/" + "p" * 40 + "/").content.decode()
    assert "Sent to the venue" in page and "waiting for the venue" in page
    waiting = client.get("/api/v1/venue/inbox/", **auth(token)).json()["items"]
    assert [(i["division"], i["number"], i["round"], i["score"]) for i in waiting] == [
        ("a", 1, 1, 400)
    ]
    answer = {"settled": [{"id": waiting[0]["id"], "status": "accepted", "outcome": "recorded"}]}
    body = client.post(
        "/api/v1/venue/inbox/", answer, content_type="application/json", **auth(token)
    )
    assert body.json() == {"settled": 1}
    again = client.post(
        "/api/v1/venue/inbox/", answer, content_type="application/json", **auth(token)
    )
    assert again.json() == {"settled": 0}
    assert "entered at the venue (recorded)" in client.get("/e/" + "p" * 40 + "/").content.decode()
    assert client.get("/api/v1/venue/inbox/", **auth(token)).json()["items"] == []
    # another link's token cannot read or answer them
    other, _od = event("Other Open")
    _l, stranger = venue.create_link("test", other, "Elsewhere")
    foreign = client.post(
        "/api/v1/venue/inbox/", answer, content_type="application/json", **auth(stranger)
    )
    assert foreign.json() == {"settled": 0}


def local_copy(client, name="Restore Open"):
    """A venue-held tournament in this database (the state of a hosted one, renamed)."""
    _t, _d, _token, state = taken(client, name)
    state = copy.deepcopy(state)
    state["tournament"] = "venue-" + state["tournament"]
    local = venue.take_tournament(state, "http://hosted.example", "gv_x", "test")
    return local, local.divisions.get(), VenueTake.objects.get(tournament=local)


def test_a_hosted_copy_restored_from_an_older_backup_gets_the_changes_again(client):
    from tournament.sync.push import push

    local, d, take = local_copy(client)
    for k in (1, 3):
        services.record_result(d, 1, k, 400, 300 + k, actor="test")
    sent = []

    def hosted(url, token, batch):  # it holds 1 change, not the 2 the venue thought
        sent.append((batch["after"], batch["upto"]))
        if batch["after"] > 1:
            raise ServiceError(
                "venue_refused",
                url=url,
                detail="gap",
                remote="venue_gap",
                remote_params={"applied": 1},
            )
        return {"last_seq_applied": batch["upto"], "players": {}}

    take.last_pushed_seq = 2
    take.save(update_fields=["last_pushed_seq"])
    services.update_division(d, actor="test", prize_places=3)  # change 3
    result = push(take, send=hosted, pull=False)
    # refused as a gap, it sends again from what the copy holds, the whole state as a rebase
    assert sent == [(2, 3), (1, 4)]
    assert result["last_seq"] == 4


def test_a_venue_restored_from_an_older_backup_asks_before_its_state_wins(client):
    local, d, take = local_copy(client, "Old Laptop Open")
    services.record_result(d, 1, 1, 400, 300, actor="test")  # change 1
    # the hosted copy already holds 7 changes: this laptop is an older backup of itself; the
    # laptop's state no longer wins silently (issue 39): nothing is confirmed, it asks
    with pytest.raises(ServiceError) as asked:
        venue.confirm_push(take, {"last_seq_applied": 7, "last_key": "k7", "players": {}})
    assert asked.value.code == "venue_hosted_ahead"
    take.refresh_from_db()
    assert (take.next_seq, take.last_pushed_seq) == (2, 0)
    # the director keeps the venue's state: the whole of it goes up, past what the copy holds
    from tournament.services.venue import conflict

    conflict.note_divergence(take, 7, {"hosted_only": ["round 2"], "venue_only": []})
    conflict.keep_venue(take, "test")
    batch = venue.next_batch(VenueTake.objects.get(pk=take.pk))
    assert (batch["after"], batch["upto"], batch["rebase"]) == (0, 8, True)
    assert batch["state"]["all_divisions"] is True


def test_a_late_entry_and_a_renumbering_at_the_venue_reach_the_hosted_copy(client):
    t, d, token, state = taken(client, "Late Open")
    state = copy.deepcopy(state)
    entries = state["divisions"][0]["entries"]
    # the venue swapped #3 and #4 (a renumbering) and entered a fifth player, new to both
    entries[2]["number"], entries[3]["number"] = 4, 3
    late = {**entries[0], "number": 5, "seed_rating": 900}
    late["player"] = {
        "ref": None,
        "local": 999,
        "name": "Late, Lou",
        "naspa_id": "",
        "wespa_id": "",
        "absp_id": "",
        "country": "",
    }
    entries.append(late)
    games = state["divisions"][0]["round_states"][0]["games"]
    games[1].update(p1=4, p2=3)  # the same two players, under their new numbers
    answer = push(client, token, state, after=0, upto=5)
    assert answer.status_code == 200, answer.content
    refs = answer.json()["players"]
    lou = Player.objects.get(name="Late, Lou")
    assert refs["999"] == lou.pk
    numbers = dict(Entry.objects.filter(division=d).values_list("player__name", "number"))
    assert numbers["Player3, Test"] == 4 and numbers["Player4, Test"] == 3
    assert numbers["Late, Lou"] == 5
    # the game of #3 and #4 is the same row, its seats the same two players
    game = Game.objects.get(round__division=d, board=2)
    assert {game.player1.player.name, game.player2.player.name} == {
        "Player3, Test",
        "Player4, Test",
    }


def test_a_whole_event_sent_again_goes_gzipped_under_the_request_limit(client, settings):
    import gzip
    import json

    t, d, token, state = taken(client, "Big Event Open")
    body = {"tournament": t.slug, "after": 0, "upto": 1, "state": scored(state)}
    raw = json.dumps(body).encode()
    packed = gzip.compress(raw)
    # the request limit between the two: a whole event of ~13,000 games against 2.5 MB
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = (len(raw) + len(packed)) // 2
    plain = client.post(PUSH, raw, content_type="application/json", **auth(token))
    assert plain.status_code >= 400
    game = Game.objects.get(round__division=d, player1__number=1)
    assert game.score1 is None
    answer = client.post(
        PUSH, packed, content_type="application/json", HTTP_CONTENT_ENCODING="gzip", **auth(token)
    )
    assert answer.status_code == 200, answer.content
    game.refresh_from_db()
    assert (game.score1, game.score2) == (400, 350)
    # something that is not gzip is refused in words, and writes nothing
    broken = client.post(
        PUSH,
        b"not gzip",
        content_type="application/json",
        HTTP_CONTENT_ENCODING="gzip",
        **auth(token),
    )
    assert broken.status_code == 400
    assert broken.json()["errors"][0]["code"] == "venue_bad_change"


def test_the_laptop_gzips_a_large_batch(monkeypatch):
    import gzip
    import json

    from tournament.sync import client as sync_client

    sent = []

    class Answer:
        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def read(self):
            return b'{"applied": true}'

    class Opener:
        def open(self, request, timeout):
            sent.append((request.data, request.get_header("Content-encoding"), timeout))
            return Answer()

    monkeypatch.setattr(sync_client, "_opener", lambda base: Opener())
    monkeypatch.setattr(sync_client, "check_host", lambda base: None)
    small = {"state": {"games": [1, 2, 3]}}
    big = {"state": {"games": [{"p1": n, "p2": n + 1, "score1": 400} for n in range(80_000)]}}
    sync_client.push_batch("http://hosted.example", "gv_x", small)
    sync_client.push_batch("http://hosted.example", "gv_x", big)
    assert sent[0][1] is None and json.loads(sent[0][0]) == small
    assert sent[1][1] == "gzip" and json.loads(gzip.decompress(sent[1][0])) == big
    assert len(sent[1][0]) < len(json.dumps(big)) / 5
