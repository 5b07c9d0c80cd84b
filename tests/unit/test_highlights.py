"""Which fragments a search result shows (search_run._highlights)."""

from __future__ import annotations

from mirage_pipeline.chunk_parts import chunk_parts
from mirage_query.search_run import _highlights
from mirage_query.search_sql import TAG_MARK

SURVEY = " ".join(
    f"Step {i} of the harbour survey measures the channel with a weighted line." for i in range(8)
)
CONTENT = SURVEY + " The old Lighthouse at the end of the pier was painted bright red in 1923."
HEADLINE = "Step 1 of the <b>harbour</b> survey\x1eStep 2 of the <b>harbour</b> survey"


def test_a_passage_the_vector_leg_ranks_higher_shows_its_matched_window_first() -> None:
    windows = chunk_parts(CONTENT)
    last = len(windows) - 1
    assert last >= 1 and "Lighthouse" in windows[last]
    shown = _highlights(HEADLINE, CONTENT, last, 1, 5)
    assert shown[1] == "Step 1 of the <b>harbour</b> survey"
    assert shown[0] == windows[last].replace("harbour", "<b>harbour</b>")
    # found by meaning alone: the window, nothing in bold
    assert _highlights(None, CONTENT, last, 1, None) == [windows[last]]


def test_a_passage_the_full_text_leg_ranks_as_high_shows_its_fragments() -> None:
    fragments = ["Step 1 of the <b>harbour</b> survey", "Step 2 of the <b>harbour</b> survey"]
    assert _highlights(HEADLINE, CONTENT, 3, 4, 4) == fragments
    assert _highlights(HEADLINE, CONTENT, None, None, 1) == fragments  # text mode
    # a chunk that is its own one window: no window to show
    assert _highlights(None, "A short note.", 0, 1, None) == []
    marked = f"in /var/opt/{TAG_MARK}subdir> by the <b>harbour</b>"
    expected = "in /var/opt/<subdir> by the <b>harbour</b>"
    assert _highlights(marked, CONTENT, None, None, 1) == [expected]
