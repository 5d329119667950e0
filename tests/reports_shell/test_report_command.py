"""The report shell on a real database: naspa-2023-a imported, every kind printed, read back."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from tournament import services
from tournament.formats.tsh import parse_t
from tournament.interchange.imports import import_tsh
from tournament.models import Tournament
from tournament.reports.build import DivisionData, build_report, page_count, report_event

from ..reports.conftest import find_sequence, joined, pdf_pages, pdf_reader

pytestmark = pytest.mark.django_db
DIVISION = "naspa-2023-a"


@pytest.fixture
def imported(real_data):
    tournament = import_tsh(real_data / "naspa-2023-a.t", rounds=23, name="Albany 2023")
    players = parse_t((real_data / "naspa-2023-a.t").read_text(encoding="latin-1"))
    return tournament, players


def run(*args: str) -> str:
    out = StringIO()
    call_command(*args, stdout=out, stderr=StringIO())
    return out.getvalue()


def report(tournament: Tournament, tmp_path, kind: str, *extra: str) -> tuple[dict, bytes]:
    out = tmp_path / f"{kind}.pdf"
    data = json.loads(
        run("report", tournament.slug, "--kind", kind, "--out", str(out), *extra, "--json")
    )
    return data, out.read_bytes()


def test_standings_after_round_12_follow_rrank(imported, tmp_path):
    tournament, players = imported
    data, pdf = report(tournament, tmp_path, "standings", "--round", "12")
    assert data["round"] == 12 and data["pages"] == 1 == len(pdf_reader(pdf).pages)
    lines = pdf_pages(pdf)[0]
    by_rank = sorted((p for p in players if p.off is None), key=lambda p: (p.rrank[12], p.number))
    positions = [lines.index(p.name) for p in by_rank]
    assert positions == sorted(positions), "names print in rrank order"
    for p in by_rank:
        at = lines.index(p.name)
        assert lines[at - 2] == str(p.rrank[12]), p.name
        assert lines[at - 1] == str(p.number)
    # the rating estimates are TSH's own newr after round 12
    for p in players:
        at = lines.index(p.name)
        assert str(p.newr[11]) in lines[at + 1 : at + 6], p.name


def test_scorecards_show_opponents_and_cumulative_spread(imported, tmp_path):
    tournament, players = imported
    data, pdf = report(tournament, tmp_path, "scorecards", "--round", "8", "--per-page", "2")
    assert data["pages"] == 13 and data["cards"] == 26
    pages = pdf_pages(pdf)
    by_number = {p.number: p for p in players}
    for p in players:
        lines = pages[(p.number - 1) // 2]
        at = find_sequence(lines, [f"#{p.number}", p.name])
        assert at >= 0
        cumulative = 0
        wins = 0
        met: dict[int, int] = {}
        for r in range(1, 9):
            opp = p.opponents[r - 1]
            own = p.scores[r - 1]
            theirs = by_number[opp].scores[r - 1]
            assert opp, "no byes in rounds 1-8 of this file"
            met[opp] = met.get(opp, 0) + 1
            cumulative += own - theirs
            wins += own > theirs
            name = by_number[opp].name + (f" *{met[opp]}" if met[opp] > 1 else "")
            row = [
                str(r),
                {1: "1st", 2: "2nd"}[p.p12[r - 1]],
                str(p.board[r - 1]),
                str(opp),
                str(by_number[opp].rating),
                name,
                f"{wins}-{r - wins}",
                str(own),
                str(theirs),
            ]
            at = find_sequence(lines, row, at)
            assert at >= 0, (p.name, row)
            cum = f"+{cumulative}" if cumulative > 0 else str(cumulative)
            assert lines[at + 10] == cum, (p.name, r, lines[at : at + 11])
    # the QR's link is the player's own self-entry page, /e/TOKEN/ (tests/selfentry has more)
    token = tournament.divisions.get().entries.get(number=1).entry_token
    assert token and any(ln.endswith(f"/e/{token}/") for ln in pages[0])


def test_pairings_wallchart_and_prizes_print(imported, tmp_path):
    tournament, players = imported
    data, pdf = report(tournament, tmp_path, "pairings", "--round", "5")
    text = " ".join(joined(p) for p in pdf_pages(pdf))
    for p in players:
        assert p.name in text
    assert "Round 5 pairings" in text
    data, pdf = report(tournament, tmp_path, "wallchart")
    assert data["round"] == 23
    assert all(float(pg.mediabox.width) > float(pg.mediabox.height) for pg in pdf_reader(pdf).pages)
    data, pdf = report(tournament, tmp_path, "prizes", "--round", "23")
    text = joined(pdf_pages(pdf)[0])
    winner = next(p for p in players if p.rrank[23] == 1)
    assert f"1st place #{winner.number} {winner.name}" in text
    high = max(s for p in players for s, o in zip(p.scores, p.opponents, strict=False) if o)
    assert "High game" in text and f"{high}-" in text


def test_a4_from_the_command_overrides_the_tournament(imported, tmp_path):
    tournament, _ = imported
    assert tournament.paper == "letter"
    _, pdf = report(tournament, tmp_path, "standings", "--paper", "a4")
    box = pdf_reader(pdf).pages[0].mediabox
    assert round(float(box.width)) == 595


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--kind", "pairings", "--round", "24"), "round 24 is not paired yet"),
        (("--kind", "scorecards", "--round", "30"), "round 30 is not paired yet"),
        (("--kind", "standings", "--round", "-1"), "must be 0 or more"),
        (("--kind", "standings", "--division", "Z"), "no division 'Z'"),
        (("--kind", "standings", "--paper", "legal"), "unknown paper size 'legal'"),
        (("--kind", "scorecards", "--per-page", "3"), "per_page must be 1, 2 or 4"),
        (("--kind", "scorecards", "--per-page", "4"), "23 rounds do not fit 4 cards per page"),
    ],
)
def test_bad_input_writes_no_file(imported, tmp_path, args, message):
    tournament, _ = imported
    out = tmp_path / "out.pdf"
    with pytest.raises(CommandError, match=message):
        run("report", tournament.slug, *args, "--out", str(out))
    assert not out.exists()
    assert list(tmp_path.iterdir()) == []


def test_unknown_tournament_and_unpaired_division(tmp_path):
    out = tmp_path / "x.pdf"
    with pytest.raises(CommandError, match="no tournament"):
        run("report", "nope", "--kind", "standings", "--out", str(out))
    t = services.create_tournament(name="Fresh")
    d = services.create_division(t, name="A", rounds=5)
    for name in ("Able, Ann", "Baker, Bo"):
        services.register_player(d, name=name, rating=1500)
    with pytest.raises(CommandError, match="division A: no round has been paired yet"):
        run("report", t.slug, "--kind", "pairings", "--out", str(out))
    assert not out.exists()
    # blank scorecards before round 1 are the first thing a director prints
    run("report", t.slug, "--kind", "scorecards", "--out", str(out))
    lines = pdf_pages(out.read_bytes())[0]
    assert "Able, Ann" in lines and "Baker, Bo" in lines


def test_scorecard_task_reports_progress_and_writes_atomically(imported, tmp_path, monkeypatch):
    from tournament.reports import tasks

    tournament, _ = imported
    states = []
    monkeypatch.setattr(
        tasks.division_scorecards, "update_state", lambda **kw: states.append(kw), raising=False
    )
    out = tmp_path / "cards.pdf"
    result = tasks.division_scorecards.apply(
        args=(tournament.slug, DIVISION, str(out)), kwargs={"per_page": 2}
    ).get()
    assert result["pages"] == 13 == page_count(out.read_bytes())
    assert states and states[-1]["meta"] == {"current": 26, "total": 26}
    currents = [s["meta"]["current"] for s in states]
    assert currents == sorted(currents)
    assert list(tmp_path.iterdir()) == [out]


def test_build_report_pieces(imported):
    tournament, players = imported
    division = tournament.divisions.get()
    data = DivisionData(division)
    assert data.last_paired == 23 and data.rounds_total == 23
    event = report_event(tournament)
    assert event.name == "Albany 2023" and event.paper == "letter"
    built = build_report(division, "standings", round_number=0)
    assert "Standings before round 1" in joined(pdf_pages(built.pdf)[0])


def test_missing_folder_is_a_clear_error_and_nothing_is_written(imported, tmp_path):
    tournament, _ = imported
    out = tmp_path / "nonexist" / "x.pdf"
    with pytest.raises(CommandError, match=r"the folder .*nonexist does not exist"):
        run("report", tournament.slug, "--kind", "standings", "--out", str(out))
    assert not out.parent.exists()


def test_report_pdf_is_readable_by_others_minus_umask(imported, tmp_path):
    import os

    tournament, _ = imported
    out = tmp_path / "s.pdf"
    old = os.umask(0o022)
    try:
        run("report", tournament.slug, "--kind", "standings", "--out", str(out))
    finally:
        os.umask(old)
    assert out.stat().st_mode & 0o777 == 0o644
