"""Spreadsheet-safe CSV cells, for every CSV the project writes.

A spreadsheet runs a cell that starts with ``=``, ``+``, ``-`` or ``@`` (and, in some, a tab
or carriage return) as a formula: a player named ``=HYPERLINK(...)`` in a standings download
would become a live link in the director's spreadsheet. The OWASP rule: such text cells get
a leading quote mark. Numbers are written as numbers, so a spread of -12 stays -12.
"""

from __future__ import annotations

from typing import Any

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: Any) -> Any:
    """The value as a CSV writer should get it: numbers unchanged, text neutralised."""
    if value is None:
        return ""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value
    text = str(value)
    if text.startswith(FORMULA_STARTS):
        return "'" + text
    return text
