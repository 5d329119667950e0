"""Forms of the registration page: add a player, paste a list, edit, withdraw, reinstate.

The forms check what a page can check on its own (whole numbers, lengths, a pasted list's
shape, line by line); the services check it again with the division's state, and their
refusals come back to the same fields.
"""

from __future__ import annotations

import csv
import re
from typing import Any

from django import forms
from django.utils.text import format_lazy
from django.utils.translation import gettext, gettext_lazy, ngettext

from ...formats.errors import FormatError
from ...formats.tsh import decode_bytes, parse_t
from ...models import Division, Entry, Game, Player
from ...services import MAX_SEED_RATING, NewEntry

NAME_MAX = Player._meta.get_field("name").max_length
NOTE_MAX = Player._meta.get_field("note").max_length
CLASS_MAX = Entry._meta.get_field("player_class").max_length
MAX_LINES = 1000  # a pasted list longer than any division is a paste of the wrong thing
_PICK = re.compile(r"\A(\d{1,12})(?::(\d{1,12}))?\Z")


def _rating_field(label: Any = None) -> forms.IntegerField:
    return forms.IntegerField(
        label=gettext_lazy("Seed rating") if label is None else label,
        required=False,
        min_value=0,
        max_value=MAX_SEED_RATING,
        help_text=format_lazy(gettext_lazy("0 = unrated; at most {max}"), max=MAX_SEED_RATING),
        widget=forms.NumberInput(attrs={"inputmode": "numeric", "size": 5}),
    )


class AddPlayerForm(forms.Form):
    """Type a name; pick a suggestion (``pick``) or add a new player (``new``, ``confirm``)."""

    name = forms.CharField(
        label=gettext_lazy("Name"),
        max_length=NAME_MAX,
        required=False,
        help_text=gettext_lazy(
            '"Surname, Given"; suggestions come from the registry and the rating lists'
        ),
    )
    rating = _rating_field()
    player_class = forms.CharField(
        label=gettext_lazy("Class"), max_length=CLASS_MAX, required=False
    )
    pick = forms.CharField(required=False, widget=forms.HiddenInput)
    confirm = forms.BooleanField(required=False, widget=forms.HiddenInput)
    # a like-named player already entered in this tournament: the director says this one is
    # someone else, with a note that tells them apart (tournament.services.register_new_player)
    different = forms.BooleanField(
        label=gettext_lazy("This is a different person with the same name"), required=False
    )
    note = forms.CharField(
        label=gettext_lazy("What tells them apart"),
        max_length=NOTE_MAX,
        required=False,
        help_text=gettext_lazy('a town, "Jr.", a club: shown beside the name'),
    )

    def clean(self) -> dict:
        data = super().clean()
        if data.get("different") and not " ".join((data.get("note") or "").split()):
            self.add_error(
                "note", gettext("say what tells the two apart, such as their town or club")
            )
        pick = (data.get("pick") or "").strip()
        if pick:
            match = _PICK.match(pick)
            if match is None:
                self.add_error(
                    "name", gettext("that suggestion is not valid any more; search again")
                )
            else:
                data["player_id"] = int(match.group(1))
                data["list_id"] = int(match.group(2)) if match.group(2) else None
        elif not " ".join((data.get("name") or "").split()) and "name" not in self.errors:
            self.add_error(
                "name", gettext("type the player's name, then pick a suggestion or add them")
            )
        return data


