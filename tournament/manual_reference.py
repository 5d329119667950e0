"""The manual's generated reference pages, written by ``manage.py build_manual --write-codes``.

docs/settings.md lists every tournament and division setting a director sets, read from the
models themselves (verbose name, help text, default, choices) so that a field added to
``Tournament`` or ``Division`` shows up on the next ``--write-codes`` and a test fails until it
does. What the models cannot say, the TSH ``config.tsh`` key a setting is read from and the
meaning of a field without help text, is in the two hand tables below; a field with neither a
help text nor a meaning here is refused (``ManualError``), so no row is ever blank.
"""

from __future__ import annotations

from typing import Any

from django.db import models

from .formats.config import COMMON_KEYS
from .models import Division, Tournament

# the models whose fields a director sets, in the order the page shows them
SETTING_MODELS: tuple[type[models.Model], ...] = (Tournament, Division)

# fields of those models that are no setting: the division's tournament is where it lives
NOT_SETTINGS: dict[str, str] = {
    "Division.tournament": "the tournament a division belongs to",
}

# the meaning of a field whose model gives no help text
MEANINGS: dict[str, str] = {
    "Tournament.name": "the event's name, on every page, pairing sheet and export",
    "Tournament.slug": "the event's part of its web address (`/t/SLUG/`)",
    "Tournament.start_date": "the first day; the events calendar sorts by it",
    "Tournament.end_date": "the last day (never before the first)",
    "Tournament.venue": "where it is played, shown on the event's pages",
    "Tournament.realm": "the federation preset: fills the bye and forfeit spreads and the "
    "rating system of new divisions, which a director may still change",
    "Tournament.max_rounds": "rounds of the whole event when the divisions do not say",
    "Tournament.gibson_spread": "spread a leader is assumed able to win by per remaining "
    "round when deciding whether the leader is clinched (Gibsonized)",
    "Tournament.paper": "paper size of the printed pairings, standings and scorecards",
    "Tournament.directors": "the directors: they change everything about the event",
    "Division.name": "the division's name (`A`, `Premier`...), unique in its event",
    "Division.slug": "the division's part of its web address",
    "Division.position": "order of the divisions on pages and exports",
    "Division.rating_system": "how ratings are computed for this division (`nsa2008`, "
    "`wespa-tsh`, `absp`, `aus`...)",
    "Division.rating_list": "the rating list the players' ratings are looked up in",
}

# field -> how config.tsh (or the division line) gives it; only where TSH has one
TSH_KEYS: dict[str, str] = {
    "Tournament.name": "`event_name`",
    "Tournament.start_date": "`event_date`",
    "Tournament.realm": "`realm`",
    "Tournament.bye_spread": "`bye_spread`",
    "Tournament.spread_cap": "`spread_cap` (a number)",
    "Tournament.spread_caps": "`spread_cap` (a list by round)",
    "Tournament.standings_spread_cap": "`standings_spread_cap`",
    "Tournament.max_rounds": "`max_rounds`",
    "Tournament.gibson": "`gibson`",
    "Tournament.gibson_spread": "`gibson_spread`",
    "Tournament.config": "every other line, kept and written back",
    "Division.name": "`division NAME FILE`",
    "Division.file_name": "`division NAME FILE`",
    "Division.rounds": "`max_rounds` (or `max_rounds = {A => 7}`)",
    "Division.rating_system": "`rating_system`",
}

# settings kept in Division.config (a director sets them on the division's settings page)
DIVISION_CONFIG: tuple[tuple[str, str, str], ...] = (
    (
        "double_entry",
        "off",
        "each result typed is a card; a game is recorded only when two cards agree",
    ),
    (
        "chances",
        "shown",
        "`{hide, hide_last}`: hide the prize chances from the public, or only for the "
        "last rounds; the staff still see them",
    ),
)


def setting_fields() -> list[tuple[str, models.Field]]:
    """("Model.field", field) for every field a director sets: concrete, editable, not
    created by Django (the id) and not named in ``NOT_SETTINGS``."""
    found = []
    for model in SETTING_MODELS:
        for field in model._meta.get_fields():
            if not field.concrete or field.auto_created or not field.editable:
                continue
            name = f"{model.__name__}.{field.name}"
            if name not in NOT_SETTINGS:
                found.append((name, field))
    return found


def _cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _default(field: models.Field) -> str:
    if isinstance(field, models.ManyToManyField):
        return "nobody"
    if not field.has_default():
        return "empty" if field.null or field.blank else "required"
    value = field.default() if callable(field.default) else field.default
    if isinstance(value, bool):
        return "on" if value else "off"
    if value in ([], {}, ""):
        return "empty"
    return f"`{value}`"


