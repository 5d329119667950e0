"""An independent checker for any round's pairings, plus per-round quality metrics.

Deliberately shares no rule code with the engine (only the dataclasses): Gibson status, bye
order, meeting counts and the start/reply rule are recomputed here from the spec, and the
"could this repeat have been avoided?" question is answered with networkx, not the engine's
rustworkx cost model. A bug in the engine's rules therefore shows up as a checker error instead
of being silently confirmed by the same code.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, field

import networkx as nx

from .model import Field, FieldPlayer, PairedGame, PairingOptions, RoundPairing
from .systems import PAIRING_SYSTEMS


@dataclass
class CheckReport:
    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    quality: dict[str, float] = field(default_factory=dict)
    # each repeat by board ("board 3: #12 Ann v #7 Bob, met in round 4"): a count alone
    # ("Repeats 1") leaves the director searching the table for it
    repeats: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.errors


def _met(p: FieldPlayer, other: int, since: int | None) -> int:
    rounds = p.opponents if since is None else p.opponents[max(0, since - 1) :]
    return rounds.count(other)


def _counts(p: FieldPlayer) -> tuple[int, int]:
    starts = replies = 0
    for opp, f in zip(p.opponents, p.firsts, strict=False):
        if opp:
            starts += f == 1
            replies += f == 2
    return starts, replies


def _last_first(a: FieldPlayer, b: int) -> int | None:
    """A round robin's later cycle swaps the starts of the pair's previous meeting."""
    for k in range(len(a.opponents) - 1, -1, -1):
        if a.opponents[k] == b and k < len(a.firsts) and a.firsts[k] in (1, 2):
            return a.number if a.firsts[k] == 1 else b
    return None


def _order(field_: Field) -> list[FieldPlayer]:
    act = [p for p in field_.players if p.active]
    if act and all(p.rank for p in act):
        return sorted(
            act, key=lambda p: (p.rank, -p.wins, p.losses, -p.spread, -p.rating, p.number)
        )
    return sorted(act, key=lambda p: (-p.wins, p.losses, -p.spread, -p.rating, p.number))


def _gibson_state(field_: Field, options: PairingOptions, order: list[FieldPlayer]):
    """(Gibsonized numbers, non-contender numbers) recomputed straight from the spec."""
    k = field_.rounds_total - field_.rounds_complete
    if not options.gibson or k <= 0:
        return set(), set()
    if isinstance(options.gibson_spread, dict):
        total = sum(
            options.gibson_spread.get(r, options.gibson_spread.get(0, 500))
            for r in range(field_.rounds_complete + 1, field_.rounds_total + 1)
        )
    else:
        total = options.gibson_spread * k

    def catches(j: FieldPlayer, i: FieldPlayer) -> bool:
        gap = i.wins - j.wins
        return gap < k or (gap == k and i.spread - j.spread <= total)

    places = max(1, options.gibson_places)
    gib = set()
    for i in order[:places]:
        if sum(1 for j in order if j is not i and catches(j, i)) <= places - 1:
            gib.add(i.number)
    paid = max(options.prize_bands or [1])
    noncontenders = set()
    # j's best finish is 1 + the players j cannot catch: those more than k wins ahead, and
    # those exactly k ahead by more than ``total`` spread (never j itself: k > 0). Counted
    # from sorted wins and spreads, not by comparing every pair (a 500-player field is
    # 250,000 pairs, a fifth of the pairing page).
    wins = sorted(p.wins for p in order)
    spreads: dict[float, list[int]] = {}
    for p in order:
        spreads.setdefault(p.wins, []).append(p.spread)
    for values in spreads.values():
        values.sort()
    for j in order:
        ahead = len(wins) - bisect_right(wins, j.wins + k)
        level = spreads.get(j.wins + k, [])
        ahead += len(level) - bisect_right(level, j.spread + total)
        if 1 + ahead > paid:
            noncontenders.add(j.number)
    return gib, noncontenders


def _min_over_limit(
    field_: Field,
    options: PairingOptions,
    bye_only: set[int] | None = None,
    gibson_only: tuple[set[int], set[int]] | None = None,
) -> int | None:
    """Fewest over-limit meetings any complete pairing of the active field could have.

    ``bye_only`` restricts who may take the bye; ``gibson_only=(gibsonized, allowed)`` lets
    Gibsonized players meet only each other or the allowed (non-contending) players.
    """
    act = [p for p in field_.players if p.active]
    g = nx.Graph()
    g.add_nodes_from(p.number for p in act)
    big = 10 * (len(act) + 1)
    for a_idx, a in enumerate(act):
        for b in act[a_idx + 1 :]:
            if frozenset((a.number, b.number)) in field_.forbidden:
                continue
            if gibson_only is not None:
                gib, allowed = gibson_only
                ok = gib | allowed
                if (a.number in gib and b.number not in ok) or (
                    b.number in gib and a.number not in ok
                ):
                    continue
            met_before = _met(a, b.number, options.repeats_since_round)
            over = 1 if met_before + 1 > options.max_meetings else 0
            g.add_edge(a.number, b.number, weight=big - over)
    if len(act) % 2:
        for p in act:
            if bye_only is None or p.number in bye_only:
                g.add_edge(p.number, 0, weight=big)
    m = nx.max_weight_matching(g, maxcardinality=True)
    if 2 * len(m) != g.number_of_nodes():
        return None
    return sum(big - g.edges[u, v]["weight"] for u, v in m)


def _repeat_line(board: int, a: FieldPlayer, b: FieldPlayer, since: int | None) -> str:
    """One repeat named: its board, both players and the rounds they met in before."""
    first = 1 if since is None else max(since, 1)
    rounds = [k + 1 for k, o in enumerate(a.opponents) if o == b.number and k + 1 >= first]
    who = " v ".join(f"#{p.number}" + (f" {p.name}" if p.name else "") for p in (a, b))
    plural = "s" if len(rounds) > 1 else ""
    return f"board {board}: {who}, met in round{plural} {', '.join(map(str, rounds))}"


def check_round(field_: Field, pairing: RoundPairing, options: PairingOptions) -> CheckReport:
    """Every rule a round's pairing must keep, each check in the order its refusals depend
    on (the bye and Gibson checks only when nothing else is wrong), and the round's quality."""
    rep = CheckReport()
    by_number = {p.number: p for p in field_.players}
    known = PAIRING_SYSTEMS.get(pairing.system)
    tables = known is not None and known.table
    table_byes = known is not None and known.table_byes
    active = {p.number for p in field_.players if p.active}
    seen, byes = _check_presence(rep, pairing, by_number, active, table_byes)
    games = [
        g for g in pairing.games if g.second and g.first in by_number and g.second in by_number
    ]
    _check_repeats(rep, field_, pairing, options, games, tables)
    _check_bye_and_gibson(rep, field_, pairing, options, byes, active)
    imbalance = _check_starts(rep, field_, games, seen, tables)
    rep.quality = round_quality(field_, pairing, options)
    rep.quality["max_imbalance"] = imbalance
    return rep


