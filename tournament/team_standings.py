"""Team standings as TSH prints them: a pure function of the players' standings and games.

In TSH a *team* is a group of individual players named by the ``team`` field of their ``.t``
lines (``Man, Anpan 2000 ; ; team Good``, TSH's own example), as at the World Championship or
an interclub match; its ``TeamStandings`` report ranks the teams of one division. (An entry
whose rating is written ``a+b+c`` is one entry that happens to be a team: it is ranked in the
ordinary standings, and TSH prints no team standings for it.)

The rule, from TSH's source (``TSH::Division::CountTeamRecords`` and
``TSH::Command::RoundTeamStandings``, 2022; see docs/rules.md):

- a team's members are the division's players still playing (TSH skips inactive ones) whose
  ``team`` is not empty; a team's name is its field's words joined by one space;
- per team: the members' wins, losses and spread added up (every game counts, byes and
  games between teammates too), the number of members, each member's rank in the division's
  standings after the round, and the record in games against players of another team (or of
  none): TSH's "winning % vs. others";
- teams are ordered by the members' mean rank (ascending), then mean wins (descending), mean
  losses (ascending), mean spread (descending); a team's rank is one more than the teams
  ahead, and two teams share it when their member count, rank sum, wins, losses and spread
  are all equal (TSH's ``TeamKey``). Teams in the same place are listed by name.

TSH's options for quotas (``team_quotas``), a capped number of counted members
(``team_rank_count_cap``) and squad matches (``squads``) are not read: no event we have uses
them, and without them TSH ranks as above.

No Django here: the division's standings rows and games in, rows out.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from .standings import PlayerRound, StandingsRow

__all__ = ["TeamStandingsRow", "compute_team_standings", "team_name"]


def team_name(values: Sequence[str] | None) -> str:
    """A player's team from the ``team`` field's words, as TSH's ``Player::Team`` joins them
    (``team St Mary's`` is the team "St Mary's"); '' for no team."""
    return " ".join(values or ()).strip()


@dataclass
class TeamStandingsRow:
    rank: int
    team: str
    members: int
    wins: float
    losses: float
    spread: int
    ranks: list[int] = field(default_factory=list)  # the members' ranks, ascending
    wins_vs_others: float = 0.0  # games against players of another team (or none)
    games_vs_others: int = 0

    @property
    def mean_rank(self) -> float:
        return sum(self.ranks) / self.members

    @property
    def mean_wins(self) -> float:
        return self.wins / self.members

    @property
    def mean_losses(self) -> float:
        return self.losses / self.members

    @property
    def mean_spread(self) -> float:
        return self.spread / self.members

    @property
    def percent_vs_others(self) -> float:
        """TSH's "W%VsO": 100 x wins / games against other teams' players, 0 without any."""
        return 100 * self.wins_vs_others / self.games_vs_others if self.games_vs_others else 0.0


def compute_team_standings(
    rows: Sequence[StandingsRow],
    teams: Mapping[int, str],
    rounds: Iterable[PlayerRound],
    *,
    after_round: int | None = None,
) -> list[TeamStandingsRow]:
    """Rank the teams of a division after ``after_round`` (all rounds when ``None``).

    ``rows`` are the division's standings after that round (``compute_standings``), ``teams``
    each player number's team (players without one may be left out or map to ''), ``rounds``
    the games those standings were computed from. Players without a rank (withdrawn) count for
    no team. Returns [] when no ranked player has a team: TSH then prints no team standings.
    """
    member_team = {
        r.number: teams.get(r.number, "") for r in rows if r.rank is not None and not r.withdrawn
    }
    member_team = {number: team for number, team in member_team.items() if team}
    if not member_team:
        return []
    by_team: dict[str, TeamStandingsRow] = {}
    for r in rows:
        team = member_team.get(r.number)
        if team is None:
            continue
        row = by_team.setdefault(team, TeamStandingsRow(0, team, 0, 0.0, 0.0, 0))
        row.members += 1
        row.wins += r.wins
        row.losses += r.losses
        row.spread += r.spread
        row.ranks.append(r.rank)  # type: ignore[arg-type]  # ranked rows only
    for g in rounds:
        if after_round is not None and g.round > after_round:
            continue
        team = member_team.get(g.player)
        if team is None or g.opponent is None or g.score is None or g.opponent_score is None:
            continue
        if teams.get(g.opponent, "") == team:
            continue  # a game between teammates is not a game against others
        row = by_team[team]
        row.games_vs_others += 1
        if g.score > g.opponent_score:
            row.wins_vs_others += 1
        elif g.score == g.opponent_score:
            row.wins_vs_others += 0.5
    for row in by_team.values():
        row.ranks.sort()

    def order(row: TeamStandingsRow) -> tuple:
        n = row.members
        # exact means: 7/3 and 14/6 are the same place, which floats need not agree on
        return (
            Fraction(sum(row.ranks), n),
            -Fraction(row.wins).limit_denominator(2) / n,
            Fraction(row.losses).limit_denominator(2) / n,
            -Fraction(row.spread, n),
            row.team,
        )

    ordered = sorted(by_team.values(), key=order)
    previous: tuple | None = None
    rank = 0
    for index, row in enumerate(ordered, start=1):
        key = (row.members, sum(row.ranks), row.wins, row.losses, row.spread)
        if key != previous:
            rank, previous = index, key
        row.rank = rank
    return ordered
