"""Ratings files (TSH tab-separated list, simple CSV): read, and refused with file and line."""

from __future__ import annotations

import pytest

from ratings.engine import RatingError
from ratings.engine.ratingsfile import RatingsFileError, parse_ratings


def test_tsh_list():
    rows = parse_ratings(
        "Smylie, Jackson\t2009\t1\t2025-01-01\t1726\n# comment\n\nNew, Guy\t0\t\t\t\n",
        source="nwl.txt",
    )
    assert [(r.name, r.rating, r.rank, r.expiry, r.career_games, r.line) for r in rows] == [
        ("Smylie, Jackson", 2009, 1, "2025-01-01", 1726, 1),
        ("New, Guy", 0, None, "", None, 4),
    ]


def test_csv_with_header_quoted_and_unquoted_names():
    rows = parse_ratings('name,rating,games\nSmylie, Jackson,2009,1726\n"Sokol, Joshua",1985,\n')
    assert [(r.name, r.rating, r.career_games, r.line) for r in rows] == [
        ("Smylie, Jackson", 2009, 1726, 2),
        ("Sokol, Joshua", 1985, None, 3),
    ]
    assert parse_ratings("Solo,1500\n")[0].career_games is None


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("A, B,1500,10\nC, D,abc,10\n", r"club.csv line 2: rating 'abc' is not a whole number"),
        ("A, B,-5,10\n", r"club.csv line 1: rating -5 is negative"),
        ("A, B,1500,x\n", r"club.csv line 1: games 'x' is not a whole number"),
        ("Lonely\n", r"club.csv line 1: expected a name and a rating"),
        ("A, B,1500,1\na, b,1600,2\n", r"line 2: 'a, b' is listed twice \(first on line 1\)"),
        (",1500,3\n", r"line 1: the name is empty"),
    ],
)
def test_bad_lines(text, message):
    with pytest.raises(RatingsFileError, match=message) as info:
        parse_ratings(text, source="club.csv")
    assert isinstance(info.value, RatingError) and info.value.source == "club.csv"
