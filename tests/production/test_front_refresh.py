"""The tier's card refresher (tournament/management/front_refresh.py) without nginx: what it
learns from the cards log, which cards are due at a second, and what it asks for. The whole
loop through a real nginx is tests/production/test_front.py's."""

from __future__ import annotations

import pytest

from tournament import services
from tournament.management.front_refresh import (
    MAX_VARIANTS,
    CardRefresher,
    Variant,
    parse_line,
)
from tournament.services.results import record_result
from tournament.turns import card_keep, due_numbers, next_turn

TOKEN = "ab" * 16


def line(
    host="scrabble.example.org", gzip="gzip", cookie="", accept="fr", path="/t/open/a/player/3/"
):
    return f"{host}\t{gzip}\t{cookie}\t{accept}\t{path}\n"


def test_a_log_line_gives_the_tournament_and_the_variant():
    assert parse_line(line()) == ("open", Variant("scrabble.example.org", True, "", "fr"))
    assert parse_line(line(gzip="", cookie="pl", accept="")) == (
        "open",
        Variant("scrabble.example.org", False, "pl", ""),
    )


@pytest.mark.parametrize(
    "text",
    [
        "",
        "garbage",
        line(path="/t/open/a/standings/"),
        line(path="/t/open/a/player/x/"),
        line(path="/t/open/a/player/3/?q=1"),
        line(host=""),
        line(cookie="-"),
        "a\tb\tc\td\te\tf\n",
    ],
)
def test_anything_else_in_the_log_is_ignored(text):
    assert parse_line(text) is None


def test_a_variant_sends_the_headers_that_make_the_visitors_key(settings):
    headers = Variant("h.example", True, "pl", "fr").headers(TOKEN)
    assert headers == {
        "Host": "h.example",
        "X-Gibson-Refresh": TOKEN,
        "Accept-Encoding": "gzip",
        "Cookie": f"{settings.LANGUAGE_COOKIE_NAME}=pl",
        "Accept-Language": "fr",
    }
    assert Variant("h.example", False, "", "").headers(TOKEN) == {
        "Host": "h.example",
        "X-Gibson-Refresh": TOKEN,
    }


def test_turns_are_the_keep_times_turns():
    for players in (1, 10, 11, 40, 500):
        keep = card_keep(players)
        numbers = list(range(1, players + 1))
        seen = [
            n for second in range(1000, 1000 + keep) for n in due_numbers(numbers, second, keep)
        ]
        assert sorted(seen) == numbers  # each card once a round of turns
        for n in numbers:
            assert n in due_numbers([n], next_turn(1000, n, keep), keep)


@pytest.fixture
def open_event(db):
    t = services.create_tournament(name="Refresh Open", slug="refresh-open")
    services.publish_tournament(t, True, None)
    d = services.create_division(t, name="A", rounds=2)
    services.register_players(
        d, [services.NewEntry(name=f"P{n}, Card", rating=1500) for n in range(1, 21)], actor="t"
    )
    from pairings.services.store import PlannedGame, save_round_pairings

    save_round_pairings(d, 1, [PlannedGame(i, i + 1) for i in range(1, 21, 2)])
    return t, d


def _refresher(tmp_path) -> tuple[CardRefresher, list[tuple[str, Variant]]]:
    refresher = CardRefresher("127.0.0.1:1", TOKEN, tmp_path / "cards.log")
    asked: list[tuple[str, Variant]] = []

    def ask(path: str, variant: Variant) -> int:
        asked.append((path, variant))
        return 200

    refresher.ask = ask  # nginx is test_front.py's: here, what would be asked
    return refresher, asked


def test_cards_are_asked_for_in_turn_only_after_a_change(open_event, tmp_path):
    t, d = open_event
    refresher, asked = _refresher(tmp_path)
    refresher.log_path.write_text(line(host="a.example", path="/t/refresh-open/a/player/3/"))
    assert refresher.tick(1000) == 0  # learnt; nothing changed since
    assert set(refresher.tournaments) == {"refresh-open"}
    for second in range(1001, 1003):
        assert refresher.tick(second) == 0
    record_result(d, 1, 1, 400, 300, actor="test")
    keep = card_keep(20)  # 2 s: ten cards a second
    for second in range(1003, 1003 + keep):
        assert refresher.tick(second) == 10
    paths = sorted(p for p, _v in asked)
    assert paths == sorted(f"/t/refresh-open/a/player/{n}/" for n in range(1, 21))
    assert {v for _p, v in asked} == {Variant("a.example", True, "", "fr")}
    assert refresher.tick(1003 + keep) == 0  # each once per change


def test_a_partly_written_line_waits_and_the_log_is_emptied_when_long(open_event, tmp_path):
    refresher, _asked = _refresher(tmp_path)
    whole = line(path="/t/refresh-open/a/player/3/")
    refresher.log_path.write_text(whole + whole[:10])
    refresher.learn()
    assert refresher.read_to == len(whole.encode())
    with refresher.log_path.open("a") as log:
        log.write(whole[10:].replace("\tfr\t", "\tes\t"))
    refresher.learn()
    assert len(refresher.tournaments["refresh-open"].variants) == 2
    from tournament.management import front_refresh

    front_refresh_max = front_refresh.MAX_LOG_BYTES
    try:
        front_refresh.MAX_LOG_BYTES = 10
        with refresher.log_path.open("a") as log:
            log.write(whole)
        refresher.learn()
        assert refresher.log_path.read_bytes() == b"" and refresher.read_to == 0
    finally:
        front_refresh.MAX_LOG_BYTES = front_refresh_max


def test_variants_are_capped_and_the_latest_kept(open_event, tmp_path):
    refresher, _asked = _refresher(tmp_path)
    hosts = [f"h{n}.example" for n in range(MAX_VARIANTS + 3)]
    refresher.log_path.write_text(
        "".join(line(host=h, path="/t/refresh-open/a/player/1/") for h in hosts)
    )
    refresher.learn()
    kept = [v.host for v in refresher.tournaments["refresh-open"].variants]
    assert kept == hosts[-MAX_VARIANTS:]


def test_a_hidden_unknown_or_unpublished_tournament_is_never_refreshed(open_event, tmp_path):
    t, d = open_event
    draft = services.create_tournament(name="Draft", slug="draft-open", published=False)
    services.create_division(draft, name="A", rounds=2)
    refresher, asked = _refresher(tmp_path)
    refresher.log_path.write_text(
        line(path="/t/draft-open/a/player/1/")
        + line(path="/t/no-such-event/a/player/1/")
        + line(path="/t/refresh-open/a/player/1/")
    )
    refresher.tick(1000)
    assert set(refresher.tournaments) == {"refresh-open"}
    services.publish_tournament(t, False, None)  # hidden: forgotten at the next second
    refresher.tick(1001)
    assert refresher.tournaments == {} and asked == []


@pytest.mark.parametrize(
    ("front", "host", "port"),
    [
        ("127.0.0.1:8080", "127.0.0.1", 8080),
        ("0.0.0.0:80", "127.0.0.1", 80),
        ("[::]:80", "::1", 80),
    ],
)
def test_a_front_listening_everywhere_is_asked_on_loopback(front, host, port, tmp_path):
    refresher = CardRefresher(front, TOKEN, tmp_path / "cards.log")
    assert (refresher.host, refresher.port) == (host, port)
