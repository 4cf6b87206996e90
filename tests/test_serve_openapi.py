"""``/openapi.json`` describes the service exactly: schemathesis (``st run``) against a live server, zero failures.

All of schemathesis's phases (examples, coverage, fuzzing, stateful) and default checks: status codes,
bodies and headers as documented, invalid data refused, a secured route never answering without its
token, ``Allow`` right on OPTIONS and 405. Examples are bounded and the seed fixed, so it stays fast
and repeatable.

Some answers to schema-valid requests are right although not 2xx, and the configuration says so:
``execute`` with a well-formed tree that does not compile (422, located problems) or while a run is
active (409), and a plain GET of ``/ws``, a WebSocket (426 Upgrade Required). ``/mcp`` is fuzzed
with every check but that one: it is a JSON-RPC protocol whose state (initialize, a session, the
per-request envelope) no OpenAPI schema can state, so a well-formed message is often refused (400);
the SDK's own client tests what it answers (tests/test_serve_mcp_client.py).
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.servekit import AUTH, TOKEN, app_for, bot, live_server

ST = Path(sys.executable).parent / "st"
CONFIG = """\
[[operations]]
include-path = "/api/cognitive/execute"
checks.positive_data_acceptance.expected-statuses = ["2XX", 401, 403, 409, 422]

[[operations]]
include-path = "/ws"
checks.positive_data_acceptance.expected-statuses = [426]

[[operations]]
include-path = "/mcp"
checks.positive_data_acceptance.enabled = false
"""


@pytest.mark.slow  # about 15 s alone, 40 s on a busy machine
def test_schemathesis_finds_no_mismatch_between_the_service_and_its_openapi_document(tmp_path: Path) -> None:
    config = tmp_path / "schemathesis.toml"
    config.write_text(CONFIG)
    with live_server(bot(tmp_path, scenario="no_crafting_table")) as live:
        done = subprocess.run(
            [str(ST), "--config-file", str(config), "--no-color", "run", f"{live.url}/openapi.json",
             "-H", f"Authorization: Bearer {TOKEN}", "--max-examples", "10", "--seed", "36"],
            capture_output=True, text=True, timeout=600, cwd=tmp_path, check=False)
    summary = done.stdout[done.stdout.find("SUMMARY"):]
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]
    assert "Tested: 20" in summary and "Failures" not in summary, summary


def test_the_document_names_the_bearer_scheme_statuses_the_union_and_the_other_endpoints(tmp_path: Path) -> None:
    from fastapi.testclient import TestClient

    with TestClient(app_for(bot(tmp_path))) as client:
        doc = client.get("/openapi.json").json()
        options = client.options("/api/cognitive/signals")
        wrong = client.put("/api/cognitive/signals", headers=AUTH)
    assert doc["components"]["securitySchemes"]["bearer"] == {**doc["components"]["securitySchemes"]["bearer"],
                                                              "type": "http", "scheme": "bearer"}
    execute = doc["paths"]["/api/cognitive/execute"]["post"]
    assert execute["security"] == [{"bearer": []}] and execute["x-craftbt-scope"] == "act"
    assert set(execute["responses"]) == {"202", "400", "401", "403", "409", "413", "422", "429"}
    union = execute["requestBody"]["content"]["application/json"]["schema"]["oneOf"]
    assert [v["required"] for v in union] == [["tree"], ["goal"], ["script"]]
    assert all(v["additionalProperties"] is False for v in union)
    assert "security" not in doc["paths"]["/api/bot/status"]["get"]  # reads are open
    assert doc["paths"]["/api/runs/{run_id}/cancel"]["post"]["security"] == [{"bearer": []}]
    assert set(doc["paths"]["/mcp"]) == {"get", "post", "delete"} and "101" in doc["paths"]["/ws"]["get"]["responses"]
    assert options.status_code == 204 and set(options.headers["allow"].split(", ")) == {"GET", "HEAD", "POST",
                                                                                       "OPTIONS"}
    assert wrong.status_code == 405 and "GET" in wrong.headers["allow"] and "POST" in wrong.headers["allow"]
    # bounds are JSON Schema's own words: a run's tick budget once said pydantic's ge/le, which no client reads
    ticks = [option for variant in union for option in variant["properties"]["max_ticks"]["anyOf"]
             if option.get("type") == "integer"]
    assert all(option["minimum"] == 1 and option["maximum"] >= 1 for option in ticks) and len(ticks) == 3
    assert not list(_pydantic_keywords(doc))


def _pydantic_keywords(node: Any) -> Iterator[str]:
    """Pydantic's constraint names where a schema object should carry JSON Schema's (minimum, maximum, ...)."""
    if isinstance(node, dict):
        if "type" in node:
            yield from (key for key in ("ge", "le", "gt", "lt", "min_length", "max_length") if key in node)
        for value in node.values():
            yield from _pydantic_keywords(value)
    elif isinstance(node, list):
        for value in node:
            yield from _pydantic_keywords(value)