def _meaning(name: str, field: models.Field) -> str:
    from .manual import ManualError

    meaning = str(field.help_text) or MEANINGS.get(name, "")
    if not meaning:
        raise ManualError(
            f"{name} has no help text and no meaning in tournament/manual_reference.py's "
            "MEANINGS: give it one, then run manage.py build_manual --write-codes"
        )
    if field.choices:
        meaning += "; one of " + ", ".join(f"`{v}` ({label})" for v, label in field.choices)
    return meaning


def settings_page() -> str:
    """docs/settings.md as it must read: one row per setting of ``setting_fields()``."""
    lines = [
        "# Tournament and division settings",
        "",
        "Every setting a director gives a tournament or a division (on the console's settings "
        "pages, through the API, or read from an imported `config.tsh`), with its meaning, "
        "its default and the TSH `config.tsh` key it is read from and written back to, where "
        "TSH has one. This page is written from the models (`tournament/models/core.py`) by "
        "`manage.py build_manual --write-codes`; `tests/core/test_manual.py` fails when a "
        "setting is missing. The config keys themselves are in [Coming from TSH](tsh.md).",
    ]
    heading = None
    for name, field in setting_fields():
        model = name.split(".")[0]
        if model != heading:
            heading = model
            lines += ["", f"## {model}", "", "| setting | meaning | default | TSH key |"]
            lines.append("|---|---|---|---|")
        title = f"`{field.name}` ({field.verbose_name})"
        tsh = TSH_KEYS.get(name, "none")
        lines.append(
            f"| {title} | {_cell(_meaning(name, field))} | {_cell(_default(field))} | {tsh} |"
        )
    lines += [
        "",
        "## Division settings kept in its config",
        "",
        "| setting | default | meaning |",
        "|---|---|---|",
    ]
    lines += [
        f"| `{key}` | {default} | {_cell(meaning)} |" for key, default, meaning in DIVISION_CONFIG
    ]
    unmapped = [key for key in COMMON_KEYS if key not in " ".join(TSH_KEYS.values())]
    if unmapped:
        lines += [
            "",
            "The other `config.tsh` keys Gibson reads ("
            + ", ".join(f"`{k}`" for k in unmapped)
            + ") are kept with the event and written back to TSH and the tourney.js feed; "
            "[Coming from TSH](tsh.md#the-configtsh-keys-gibson-reads) says what each does here.",
        ]
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------------------ the API

METHODS = ("get", "post", "put", "patch", "delete")
# what a path's part names when its view gives it no description (the URLs say it all)
PATH_PARAMETERS = {
    "slug": "the tournament's slug",
    "division": "the division's slug",
    "round": "the round's number, from 1",
    "number": "the player's number in the division",
    "board": "the board's number",
}


def api_schema() -> dict[str, Any]:
    """The OpenAPI schema the site publishes at /api/schema/ (drf-spectacular, its hooks run)."""
    from drf_spectacular.generators import SchemaGenerator

    return SchemaGenerator().get_schema(request=None, public=True)


def _first(text: object) -> str:
    """A description's first paragraph on one line (the rest lists an enum's values again)."""
    return " ".join(str(text or "").strip().split("\n\n", 1)[0].split())


class _Types:
    """Schema objects as short type names: ``Game``, ``list of Game``, ``one of `a`, `b```."""

    def __init__(self, schema: dict[str, Any]) -> None:
        self.components = (schema.get("components") or {}).get("schemas") or {}

    def name(self, ref: str) -> str:
        return ref.rsplit("/", 1)[-1]

    def describe(self, node: dict[str, Any]) -> str:
        if "$ref" in node:
            target = self.components.get(self.name(node["$ref"]), {})
            if "enum" in target:
                return self.describe(target)
            return f"`{self.name(node['$ref'])}`"
        for combined in ("allOf", "oneOf", "anyOf"):
            if combined in node:
                said = " or ".join(self.describe(part) for part in node[combined])
                return said + (" or null" if node.get("nullable") else "")
        if "enum" in node:
            values = [v for v in node["enum"] if v not in ("", None)]
            return "one of " + ", ".join(f"`{v}`" for v in values)
        kind = node.get("type", "any")
        if kind == "array":
            kind = "list of " + self.describe(node.get("items") or {})
        elif node.get("format") and node["format"] not in ("int32", "int64"):
            # an integer's width comes from the database's field ranges (int64 on SQLite,
            # none on PostgreSQL for the same field): the page says what a reader needs and
            # stays the same on either database
            kind = f"{kind} ({node['format']})"
        return kind + (" or null" if node.get("nullable") else "")

    def fields(self, node: dict[str, Any], *, request: bool) -> list[str]:
        """An object's properties as table rows (a request leaves the read-only ones out)."""
        if "$ref" in node:
            node = self.components.get(self.name(node["$ref"]), {})
        required = set(node.get("required") or [])
        rows = []
        for name, prop in (node.get("properties") or {}).items():
            if request and prop.get("readOnly"):
                continue
            needed = "yes" if name in required else "no"
            rows.append(
                f"| `{name}` | {_cell(self.describe(prop))} | {needed} "
                f"| {_cell(_first(prop.get('description')))} |"
            )
        return rows


