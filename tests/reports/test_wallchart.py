"""Wall chart: every cell (result, opponent, score, spread) and the running totals."""

from __future__ import annotations

import re

import pytest

from tournament.reports import ReportError, WallChartGame, WallChartPlayer, wallchart_pdf

from . import realdata
from .conftest import find_sequence, pdf_pages, pdf_reader


def _cell(players, p, r):
    opp = p.opponents[r - 1]
    own = p.scores[r - 1]
    if opp == 0:
        return ["forfeit" if own < 0 else "bye", f"+{own}" if own > 0 else str(own)]
    theirs = players[opp - 1].scores[r - 1]
    letter = "W" if own > theirs else "L" if own < theirs else "T"
    diff = own - theirs
    return [f"{letter} {opp}", f"{own} {'+' if diff > 0 else ''}{diff}"]


def test_every_cell_and_block_total_matches_the_games(event, players_2023):
    data = wallchart_pdf(event, "A", realdata.wallchart(players_2023, 23), 23)
    pages = pdf_pages(data)
    seen: dict[tuple[int, int], int] = {}
    for lines in pages:
        header = next(ln for ln in lines if "Wall chart" in ln)
        first, last = map(int, re.search(r"rounds (\d+)-(\d+) of 23", header).groups())
        for p in players_2023:
            try:
                at = lines.index(p.name)
            except ValueError:
                continue
            seen[(first, p.number)] = seen.get((first, p.number), 0) + 1
            wins, losses, spread = realdata.record(players_2023, p, last)

            def fmt(x):
                return str(int(x)) if x == int(x) else str(x)

            seq = [str(p.number), p.name, str(p.rating)]
            for r in range(first, last + 1):
                seq += _cell(players_2023, p, r)
            seq += [f"{fmt(wins)}-{fmt(losses)}", f"+{spread}" if spread > 0 else str(spread)]
            assert find_sequence(lines, seq, at - 1) == at - 1, (p.name, first, last)
    blocks = {first for first, _ in seen}
    assert len(blocks) >= 2, "23 rounds must wrap into more than one block"
    # every player exactly once per block: the wrap neither drops nor repeats a row
    assert all(seen.get((b, p.number)) == 1 for b in blocks for p in players_2023)


def test_landscape_on_both_papers_with_page_x_of_y(players_2023):
    from tournament.reports import ReportEvent

    for paper in ("a4", "letter"):
        event = ReportEvent("Wall", dates="today", paper=paper)
        data = wallchart_pdf(event, "A", realdata.wallchart(players_2023, 23), 23)
        reader = pdf_reader(data)
        for page in reader.pages:
            assert float(page.mediabox.width) > float(page.mediabox.height)
        pages = pdf_pages(data)
        for n, lines in enumerate(pages, start=1):
            assert f"page {n} of {len(pages)}" in lines
            assert lines[0] == "Wall"


def test_unplayed_rounds_stay_empty_and_pairings_ahead_show_the_opponent(event):
    players = [
        WallChartPlayer(
            1, "One, Player", 1500, [WallChartGame(1, 2, 400, 350), WallChartGame(2, 2)]
        ),
        WallChartPlayer(2, "Two, Player", 0, [WallChartGame(1, 1, 350, 400), WallChartGame(2, 1)]),
    ]
    lines = pdf_pages(wallchart_pdf(event, "A", players, 4))[0]
    assert (
        find_sequence(lines, ["1", "One, Player", "1500", "W 2", "400 +50", "2", "1-0", "+50"]) >= 0
    )
    assert find_sequence(lines, ["2", "Two, Player", "unr.", "L 1", "350 -50", "1", "0-1"]) >= 0


@pytest.mark.parametrize(
    ("players", "rounds", "message"),
    [
        (
            [WallChartPlayer(1, "A, B", 1500, [WallChartGame(5, 0, 50)])],
            4,
            r"player #1 A, B, round 5: round outside 1-4",
        ),
        (
            [WallChartPlayer(1, "A, B", 1500, [WallChartGame(1, 0, 50), WallChartGame(1, 0, 50)])],
            4,
            "two games in one round",
        ),
        (
            [WallChartPlayer(1, "A, B", 1500, [WallChartGame(1, 9, 400, 300)])],
            4,
            "opponent #9 is not in the division",
        ),
        (
            [WallChartPlayer(1, "A, B", 1500), WallChartPlayer(1, "C, D", 1500)],
            4,
            "player number appears twice",
        ),
        ([], 0, "rounds must be at least 1"),
    ],
)
def test_bad_input_is_refused(event, players, rounds, message):
    with pytest.raises(ReportError, match=message):
        wallchart_pdf(event, "A", players, rounds)


def test_a_withdrawn_player_shows_withdrawn_never_a_bye_or_forfeit(event):
    # #3 withdrew from round 2 on: round 2 holds the withdrawal score TSH records (an
    # opponent-0 game), round 3 nothing; neither is a game on the wall
    players = [
        WallChartPlayer(1, "One, Player", 1500, [WallChartGame(1, 2, 400, 350)]),
        WallChartPlayer(2, "Two, Player", 1400, [WallChartGame(1, 1, 350, 400)]),
        WallChartPlayer(
            3,
            "Three, Player",
            1300,
            [WallChartGame(1, 0, 50), WallChartGame(2, 0, -50)],
            withdrawn_round=2,
        ),
    ]
    lines = pdf_pages(wallchart_pdf(event, "A", players, 3))[0]
    at = lines.index("Three, Player")
    assert find_sequence(lines, ["bye", "+50", "withdrawn", "-50", "withdrawn"], at) == at + 2
    assert "forfeit" not in lines
    # the same opponent-0 game of a player still in is a forfeit
    players[2] = WallChartPlayer(
        3, "Three, Player", 1300, [WallChartGame(1, 0, 50), WallChartGame(2, 0, -50)]
    )
    lines = pdf_pages(wallchart_pdf(event, "A", players, 3))[0]
    assert "forfeit" in lines and "withdrawn" not in lines


def test_the_report_passes_each_entry_s_withdrawal(db):
    import datetime

    from pairings.services.store import PlannedGame, save_round_pairings
    from tournament import services
    from tournament.reports.build import DivisionData, wallchart_players

    t = services.create_tournament(name="Wall", start_date=datetime.date(2025, 1, 1))
    d = services.create_division(t, name="A", rounds=3)
    for i in range(3):
        services.register_player(d, name=f"P{i}", rating=1500)
    save_round_pairings(
        d, 1, [PlannedGame(1, 2, board=1), PlannedGame(3, 0, board=2)], system="manual"
    )
    d.entries.filter(number=3).update(withdrawn_round=2)
    rows = {p.number: p for p in wallchart_players(DivisionData(d), 1)}
    assert rows[3].withdrawn_round == 2 and rows[1].withdrawn_round is None
