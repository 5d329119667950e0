"""What the published OpenAPI schema says beyond what the views declare.

drf-spectacular reads a view's docstring (and a serializer's) as the public description. Their
first paragraph says what the operation or object is; the later ones say why the code is as it
is (costs, caches, module names) and are for the code's readers, not the API's: only the
first paragraph is published. Path numbers (``{round}``, ``{number}``) count from 1, which the
URL converters cannot say, so their minimum is added here.
"""

from __future__ import annotations

from typing import Any

POSITIVE_PATH_PARAMETERS = ("round", "number")


def _first_paragraph(text: str) -> str:
    return text.strip().split("\n\n", 1)[0].strip()


def public_schema(result: dict[str, Any], generator: Any, request: Any, public: bool) -> dict:
    """drf-spectacular postprocessing hook (SPECTACULAR_SETTINGS["POSTPROCESSING_HOOKS"])."""
    for operations in (result.get("paths") or {}).values():
        for operation in operations.values():
            if not isinstance(operation, dict):
                continue
            if isinstance(operation.get("description"), str):
                operation["description"] = _first_paragraph(operation["description"])
            for parameter in operation.get("parameters") or []:
                if parameter.get("in") == "path" and parameter["name"] in POSITIVE_PATH_PARAMETERS:
                    parameter.setdefault("schema", {})["minimum"] = 1
    for component in ((result.get("components") or {}).get("schemas") or {}).values():
        if isinstance(component.get("description"), str):
            component["description"] = _first_paragraph(component["description"])
    return result
