"""On screen (issue 37): the featured boards' service and console form, each overlay's page
and the commentators' page, for anyone on a published tournament and nobody on a draft."""

from __future__ import annotations

import pytest

from tests.core.conftest import make_director
from tournament import services
from tournament.errors import ServiceError
from tournament.models import AuditEvent, FeaturedBoard
from tournament.selectors.live import changes_since, kind_of
from tournament.services.broadcast import feature_boards
from tournament.services.clock import post_announcement

pytestmark = pytest.mark.django_db


def featured(t) -> list[tuple[str, int]]:
    return [(f.division.name, f.board) for f in FeaturedBoard.objects.filter(tournament=t)]


def test_a_director_features_boards_in_order_with_an_audit_event(event):
    t, d = event
    director = make_director(t, "fb-director")
    before = AuditEvent.objects.filter(tournament=t).order_by("-id").first().pk
    made = feature_boards(t, [("A", "2"), (d, 1), ("a", 2)], actor=director)
    assert [(f.position, f.board) for f in made] == [(1, 2), (2, 1)]  # the repeat is dropped
    event_ = AuditEvent.objects.get(tournament=t, action="feature_boards")
    assert event_.after == ["A:2", "A:1"] and event_.user == director
    # the overlays hear of it through the stream
    assert [c.kind for c in changes_since(t.pk, before)] == ["broadcast"]
    assert kind_of("feature_boards") == "broadcast"
    feature_boards(t, [], actor=director)
    assert featured(t) == []


@pytest.mark.parametrize(
    "boards, code",
    [
        ([("Z", "1")], "unknown_division"),
        ([("A", "one")], "not_a_number"),
        ([("A", "0")], "below_minimum"),
        ([("A", str(n)) for n in range(1, 10)], "invalid_argument"),
    ],
)
def test_bad_boards_are_refused_in_words_and_change_nothing(event, boards, code):
    t, d = event
    feature_boards(t, [("A", "1")], actor="cmd")
    with pytest.raises(ServiceError) as caught:
        feature_boards(t, boards, actor="cmd")
    assert caught.value.code == code and caught.value.field == "boards"
    assert featured(t) == [("A", 1)]


def test_only_the_tournaments_directors_feature_boards(event, django_user_model):
    t, d = event
    other = services.create_tournament(name="Other Open", slug="other-open")
    services.create_division(other, name="A", rounds=2)
    theirs = make_director(other, "other-director")
    nobody = django_user_model.objects.create_user("nobody", "n@example.org", "pw-long-enough-1")
    for who in (theirs, nobody):
        with pytest.raises(ServiceError) as caught:
            feature_boards(t, [("A", "1")], actor=who)
        assert caught.value.code == "not_allowed"
    # a division of another tournament is not one of this one's
    with pytest.raises(ServiceError) as caught:
        feature_boards(t, [(other.divisions.get(), 1)], actor="cmd")
    assert caught.value.code == "unknown_division"
    assert featured(t) == []


def test_the_console_form_features_boards_and_says_what_was_wrong(client, event):
    t, d = event
    director = make_director(t, "fb-console")
    client.force_login(director)
    home = client.get(f"/t/{t.slug}/console/?stay=1").content.decode()
    assert 'id="featured-boards"' in home
    url = f"/t/{t.slug}/console/setup/featured/"
    done = client.post(url, {"boards": "A 2, A 1"}, follow=True).content.decode()
    assert "Featured on the overlays: A 2, A 1." in done
    assert featured(t) == [("A", 2), ("A", 1)]
    refused = client.post(url, {"boards": "A two"}, follow=True).content.decode()
    assert "Featured boards:" in refused and "two" in refused
    assert featured(t) == [("A", 2), ("A", 1)]


def test_another_tournaments_director_cannot_post_the_form(client, event):
    t, d = event
    other = services.create_tournament(name="Other Open", slug="other-open")
    client.force_login(make_director(other, "other-console"))
    answer = client.post(f"/t/{t.slug}/console/setup/featured/", {"boards": "A 1"})
    assert answer.status_code in (403, 404)
    assert featured(t) == []


