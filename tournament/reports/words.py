"""The printed sheets' words, translated without importing Django (this package stays pure:
docs/architecture.md). The renderers call :func:`gettext` and friends, which makemessages
finds like Django's own; until a translator is installed they answer the English.
``tournament.reports.build`` (the Django side) installs Django's functions with
:func:`use`, and renders each report under ``translation.override`` of the tournament's
language, so every word of a PDF follows the tournament (docs/languages.md)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

_installed: dict[str, Callable[..., str]] = {}


def use(**functions: Callable[..., str]) -> None:
    """Install the translation functions (``gettext``, ``ngettext``, ``pgettext``)."""
    _installed.update(functions)


def gettext(message: str) -> str:
    found = _installed.get("gettext")
    return found(message) if found else message


def ngettext(singular: str, plural: str, count: int) -> str:
    found = _installed.get("ngettext")
    if found:
        return found(singular, plural, count)
    return singular if count == 1 else plural


def pgettext(context: str, message: str) -> str:
    found = _installed.get("pgettext")
    return found(context, message) if found else message


def number(value: Any) -> str:
    """A number as the active language writes it ("1,234" / "1 234")."""
    found = _installed.get("number")
    return found(value) if found else f"{value:,}"


def gettext_noop(message: str) -> str:
    """Marks a module-level message for the catalogue; :func:`translated` translates it when
    it is drawn (the active language is only known then)."""
    return message


def translated(message: str) -> str:
    """A message marked with :func:`gettext_noop`, in the active language."""
    return gettext(message)
