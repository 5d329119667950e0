"""Reading ratings files: TSH's tab-separated ratings list and a simple CSV.

A director loads a federation's current list before an event (TSH ships them as
``name<TAB>rating<TAB>rank<TAB>expiry<TAB>games``); a club may keep its own as
``name,rating,games``. Errors name the file and line, since these files are edited by hand.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass

from .model import RatingError


class RatingsFileError(RatingError):
    """A ratings file line that cannot be read; carries the source and the line number."""

    def __init__(self, message: str, *, source: str, line: int | None = None) -> None:
        self.source = source
        self.line = line
        where = source if line is None else f"{source} line {line}"
        super().__init__(f"{where}: {message}")


@dataclass(frozen=True)
class ImportedRating:
    name: str
    rating: int  # 0 = unrated
    career_games: int | None
    line: int
    rank: int | None = None
    expiry: str = ""


def _int(text: str, what: str, source: str, line: int) -> int:
    t = text.strip()
    try:
        value = int(t)
    except ValueError:
        raise RatingsFileError(
            f"{what} {t!r} is not a whole number", source=source, line=line
        ) from None
    if value < 0:
        raise RatingsFileError(f"{what} {value} is negative", source=source, line=line)
    return value


def _is_header(fields: list[str]) -> bool:
    return len(fields) > 1 and fields[1].strip().lower() in {"rating", "rate", "ratings"}


def parse_ratings(text: str, *, source: str = "<string>") -> list[ImportedRating]:
    """Parse either format (tabs mean TSH's list). Blank lines and ``#`` comments are skipped."""
    lines = text.splitlines()
    tsh = any("\t" in ln for ln in lines)
    out: list[ImportedRating] = []
    seen: dict[str, int] = {}
    for number, raw in enumerate(lines, start=1):
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue
        if tsh:
            fields = raw.split("\t")
        else:
            fields = next(csv.reader(io.StringIO(raw)))
            # "Surname, Given,1500,20" unquoted: the name is everything before the last two.
            if len(fields) > 3:
                fields = [",".join(fields[:-2]).strip(), fields[-2], fields[-1]]
        if not out and _is_header(fields):
            continue
        if len(fields) < 2:
            sep = "tab" if tsh else "comma"
            raise RatingsFileError(
                f"expected a name and a rating separated by a {sep}, got {raw.strip()!r}",
                source=source,
                line=number,
            )
        name = " ".join(fields[0].split())
        if not name:
            raise RatingsFileError("the name is empty", source=source, line=number)
        rating = _int(fields[1], "rating", source, number)
        rank: int | None = None
        expiry = ""
        games_text = ""
        if tsh:
            if len(fields) > 2 and fields[2].strip():
                rank = _int(fields[2], "rank", source, number)
            expiry = fields[3].strip() if len(fields) > 3 else ""
            games_text = fields[4] if len(fields) > 4 else ""
        elif len(fields) > 2:
            games_text = fields[2]
        games = _int(games_text, "games", source, number) if games_text.strip() else None
        key = name.lower()
        if key in seen:
            raise RatingsFileError(
                f"{name!r} is listed twice (first on line {seen[key]})", source=source, line=number
            )
        seen[key] = number
        out.append(ImportedRating(name, rating, games, number, rank, expiry))
    return out