def _check_presence(
    rep: CheckReport,
    pairing: RoundPairing,
    by_number: dict[int, FieldPlayer],
    active: set[int],
    table_byes: bool,
) -> tuple[dict[int, int], list[int]]:
    """Each active player exactly once, nobody else, and as many byes as the field needs;
    returns (player -> board, the players with a bye)."""
    err, warn = rep.errors.append, rep.warnings.append
    seen: dict[int, int] = {}
    for g in pairing.games:
        for x in (g.first, g.second):
            if x == 0:
                continue
            if x not in by_number:
                err(f"board {g.board}: unknown player {x}")
            elif x not in active:
                err(f"board {g.board}: withdrawn player {x} is paired")
            if x in seen:
                err(f"player {x} is paired twice")
            seen[x] = g.board
        if g.first == g.second:
            err(f"board {g.board}: player {g.first} paired with themself")
    for x in sorted(active - set(seen)):
        err(f"active player {x} is not paired")
    byes = [g.first for g in pairing.games if g.second == 0]
    if not table_byes and len(byes) != len(active) % 2:
        err(f"{len(byes)} byes for {len(active)} active players")
    if table_byes and len(byes) > len(active) % 2:
        warn(f"{len(byes)} byes from the {pairing.system} table (withdrawn players' slots)")
    return seen, byes


def _check_repeats(
    rep: CheckReport,
    field_: Field,
    pairing: RoundPairing,
    options: PairingOptions,
    games: list[PairedGame],
    tables: bool,
) -> None:
    """Repeats (each listed), games beyond the repeat limit that could be avoided, and
    forbidden pairs."""
    err, warn = rep.errors.append, rep.warnings.append
    by_number = {p.number: p for p in field_.players}
    since = options.repeats_since_round
    over = 0
    for g in games:
        m = _met(by_number[g.first], g.second, since)
        if m:
            rep.repeats.append(
                _repeat_line(g.board, by_number[g.first], by_number[g.second], since)
            )
        if m + 1 > options.max_meetings:
            over += 1
        if frozenset((g.first, g.second)) in field_.forbidden:
            (warn if pairing.system == "manual" else err)(
                f"board {g.board}: {g.first} v {g.second} is a forbidden pair"
            )
    if over and not tables and not rep.errors:
        if options.hard_repeat_limit:
            err(f"{over} games beyond max_meetings={options.max_meetings} (hard limit)")
        else:
            best = _min_over_limit(field_, options)
            if best is not None and over > best:
                err(f"{over} games beyond the repeat limit where {best} were unavoidable")


