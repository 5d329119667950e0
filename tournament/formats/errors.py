"""The one exception every TSH-format reader raises.

Directors fix bad files by hand in a text editor, so an error is only useful if it says which
file and which line to open. ``FormatError`` carries both, and subclasses ``ValueError`` so that
callers that only care about "bad input" can catch the broad class.
"""

from __future__ import annotations


class FormatError(ValueError):
    """A file (or string) in one of the TSH formats could not be read or written."""

    def __init__(self, message: str, *, source: str | None = None, line: int | None = None):
        self.message = message
        self.source = source
        self.line = line
        super().__init__(self._render())

    def _render(self) -> str:
        if self.source is None:
            return self.message if self.line is None else f"line {self.line}: {self.message}"
        if self.line is None:
            return f"{self.source}: {self.message}"
        return f"{self.source} line {self.line}: {self.message}"

    def __str__(self) -> str:
        return self._render()
