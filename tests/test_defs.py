"""The code location loads, with the asset graph, job, sensor and resources it promises."""

import dagster as dg

from mirage_pipeline.definitions import defs


def test_definitions_load_with_the_document_asset_chain():
    repo = defs.get_repository_def()
    graph = repo.asset_graph
    keys = {k.to_user_string() for k in graph.get_all_asset_keys()}
    assert keys == {
        "raw_file",
        "parsed_document",
        "document_chunks",
        "chunk_embeddings",
        "chunk_index",
    }
    upstream = {
        k.to_user_string(): {p.to_user_string() for p in graph.get(k).parent_keys}
        for k in graph.get_all_asset_keys()
    }
    assert upstream["parsed_document"] == {"raw_file"}
    assert upstream["document_chunks"] == {"parsed_document"}
    assert upstream["chunk_embeddings"] == {"document_chunks"}
    assert {"document_chunks", "chunk_embeddings"} <= upstream["chunk_index"]
    for key in graph.get_all_asset_keys():
        assert isinstance(graph.get(key).partitions_def, dg.DynamicPartitionsDefinition)


def test_sensor_job_and_resources():
    repo = defs.get_repository_def()
    sensor = repo.get_sensor_def("documents_sensor")
    assert sensor.default_status == dg.DefaultSensorStatus.RUNNING
    assert sensor.job_name == "index_batch"  # the sensor launches batched runs
    assert repo.get_job("index_batch").executor_def is dg.in_process_executor
    assert repo.get_job("index_document").executor_def is dg.in_process_executor
    for name in ("indexing_run_failed", "indexing_run_canceled"):
        assert repo.get_sensor_def(name).default_status == dg.DefaultSensorStatus.RUNNING
    assert set(repo.get_top_level_resources()) == {
        "documents",
        "postgres",
        "embedder",
        "io_manager",
    }
