"""What each player needs, worded in the reader's language.

The needs engine (``pairings/engine/needs.py``) is pure: it gives each statement as data
(``NeedLine``: a kind, a place, the need's conditions on the games still to play) and words it
in English for the command, the API and its own tests. The pages word the same data here, with
Django's translations: one whole sentence per case (a translator never sees a piece of a
sentence glued to another), named placeholders, places from a table of ordinals per language.
Under English every sentence is the engine's, character for character
(``tests/i18n/test_needs_language.py`` checks it on many generated divisions).
"""

from __future__ import annotations

from collections.abc import Mapping

from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from pairings.engine.needs import (
    MARGIN_BOUND,
    Behind,
    Margin,
    Need,
    NeedGroup,
    NeedLine,
    PlayerNeeds,
    summary_lines,
)
from pairings.engine.needs_terms import Condition


def place(n: int) -> str:
    """A place as an ordinal in the reader's language ("2nd", "2e", "2.º", "2.")."""
    table = {
        1: pgettext("a place in the standings", "1st"),
        2: pgettext("a place in the standings", "2nd"),
        3: pgettext("a place in the standings", "3rd"),
        4: pgettext("a place in the standings", "4th"),
        5: pgettext("a place in the standings", "5th"),
        6: pgettext("a place in the standings", "6th"),
        7: pgettext("a place in the standings", "7th"),
        8: pgettext("a place in the standings", "8th"),
        9: pgettext("a place in the standings", "9th"),
        10: pgettext("a place in the standings", "10th"),
        11: pgettext("a place in the standings", "11th"),
        12: pgettext("a place in the standings", "12th"),
        13: pgettext("a place in the standings", "13th"),
        14: pgettext("a place in the standings", "14th"),
        15: pgettext("a place in the standings", "15th"),
        16: pgettext("a place in the standings", "16th"),
        17: pgettext("a place in the standings", "17th"),
        18: pgettext("a place in the standings", "18th"),
        19: pgettext("a place in the standings", "19th"),
        20: pgettext("a place in the standings", "20th"),
    }
    if n in table:
        return table[n]
    # Beyond the 20th (a rare prize list): English picks its suffix by the last digits; the
    # other languages write every such place the same way.
    if 10 <= n % 100 <= 20:
        return pgettext("a place beyond the 20th ending in 11-20", "{n}th").format(n=n)
    last = n % 10
    if last == 1:
        return pgettext("a place beyond the 20th ending in 1 (21st, 31st)", "{n}st").format(n=n)
    if last == 2:
        return pgettext("a place beyond the 20th ending in 2 (22nd, 32nd)", "{n}nd").format(n=n)
    if last == 3:
        return pgettext("a place beyond the 20th ending in 3 (23rd, 33rd)", "{n}rd").format(n=n)
    return pgettext("a place beyond the 20th ending in 0 or 4-9", "{n}th").format(n=n)


def _both(first: str, second: str) -> str:
    # Translators: two conditions that must both hold ("you win and #5 Eads, Ed loses")
    return pgettext("conditions that all hold", "{first} and {second}").format(
        first=first, second=second
    )


def all_of(conditions: list[str] | tuple[str, ...]) -> str:
    """Conditions that must all hold, as one phrase."""
    out = conditions[0]
    for c in conditions[1:]:
        out = _both(out, c)
    return out


def _either(first: str, second: str) -> str:
    # Translators: two ways to reach a place, each a list of conditions
    return pgettext("ways of reaching a place", "{first}; or {second}").format(
        first=first, second=second
    )


def listed(conditions: list[str] | tuple[str, ...]) -> str:
    """Conditions listed one after another ("you win; #2 Eads, Ed loses")."""
    out = conditions[0]
    for c in conditions[1:]:
        # Translators: a list of conditions, each a short clause
        out = pgettext("a list of conditions", "{first}; {second}").format(first=out, second=c)
    return out


def _you(lo: int, hi: int, bound: int) -> str:
    """The player's own margin range as a result: "you win by 87 or more"."""
    top, bottom = hi >= bound, lo <= -bound
    if lo >= 1:
        if top:
            return _("you win") if lo == 1 else _("you win by {n} or more").format(n=lo)
        if lo == hi:
            return _("you win by exactly {n}").format(n=lo)
        if lo == 1:
            return _("you win by {n} or less").format(n=hi)
        return _("you win by {low} to {high}").format(low=lo, high=hi)
    if hi <= -1:
        if bottom:
            return _("you lose") if hi == -1 else _("you lose by {n} or more").format(n=-hi)
        if lo == hi:
            return _("you lose by exactly {n}").format(n=-lo)
        if hi == -1:
            return _("you lose by {n} or less").format(n=-lo)
        return _("you lose by {low} to {high}").format(low=-hi, high=-lo)
    if lo == hi == 0:
        return _("you tie")
    if top and bottom:
        return _("you whatever the result")
    if top:
        if lo == 0:
            return _("you win or tie")
        return _("you do not lose by more than {n}").format(n=-lo)
    if bottom:
        if hi == 0:
            return _("you do not win")
        return _("you do not win by more than {n}").format(n=hi)
    if lo == 0:
        return _("you tie or win by {n} or less").format(n=hi)
    if hi == 0:
        return _("you tie or lose by {n} or less").format(n=-lo)
    return _("you do not lose by more than {loss} nor win by more than {win}").format(
        loss=-lo, win=hi
    )


