"""tourney.js while a round is in play, as TSH writes it (issue 18, item 4).

TSH's enhanced scoreboard (esb.js 1.72 with tsh.js of TSH 3.350) shows round ``maxrp``:
``r0 = DivisionMaxRoundPlayed(dp) - 1 = maxrp``, the rank ``etc.rrank[r0 + 1]`` (undefined
prints "0th"), the last game ``pairings[r0]`` ("no score yet" when unscored) and the next game
``pairings[r0 + 1]``. Gibson wrote ``maxrp`` as the last paired round, so from pairing to the
first score every card read "0th", "no score yet". TSH writes the last round with a score
(its MostScores): the real feeds in fixtures/feeds/ (sources in its README.md) show it
at each stage: liwords-sample.js division A paired three rounds with no score (``maxrp`` -1),
raining2026.js division F mid-round 18 (``maxrp`` 17), the others complete.

The always-run tests replay a real event (naspa-2023-a.t) stage by stage and read the feed as
esb.js does; ``test_tsh_scoreboard_shows_ranks_at_every_stage`` runs TSH's own scripts in
chromium when GIBSON_TSH_VIEWER names a folder holding ``tsh.js`` and ``esb.js`` (a local copy
outside the repository: TSH is John Chew's, not ours to copy in).
"""

from __future__ import annotations

import functools
import http.server
import os
import shutil
import threading
from pathlib import Path

import pytest

from pairings.services.store import PlannedGame, save_round_pairings
from tournament import services
from tournament.formats.tourney_js import (
    VIEWER_CONFIG,
    parse_tourney_js,
    rounds_with_scores,
    tourney_js_divisions,
    write_tourney_js,
)
from tournament.formats.tsh import read_t
from tournament.interchange.exports import export_tourney_js
from tournament.models import Tournament

FEEDS = Path(__file__).resolve().parents[2] / "fixtures" / "feeds"
REAL_FEEDS = sorted(FEEDS.glob("*.js"))
# TSH 3.350's feeds (2026); the older liwords captures write first_out_of_the_money differently
NEWEST_FEEDS = ("cpss-may2026.js", "pairings111.js", "raining2026.js")
# an older TSH's feed (2025): no maxrp, and none of the viewer keys TSH added since
_BOTB_MISSING = {
    "class_prize_colors",
    "class_prize_colours",
    "esb_lite",
    "player_moods",
    "scoreboard_team_colors",
    "scoreboard_team_colours",
    "spread_bad",
    "suppress_results_in_pairings",
}
OLDER_TSH_FEEDS = {"botb2025.js": _BOTB_MISSING, "botb2025-r7.js": _BOTB_MISSING}
# config keys every real feed carries that are the event's own data, not viewer settings
EVENT_DATA = {"event_date", "max_rounds", "notes", "prize_bands", "division_label", "tables"}


def _read(path: Path) -> dict:
    return parse_tourney_js(path.read_text(encoding="utf-8"), source=path.name)


def _feed(tournament: Tournament) -> dict:
    """The feed as a viewer reads it: written, then read back (undefined -> None)."""
    return parse_tourney_js(write_tourney_js(export_tourney_js(tournament)))


def _scoreboard(division: dict) -> dict[int, dict]:
    """What esb.js shows on each active player's card (RenderNonCompact), from the feed."""
    r0 = division["maxrp"]  # AdjustRound: r1 = DivisionMaxRoundPlayed(dp) = maxrp + 1
    cards = {}
    for p in division["players"][1:]:
        if p["etc"].get("off") is not None:
            continue  # PlayerSpliceInactive
        rrank = p["etc"].get("rrank") or []
        rank = rrank[r0 + 1] if r0 + 1 < len(rrank) and rrank[r0 + 1] is not None else 0
        pairings, scores = p["pairings"], p["scores"]
        last = None
        if r0 >= 0 and r0 < len(pairings) and pairings[r0]:
            opp = division["players"][pairings[r0]]
            scored = r0 < len(opp["scores"]) and opp["scores"][r0] is not None
            last = "scored" if scored else "no score yet"
        cards[p["id"]] = {
            "rank": rank,
            "last": last,
            "next": pairings[r0 + 1] if r0 + 1 < len(pairings) else None,
            "scored": r0 >= 0 and r0 < len(scores) and scores[r0] is not None,
        }
    return cards


