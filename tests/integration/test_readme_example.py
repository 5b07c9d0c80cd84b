"""The README's worked multi-hop example, run as printed on the file it names."""

from __future__ import annotations

import json
import re
import shlex
import shutil
from pathlib import Path

import dagster as dg
import pytest
from click.testing import CliRunner

from mirage_pipeline.defs.assets import document_assets
from mirage_pipeline.defs.io_managers import ParquetIOManager
from mirage_query.cli import cli
from mirage_query.settings import ServiceSettings
from tests.support.live_service import live_service
from tests.support.resources import indexing_resources

pytestmark = [pytest.mark.integration, pytest.mark.slow, pytest.mark.corpus]

README = Path(__file__).resolve().parents[2] / "README.md"
BOOK = "alice-in-wonderland.pg11.epub2.epub"


def example() -> str:
    text = README.read_text(encoding="utf-8")
    start = text.index("**A worked multi-hop example.**")
    return text[start : text.index("\n## ", start)]


def commands(block: str) -> list[str]:
    """The `mirage …` commands of a shell block, continuation lines joined."""
    joined = re.sub(r"\\\n\s*", "", block)
    return [ln.strip() for ln in joined.splitlines() if ln.strip().startswith("mirage ")]


def run(line: str, api_url: str) -> str:
    env = {"MIRAGE_API_URL": api_url, "MIRAGE_API_KEY": "secret", "MIRAGE_HOME": None}
    result = CliRunner().invoke(cli, shlex.split(line)[1:], env=env)
    assert result.exit_code == 0, (line, result.output)
    return result.output


@pytest.fixture(scope="module")
def api_url(corpus: Path, postgres, local_embedder, tmp_path_factory) -> str:
    """The book indexed by the Dagster assets, as `mirage up` would, and the query service."""
    from mirage_pipeline.embedded_postgres import ensure_database, with_database

    tmp = tmp_path_factory.mktemp("readme")
    ensure_database(postgres.url, "readme_example")
    database_url = with_database(postgres.url, "readme_example")
    documents = tmp / "documents"
    (documents / "books").mkdir(parents=True)
    shutil.copyfile(corpus / "epub" / BOOK, documents / "books" / BOOK)
    mirage = indexing_resources(
        documents_dir=str(documents), database_url=database_url, embedder=local_embedder.name
    )
    instance = dg.DagsterInstance.ephemeral()
    instance.add_dynamic_partitions("documents", [f"books/{BOOK}"])
    result = dg.materialize(
        document_assets,
        partition_key=f"books/{BOOK}",
        instance=instance,
        resources={**mirage, "io_manager": ParquetIOManager(base_dir=str(tmp / "io"))},
    )
    assert result.success
    settings = ServiceSettings.from_env({"MIRAGE_HOME": str(tmp)}).with_overrides(
        database_url=database_url, api_keys=("secret",), documents_dir=documents
    )
    with live_service(settings, local_embedder) as url:
        yield url


@pytest.fixture
def in_project(tmp_path: Path, monkeypatch) -> None:
    (tmp_path / ".mirage.yaml").write_text("project_id: books\n")
    monkeypatch.chdir(tmp_path)


def test_the_example_names_its_file() -> None:
    assert f"`{BOOK}`" in example() and "Project Gutenberg eBook #11" in example()


def test_the_batch_finds_the_bottle_and_the_cake(api_url: str, in_project) -> None:
    blocks = re.findall(r"```bash\n(.*?)```", example(), re.S)
    (batch,) = commands(blocks[0])
    union = json.loads(run(batch, api_url))["union"]
    chapters = [h["structure"]["chapter"] for h in union]
    assert chapters[:2] == [
        "CHAPTER I. Down the Rabbit-Hole",
        "CHAPTER IV. The Rabbit Sends in a Little Bill",
    ]
    bottle = [h for h in union if "she was now only ten inches high" in h["content"]]
    assert [(h["queries"], h["structure"]["chapter"]) for h in bottle] == [
        ([0, 2], "CHAPTER I. Down the Rabbit-Hole")
    ]
    (cake,) = [h for h in union if "EAT ME" in h["content"] and 1 in h["queries"]]
    assert cake["structure"]["chapter"] == "CHAPTER I. Down the Rabbit-Hole"
    assert (
        cake["content"]
        .rstrip()
        .endswith("So she set to work, and very soon finished off the cake.")
    )
    assert " high" not in cake["content"]  # the height is not in it


def test_the_refined_search_finds_the_height_after_the_cake(api_url: str, in_project) -> None:
    blocks = re.findall(r"```bash\n(.*?)```", example(), re.S)
    (refined,) = commands(blocks[1])
    hits = json.loads(run(refined, api_url))
    assert len(hits) == 3
    (pool,) = [
        h
        for h in hits
        if h["structure"]["chapter"] == "CHAPTER II. The Pool of Tears"
        and "her head struck against the roof" in h["content"]
    ]
    text = " ".join(pool["content"].split())
    assert text.startswith("Oh dear, what nonsense I’m talking!”")
    assert "her head struck against the roof of the hall: in fact she was now more than" in text


def test_the_human_view_is_printed_as_shown(api_url: str, in_project) -> None:
    shown = example().split("The human view of the same batch", 1)[1]
    block = re.search(r"```\n(\$ .*?)```", shown, re.S).group(1)
    command, _, expected = re.sub(r"\\\n\s*", "", block).partition("\n")
    output = run(command.removeprefix("$ "), api_url).splitlines()
    at = 0
    for line in expected.splitlines():
        if line == "…":  # abridged: lines left out
            continue
        assert line in output[at:], f"not printed (in this order): {line!r}\n" + "\n".join(output)
        at = output.index(line, at) + 1
    assert sum(1 for ln in output if ln[:1].isdigit()) == 12  # "the union holds 12 passages"