def _they(who: str, lo: int, hi: int, bound: int) -> str:
    """Another player's margin range as a result: "#5 Eads, Ed loses by 40 or more"."""
    top, bottom = hi >= bound, lo <= -bound
    if lo >= 1:
        if top:
            if lo == 1:
                return _("{who} wins").format(who=who)
            return _("{who} wins by {n} or more").format(who=who, n=lo)
        if lo == hi:
            return _("{who} wins by exactly {n}").format(who=who, n=lo)
        if lo == 1:
            return _("{who} wins by {n} or less").format(who=who, n=hi)
        return _("{who} wins by {low} to {high}").format(who=who, low=lo, high=hi)
    if hi <= -1:
        if bottom:
            if hi == -1:
                return _("{who} loses").format(who=who)
            return _("{who} loses by {n} or more").format(who=who, n=-hi)
        if lo == hi:
            return _("{who} loses by exactly {n}").format(who=who, n=-lo)
        if hi == -1:
            return _("{who} loses by {n} or less").format(who=who, n=-lo)
        return _("{who} loses by {low} to {high}").format(who=who, low=-hi, high=-lo)
    if lo == hi == 0:
        return _("{who} ties").format(who=who)
    if top and bottom:
        return _("{who} whatever their result").format(who=who)
    if top:
        if lo == 0:
            return _("{who} wins or ties").format(who=who)
        return _("{who} does not lose by more than {n}").format(who=who, n=-lo)
    if bottom:
        if hi == 0:
            return _("{who} does not win").format(who=who)
        return _("{who} does not win by more than {n}").format(who=who, n=hi)
    if lo == 0:
        return _("{who} ties or wins by {n} or less").format(who=who, n=hi)
    if hi == 0:
        return _("{who} ties or loses by {n} or less").format(who=who, n=-lo)
    return _("{who} does not lose by more than {loss} nor win by more than {win}").format(
        who=who, loss=-lo, win=hi
    )


def _behind_win_open(who: str, limit: int, mine: Margin | None) -> str:
    """Behind, the other player level only on a win: they do not win by more than P's
    margin plus ``limit``."""
    win = mine is not None and mine.lo >= 1
    loss = mine is not None and mine.hi <= -1
    if loss:
        return _("{who} does not win, or wins by no more than {n} minus your losing margin").format(
            who=who, n=limit
        )
    if win:
        if limit == 0:
            return _("{who} does not win, or wins by no more than your winning margin").format(
                who=who
            )
        if limit > 0:
            return _(
                "{who} does not win, or wins by no more than your winning margin + {n}"
            ).format(who=who, n=limit)
        return _("{who} does not win, or wins by no more than your winning margin − {n}").format(
            who=who, n=-limit
        )
    if limit == 0:
        return _("{who} does not win, or wins by no more than your margin").format(who=who)
    if limit > 0:
        return _("{who} does not win, or wins by no more than your margin + {n}").format(
            who=who, n=limit
        )
    return _("{who} does not win, or wins by no more than your margin − {n}").format(
        who=who, n=-limit
    )


def _behind_tie(who: str, lo: int) -> str:
    """Behind, the other player level on a tie: they lose, or tie if P's margin is enough
    (P's margin from ``lo`` on)."""
    if lo >= 1:
        if lo == 1:
            return _("{who} loses (or ties, if you win)").format(who=who)
        return _("{who} loses (or ties, if you win by {n} or more)").format(who=who, n=lo)
    if lo <= -MARGIN_BOUND * 4:
        return _("{who} loses (or ties, if you whatever the result)").format(who=who)
    if lo == 0:
        return _("{who} loses (or ties, if you win or tie)").format(who=who)
    return _("{who} loses (or ties, if you do not lose by more than {n})").format(who=who, n=-lo)


def _behind_loss(who: str, limit: int, mine: Margin | None) -> str:
    """Behind, the other player level only on a loss: they lose by enough."""
    win = mine is not None and mine.lo >= 1
    loss = mine is not None and mine.hi <= -1
    if win:
        return _("{who} loses by at least {n} minus your winning margin").format(who=who, n=-limit)
    if loss:
        if limit == 0:
            return _("{who} loses by at least your losing margin").format(who=who)
        if -limit > 0:
            return _("{who} loses by at least your losing margin + {n}").format(who=who, n=-limit)
        return _("{who} loses by at least your losing margin − {n}").format(who=who, n=limit)
    if limit == 0:
        return _("{who} loses, by enough that their margin is at most yours").format(who=who)
    if limit > 0:
        return _("{who} loses, by enough that their margin is at most yours + {n}").format(
            who=who, n=limit
        )
    return _("{who} loses, by enough that their margin is at most yours − {n}").format(
        who=who, n=-limit
    )