def _group(path: str) -> str:
    """The API's part a path belongs to: its first segment after /api/v1/."""
    return path.removeprefix("/api/v1/").split("/", 1)[0]


def _operation_lines(types: _Types, method: str, path: str, operation: dict[str, Any]) -> list[str]:
    """One operation's section: what it does, who may call it, its parameters, its request
    body's fields and its answers."""
    lines = ["", f"### {method.upper()} `{path}`", ""]
    lines.append(_first(operation.get("description")) or "(no description)")
    open_to_all = {} in (operation.get("security") or [{}])
    signed_in = "an API token (`Authorization: Token ...`) or a signed-in session."
    lines += ["", "Sign-in: " + ("none needed." if open_to_all else signed_in)]
    parameters = operation.get("parameters") or []
    if parameters:
        lines += ["", "| parameter | in | type | required | meaning |", "|---|---|---|---|---|"]
        for p in parameters:
            needed = "yes" if p.get("required") else "no"
            kind = _cell(types.describe(p.get("schema") or {}))
            meaning = _first(p.get("description"))
            if not meaning and p["in"] == "path":
                meaning = PATH_PARAMETERS.get(p["name"], "")
            lines.append(f"| `{p['name']}` | {p['in']} | {kind} | {needed} | {_cell(meaning)} |")
    body = operation.get("requestBody")
    if body:
        content = body.get("content") or {}
        media = "application/json" if "application/json" in content else next(iter(content))
        node = content[media].get("schema") or {}
        lines += ["", f"Request body (`{media}`): {types.describe(node)}", ""]
        rows = types.fields(node, request=True)
        if rows:
            lines += ["| field | type | required | meaning |", "|---|---|---|---|", *rows]
    lines += ["", "| answer | meaning | body |", "|---|---|---|"]
    for status, answer in operation.get("responses", {}).items():
        bodies = [
            types.describe(c.get("schema") or {})
            + ("" if media == "application/json" else f" (`{media}`)")
            for media, c in (answer.get("content") or {}).items()
        ]
        meaning = _first(answer.get("description")) or "done"
        lines.append(f"| {status} | {_cell(meaning)} | {_cell(', '.join(bodies) or 'none')} |")
    return lines


def api_reference_page(schema: dict[str, Any] | None = None) -> str:
    """docs/api-reference.md as it must read: every operation of the published schema."""
    schema = schema if schema is not None else api_schema()
    types = _Types(schema)
    lines = [
        "# API reference",
        "",
        "Every operation of the JSON API, written from the OpenAPI schema the site publishes "
        "at `/api/schema/` (browse it at `/api/docs/`) by `manage.py build_manual "
        "--write-codes`; `tests/core/test_manual.py` fails when this page is out of date. "
        "How to sign in, page through lists and read refusals is on "
        "[API and feeds](api.md); every refusal code is on [Refusal codes](refusals.md).",
    ]
    group = None
    for path, operations in schema["paths"].items():
        for method in METHODS:
            if method not in operations:
                continue
            if _group(path) != group:
                group = _group(path)
                lines += ["", f"## {group.replace('-', ' ').capitalize()}"]
            lines += _operation_lines(types, method, path, operations[method])
    lines += [
        "",
        "## Objects",
        "",
        "The objects the answers and request bodies above name, field by field.",
    ]
    for name, node in types.components.items():
        if "enum" in node or not node.get("properties"):
            continue
        lines += ["", f"### `{name}`", ""]
        if _first(node.get("description")):
            lines += [_first(node.get("description")), ""]
        lines += ["| field | type | required | meaning |", "|---|---|---|---|"]
        lines += types.fields(node, request=name.endswith("Request"))
    return "\n".join(lines) + "\n"
