"""Readers and writers for the file formats directors already use (TSH, AuPair).

Pure code: text in, dataclasses out, no Django. Every reader raises ``FormatError`` naming the
file and line of the problem.
"""

from .errors import FormatError
from .tsh import TshPlayer, parse_t, read_t, write_t

__all__ = ["FormatError", "TshPlayer", "parse_t", "read_t", "write_t"]