# --- what TSH writes, from the real feeds --------------------------------------------------


@pytest.mark.parametrize("path", REAL_FEEDS, ids=lambda p: p.name)
def test_tsh_writes_maxrp_as_the_last_round_with_a_score(path):
    data = _read(path)
    for (name, players), division in zip(
        tourney_js_divisions(data), data["divisions"], strict=True
    ):
        if path.name in OLDER_TSH_FEEDS:
            assert "maxrp" not in division, name  # the viewers count the rounds themselves
            continue
        assert division["maxrp"] == rounds_with_scores(players) - 1, (path.name, name)
        if path.name in NEWEST_FEEDS:
            assert len(division["first_out_of_the_money"]) == division["maxrp"] + 1, name


def test_tsh_keeps_maxrp_before_a_paired_round_is_scored():
    """liwords-sample.js: division A has three rounds paired and not a score: maxrp -1."""
    division = _read(FEEDS / "liwords-sample.js")["divisions"][0]
    players = division["players"][1:]
    assert all(len(p["pairings"]) == 3 and p["scores"] == [] for p in players)
    assert division["maxrp"] == -1 and division["first_out_of_the_money"] == []


def test_tsh_counts_a_partly_scored_round():
    """raining2026.js F: round 18 has one game and one bye unscored, and maxrp is round 18."""
    division = next(d for d in _read(FEEDS / "raining2026.js")["divisions"] if d["name"] == "F")
    unscored = [p["id"] for p in division["players"][1:] if len(p["scores"]) < 18]
    assert unscored == [17, 19, 29] and division["maxrp"] == 17


@pytest.mark.parametrize("path", REAL_FEEDS, ids=lambda p: p.name)
def test_tsh_writes_every_viewer_config_key(path):
    config = _read(path)["config"]
    missing = set(VIEWER_CONFIG) - set(config)
    # the newer TSH adds the class prize colours; the older liwords captures predate them
    allowed = set() if path.name in NEWEST_FEEDS else {"class_prize_colors", "class_prize_colours"}
    allowed |= OLDER_TSH_FEEDS.get(path.name, set())
    assert missing <= allowed, sorted(missing)
    assert config["track_firsts"] == 1 and config["assign_firsts"] == 1
    assert config["entry"] in ("scores", "both")  # a config.tsh choice; TSH's default "scores"


# --- Gibson's feed, stage by stage ---------------------------------------------------------


def _common_config_keys() -> set[str]:
    keys = None
    for path in REAL_FEEDS:
        if path.name in OLDER_TSH_FEEDS:
            continue  # what Gibson writes follows the TSH of today
        found = set(_read(path)["config"])
        keys = found if keys is None else keys & found
    return (keys or set()) - EVENT_DATA


def _division_keys() -> set[str]:
    return set(_read(FEEDS / "raining2026.js")["divisions"][0])


@pytest.fixture
def replay(real_data):
    """naspa-2023-a.t entered into Gibson as a director would: players, then round by round."""
    players = read_t(real_data / "naspa-2023-a.t")
    t = services.create_tournament(name="Replay Open")
    d = services.create_division(t, name="A", rounds=23)
    for p in players:
        services.register_player(d, name=p.name, rating=p.rating)
    return t, d, players


def _pair(d, players, rnd: int) -> list[tuple[int, int, int, int]]:
    """Pair round ``rnd`` as it was played; the games as (player, opponent, score, opp)."""
    games, results = [], []
    for p in players:
        opp = p.opponents[rnd - 1]
        if opp == 0:
            games.append(PlannedGame(p.number, 0))
        elif p.number < opp:
            games.append(PlannedGame(p.number, opp))
            o = players[opp - 1]
            results.append((p.number, opp, p.scores[rnd - 1], o.scores[rnd - 1]))
    save_round_pairings(d, rnd, games)
    return results


