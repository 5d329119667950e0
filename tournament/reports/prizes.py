"""Who wins what: the prize facts worked out from the standings and the games.

Kept apart from the drawing so the director can check the list on screen (or a test can check
it against the games) before anything is printed, and so every prize is derived from the
recorded games rather than typed in (docs/rules.md: games are the truth).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .data import Prize, PrizeGame, ReportError, StandingLine, format_record, format_spread
from .words import gettext, pgettext


def ordinal(n: int) -> str:
    """1st, 2nd, 23rd... in the active language (1 has its own message: "1er" in French)."""
    if n == 1:
        return gettext("1st")
    if 10 <= n % 100 <= 20:
        # Translators: an ordinal number ending in -th in English (4th, 11th, 25th)
        return pgettext("ordinal", "{n}th").format(n=n)
    if n % 10 == 1:
        # Translators: an ordinal number ending in -st in English (21st, 31st)
        return pgettext("ordinal", "{n}st").format(n=n)
    if n % 10 == 2:
        return pgettext("ordinal", "{n}nd").format(n=n)
    if n % 10 == 3:
        return pgettext("ordinal", "{n}rd").format(n=n)
    return pgettext("ordinal", "{n}th").format(n=n)


def prizes_from(
    standings: Sequence[StandingLine],
    games: Sequence[PrizeGame],
    *,
    places: int = 3,
    class_places: int | Mapping[str, int] | None = None,
    exclusive: bool = True,
) -> list[Prize]:
    """The prize list: places, class prizes, then the specials.

    - Places: every ranked player with ``rank <= places`` (players sharing a rank share the
      place, labelled "2nd (tie)").
    - Class prizes: the best ``class_places`` players of each class in standings order (an int
      for every class, a mapping per class; ``None`` = one per class when the division has at
      least two classes). With ``exclusive`` a place winner does not also take a class prize,
      the usual NASPA practice of one cash prize per player. The default leaves out the
      highest class (the one holding the highest-rated player): its players play for places.
    - Specials, from the games (byes and forfeits are never games): high game, high loss, high
      combined score, biggest upset (a win over a higher-rated player; unrated players are
      left out because there is no rating gap to measure), biggest rating gain (estimate minus
      pre-event rating, rated players with an estimate only). Tied winners all get a line.
    """
    if places < 0:
        raise ReportError(f"prize places must not be negative (got {places})")
    players = _players_of(standings, games)
    ranked = sorted((s for s in standings if s.rank is not None), key=lambda s: (s.rank, s.number))
    prizes: list[Prize] = []
    winners: set[int] = set()

    for s in ranked:
        if s.rank > places:  # type: ignore[operator]
            break
        tie = sum(1 for o in ranked if o.rank == s.rank) > 1
        rank = ordinal(s.rank)  # type: ignore[arg-type]
        if tie:
            # Translators: a prize: "2nd place (tie)"
            label = gettext("{ordinal} place (tie)").format(ordinal=rank)
        else:
            # Translators: a prize: "2nd place"
            label = gettext("{ordinal} place").format(ordinal=rank)
        prizes.append(_standing_prize("place", label, s))
        winners.add(s.number)

    classes: list[str] = []
    for s in ranked:
        if s.player_class and s.player_class not in classes:
            classes.append(s.player_class)
    classes.sort()
    if class_places is None:
        # The highest class (the one holding the highest-rated player) plays for the places.
        top = max(ranked, key=lambda s: s.rating).player_class if ranked else ""
        per_class = {c: 1 for c in classes if c != top} if len(classes) >= 2 else {}
    elif isinstance(class_places, int):
        per_class = dict.fromkeys(classes, class_places)
    else:
        per_class = {c: n for c, n in class_places.items()}
        unknown = [c for c in per_class if c not in classes]
        if unknown:
            raise ReportError(
                f"class prizes asked for class(es) {', '.join(unknown)}, "
                f"but no ranked player is in them (classes: {', '.join(classes) or 'none'})"
            )
    for cls in sorted(per_class):
        count = per_class[cls]
        eligible = [s for s in ranked if s.player_class == cls]
        if exclusive:
            eligible = [s for s in eligible if s.number not in winners]
        for place, s in enumerate(eligible[:count], start=1):
            # Translators: a prize in a rating class: "Class B 1st"
            label = gettext("Class {name} {ordinal}").format(name=cls, ordinal=ordinal(place))
            prizes.append(_standing_prize("class", label, s))

    prizes.extend(_specials(players, games, standings))
    return prizes


def _players_of(
    standings: Sequence[StandingLine], games: Sequence[PrizeGame]
) -> dict[int, StandingLine]:
    """The standings by player number, refused when a player is listed twice or a game names
    a player the standings lack (or pairs a player with themself)."""
    players = {s.number: s for s in standings}
    if len(players) != len(standings):
        seen: set[int] = set()
        for s in standings:
            if s.number in seen:
                raise ReportError(f"player #{s.number} {s.name} appears twice in the standings")
            seen.add(s.number)
    for g in games:
        for number in (g.player_number, g.opponent_number):
            if number not in players:
                raise ReportError(
                    f"round {g.round}: game between #{g.player_number} and #{g.opponent_number} "
                    f"names player #{number}, who is not in the standings"
                )
        if g.player_number == g.opponent_number:
            raise ReportError(f"round {g.round}: player #{g.player_number} plays themself")
    return players


def _standing_prize(category: str, label: str, s: StandingLine) -> Prize:
    return Prize(
        category=category,
        label=label,
        numbers=(s.number,),
        names=(s.name,),
        detail=f"{format_record(s.wins, s.losses)} {format_spread(s.spread)}",
    )


def _best(candidates: list[Any], key: Callable[[Any], Any]) -> list[Any]:
    """Every candidate with the highest key (a shared prize), or none."""
    if not candidates:
        return []
    top = max(key(c) for c in candidates)
    return [c for c in candidates if key(c) == top]


def _score_prize(kind: str, side: tuple, name: Callable[[int], str]) -> Prize:
    """A prize for one player's score in one game (high game, high loss)."""
    title = gettext("High game") if kind == "high game" else gettext("High loss")
    score, own, opp, opp_score, g = side
    return Prize(
        kind,
        title,
        (own,),
        (name(own),),
        gettext("{score}-{opponent_score} vs #{number} {name}, round {round}").format(
            score=score, opponent_score=opp_score, number=opp, name=name(opp), round=g.round
        ),
        score,
    )


