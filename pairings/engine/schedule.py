"""Which system pairs which round: "1-3:fontes,4-20:swiss,21-23:koth" or TSH ``autopair`` lines.

A schedule also carries the *lag*: a round paired from results two rounds back (so the next round
can be announced while the current one is still played) has lag 1.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field

from .model import PairingOptions
from .systems import PAIRING_SYSTEMS, system_names, tsh_commands

_RANGE = re.compile(r"^\s*(\d+)\s*(?:-\s*(\d+))?\s*:\s*([a-z]+)\s*((?:/[a-z_]+=\d+)*)\s*$")


@dataclass(frozen=True)
class ScheduleEntry:
    first: int
    last: int
    system: str
    lag: int = 0
    params: dict[str, int] = field(default_factory=dict, compare=False)

    def options(self, base: PairingOptions | None = None) -> PairingOptions:
        """Options for pairing a round of this range: ``base`` with this entry's settings."""
        base = base or PairingOptions()
        return dataclasses.replace(base, system_start_round=self.first, **self.params)


class Schedule:
    """Answers "which system, with which lag, for round r"."""

    def __init__(self, entries: list[ScheduleEntry]):
        self.entries = sorted(entries, key=lambda e: e.first)
        for a, b in zip(self.entries, self.entries[1:], strict=False):
            if b.first <= a.last:
                raise ValueError(
                    f"schedule ranges {a.first}-{a.last} ({a.system}) and "
                    f"{b.first}-{b.last} ({b.system}) overlap"
                )

    def entry_for(self, rnd: int) -> ScheduleEntry:
        for e in self.entries:
            if e.first <= rnd <= e.last:
                return e
        raise ValueError(f"no pairing system scheduled for round {rnd}")

    def system_for(self, rnd: int) -> str:
        return self.entry_for(rnd).system

    def lag_for(self, rnd: int) -> int:
        return self.entry_for(rnd).lag

    @classmethod
    def parse(cls, text: str) -> Schedule:
        """Parse "1-3:fontes,4-20:swiss/lag=1,21-23:koth/max_meetings=2".

        ``/name=value`` suffixes set ``lag`` or any integer ``PairingOptions`` field for the range.
        """
        entries = []
        option_names = {f.name for f in dataclasses.fields(PairingOptions)}
        for k, part in enumerate(text.split(","), start=1):
            m = _RANGE.match(part.lower())
            if not m:
                raise ValueError(
                    f"schedule item {k} {part.strip()!r}: expected 'FIRST-LAST:system'"
                )
            first = int(m.group(1))
            last = int(m.group(2) or first)
            system = m.group(3)
            if system not in system_names():
                raise ValueError(
                    f"schedule item {k}: unknown system {system!r} "
                    f"(use {', '.join(system_names())})"
                )
            if first < 1 or last < first:
                raise ValueError(f"schedule item {k}: bad round range {first}-{last}")
            params: dict[str, int] = {}
            lag = 0
            for setting in filter(None, m.group(4).split("/")):
                name, value = setting.split("=")
                if name == "lag":
                    lag = int(value)
                elif name in option_names:
                    params[name] = int(value)
                else:
                    raise ValueError(f"schedule item {k}: unknown setting {name!r}")
            entries.append(ScheduleEntry(first, last, system, lag, params))
        return cls(entries)

    @classmethod
    def from_autopair(cls, lines: list[str] | str) -> Schedule:
        """Parse TSH ``autopair DIV SOURCE TARGET COMMAND ARGS...`` lines.

        ``autopair A 0 1 if 3 A`` pairs rounds 1-3 by Initial Fontes; ``autopair A 5 6 ns 1 5 A``
        pairs round 6 by Swiss from round 5's results allowing 1 repeat (max_meetings=2). A
        source round below target-1 is a lagged pairing.
        """
        if isinstance(lines, str):
            lines = lines.splitlines()
        entries = []
        for lineno, raw in enumerate(lines, start=1):
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            tok = line.split()
            if tok[0].lower() != "autopair" or len(tok) < 5:
                raise ValueError(
                    f"autopair line {lineno}: expected 'autopair DIV SOURCE TARGET COMMAND ...',"
                    f" got {raw.strip()!r}"
                )
            try:
                source, target = int(tok[2]), int(tok[3])
            except ValueError:
                raise ValueError(
                    f"autopair line {lineno}: source and target rounds must be numbers"
                ) from None
            command = tok[4].lower()
            if command not in tsh_commands():
                raise ValueError(f"autopair line {lineno}: unknown TSH command {tok[4]!r}")
            if source >= target or source < 0:
                raise ValueError(
                    f"autopair line {lineno}: source round {source} must be before target {target}"
                )
            system = tsh_commands()[command]
            numbers = [int(t) for t in tok[5:] if re.fullmatch(r"\d+", t)]
            params: dict[str, int] = {}
            last = target
            if system == "fontes":
                if not numbers:
                    raise ValueError(f"autopair line {lineno}: InitFontes needs a round count")
                params["fontes_rounds"] = numbers[0]
                last = target + numbers[0] - 1
            elif PAIRING_SYSTEMS[system].repeats_first and len(numbers) >= 2:
                params["max_meetings"] = numbers[0] + 1
            entries.append(ScheduleEntry(target, last, system, target - 1 - source, params))
        return cls(entries)
