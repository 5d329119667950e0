"""Each subscriber's notices are written in their language (docs/languages.md): the one they
entered in online, else the tournament's; the unsubscribe footer too. Against the real SMTP
server on loopback, like the rest of the notices' tests."""

from __future__ import annotations

from pairings.services.store import PlannedGame, save_round_pairings
from tournament.models import OnlineEntry
from tournament.services import notices


def test_each_subscriber_reads_the_pairing_in_their_language(
    event, smtp, settings, django_capture_on_commit_callbacks
):
    event.tournament.language = "pl"  # the tournament's language
    event.tournament.save(update_fields=["language"])
    dunn = event.entries[3]
    OnlineEntry.objects.create(  # Dunn entered online, in French
        tournament=event.tournament,
        division=event.a,
        player=dunn.player,
        entry=dunn,
        email=dunn.player.email,
        status=OnlineEntry.Status.ENTERED,
        link_hash="f" * 64,
        language="fr",
    )
    for i in (0, 3):
        player = event.entries[i].player
        notices.subscribe(event.tournament, player, player.email, actor=event.director)
    games = [PlannedGame(1, 2, board=1), PlannedGame(3, 4, board=2)]
    with django_capture_on_commit_callbacks(execute=True):
        save_round_pairings(event.a, 1, games, actor=event.director)
    di = smtp.to("dunn@players.test")[0]
    assert di.subject == "Ronde 1, Notice Open : table 2"
    assert "Ronde 1 : table 2, contre Cole, Cy (1500), vous jouez en second." in di.body
    assert "Vous recevez ce message parce que vous avez demandé les avis par e-mail" in di.body
    ann = smtp.to("able@players.test")[0]
    assert ann.subject == "Runda 1, Notice Open: stół 1"
    assert "Runda 1: stół 1, przeciwnik Baker, Bo (1600), zaczynasz." in ann.body
    assert "Aby z nich zrezygnować: http://testserver/notices/unsubscribe/" in ann.body
