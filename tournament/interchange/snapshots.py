"""The ranks and rating estimates TSH printed before a later change (TSH's rule 1).

TSH stores each round's rank (``etc.rrank``, ``etc.rcrank`` under a spread cap) and rating
estimate (``etc.newr``) the first time it computes them and afterwards recomputes only the ones
missing (tsh, ``lib/perl/TSH/Tournament.pm``, ``SaveJSON``). A score entered or corrected marks
the division "dirty from" that score's round (``lib/perl/TSH/Player.pm``, ``Score`` calling
``TSH::Division::DirtyRound``), a single value that the latest score overwrites, and the next
``TSH::Division::Synch`` clears the stored values from that round on only
(``TruncateStats``). A correction to an earlier round followed by the next round's scores, a
changed pre-event rating, a player marked withdrawn (``off``) or a changed ``max_rounds`` clear
nothing: the values printed before stay in the file, and no recomputation gives them.

Gibson does not try to reproduce those values. An import compares what the file printed with
a recomputation from its results and tells the director which rounds differ (a warning, not a
refusal): the ``.t`` files Gibson writes keep them as printed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tournament.formats.tsh import TshPlayer

if TYPE_CHECKING:
    from tournament.models import Division, Tournament


def _ints(tokens: list[str]) -> list[int | None]:
    """A printed list as numbers: TSH's 0 ("not computed"), '00' or a team's text as None."""
    out: list[int | None] = []
    for tok in tokens:
        try:
            out.append(int(tok) or None)
        except (TypeError, ValueError):
            out.append(None)
    return out


def _round_list(rounds: list[int]) -> str:
    """[3, 4, 5, 9] -> '3-5, 9'."""
    parts: list[str] = []
    start = prev = rounds[0]
    for r in rounds[1:] + [None]:  # type: ignore[list-item]
        if r is not None and r == prev + 1:
            prev = r
            continue
        parts.append(str(start) if start == prev else f"{start}-{prev}")
        if r is not None:
            start = prev = r
    return ", ".join(parts)


def printed_differences(
    tournament: Tournament, division: Division, printed: list[TshPlayer]
) -> dict[str, dict[int, int]]:
    """Per printed field (``rrank``, ``rcrank``, ``newr``): round -> how many players' printed
    value differs from Gibson's recomputation. A round counts from 0 (the seeding) for ranks
    and from 1 for estimates, as the warnings name them; a value TSH had not computed (0) is
    not compared."""
    from ratings.division import RatingError, division_estimates, division_system
    from ratings.engine import NO_RATING_SYSTEM
    from tournament.interchange.exports import _round_ranks, division_players

    ranks, capped = _round_ranks(tournament, division, division_players(division))
    try:
        if division_system(division) == NO_RATING_SYSTEM:
            estimates: dict[int, list] = {}  # estimates are the ratings copied: nothing to check
        else:
            estimates = {row["number"]: row["by_round"] for row in division_estimates(division)}
    except (RatingError, ValueError):
        estimates = {}  # a system Gibson cannot compute: nothing to compare with
    out: dict[str, dict[int, int]] = {"rrank": {}, "rcrank": {}, "newr": {}}
    for p in printed:
        for key, ours, first in (
            ("rrank", ranks, 0),
            ("rcrank", capped, 0),
            ("newr", estimates, 1),
        ):
            values = _ints(p.fields.get(key, []))
            if not values or not ours:
                continue
            mine = ours.get(p.number) or []
            for index, value in enumerate(values):
                if value is None:
                    continue
                our = mine[index] if index < len(mine) else None
                if our != value:
                    r = index + first
                    out[key][r] = out[key].get(r, 0) + 1
    return out


WHAT = {
    "rrank": "ranks",
    "rcrank": "ranks on the capped spread",
    "newr": "rating estimates",
}


def printed_before_change(
    tournament: Tournament, division: Division, printed: list[TshPlayer]
) -> list[dict]:
    """For one imported division, per printed field whose values differ from a recomputation:
    ``{"division", "field", "rounds", "players", "message"}``, the message being the director's
    warning (which rounds TSH printed before a later change; see the module's docstring)."""
    out = []
    for key, rounds in printed_differences(tournament, division, printed).items():
        if not rounds:
            continue
        players = max(rounds.values())
        listed = sorted(rounds)
        out.append(
            {
                "division": division.name,
                "field": key,
                "rounds": listed,
                "players": players,
                "message": (
                    f"division {division.name}: the {WHAT[key]} ({key}) TSH printed after "
                    f"round{'s' if len(listed) > 1 else ''} {_round_list(listed)} differ from a "
                    f"recomputation from the file's results (up to {players} player"
                    f"{'s' if players > 1 else ''} a round): TSH printed them before a later "
                    "change (a corrected score, a changed rating or number of rounds, a "
                    "withdrawal) and keeps them; Gibson keeps them as printed in the .t files "
                    "it writes"
                ),
            }
        )
    return out
