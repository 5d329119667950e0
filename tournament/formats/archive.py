"""TSH ``all.tsh`` archives, the file a director submits to NASPA for rating.

The archive is the rendered ``config.tsh`` followed by each division's ``.t`` file between
``#begin_file name=A.t`` and ``#end_file name=A.t`` lines. Because both marker lines start with
``#``, the whole archive is still a valid config file for TSH (they read as comments).
"""

from __future__ import annotations

import re

from .errors import FormatError
from .limits import check_nul, is_file_name

__all__ = ["parse_archive", "write_archive"]

_BEGIN = re.compile(r"#begin_file\s+name=(\S+)\s*\Z")
_END = re.compile(r"#end_file\s+name=(\S+)\s*\Z")


def parse_archive(text: str, *, source: str = "all.tsh") -> tuple[str, dict[str, str]]:
    """Split an archive into (config text, {file name: file text}).

    Every returned text is a sequence of ``\\n``-terminated lines, the config text being all the
    lines outside the file blocks, in order.
    """
    if text.startswith("\ufeff"):
        text = text[1:]
    check_nul(text, source)
    config: list[str] = []
    files: dict[str, str] = {}
    current: str | None = None
    started = 0
    body: list[str] = []
    for lineno, raw in enumerate(text.splitlines(), start=1):
        stripped = raw.strip()
        begin, end = _BEGIN.match(stripped), _END.match(stripped)
        if begin:
            if current is not None:
                raise FormatError(
                    f"#begin_file for {begin.group(1)!r} inside the block of {current!r} "
                    f"(begun on line {started}); missing '#end_file name={current}'",
                    source=source,
                    line=lineno,
                )
            current, started, body = begin.group(1), lineno, []
            if not is_file_name(current):
                # limits: whoever unpacks the archive writes each file under this name
                raise FormatError(
                    f"file name {current[:100]!r} must be a plain name of letters, digits, "
                    "'.', '_' and '-' ending in .t (no folders, not starting with a dot)",
                    source=source,
                    line=lineno,
                )
            if current in files:
                raise FormatError(
                    f"file {current!r} appears twice in the archive", source=source, line=lineno
                )
        elif end:
            if current is None:
                raise FormatError(
                    f"#end_file for {end.group(1)!r} without a matching #begin_file",
                    source=source,
                    line=lineno,
                )
            if end.group(1) != current:
                raise FormatError(
                    f"#end_file names {end.group(1)!r} but the open file is {current!r}",
                    source=source,
                    line=lineno,
                )
            files[current] = "".join(line + "\n" for line in body)
            current = None
        elif current is not None:
            body.append(raw)
        else:
            config.append(raw)
    if current is not None:
        raise FormatError(
            f"file {current!r} begun here is never ended (no '#end_file name={current}')",
            source=source,
            line=started,
        )
    return "".join(line + "\n" for line in config), files


def write_archive(config_text: str, files: dict[str, str]) -> str:
    """Join a config and division files into one archive (``parse_archive`` reads it back)."""
    out = [config_text if not config_text or config_text.endswith("\n") else config_text + "\n"]
    for name, text in files.items():
        if not re.fullmatch(r"\S+", name) or not is_file_name(name):
            raise FormatError(f"file name {name!r} cannot be written to an archive")
        for line in text.splitlines():
            if _BEGIN.match(line.strip()) or _END.match(line.strip()):
                raise FormatError(f"file {name!r} contains an archive marker line: {line!r}")
        out.append(f"#begin_file name={name}\n")
        out.append(text if not text or text.endswith("\n") else text + "\n")
        out.append(f"#end_file name={name}\n")
    for line in config_text.splitlines():
        if _BEGIN.match(line.strip()) or _END.match(line.strip()):
            raise FormatError(f"the config contains an archive marker line: {line!r}")
    return "".join(out)
