"""Readers and writers for the file formats directors already use (TSH, AuPair).

Pure code: text in, dataclasses out, no Django. Every reader raises ``FormatError`` naming the
file and line of the problem; nothing read is ever executed (``config.tsh`` and ``tourney.js``
are code in their home programs, data here).
"""

from .archive import parse_archive, write_archive
from .config import AutoPair, TshConfig, parse_config, write_config
from .errors import FormatError
from .tou import parse_tou, write_tou
from .tourney_js import (
    build_tourney_js,
    parse_tourney_js,
    tourney_js_divisions,
    write_tourney_js,
)
from .tsh import TshPlayer, parse_t, read_t, standings_input, withdrawn_round, write_t

__all__ = [
    "AutoPair",
    "FormatError",
    "TshConfig",
    "TshPlayer",
    "build_tourney_js",
    "parse_archive",
    "parse_config",
    "parse_t",
    "parse_tou",
    "parse_tourney_js",
    "read_t",
    "standings_input",
    "tourney_js_divisions",
    "withdrawn_round",
    "write_archive",
    "write_config",
    "write_t",
    "write_tou",
    "write_tourney_js",
]