class PasteForm(forms.Form):
    """A list pasted from a text file or a spreadsheet: ``Name rating`` or CSV, one a line; or
    TSH's ``.t`` lines, pasted or uploaded (a roster: names, ratings, classes, ids).

    A ``.t`` whose lines carry pairings or scores is refused unless the director asks for the
    roster alone, and always when the division has games: the Players page registers people,
    it never records games, and a file's results cannot be merged with games the division
    already has (its numbers are the file's line order, not the division's). A whole event
    with its results comes in through the import instead, where every pairing is checked.
    """

    lines = forms.CharField(
        label=gettext_lazy("Players, one a line"),
        required=False,
        strip=False,  # leading blank lines count: errors name the line the director sees
        widget=forms.Textarea(attrs={"rows": 6, "spellcheck": "false"}),
        help_text=gettext_lazy(
            '"Smith, John 1734" (the last word is the rating), or name,rating[,class] '
            "copied from a spreadsheet, with or without a header row, or TSH .t lines"
        ),
    )
    t_file = forms.FileField(
        label=gettext_lazy("Or a TSH .t file"),
        required=False,
        help_text=gettext_lazy(
            "its players are registered in file order: names, ratings, classes, ids"
        ),
    )
    roster_only = forms.BooleanField(
        label=gettext_lazy("The .t has results: take only its names and ratings"),
        required=False,
        help_text=gettext_lazy(
            "only in a division with no games yet; the file's games are left out"
        ),
    )

    def __init__(self, *args: Any, division: Division | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.division = division

    def clean(self) -> dict:
        data = super().clean()
        if self.errors:
            return data
        text = data.get("lines") or ""
        upload = data.get("t_file")
        if upload is not None:
            if upload.size > T_FILE_MAX:
                self.add_error(
                    "t_file",
                    gettext("the file is {size} bytes; a .t is at most {max} KB here").format(
                        size=upload.size, max=T_FILE_MAX // 1024
                    ),
                )
                return data
            if text.strip():
                self.add_error("lines", gettext("paste a list or choose a .t file, not both"))
                return data
            text = decode_bytes(upload.read())
        field = "t_file" if upload is not None else "lines"
        if is_t_text(text):
            rows, problems, results = read_t_roster(text)
            refused = self._results_problem(results) if results and not problems else None
            problems = [refused] if refused else problems
        else:
            rows, problems = parse_player_list(text)
        if problems:
            self.add_error(
                field,
                [
                    gettext("line {line}: {problem}").format(line=n, problem=what) if n else what
                    for n, what in problems[:20]
                ]
                + (
                    [gettext("... and {count} more").format(count=len(problems) - 20)]
                    if len(problems) > 20
                    else []
                ),
            )
        elif not rows:
            self.add_error(field, gettext("the list has no players: give one 'Name rating' a line"))
        data["rows"] = rows
        return data

    def _results_problem(self, results: list[tuple[int, str]]) -> tuple[int, str] | None:
        """Why a .t with results is refused here, or None when its roster alone is taken."""
        line, name = results[0]
        what = ngettext(
            "{name} has pairings or scores ({count} line with results)",
            "{name} has pairings or scores ({count} lines with results)",
            len(results),
        ).format(name=name, count=len(results))
        division = self.division
        if division is not None and Game.objects.filter(round__division=division).exists():
            return line, gettext(
                "{what}, and division {division} has games of its own: a file's results "
                "cannot be merged with them. Paste the players' lines without results, or "
                "enter the games on the results page"
            ).format(what=what, division=division.name)
        if not self.cleaned_data.get("roster_only"):
            return line, gettext(
                "{what}: this page registers players, it records no games. Tick "
                '"take only its names and ratings" to leave the results out, or import the '
                "whole event (Import a tournament) to bring its games in"
            ).format(what=what)
        return None


class EntryForm(forms.Form):
    """Correct one entry's seed rating and class."""

    seed_rating = forms.IntegerField(
        label=gettext_lazy("Seed rating"),
        min_value=0,
        max_value=MAX_SEED_RATING,
        widget=forms.NumberInput(attrs={"inputmode": "numeric", "class": "rating"}),
    )
    player_class = forms.CharField(
        label=gettext_lazy("Class"),
        max_length=CLASS_MAX,
        required=False,
        widget=forms.TextInput(attrs={"size": 4, "class": "class"}),
    )
    # shown only while the registry has none (a keeper changes one it holds); checked by
    # the service, so the form takes any text
    naspa_id = forms.CharField(
        label=gettext_lazy("NASPA id"),
        required=False,
        max_length=100,
        widget=forms.TextInput(attrs={"size": 8, "class": "member-id", "autocomplete": "off"}),
    )


class RoundForm(forms.Form):
    """The round a withdrawal or a return starts from."""

    round = forms.IntegerField(
        label=gettext_lazy("Round"),
        min_value=1,
        max_value=999,
        widget=forms.NumberInput(attrs={"inputmode": "numeric", "class": "round"}),
    )


# ----------------------------------------------------------------------- the pasted list

T_FILE_MAX = 512 * 1024  # a .t of a thousand players with thirty rounds is under 200 KB


def is_t_text(text: str) -> bool:
    """TSH ``.t`` lines carry a ';' after the pairings ("Smith, John 1734 3 5; 400 380"); a
    name,rating list never does (a ';' in a name is refused: it is TSH's separator)."""
    return any(";" in line for line in text.splitlines() if not line.lstrip().startswith("#"))


def read_t_roster(
    text: str,
) -> tuple[list[NewEntry], list[tuple[int, str]], list[tuple[int, str]]]:
    """A ``.t`` text's players as rows to register, every problem as (line, what), and the
    lines that carry pairings or scores as (line, name).

    A malformed line is one problem, with the reader's own words (the rest is not read: a
    ``.t`` line's fields depend on the ones before). Names, ratings and classes are checked as
    a pasted list's are, so every problem of that kind shows at once.
    """
    if len(text.splitlines()) > MAX_LINES:
        return [], [(MAX_LINES + 1, _too_long())], []
    try:
        players = parse_t(text, source="the .t lines", check=False)
    except FormatError as exc:
        return [], [(exc.line or 0, exc.message)], []
    rows: list[NewEntry] = []
    problems: list[tuple[int, str]] = []
    results: list[tuple[int, str]] = []
    seen: dict[str, int] = {}
    for p in players:
        row, problem = _check(p.name, str(p.rating), p.player_class or "")
        if row is None:
            problems.append((p.line, problem))
            continue
        key = row.name.casefold()
        if key in seen:
            problems.append((p.line, _twice(row.name, seen[key])))
            continue
        seen[key] = p.line
        rows.append(NewEntry(row.name, row.rating, row.player_class, p.line, p.member_id))
        if any(v is not None for v in p.opponents + p.scores):
            results.append((p.line, row.name))
    return rows, problems, results


def _too_long() -> str:
    """The refusal of a list longer than any division (a paste of the wrong thing)."""
    return gettext("the list is longer than {max} lines").format(max=MAX_LINES)


def _twice(name: str, line: int) -> str:
    """The refusal of a name the list already holds, naming the line it is on."""
    return gettext("{name} is already on line {line}").format(name=name, line=line)


def _rating(text: str) -> int | None:
    """A rating token: ASCII digits only ("²".isdigit() is True, int() refuses it)."""
    text = text.strip()
    if text.isascii() and text.isdigit():
        return int(text)
    return None


def _is_header(cells: list[str]) -> bool:
    words = {c.strip().casefold() for c in cells}
    return "name" in words or any(w.startswith(("name", "player")) for w in words)


def _cells(line: str) -> list[str] | None:
    """A spreadsheet row (tab- or comma-separated, with a rating in the second column), else
    None: "Smith, John 1734" has a comma in the name and is read as ``Name rating``."""
    if "\t" in line:
        return [c.strip() for c in line.split("\t")]
    if "," not in line:
        return None
    try:
        cells = next(csv.reader([line]))
    except (csv.Error, StopIteration):
        return None
    cells = [c.strip() for c in cells]
    if len(cells) >= 2 and (_rating(cells[1]) is not None or cells[1] == ""):
        return cells
    if len(cells) >= 2 and _is_header(cells):
        return cells
    # "Surname, Given,1734,B" unquoted: the name is every cell before the first rating.
    for i in range(2, len(cells)):
        if _rating(cells[i]) is not None:
            return [", ".join(cells[:i]), *cells[i:]]
    return None


def _check(name: str, rating_text: str, player_class: str) -> tuple[NewEntry | None, str]:
    name = " ".join(name.split())
    if not name:
        return None, gettext("no name before the rating")
    if len(name) > NAME_MAX:
        return None, gettext("the name is longer than {max} characters").format(max=NAME_MAX)
    if rating_text.strip() == "":
        return None, gettext("{name}: no rating at the end (give 0 for an unrated player)").format(
            name=name
        )
    rating = _rating(rating_text)
    if rating is None:
        return None, gettext("{name}: {rating} is not a rating (a whole number 0..3000)").format(
            name=name, rating=repr(rating_text.strip())
        )
    if rating > MAX_SEED_RATING:
        return None, gettext("{name}: rating {rating} is above {max}").format(
            name=name, rating=rating, max=MAX_SEED_RATING
        )
    player_class = " ".join(player_class.split())
    if len(player_class) > CLASS_MAX:
        return None, gettext("{name}: class {player_class} is longer than {max} characters").format(
            name=name, player_class=repr(player_class), max=CLASS_MAX
        )
    return NewEntry(name, rating, player_class), ""


def parse_player_list(text: str) -> tuple[list[NewEntry], list[tuple[int, str]]]:
    """Rows of a pasted list with their line numbers, and every problem as (line, what).

    Each non-blank line is ``Name rating`` (the last word is the rating, so "Surname, Given
    1734" works) or a spreadsheet row ``name,rating[,class]`` (comma- or tab-separated, quoted
    names allowed). A header row is skipped when it is the first line. Every line is checked,
    so the director sees all problems at once; a name twice in the list is a problem too.
    """
    rows: list[NewEntry] = []
    problems: list[tuple[int, str]] = []
    seen: dict[str, int] = {}
    lines = text.splitlines()
    if len(lines) > MAX_LINES:
        return [], [(MAX_LINES + 1, _too_long())]
    first = True
    for number, raw in enumerate(lines, 1):
        line = raw.strip().lstrip("\ufeff")
        if not line:
            continue
        cells = _cells(line)
        is_first, first = first, False
        if cells is not None:
            if is_first and _is_header(cells) and _rating(cells[1]) is None:
                continue
            if len(cells) > 3 and any(c for c in cells[3:]):
                problems.append((number, gettext("too many columns: give name,rating[,class]")))
                continue
            row, problem = _check(cells[0], cells[1], cells[2] if len(cells) > 2 else "")
        else:
            name, _, rating_text = line.rpartition(" ")
            if is_first and _is_header(line.split()) and _rating(rating_text) is None:
                continue
            if not name:
                name, rating_text = ("", line) if _rating(line) is not None else (line, "")
            elif not any(ch.isdigit() for ch in rating_text):
                name, rating_text = line, ""
            row, problem = _check(name, rating_text, "")
        if row is None:
            problems.append((number, problem))
            continue
        key = row.name.casefold()
        if key in seen:
            problems.append((number, _twice(row.name, seen[key])))
            continue
        seen[key] = number
        rows.append(NewEntry(row.name, row.rating, row.player_class, number))
    return rows, problems