def condition(c: Condition, mine: Margin | None, names: Mapping[int, str]) -> str:
    """A condition on another player's game, in words."""
    who = names.get(c.player, f"#{c.player}")
    if isinstance(c, Margin):
        return _they(who, c.lo, c.hi, c.bound)
    assert isinstance(c, Behind)
    limit = c.offset - 1  # Q's margin at most P's margin + limit
    if c.lo == 1:
        return _behind_win_open(who, limit, mine)
    if c.lo == 0:
        return _behind_tie(who, c.hi1 - c.offset)
    return _behind_loss(who, limit, mine)


def ways(need: Need, names: Mapping[int, str] | None = None) -> list[list[str]]:
    """Each alternative of the need as its conditions in words, the player's own first."""
    names = names or {}
    out = []
    for alt in need.alternatives:
        mine = next((c for c in alt if isinstance(c, Margin) and c.player == need.player), None)
        words = []
        if mine is not None:
            words.append(_you(mine.lo, mine.hi, mine.bound))
        words += [condition(c, mine, names) for c in alt if c is not mine]
        out.append(words)
    return out


def head(need: Need) -> str:
    """The place a need is for: "1st", "2nd or better"."""
    if need.place == 1:
        return place(1)
    return _("{place} or better").format(place=place(need.place))


def describe(need: Need, names: Mapping[int, str] | None = None) -> str:
    """The need in words, to the player: "1st if you win by 87 or more; or you win and #5
    Eads, Ed loses."."""
    first = need.place == 1
    k = place(need.place)
    if need.status == "clinched":
        return _("Clinched 1st.") if first else _("Clinched {place} or better.").format(place=k)
    if need.status == "out":
        if first:
            return _("Can no longer finish 1st.")
        return _("Can no longer finish {place} or better.").format(place=k)
    if not need.alternatives:
        if first:
            return _("1st: still possible.")
        return _("{place} or better: still possible.").format(place=k)
    parts = [all_of(w) if w else _("whatever happens") for w in ways(need, names)]
    text = parts[0]
    for p in parts[1:]:
        text = _either(text, p)
    if need.exact:
        if first:
            return _("1st if {ways}.").format(ways=text)
        return _("{place} or better if {ways}.").format(place=k, ways=text)
    if first:
        return _("1st, for example if {ways}.").format(ways=text)
    return _("{place} or better, for example if {ways}.").format(place=k, ways=text)


def _group(need: Need, names: Mapping[int, str] | None) -> NeedGroup:
    """As the engine's ``_group``: the statement, and for an open place its parts."""
    text = describe(need, names)
    if need.status != "open" or not need.alternatives:
        return NeedGroup(text)
    worded = ways(need, names)
    common = (
        tuple(c for c in worded[0] if all(c in w for w in worded[1:])) if len(worded) > 1 else ()
    )
    if any(all(c in common for c in w) for w in worded):
        common = ()
    rest = sorted((tuple(c for c in w if c not in common) for w in worded), key=len)
    return NeedGroup(text, head(need), common, tuple(rest), not need.exact)


def line(item: NeedLine, names: Mapping[int, str] | None = None) -> NeedGroup:
    """One statement in the reader's language."""
    if item.need is not None:
        return _group(item.need, names)
    k = place(item.place) if item.place else ""
    if item.kind == "finished":
        text = _("Finished {place}.").format(place=k)
    elif item.kind == "clinched_place":
        if item.place == 1:
            text = _("Clinched 1st place.")
        else:
            text = _("Clinched {place} place or better.").format(place=k)
    elif item.kind == "clinched_prize":
        text = _("Clinched a prize ({place} or better).").format(place=k)
    elif item.kind == "no_prize":
        text = _("Can no longer finish in the prizes (top {places}).").format(places=item.places)
    elif item.kind == "not_above":
        text = _("Can no longer finish above {place}.").format(place=k)
    elif item.kind == "contention":
        text = _("Still in contention for 1st.")
    elif item.kind == "finishes":
        text = _("Finishes {place}: clinched, and cannot finish higher.").format(place=k)
    else:
        raise ValueError(f"unknown kind of needs statement: {item.kind}")
    return NeedGroup(text)


def groups(pn: PlayerNeeds, places: int, names: Mapping[int, str] | None = None) -> list[NeedGroup]:
    """A player's needs in a few statements, in the reader's language (the engine's
    ``summarize_groups`` in English)."""
    return [line(item, names) for item in summary_lines(pn, places)]
