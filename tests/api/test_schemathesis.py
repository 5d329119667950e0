"""Every API operation fuzzed from its own OpenAPI schema against a live server: no 5xx, and
every response (refusals included) matches what the schema says. The data include a division
without a rating list, a withdrawn player, a bye and a forfeit (``nullable_event``), whose
nulls test_schema_nullable.py checks against the schema read by read. Capped examples keep it
under two minutes; it runs once per CI run (the PostgreSQL pass sets GIBSON_BROWSER_TESTS=0,
as for the browser tests: the API's answers do not depend on the database)."""

from __future__ import annotations

import os

import pytest

schemathesis = pytest.importorskip("schemathesis", reason="schemathesis is not installed")

from hypothesis import HealthCheck, Phase, given, settings  # noqa: E402
from schemathesis.checks import not_a_server_error  # noqa: E402
from schemathesis.specs.openapi.checks import (  # noqa: E402
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from .conftest import token_client  # noqa: E402

pytestmark = [
    pytest.mark.skipif(
        os.environ.get("GIBSON_BROWSER_TESTS", "1") == "0",
        reason="GIBSON_BROWSER_TESTS=0: the SQLite pass of the CI run fuzzed the API once",
    ),
    pytest.mark.django_db(transaction=True),
]

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]


def test_every_operation_answers_by_its_schema(
    live_server, event, director, club_data, nullable_event
):
    token = token_client(director)._credentials["HTTP_AUTHORIZATION"]
    schema = schemathesis.openapi.from_url(live_server.url + "/api/schema/")
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 13
    for operation in operations:

        @given(case=operation.as_strategy())
        @settings(
            max_examples=15,
            deadline=None,
            derandomize=True,
            database=None,
            phases=[Phase.explicit, Phase.generate],
            suppress_health_check=list(HealthCheck),
        )
        def run(case) -> None:
            headers = {"Authorization": token} if case.method != "GET" else None
            case.call_and_validate(base_url=live_server.url, headers=headers, checks=CHECKS)

        run()
