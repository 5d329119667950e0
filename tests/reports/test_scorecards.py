"""Scorecards: the numbers a player would write are printed right, the layout holds."""

from __future__ import annotations

import pytest

from tournament.reports import CardRound, ReportError, ReportEvent, Scorecard, scorecards_pdf

from . import realdata
from .conftest import find_sequence, joined, pdf_pages, pdf_reader

LONG_NAME = "Wolfeschlegelsteinhausenbergerdorff, Hubert Blaine Maximilian"[:60]


def _expected_rows(players, p, through):
    """Each played round's printed cells, worked out from the .t file on its own."""
    wins = losses = 0.0
    cumulative = 0
    met: dict[int, int] = {}
    rows = []
    p12 = p.ints("p12")
    boards = p.ints("board")
    for r in range(1, through + 1):
        opp = p.opponents[r - 1]
        o = players[opp - 1]
        met[opp] = met.get(opp, 0) + 1
        own, theirs = p.scores[r - 1], o.scores[r - 1]
        wins += 1 if own > theirs else 0.5 if own == theirs else 0
        losses += 1 if own < theirs else 0.5 if own == theirs else 0
        cumulative += own - theirs

        def fmt(x: float) -> str:
            return str(int(x)) if x == int(x) else str(x)

        def sign(x: int) -> str:
            return f"+{x}" if x > 0 else str(x)

        name = o.name + (f" *{met[opp]}" if met[opp] > 1 else "")
        rows.append(
            [
                str(r),
                {1: "1st", 2: "2nd"}[p12[r - 1]],
                str(boards[r - 1]),
                str(opp),
                str(o.rating),
                name,
                f"{fmt(wins)}-{fmt(losses)}",
                str(own),
                str(theirs),
                sign(own - theirs),
                sign(cumulative),
            ]
        )
    return rows


