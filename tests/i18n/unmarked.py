"""The unmarked-string scan (tests/i18n/test_unmarked.py, docs/languages.md): words a user
sees that are not given to a translation call.

- Templates: text nodes and the user-visible attributes (``aria-label``, ``title``,
  ``placeholder``, ``alt``, the ``value`` of a submit/button input) outside
  ``translate``/``blocktranslate``. Ignored: ``{# #}`` and ``{% comment %}``, ``<script>`` and
  ``<style>`` contents, template variables and tags, whitespace, punctuation, numbers,
  entities, one-letter words and the names of :data:`ALLOWED`.
- Python (AST): string literals (plain, f-strings, ``"...".format``, ``%``, ``+``) given to
  ``messages.*(...)``, a ``label=``/``help_text=``/``empty_label=``/``choices=``,
  ``ValidationError(...)``, a mail's subject or body, reportlab's text calls in
  tournament/reports, and the values of a refusal-code table ``CODES``.
"""

from __future__ import annotations

import ast
import re
from html.parser import HTMLParser
from pathlib import Path

from django.template.base import Lexer, TokenType

# names and abbreviations that read the same in every language
ALLOWED = frozenset(
    {"Gibson", "TSH", "NASPA", "GCG", "WESPA", "ABSP", "QR", "API", "CSV", "PDF", "JSON", "ID"}
    | {"tourney", "js", "TOU", "Elo", "Glicko", "SMTP", "URL", "HTML", "OK", "Scrabble"}
    | {"tsh", "SHA"}
)
# what is not words: a placeholder a caller fills ({round}, %(name)s) and an address
NOT_WORDS = re.compile(
    r"\{[^{}]*\}|%\([^)]*\)[sdrf]|\b[a-z]+://\S*|\b[\w.-]+\.(?:org|com|net)\b"
    r"|\b[\w-]*\.(?:tsh|TOU|csv|js)\b"
)
WORD = re.compile(r"[^\W\d_]{2,}")
VISIBLE_ATTRIBUTES = ("aria-label", "title", "placeholder", "alt")
TAG, VAR = "\x01", "\x02"
HIDDEN = ("script", "style", "code")


def words(text: str) -> list[str]:
    """The words of ``text`` a translator would have to translate."""
    return [w for w in WORD.findall(NOT_WORDS.sub(" ", text)) if w not in ALLOWED]


def _flatten(source: str) -> str:
    """The template with each tag and variable replaced by a marker character, comments and
    what translate/blocktranslate say dropped: what is left is the unmarked text."""
    out: list[str] = []
    skip_until: str | None = None
    for token in Lexer(source).tokenize():
        if token.token_type == TokenType.COMMENT:
            continue
        if token.token_type == TokenType.BLOCK:
            name = token.contents.split()[0] if token.contents.split() else ""
            if skip_until:
                if name == skip_until:
                    skip_until = None
                continue
            if name in ("blocktranslate", "blocktrans"):
                skip_until = "end" + name
            elif name == "block" and token.contents.split()[1:2] in (["style"], ["script"]):
                skip_until = "endblock"  # a stylesheet or script the base wraps in its tag
            elif name == "comment":
                skip_until = "endcomment"
            out.append(TAG)
        elif token.token_type == TokenType.VAR:
            if not skip_until:
                out.append(VAR)
        elif not skip_until:
            out.append(token.contents)
    return "".join(out)


class _Scanner(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[tuple[int, str]] = []
        self.hidden = 0  # inside <script>, <style> or <code> (a command line, not words)

    def _check(self, text: str, what: str) -> None:
        bare = text.replace(TAG, " ").replace(VAR, " ")
        if words(bare):
            self.found.append((self.getpos()[0], f"{what}: {' '.join(bare.split())[:60]!r}"))

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in HIDDEN:
            self.hidden += 1
        values = dict(attrs)
        for name, value in attrs:
            if value and name in VISIBLE_ATTRIBUTES:
                self._check(value, f"<{tag} {name}>")
        kind = (values.get("type") or "").lower()
        if tag == "input" and kind in ("submit", "button", "reset") and values.get("value"):
            self._check(values["value"] or "", f"<input type={kind} value>")

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag in HIDDEN:
            self.hidden -= 1

    def handle_endtag(self, tag: str) -> None:
        if tag in HIDDEN and self.hidden:
            self.hidden -= 1

    def handle_data(self, data: str) -> None:
        if not self.hidden:
            self._check(data, "text")


def scan_template(source: str) -> list[tuple[int, str]]:
    """(line, what) of each unmarked text or attribute of a template's source (the line in
    the flattened text: near enough to find it)."""
    flat = _flatten(source)
    scanner = _Scanner()
    scanner.feed(flat)
    scanner.close()
    return scanner.found


def scan_text_template(source: str) -> list[tuple[int, str]]:
    """A plain-text template (a mail's): every text outside translate is unmarked."""
    bare = _flatten(source).replace(TAG, " ").replace(VAR, " ")
    return [
        (number, f"text: {line.strip()[:60]!r}")
        for number, line in enumerate(bare.splitlines(), 1)
        if words(line)
    ]


# --------------------------------------------------------------------------- Python

SCANNED = ("tournament", "pairings", "ratings")  # the apps' code; commands' output stays English

TRANSLATE = frozenset(
    {"_", "gettext", "gettext_lazy", "ngettext", "ngettext_lazy", "pgettext", "pgettext_lazy"}
    | {"npgettext", "npgettext_lazy", "gettext_noop", "_lazy", "format_lazy", "_l"}
)
LABEL_KEYWORDS = ("label", "help_text", "empty_label")
MAIL_CALLS = {"queue_mail": (2, 3), "_mail": (2, 3), "send_mail": (0, 1), "_queued": (2, 3)}
MAIL_KEYWORDS = ("subject", "body", "message", "text")
REPORT_TEXT_CALLS = {
    "drawString": 2,
    "drawCentredString": 2,
    "drawRightString": 2,
    "drawCentred": 2,
    "textLine": 0,
    "Paragraph": 0,
    "setTitle": 0,
}


def _name(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def is_translated(node: ast.AST) -> bool:
    """A translation call, or one formatted (``_("...").format(...)``, ``_("...") % x``)."""
    if isinstance(node, ast.Call):
        if _name(node.func) in TRANSLATE:
            return True
        if isinstance(node.func, ast.Attribute) and node.func.attr == "format":
            return is_translated(node.func.value)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
        return is_translated(node.left)
    return False


def literal_words(node: ast.AST | None) -> list[str]:
    """The words of the string literals ``node`` is made of (none for a translation call,
    a variable or anything computed)."""
    if node is None or is_translated(node):
        return []
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return words(node.value)
    if isinstance(node, ast.JoinedStr):
        return [w for part in node.values for w in literal_words(part)]
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mod)):
        return literal_words(node.left) + (
            literal_words(node.right) if isinstance(node.op, ast.Add) else []
        )
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        if node.func.attr in ("format", "join", "strip"):
            return literal_words(node.func.value)
    if isinstance(node, ast.IfExp):
        return literal_words(node.body) + literal_words(node.orelse)
    return []