def _check_stage(t, players, *, rnd: int, stage: str) -> dict:
    data = _feed(t)
    division = data["divisions"][0]
    shown = rnd - 1 if stage == "paired" else rnd  # the round TSH's scoreboard shows
    assert division["maxrp"] == shown - 1, stage
    assert division["first_out_of_the_money"] == [27] * shown  # no prize places: n + 1
    assert division["maxr"] == 22
    assert set(division) == _division_keys()
    assert _common_config_keys() <= set(data["config"]), _common_config_keys() - set(data["config"])
    assert data["config"]["track_firsts"] == 1
    cards = _scoreboard(division)
    assert len(cards) == 26
    for number, card in cards.items():
        assert card["rank"] >= 1, (stage, number, card)  # never "0th"
        if stage == "paired":
            # the round just paired is the next game; the last one is scored
            assert card["next"] == players[number - 1].opponents[rnd - 1], (number, card)
            assert card["last"] in (None, "scored")
        else:
            assert card["next"] is None  # round rnd + 1 not paired yet
        if stage == "complete":
            assert card["last"] == "scored"
            assert card["rank"] == players[number - 1].rrank[rnd], number  # TSH's own rank
    if stage == "partly":
        assert {c["last"] for c in cards.values()} == {"scored", "no score yet"}
    return data


@pytest.mark.django_db
def test_replayed_rounds_show_ranks_and_the_next_game_at_every_stage(replay):
    t, d, players = replay
    for rnd in (1, 2, 3):
        results = _pair(d, players, rnd)
        _check_stage(t, players, rnd=rnd, stage="paired")
        half = len(results) // 2
        for number, _opp, score, opp_score in results[:half]:
            services.record_result(d, rnd, number, score, opp_score)
        _check_stage(t, players, rnd=rnd, stage="partly")
        for number, _opp, score, opp_score in results[half:]:
            services.record_result(d, rnd, number, score, opp_score)
        _check_stage(t, players, rnd=rnd, stage="complete")


@pytest.mark.django_db
def test_a_bye_recorded_at_pairing_does_not_start_the_round():
    """Gibson records a bye's score when the round is paired (TSH: with the results), so the
    bye alone does not move maxrp: TSH's raining2026.js F had a bye unscored mid-round."""
    t = services.create_tournament(name="Bye Open")
    d = services.create_division(t, name="A", rounds=3)
    for i, rating in enumerate((1500, 1600, 1400, 1700, 1550)):
        services.register_player(d, name=f"Player{i}, P", rating=rating)
    save_round_pairings(d, 1, [PlannedGame(1, 2), PlannedGame(3, 4), PlannedGame(5, 0)])
    division = _feed(t)["divisions"][0]
    assert division["players"][5]["scores"] == [t.bye_spread]
    assert division["maxrp"] == -1 and division["first_out_of_the_money"] == []
    cards = _scoreboard(division)
    assert all(c["rank"] >= 1 for c in cards.values())
    assert [cards[n]["next"] for n in (1, 2, 3, 4, 5)] == [2, 1, 4, 3, 0]
    services.record_result(d, 1, 1, 400, 350)
    division = _feed(t)["divisions"][0]
    assert division["maxrp"] == 0
    cards = _scoreboard(division)
    assert all(c["rank"] >= 1 for c in cards.values())
    assert cards[3]["last"] == "no score yet" and cards[1]["last"] == "scored"


@pytest.mark.django_db
def test_config_tsh_values_win_over_the_viewer_defaults():
    t = services.create_tournament(name="Config Open")
    services.create_division(t, name="A", rounds=3)
    Tournament.objects.filter(pk=t.pk).update(
        config={"settings": {"track_firsts": 0, "no_boards": 1, "currency_symbol": "THB"}}
    )
    t.refresh_from_db()
    config = _feed(t)["config"]
    assert config["track_firsts"] == 0 and config["no_boards"] == 1
    assert config["currency_symbol"] == "THB" and config["assign_firsts"] == 1


# --- TSH's own scoreboard in chromium --------------------------------------------------------