def _check_bye_and_gibson(
    rep: CheckReport,
    field_: Field,
    pairing: RoundPairing,
    options: PairingOptions,
    byes: list[int],
    active: set[int],
) -> None:
    """The bye goes by the bye order (a Gibsonized player first), and a Gibsonized player
    meets a non-contender when one was available, each at no cost in repeats."""
    err = rep.errors.append
    known = PAIRING_SYSTEMS.get(pairing.system)
    tables = known is not None and known.table
    table_byes = known is not None and known.table_byes
    order = _order(field_)
    gib, noncontenders = _gibson_state(field_, options, order)
    uses_gibson = known is not None and known.uses_gibson
    if not uses_gibson:
        gib = set()
    if byes and not table_byes and pairing.system != "manual" and not rep.errors:
        bye = byes[0]
        best = None
        if gib and bye not in gib:
            best = _min_over_limit(field_, options)
            if _min_over_limit(field_, options, bye_only=gib) == best:
                err(f"bye went to {bye} although Gibsonized {sorted(gib)} could take it")
        elif not gib:
            rank = {p.number: i for i, p in enumerate(order)}
            if options.bye_method == "bottom_up":
                pref = sorted(order, key=lambda p: (p.byes, -rank[p.number]))
            elif options.bye_method == "top_down":
                pref = sorted(order, key=lambda p: (p.byes, rank[p.number]))
            else:
                pref = sorted(order, key=lambda p: -rank[p.number])
            before = [p.number for p in pref[: [q.number for q in pref].index(bye)]]
            if before:
                best = _min_over_limit(field_, options)
                for x in before[:5]:
                    if _min_over_limit(field_, options, bye_only={x}) == best:
                        err(
                            f"bye went to {bye} although {x} comes first in the bye order "
                            f"({options.bye_method}) at no cost in repeats"
                        )
                        break
    if gib and not tables and pairing.system != "manual" and not rep.errors:
        opp = pairing.opponent_of()
        wrong = [
            (g, opp[g])
            for g in sorted(gib)
            if opp.get(g) and opp[g] not in gib and opp[g] not in noncontenders
        ]
        if wrong:
            best = _min_over_limit(field_, options)
            # The bye rule comes first: in an odd field a Gibsonized player takes the bye.
            bye_only = gib if len(active) % 2 else None
            restricted = _min_over_limit(
                field_, options, bye_only=bye_only, gibson_only=(gib, noncontenders)
            )
            if restricted == best:
                g, o = wrong[0]
                err(f"Gibsonized {g} plays contender {o} while non-contenders were available")


def _check_starts(
    rep: CheckReport, field_: Field, games: list[PairedGame], seen: dict[int, int], tables: bool
) -> int:
    """The start/reply rule per game, from the counts before the round; returns the largest
    starts-replies imbalance after it."""
    err = rep.errors.append
    by_number = {p.number: p for p in field_.players}
    imbalance = 0
    for g in games:
        a, b = by_number[g.first], by_number[g.second]
        (sa, ra), (sb, rb) = _counts(a), _counts(b)
        want = None
        last_first = _last_first(a, b.number) if tables else None
        if last_first is not None:
            want = b.number if last_first == a.number else a.number
        elif sa != sb:
            want = a.number if sa < sb else b.number
        elif ra != rb:
            want = a.number if ra > rb else b.number
        if want is not None and want != g.first:
            rule = "swap of the earlier meeting" if last_first else "NASPA start/reply rule"
            err(f"board {g.board}: {want} should go first ({rule})")
    for p in field_.players:
        if p.number not in seen:
            continue
        s, r = _counts(p)
        g = next((x for x in games if p.number in (x.first, x.second)), None)
        if g is not None:
            s, r = (s + 1, r) if g.first == p.number else (s, r + 1)
        imbalance = max(imbalance, abs(s - r))
    return imbalance


def round_quality(field_: Field, pairing: RoundPairing, options: PairingOptions) -> dict:
    """Repeats, total win difference, players floated, as in the spec's quality measures."""
    by_number = {p.number: p for p in field_.players}
    repeats = floats = 0
    win_diff = 0.0
    for g in pairing.games:
        if not g.second or g.first not in by_number or g.second not in by_number:
            continue
        a, b = by_number[g.first], by_number[g.second]
        if _met(a, b.number, options.repeats_since_round):
            repeats += 1
        d = abs(a.wins - b.wins)
        win_diff += d
        floats += d > 0
    return {"repeats": repeats, "win_diff": win_diff, "floats": floats}
