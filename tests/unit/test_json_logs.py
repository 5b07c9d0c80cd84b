"""The query service's log lines: one JSON object each, with the request's fields."""

from __future__ import annotations

import io
import json
import logging

from mirage_query.observability import json_formatter


def test_each_record_is_one_json_line_with_its_extra_fields_and_traceback():
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(json_formatter())
    log = logging.getLogger("mirage_query.test_json_logs")
    log.handlers[:] = [handler]
    log.setLevel(logging.INFO)
    log.propagate = False
    log.info("request", extra={"request_id": "abc", "status": 200, "ms": 1.5})
    log.debug("not shown")
    try:
        raise ZeroDivisionError("division by zero")
    except ZeroDivisionError:
        log.exception("search failed for %s", "хлеб")
    first, second = (json.loads(line) for line in stream.getvalue().splitlines())
    assert first["message"] == "request" and first["level"] == "info"
    assert first["logger"] == "mirage_query.test_json_logs"
    assert (first["request_id"], first["status"], first["ms"]) == ("abc", 200, 1.5)
    assert len(first["time"]) == len("2026-01-01T00:00:00")
    assert second["level"] == "error" and second["message"] == "search failed for хлеб"
    assert "ZeroDivisionError" in second["error"]
    assert "хлеб" in stream.getvalue()  # not escaped