def _upset_detail(
    gap: int, rating: int, number: int, name: str, opponent_rating: int, result: str, round: int
) -> str:
    text = gettext(
        "{gap} rating points: rated {rating}, beat #{number} {name} (rated "
        "{opponent_rating}) {result}, round {round}"
    )
    return text.format(
        gap=gap,
        rating=rating,
        number=number,
        name=name,
        opponent_rating=opponent_rating,
        result=result,
        round=round,
    )


def _specials(
    players: Mapping[int, StandingLine],
    games: Sequence[PrizeGame],
    standings: Sequence[StandingLine],
) -> list[Prize]:
    def name(n: int) -> str:
        return players[n].name

    # Each game seen from the side that matters: (score, own, opp, opp score, round).
    sides = []
    for g in games:
        sides.append((g.player_score, g.player_number, g.opponent_number, g.opponent_score, g))
        sides.append((g.opponent_score, g.opponent_number, g.player_number, g.player_score, g))

    out = [_score_prize("high game", s, name) for s in _best(sides, lambda s: s[0])]
    losses = [s for s in sides if s[0] < s[3]]
    out += [_score_prize("high loss", s, name) for s in _best(losses, lambda s: s[0])]
    for g in _best(list(games), lambda g: g.player_score + g.opponent_score):
        total = g.player_score + g.opponent_score
        out.append(
            Prize(
                "high combined",
                gettext("High combined"),
                (g.player_number, g.opponent_number),
                (name(g.player_number), name(g.opponent_number)),
                gettext("{total}: {score}-{opponent_score}, round {round}").format(
                    total=total,
                    score=g.player_score,
                    opponent_score=g.opponent_score,
                    round=g.round,
                ),
                total,
            )
        )
    upsets = []
    for score, own, opp, opp_score, g in sides:
        r_own, r_opp = players[own].rating, players[opp].rating
        if score > opp_score and r_own > 0 and r_opp > r_own:
            upsets.append((r_opp - r_own, own, opp, score, opp_score, g))
    for gap, own, opp, score, opp_score, g in _best(upsets, lambda u: u[0]):
        out.append(
            Prize(
                "upset",
                gettext("Biggest upset"),
                (own,),
                (name(own),),
                _upset_detail(
                    gap,
                    players[own].rating,
                    opp,
                    name(opp),
                    players[opp].rating,
                    f"{score}-{opp_score}",
                    g.round,
                ),
                gap,
            )
        )
    gains = [
        (s.estimate - s.rating, s)
        for s in standings
        if s.rating > 0 and s.estimate is not None and s.rank is not None
    ]
    for gain, s in _best(gains, lambda t: t[0]):
        if gain <= 0:
            break
        out.append(
            Prize(
                "rating gain",
                gettext("Biggest rating gain"),
                (s.number,),
                (s.name,),
                gettext("{rating} to {estimate} ({gain})").format(
                    rating=s.rating, estimate=s.estimate, gain=format_spread(gain)
                ),
                gain,
            )
        )
    return out