def _argument(call: ast.Call, position: int, keywords: tuple[str, ...]) -> list[ast.AST]:
    found: list[ast.AST] = [k.value for k in call.keywords if k.arg in keywords]
    if len(call.args) > position:
        found.append(call.args[position])
    return found


def scan_module(
    source: str, *, reports: bool = False, labels: bool = True
) -> list[tuple[int, str]]:
    """(line, what) of each unmarked user-visible string of a module's source;
    ``reports`` adds reportlab's text calls (the PDFs of tournament/reports); ``labels``
    False leaves out ``label=``/``help_text=`` (a model's or the API schema's, which describe
    the data to developers and are not shown on a page)."""
    found: list[tuple[int, str]] = []

    def flag(node: ast.AST, what: str) -> None:
        hit = literal_words(node)
        if hit:
            found.append((getattr(node, "lineno", 0), f"{what}: {' '.join(hit)[:60]!r}"))

    for node in ast.walk(ast.parse(source)):
        targets = node.targets if isinstance(node, ast.Assign) else []
        if isinstance(node, ast.AnnAssign):
            targets = [node.target]
        if any(_name(t) == "CODES" for t in targets):
            if isinstance(node.value, ast.Dict):  # type: ignore[union-attr]
                for value in node.value.values:  # type: ignore[union-attr]
                    flag(value, "refusal code message")
        if not isinstance(node, ast.Call):
            continue
        name = _name(node.func)
        owner = node.func.value if isinstance(node.func, ast.Attribute) else None
        if owner is not None and _name(owner) == "messages":
            for arg in node.args[1:2] + [k.value for k in node.keywords if k.arg == "message"]:
                flag(arg, f"messages.{name}")
        for keyword in node.keywords:
            if labels and keyword.arg in LABEL_KEYWORDS:
                flag(keyword.value, keyword.arg)
            if keyword.arg == "choices" and isinstance(keyword.value, (ast.List, ast.Tuple)):
                for choice in keyword.value.elts:
                    if isinstance(choice, ast.Tuple) and len(choice.elts) == 2:
                        flag(choice.elts[1], "choice label")
        if name == "ValidationError" and node.args:
            flag(node.args[0], "ValidationError")
        if name in MAIL_CALLS:
            for position in MAIL_CALLS[name]:
                for arg in _argument(node, position, ()):
                    flag(arg, f"{name} subject/body")
        if name in ("EmailMessage", "EmailMultiAlternatives", "send_mail", "queue_mail"):
            for keyword in node.keywords:
                if keyword.arg in MAIL_KEYWORDS:
                    flag(keyword.value, f"{name} {keyword.arg}")
        if reports and name in REPORT_TEXT_CALLS:
            for arg in _argument(node, REPORT_TEXT_CALLS[name], ("text",)):
                flag(arg, f"{name} text")
    return sorted(found)


def scanned_files(repo: Path) -> list[Path]:
    """Every template and module the scan reads: templates/ (.html, .txt) and the apps'
    modules, less migrations and management commands (their output stays English)."""
    files = sorted(p for p in (repo / "templates").rglob("*") if p.suffix in (".html", ".txt"))
    for top in SCANNED:
        files += sorted(
            p
            for p in (repo / top).rglob("*.py")
            if "migrations" not in p.parts and "management" not in p.parts
        )
    return files


def scan_path(path: Path, repo: Path) -> list[tuple[int, str]]:
    """The findings of one template or module of the repository."""
    source = path.read_text(encoding="utf-8")
    if path.suffix == ".py":
        parts = path.relative_to(repo).parts
        reports = parts[:2] == ("tournament", "reports")
        data = path.name == "models.py" or parts[:2] in (
            ("tournament", "models"),
            ("tournament", "api"),
        )
        return scan_module(source, reports=reports, labels=not data)
    if path.suffix == ".txt":
        return scan_text_template(source)
    return scan_template(source)
