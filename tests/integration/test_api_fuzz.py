"""API fuzz: schemathesis generates requests from /schema/openapi.json, valid and invalid, and
sends them over HTTP to the real service on a real database; none may get a server error.

Bounded: MIRAGE_FUZZ_EXAMPLES examples per operation and generation mode, four times as many
for a JSON body (default 100: about 4,400 requests, two minutes on two cores), no shrinking, no
example database.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

import pytest
import requests
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode

from mirage_query.settings import ServiceSettings
from tests.support.live_service import live_service
from tests.support.seed import Passage, write_document

pytestmark = [pytest.mark.integration, pytest.mark.slow]
KEY = {"X-API-Key": "k"}
EXAMPLES = int(os.environ.get("MIRAGE_FUZZ_EXAMPLES", "100"))


def server_error(path: str, response: requests.Response) -> str | None:
    if response.status_code < 500:
        return None
    return f"{response.status_code} {response.text[:300]}"


def fuzz(
    operation, base_url: str, mode: GenerationMode, found: list[str], sent: list[int], **fixed
) -> None:
    strategy = operation.as_strategy(generation_mode=mode, **fixed)
    # a JSON body has far more to vary than a path: it gets more examples
    examples = EXAMPLES * (4 if operation.body else 1)

    @settings(
        max_examples=examples,
        deadline=None,
        database=None,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(case=strategy)
    def run(case) -> None:
        try:
            response = case.call(base_url=base_url, headers=KEY, timeout=60)
        except (requests.exceptions.InvalidHeader, requests.exceptions.InvalidURL, ValueError):
            return  # a request the client library refuses to send: nothing reached the service
        sent.append(response.status_code)
        problem = server_error(case.formatted_path, response)
        if problem:
            found.append(f"{problem}\n    {case.as_curl_command(headers=KEY)}")

    with contextlib.suppress(Unsatisfiable):  # nothing to vary: no parameter, no body
        run()


def test_no_generated_request_gets_a_server_error(database_url, local_embedder, tmp_path: Path):
    docs = tmp_path / "documents"
    (docs / "library").mkdir(parents=True)
    (docs / "library" / "guide.md").write_text("# Guide\n", encoding="utf-8")
    doc = write_document(
        database_url,
        local_embedder,
        "library",
        "guide.md",
        [Passage(f"Passage {i} about installing.", "Install") for i in range(3)],
    )
    settings_ = ServiceSettings.from_env({"MIRAGE_HOME": str(tmp_path)}).with_overrides(
        database_url=database_url,
        api_keys=("k",),
        documents_dir=docs,
        max_upload_bytes=64 * 1024,
    )
    found: list[str] = []
    sent: list[int] = []
    with live_service(settings_, local_embedder) as api_url:
        base_url = api_url.removesuffix("/api/v1")
        schema = schemathesis.openapi.from_url(f"{base_url}/schema/openapi.json")
        operations = [result.ok() for result in schema.get_all_operations()]
        assert len(operations) >= 14
        for operation in operations:
            for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
                fuzz(operation, base_url, mode, found, sent)
            # and on the real project and document, where deeper checks run
            if operation.method.upper() != "DELETE" and "{project}" in operation.path:
                fixed = {"project": "library", "document_id": str(doc)}
                params = {k: v for k, v in fixed.items() if "{" + k + "}" in operation.path}
                fuzz(
                    operation,
                    base_url,
                    GenerationMode.POSITIVE,
                    found,
                    sent,
                    path_parameters=params,
                )
    assert len(sent) >= 10 * EXAMPLES, len(sent)
    assert not found, f"{len(found)} server errors in {len(sent)} requests:\n" + "\n".join(
        found[:20]
    )
