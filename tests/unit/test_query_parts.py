"""Pure parts of the query service: safe upload names, metrics text, fusion, settings."""

from __future__ import annotations

import pytest

from mirage_pipeline.settings import SettingsError
from mirage_query.observability import Metrics
from mirage_query.schemas import DocumentRef, Scores, SearchResult
from mirage_query.search import clean_query
from mirage_query.search_api import fuse
from mirage_query.settings import ServiceSettings
from mirage_query.uploads import BadName, check_project_name, safe_document_path


@pytest.mark.parametrize(
    ("raw", "safe"),
    [
        ("book.pdf", "book.pdf"),
        ("books/part 1/книга.fb2", "books/part 1/книга.fb2"),
        ("./a//b.md", "a/b.md"),
        ("dir\\win.md", "dir/win.md"),
    ],
)
def test_safe_names(raw, safe):
    assert safe_document_path(raw) == safe


@pytest.mark.parametrize(
    "raw",
    [
        "",
        " ",
        "..",
        "../x.md",
        "a/../../x.md",
        "/etc/passwd",
        "C:/x.md",
        "a\x00b",
        "a\nb.md",
        "\u202eevil.md",
        ".env",
        "x/.git/config",
        "~$lock.docx",
        "dl.crdownload",
        "x" * 300,
    ],
)
def test_unsafe_names(raw):
    with pytest.raises(BadName):
        safe_document_path(raw)


@pytest.mark.parametrize("name", ["", "../x", "a/b", "-x", "a b", "x" * 65, "é"])
def test_bad_project_names(name):
    with pytest.raises(BadName):
        check_project_name(name)


def test_metrics_text_format():
    from prometheus_client.parser import text_string_to_metric_families

    metrics = Metrics()
    route = "/api/v1/projects/{project}/search"
    metrics.observe("POST", route, 200, 0.02)
    metrics.observe("POST", route, 200, 0.2)
    metrics.observe("GET", 'odd"route', 404, 0.001)  # a label value that must be escaped
    families = {f.name: f for f in text_string_to_metric_families(metrics.render())}
    assert families["mirage_http_requests"].type == "counter"
    assert families["mirage_http_request_duration_seconds"].type == "histogram"
    samples = {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for f in families.values()
        for s in f.samples
    }
    labels = (("method", "POST"), ("route", route))
    assert samples[("mirage_http_requests_total", (*labels, ("status", "200")))] == 2
    assert (
        samples[
            (
                "mirage_http_requests_total",
                (("method", "GET"), ("route", 'odd"route'), ("status", "404")),
            )
        ]
        == 1
    )
    bucket = "mirage_http_request_duration_seconds_bucket"
    assert samples[(bucket, (("le", "0.025"), *labels))] == 1
    assert samples[(bucket, (("le", "+Inf"), *labels))] == 2
    assert samples[("mirage_http_request_duration_seconds_count", labels)] == 2
    assert samples[("mirage_http_request_duration_seconds_sum", labels)] == pytest.approx(0.22)


def test_clean_query_removes_what_postgres_refuses():
    assert clean_query("a\x00b\ud800") == "a b?"


def _hit(chunk_id: int, context: bool = False) -> SearchResult:
    return SearchResult(chunk_id, "c", 1.0, Scores(), {}, [], DocumentRef("d", "f"), context)


def test_fuse_ranks_chunks_found_by_several_queries_first():
    union = fuse([[_hit(1), _hit(2)], [_hit(2), _hit(3, context=True)]], k=60)
    assert [u.chunk_id for u in union] == [2, 1, 3]
    assert union[0].queries == [0, 1] and union[2].context and union[2].score == 0


def test_new_settings_from_env():
    s = ServiceSettings.from_env(
        {"MIRAGE_DAGSTER_PORT": "3111", "MIRAGE_MAX_UPLOAD_MB": "5", "MIRAGE_RRF_K": "30"}
    )
    assert s.dagster_port == 3111
    assert s.max_upload_bytes == 5 * 1024 * 1024 and s.rrf_k == 30
    with pytest.raises(SettingsError, match="MIRAGE_MAX_UPLOAD_MB"):
        ServiceSettings.from_env({"MIRAGE_MAX_UPLOAD_MB": "0"})


def test_search_statements_are_composed_once_per_shape():
    from mirage_pipeline.store.schema import EmbeddingIndex
    from mirage_query.schemas import Filters
    from mirage_query.search_sql import build_fusion_sql, build_leg_sql

    index = EmbeddingIndex(id=7, model="m", dimension=384)
    first, params = build_leg_sql(index, "vector", Filters(tags=["a"]))
    again, other = build_leg_sql(index, "vector", Filters(tags=["b"]))
    assert again is first and params == {"f_tags": ["a"]} and other == {"f_tags": ["b"]}
    text = first.as_string(None)
    assert "c.index_id = 7 " in text and "::vector(384)" in text and "::halfvec(384)" in text
    assert "?| %(f_tags)s" in text and "AND false" in text  # windows only re-score filtered chunks
    assert "tsquery" not in text  # the vector leg alone
    assert "AND true" in build_leg_sql(index, "vector", None)[0].as_string(None)
    text_leg = build_leg_sql(index, "text", Filters(tags=["a"]), configs=("english",))[0]
    assert "?| %(f_tags)s" in text_leg.as_string(None) and "<=>" not in text_leg.as_string(None)
    assert "websearch_to_tsquery" not in text_leg.as_string(None)  # not in websearch syntax
    strict, none = build_leg_sql(index, "text", None, strict=True, configs=("english",))
    assert strict is not text_leg and none == {}
    assert "= 'english'::regconfig" in strict.as_string(None)
    vector = build_fusion_sql(index, "vector", "rrf")
    assert vector is build_fusion_sql(index, "vector", "score")  # no fusion
    assert "txt" not in vector.as_string(None) and "%(v_similarity)s" in vector.as_string(None)
    assert build_fusion_sql(index, "hybrid", "rrf") is not build_fusion_sql(index, "hybrid")
