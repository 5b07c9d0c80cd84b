"""Budgets per document: a zip bomb, a one-line 40 MB file, too many pages, members or chunks
end with an error naming the budget and its setting, and memory stays bounded."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import pymupdf
import pytest

from mirage_pipeline.parsing import Budgets, OverBudget, ParseError, parse_document
from mirage_pipeline.parsing.budgets import check_chunks
from mirage_pipeline.settings import Settings, SettingsError

REPO = Path(__file__).resolve().parents[2]
GiB = 1 << 30


def write_zip_bomb(path: Path, member_bytes: int = 2 * GiB) -> None:
    """A valid-looking EPUB whose one extra member unpacks to `member_bytes` of zeros, written
    streamed (never more than 1 MB in memory)."""
    block = bytes(1 << 20)
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("mimetype", "application/epub+zip", compress_type=zipfile.ZIP_STORED)
        z.writestr(
            "META-INF/container.xml",
            '<container><rootfiles><rootfile full-path="c.opf"/></rootfiles></container>',
        )
        info = zipfile.ZipInfo("OEBPS/zeros.xhtml")
        info.compress_type = zipfile.ZIP_DEFLATED
        with z.open(info, "w", force_zip64=True) as out:
            for _ in range(member_bytes // len(block)):
                out.write(block)


@pytest.fixture(scope="module")
def zip_bomb(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("bomb") / "bomb.epub"
    write_zip_bomb(path)
    return path


def test_zip_bomb_is_refused_naming_the_budget(zip_bomb: Path) -> None:
    assert zip_bomb.stat().st_size < 3 * (1 << 20)  # ~2 MB on disk
    with pytest.raises(OverBudget) as error:
        parse_document(zip_bomb.read_bytes(), "bomb.epub")
    message = str(error.value)
    assert "over the budget of 512 MB unpacked per archive (MIRAGE_MAX_UNZIPPED_MB)" in message
    assert "2,048 MB" in message


def test_zip_bomb_keeps_the_indexing_process_small(zip_bomb: Path) -> None:
    """The same read and parse as the pipeline's steps, in a fresh process: peak RSS."""
    script = textwrap.dedent(
        f"""
        import json
        from pathlib import Path
        from mirage_pipeline.documents_folder import read_inside
        from mirage_pipeline.parsing import ParseError, parse_document
        data = read_inside(Path({str(zip_bomb.parent)!r}), {zip_bomb.name!r})
        try:
            parse_document(data, "bomb.epub")
            outcome = "parsed"
        except ParseError as exc:
            outcome = str(exc)
        # VmHWM, not ru_maxrss: Linux keeps the parent's ru_maxrss across fork and exec
        status = Path("/proc/self/status").read_text().splitlines()
        peak = next(int(l.split()[1]) for l in status if l.startswith("VmHWM")) * 1024
        print(json.dumps({{"outcome": outcome, "peak_rss": peak}}))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.strip().splitlines()[-1])
    print(f"peak RSS on the zip bomb: {result['peak_rss'] / (1 << 20):.0f} MB")
    assert "MIRAGE_MAX_UNZIPPED_MB" in result["outcome"]
    assert result["peak_rss"] < 500 * (1 << 20)


def test_members_beyond_the_budget_or_exotic_compression_are_refused() -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        for i in range(30):
            z.writestr(f"f{i}.xhtml", "<p>x</p>")
    with pytest.raises(OverBudget, match=r"20 members per archive \(MIRAGE_MAX_ZIP_MEMBERS\)"):
        parse_document(buffer.getvalue(), "many.epub", budgets=Budgets(zip_members=20))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_BZIP2) as z:
        z.writestr("mimetype", "application/epub+zip")
    with pytest.raises(ParseError, match="only stored and deflate"):
        parse_document(buffer.getvalue(), "odd.epub")


def test_a_one_line_40_mb_markdown_file_hits_the_character_budget() -> None:
    data = ("word " * (8 * 1024 * 1024)).encode()  # 40 MB, one line
    assert len(data) == 40 * 1024 * 1024 and b"\n" not in data
    with pytest.raises(OverBudget) as error:
        parse_document(data, "one-line.md")
    assert str(error.value) == (
        "over the budget of 20,000,000 characters per document (MIRAGE_MAX_CHARACTERS): "
        "the document has 41,943,040"
    )


def test_pages_and_chunks_budgets() -> None:
    pdf = pymupdf.open()
    for n in range(3):
        pdf.new_page().insert_text((72, 72), f"Page {n + 1} has a line of text on it.")
    with pytest.raises(OverBudget, match=r"2 pages per document \(MIRAGE_MAX_PAGES\)"):
        parse_document(pdf.tobytes(), "three.pdf", budgets=Budgets(pages=2))
    check_chunks(10_000, Budgets())
    with pytest.raises(OverBudget, match=r"10,000 chunks per document \(MIRAGE_MAX_CHUNKS\)"):
        check_chunks(45_956, Budgets())
    with pytest.raises(OverBudget, match=r"1 MB per file \(MIRAGE_MAX_FILE_MB\)"):
        parse_document(b"# A\n" * 300_000, "big.md", budgets=Budgets(file_bytes=1 << 20))


def test_budgets_come_from_the_environment() -> None:
    s = Settings.from_env(
        {"MIRAGE_MAX_UNZIPPED_MB": "64", "MIRAGE_MAX_CHUNKS": "500", "MIRAGE_MAX_RUN_MINUTES": "5"}
    )
    assert s.budgets.unzipped_bytes == 64 << 20 and s.budgets.chunks == 500
    assert s.max_run_seconds == 300
    assert Settings.from_env({}).budgets == Budgets()
    with pytest.raises(SettingsError, match="MIRAGE_MAX_PAGES"):
        Settings.from_env({"MIRAGE_MAX_PAGES": "0"})