def test_every_played_round_prints_its_running_record_and_cumulative_spread(event, players_2023):
    through = 16  # the 2023 file has repeat meetings by round 16
    cards = realdata.scorecards(players_2023, through, 23)
    pages = pdf_pages(scorecards_pdf(event, "A", cards, per_page=2, round=through))
    repeats = 0
    for i, p in enumerate(players_2023):
        lines = pages[i // 2]
        start = find_sequence(lines, [f"#{p.number}", p.name])
        assert start >= 0, f"card header of #{p.number} {p.name} missing"
        for row in _expected_rows(players_2023, p, through):
            repeats += "*" in row[5]
            at = find_sequence(lines, row, start)
            assert at >= 0, f"#{p.number} {p.name}: row {row} not printed"
            start = at
    assert repeats > 0, "the test data should exercise the repeat-meeting mark"


def test_a_paired_round_ahead_of_the_scores_prints_the_pairing_but_no_figures(event, players_2023):
    cards = realdata.scorecards(players_2023, 9, 23)  # round 10 paired, not scored
    lines = pdf_pages(scorecards_pdf(event, "A", cards[:1]))[0]
    p = players_2023[0]
    opp = players_2023[p.opponents[9] - 1]
    at = find_sequence(lines, [str(opp.rating), opp.name, "11"])
    assert at >= 0, "round 10's opponent is printed and the rest of the row left blank"
    # and the unpaired rounds 11..23 are bare round numbers
    assert find_sequence(lines, [str(r) for r in range(11, 24)]) >= 0


def test_header_shows_number_name_rating_starts_replies_and_career_games(event, players_2023):
    through = 9
    cards = realdata.scorecards(players_2023, through, 23)
    pages = pdf_pages(scorecards_pdf(event, "A", cards))
    for i, p in enumerate(players_2023):
        p12 = p.ints("p12")[:through]
        starts = sum(1 for v in p12 if v == 1)
        replies = sum(1 for v in p12 if v == 2)
        lifeg = p.ints("lifeg")[0] if p.ints("lifeg") else 100
        lines = pages[i // 2]
        start = find_sequence(lines, [f"#{p.number}", p.name])
        expected = [
            "Rating",
            str(p.rating),
            "Class",
            p.extra["class"][0],
            "Starts:Replies",
            f"{starts}:{replies}",
            "Career games",
            f"{lifeg:,}",
        ]
        assert find_sequence(lines, expected, start) > start, p.name


def test_byes_forfeits_and_ties_count_the_way_the_rules_say(event):
    card = Scorecard(
        number=7,
        name="Cappelletto, Brian",
        rating=1600,
        rounds_total=5,
        rounds=[
            CardRound(1, opponent_number=0, score=50),
            CardRound(2, opponent_number=0, score=-50),
            CardRound(3, True, 4, 9, "Edley, Joe", 1700, 400, 400),
            CardRound(4, False, 2, 9, "Edley, Joe", 1700, 350, 420),
            CardRound(5, opponent_number=0, score=0),
        ],
    )
    lines = pdf_pages(scorecards_pdf(event, "B", [card], per_page=1))[0]
    assert find_sequence(lines, ["1", "bye", "1-0", "50", "+50", "+50"]) >= 0
    assert find_sequence(lines, ["2", "forfeit", "1-1", "-50", "-50", "0"]) >= 0
    assert (
        find_sequence(
            lines, ["3", "1st", "4", "9", "1700", "Edley, Joe", "1.5-1.5", "400", "400", "0", "0"]
        )
        >= 0
    )
    row4 = ["4", "2nd", "2", "9", "1700", "Edley, Joe *2", "1.5-2.5", "350", "420", "-70", "-70"]
    assert find_sequence(lines, row4) >= 0
    # a bye scored 0 is neither a win nor a loss
    assert find_sequence(lines, ["5", "bye", "1.5-2.5", "0", "0", "-70"]) >= 0
    # byes and forfeits are not starts or replies
    assert find_sequence(lines, ["Starts:Replies", "1:1"]) >= 0


def test_four_per_page_ten_cards_make_three_landscape_pages(event, players_2023):
    cards = realdata.scorecards(players_2023, 3, 8)[:10]
    data = scorecards_pdf(event, "A", cards, per_page=4)
    reader = pdf_reader(data)
    assert len(reader.pages) == 3
    for page in reader.pages:
        assert float(page.mediabox.width) > float(page.mediabox.height)
    pages = pdf_pages(data)
    for n, lines in enumerate(pages, start=1):
        assert f"page {n} of 3" in lines
    assert sum(ln.startswith("#") and ln[1:].isdigit() for ln in pages[2]) == 2


def test_every_page_has_the_event_header_and_page_x_of_y(event, players_2023):
    cards = realdata.scorecards(players_2023, 5, 12)
    pages = pdf_pages(scorecards_pdf(event, "A", cards, round=5))
    assert len(pages) == 13
    for n, lines in enumerate(pages, start=1):
        assert f"page {n} of 13" in lines
        assert lines[0] == event.name
        assert event.dates in lines
        assert any("Division A" in ln and "round 5" in ln for ln in lines)


def test_qr_url_is_printed_under_each_code(event, players_2023):
    cards = realdata.scorecards(players_2023, 2, 8)
    pages = pdf_pages(scorecards_pdf(event, "A", cards, per_page=4))
    text = "\n".join("\n".join(p) for p in pages)
    for card in cards:
        assert card.url in text.splitlines()


@pytest.mark.parametrize("per_page", [1, 2, 4])
def test_a_sixty_character_name_fits_and_is_printed_whole(event, players_2023, per_page):
    assert len(LONG_NAME) == 60
    cards = realdata.scorecards(players_2023, 4, 10)[:4]
    cards[0].name = LONG_NAME
    for r in cards[1].rounds:
        r.opponent_name = LONG_NAME
    pages = pdf_pages(scorecards_pdf(event, "A", cards, per_page=per_page))
    text = " ".join(joined(p) for p in pages)
    assert text.count(LONG_NAME) >= 1 + len(cards[1].rounds)


@pytest.mark.parametrize(("paper", "size"), [("a4", (595.28, 841.89)), ("LETTER", (612, 792))])
def test_paper_size_sets_the_page(players_2023, paper, size):
    event = ReportEvent("Paper test", paper=paper)
    reader = pdf_reader(scorecards_pdf(event, "A", realdata.scorecards(players_2023, 1, 8)[:2]))
    box = reader.pages[0].mediabox
    assert (round(float(box.width), 2), round(float(box.height), 2)) == size


def test_too_many_rounds_for_four_per_page_is_refused_with_a_hint(event, players_2023):
    cards = realdata.scorecards(players_2023, 1, 23)
    with pytest.raises(ReportError, match=r"23 rounds .* 4 cards per page.*--per-page 2\)"):
        scorecards_pdf(event, "A", cards, per_page=4)


@pytest.mark.parametrize(
    ("cards", "kwargs", "message"),
    [
        ([], {}, "no players"),
        ([Scorecard(1, "A, B", 1500, 5)], {"per_page": 3}, "per_page must be 1, 2 or 4"),
        (
            [Scorecard(1, "A, B", 1500, 5, [CardRound(6, opponent_number=2)])],
            {},
            r"player #1 A, B: round 6 is outside the event's rounds 1-5",
        ),
        ([Scorecard(1, "A, B", 1500, 5, [CardRound(2), CardRound(2)])], {}, "round 2 given twice"),
        (
            [Scorecard(1, "A, B", 1500, 5, [CardRound(1, opponent_number=2, score=400)])],
            {},
            "round 1: own score given but the opponent's score is missing",
        ),
        (
            [Scorecard(1, "A, B", 1500, 5, [CardRound(1, score=400)])],
            {},
            "round 1: a score without a pairing",
        ),
        ([Scorecard(1, "A, B", 1500, 0)], {}, "rounds_total must be at least 1"),
    ],
)
def test_bad_cards_are_refused_naming_player_and_round(event, cards, kwargs, message):
    with pytest.raises(ReportError, match=message):
        scorecards_pdf(event, "A", cards, **kwargs)


# --- geometry: the widest value of every column prints at the row's type size ---------------

PAPERS = {"letter": (612.0, 792.0), "a4": (595.28, 841.89)}


@pytest.mark.parametrize("paper", sorted(PAPERS))
@pytest.mark.parametrize(
    ("per_page", "rounds"), [(1, 8), (1, 23), (2, 8), (2, 23), (4, 8), (4, 12)]
)
def test_widest_values_fit_their_columns_without_shrinking(paper, per_page, rounds):
    from tournament.reports.layout import FONT, FONT_BOLD, ensure_fonts, text_width
    from tournament.reports.scorecards import (
        _BOLD_CELLS,
        _COLUMNS,
        CELL_PAD,
        MIN_ROW,
        card_geometry,
    )

    ensure_fonts()
    g = card_geometry(*PAPERS[paper], per_page, rounds)
    assert g.row_h >= MIN_ROW
    assert abs(sum(g.widths) - (g.w - 12)) < 0.01  # the columns fill the card's inner width
    also = {4: ["2199", "1000"], 9: ["+999", "-999"], 10: ["+1999", "-1999"]}
    for i, (_, _, widest, _) in enumerate(_COLUMNS):
        room = g.widths[i] - 2 * CELL_PAD + 1e-6
        font = FONT_BOLD if i in _BOLD_CELLS else FONT
        if not widest:  # the opponent's name: room for a usual "Surname, Given" at full size
            assert text_width("Goldstein, Christopher *2", font, g.size) <= room
            continue
        for value in [widest, *also.get(i, [])]:
            assert text_width(value, font, g.size) <= room, (i, value)
        assert text_width(g.titles[i], FONT_BOLD, g.head_size) <= room, g.titles[i]


@pytest.mark.parametrize("paper", sorted(PAPERS))
def test_twenty_three_rounds_at_two_per_page_leave_a_writable_row(paper):
    from tournament.reports.scorecards import MIN_ROW, card_geometry

    g = card_geometry(*PAPERS[paper], 2, 23)
    # 9.5 pt (3.4 mm) is the least a pencilled score fits in; the 2023 event had 23 rounds.
    assert g.row_h >= MIN_ROW
    assert g.size >= 6.0  # printed pairings stay readable at arm's length
    assert not card_geometry(*PAPERS[paper], 4, 23).row_h >= MIN_ROW


def test_the_hint_names_the_largest_count_that_fits(players_2023):
    event = ReportEvent("Hint", paper="a4")
    cards = realdata.scorecards(players_2023, 1, 23)[:3]
    with pytest.raises(ReportError, match=r"print 2 per page instead \(--per-page 2\)"):
        scorecards_pdf(event, "A", cards, per_page=4)
    assert pdf_reader(scorecards_pdf(event, "A", cards, per_page=2)).pages
