"""MIRAGE_CORPUS points the corpus tests at a corpus outside ../shared/corpus."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import CORPUS

REPO = Path(__file__).resolve().parents[2]


def pytest_run(*args: str, corpus: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "MIRAGE_CORPUS": corpus}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_corpus_tests_read_the_folder_mirage_corpus_names(tmp_path: Path) -> None:
    if not CORPUS.is_dir():
        pytest.skip("no corpus to point at")
    elsewhere = tmp_path / "my-corpus"
    elsewhere.symlink_to(CORPUS.resolve(), target_is_directory=True)
    test = "tests/integration/test_corpus_parsing.py"
    done = pytest_run(test, "-k", "epub_metadata", corpus=str(elsewhere))
    assert done.returncode == 0, done.stdout[-2000:]
    assert f"corpus: {elsewhere}" in done.stdout
    assert " passed" in done.stdout and "skipped" not in done.stdout


def test_a_mirage_corpus_that_is_not_a_folder_stops_the_run(tmp_path: Path) -> None:
    done = pytest_run("-q", "--co", "tests/unit/test_settings.py", corpus=str(tmp_path / "nope"))
    assert done.returncode == 4  # a usage error, not silently skipped tests
    assert f"MIRAGE_CORPUS={tmp_path / 'nope'} is not a folder" in done.stderr