VIEWER = os.environ.get("GIBSON_TSH_VIEWER", "")
_PAGE = """<!DOCTYPE html><html><head><meta charset="utf-8"></head><body>
<div id="sb"></div><div id="msg"></div>
<script src="tsh.js"></script><script src="esb.js"></script>
<script>KeepLoadingScoreBoard({id: 'sb', root: location.origin, division: 'A',
  style: 'normal', rows: 30, columns: 1, nomsg: 1});</script>
</body></html>"""


def _viewer_skip() -> str | None:
    if not VIEWER:
        return "GIBSON_TSH_VIEWER is not set: no local copy of TSH's tsh.js and esb.js"
    missing = [n for n in ("tsh.js", "esb.js") if not (Path(VIEWER) / n).is_file()]
    if missing:
        return f"GIBSON_TSH_VIEWER={VIEWER} has no {', '.join(missing)}"
    from tests.core.browser import BROWSER_OFF, CHROMIUM, HAVE_PLAYWRIGHT

    if BROWSER_OFF:
        return "GIBSON_BROWSER_TESTS=0"
    if not HAVE_PLAYWRIGHT or not Path(CHROMIUM).exists():
        return "playwright or chromium is missing"
    return None


def _serve(folder: Path):
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(folder))
    handler.log_message = lambda *a, **k: None  # type: ignore[attr-defined]
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def _cards_in_chromium(page, url: str) -> list[dict]:
    page.goto(url)
    page.wait_for_function("document.querySelectorAll('#sb .sbp').length > 0", timeout=15000)
    return page.evaluate(
        """() => Array.from(document.querySelectorAll('#sb .sbp')).map(e => ({
            rank: (e.querySelector('.me .rank') || {}).textContent || '',
            text: e.textContent,
            next: !!e.querySelector('.next'),
        }))"""
    )


@pytest.mark.django_db
def test_tsh_scoreboard_shows_ranks_at_every_stage(replay, tmp_path):
    reason = _viewer_skip()
    if reason:
        pytest.skip(reason)
    from playwright import sync_api

    from tests.core.browser import CHROMIUM, FLAGS

    t, d, players = replay
    feeds = []  # (round, stage, tourney.js): built first, Playwright's loop forbids the ORM
    for rnd in (1, 2):
        results = _pair(d, players, rnd)
        half = len(results) // 2
        for stage, batch in (
            ("paired", []),
            ("partly", results[:half]),
            ("complete", results[half:]),
        ):
            for number, _opp, score, opp_score in batch:
                services.record_result(d, rnd, number, score, opp_score)
            t.refresh_from_db()
            feeds.append((rnd, stage, write_tourney_js(export_tourney_js(t))))
    for name in ("tsh.js", "esb.js"):
        shutil.copy(Path(VIEWER) / name, tmp_path / name)  # a temporary copy, never the repo
    (tmp_path / "index.html").write_text(_PAGE, encoding="utf-8")
    server = _serve(tmp_path)
    url = f"http://127.0.0.1:{server.server_address[1]}/index.html"
    seen = []
    try:
        with sync_api.sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
            for rnd, stage, text in feeds:
                (tmp_path / "tourney.js").write_text(text, encoding="utf-8")
                page = browser.new_page()  # a fresh page: no cached feed, no settings
                cards = _cards_in_chromium(page, url)
                page.close()
                assert len(cards) == 26, (rnd, stage)
                ranks = [c["rank"] for c in cards]
                assert all(r and not r.startswith("0") for r in ranks), (rnd, stage, ranks)
                if stage == "paired":
                    assert all(c["next"] for c in cards), (rnd, stage)  # the round just paired
                    assert not any("no score yet" in c["text"] for c in cards), (rnd, stage)
                else:
                    assert not any(c["next"] for c in cards), (rnd, stage)  # none paired yet
                if stage == "partly":
                    assert any("no score yet" in c["text"] for c in cards), (rnd, stage)
                seen.append((rnd, stage, ranks))
            browser.close()
    finally:
        server.shutdown()
    assert len(seen) == 6