def test_the_featured_board_shows_both_players_and_the_live_score(client, event):
    t, d = event
    feature_boards(t, [("A", "1")], actor="cmd")
    page = client.get(f"/t/{t.slug}/broadcast/board/1/")
    html = page.content.decode()
    assert page.status_code == 200 and "background: transparent" in html
    assert "Able, Ann" in html and "Dunn, Di" in html  # round 2, board 1: #1 v #4
    assert "rated 1800" in html and "1-0 +40" in html  # after round 1
    assert ">vs<" in html
    services.record_result(d, 2, 1, 400, 300)
    html = client.get(f"/t/{t.slug}/broadcast/board/1/").content.decode()
    assert "400–300" in html
    assert client.get(f"/t/{t.slug}/broadcast/board/2/").status_code == 404


def test_the_head_to_head_counts_their_games_in_every_event(client, event):
    t, d = event
    feature_boards(t, [("A", "2")], actor="cmd")  # round 2, board 2: #2 Baker v #3 Cole
    html = client.get(f"/t/{t.slug}/broadcast/board/1/h2h/").content.decode()
    assert "First meeting" in html
    # an earlier event where Baker beat Cole
    from pairings.services.store import PlannedGame, save_round_pairings
    from tournament.models import Entry

    old = services.create_tournament(name="Spring Open", slug="spring-open")
    od = services.create_division(old, name="A", rounds=1)
    for entry in Entry.objects.filter(division=d, number__in=(2, 3)).order_by("number"):
        services.register_player(od, player=entry.player)
    save_round_pairings(od, 1, [PlannedGame(1, 2)])
    services.record_result(od, 1, 1, 444, 333)
    html = client.get(f"/t/{t.slug}/broadcast/board/1/h2h/").content.decode()
    assert "Spring Open" in html and "444–333" in html and "1–0" in html


def test_the_ticker_prizes_pairings_and_lower_third(client, event):
    t, d = event
    ticker = client.get(f"/t/{t.slug}/broadcast/{d.slug}/ticker/").content.decode()
    assert "after round 1" in ticker and "Cole, Cy" in ticker
    assert 'data-rows="4"' in ticker
    prizes = client.get(f"/t/{t.slug}/broadcast/{d.slug}/prizes/")
    assert prizes.status_code == 200 and "Prize race" in prizes.content.decode()
    slides = client.get(f"/t/{t.slug}/broadcast/{d.slug}/pairings/").content.decode()
    assert "round 2" in slides and "slides.js" in slides and slides.count('class="slide card"') == 1
    third = client.get(f"/t/{t.slug}/broadcast/announcement/").content.decode()
    assert "data-announcement" not in third
    post_announcement(t, "Round 3 starts at 2 pm", actor="cmd")
    third = client.get(f"/t/{t.slug}/broadcast/announcement/").content.decode()
    assert "Round 3 starts at 2 pm" in third
    assert client.get(f"/t/{t.slug}/broadcast/nope/ticker/").status_code == 404


def test_the_commentators_page_lists_every_board_with_scores_and_links(client, event):
    t, d = event
    services.record_result(d, 2, 2, 390, 380)
    feature_boards(t, [("A", "1")], actor="cmd")
    html = client.get(f"/t/{t.slug}/broadcast/").content.decode()
    assert "Division A: round 2" in html
    assert "390–380" in html and "playing" in html  # board 2 in, board 1 still playing
    assert f"/t/{t.slug}/broadcast/board/1/h2h/" in html
    assert f"/t/{t.slug}/broadcast/{d.slug}/ticker/" in html


def test_a_draft_shows_no_overlay_to_the_public(client, event):
    t, d = event
    feature_boards(t, [("A", "1")], actor="cmd")
    services.publish_tournament(t, False, "cmd")
    for path in (
        "",
        "board/1/",
        "board/1/h2h/",
        "announcement/",
        f"{d.slug}/ticker/",
        f"{d.slug}/prizes/",
        f"{d.slug}/pairings/",
    ):
        assert client.get(f"/t/{t.slug}/broadcast/{path}").status_code == 404, path
    client.force_login(make_director(t, "draft-director"))
    assert client.get(f"/t/{t.slug}/broadcast/board/1/").status_code == 200
