"""The words of a query the full-text leg looks for (mirage_query.search.query_words)."""

from mirage_query.search import SearchPlan, as_written, query_words


def test_a_dotted_word_brings_the_words_inside_it():
    assert query_words("edit sources.list and changelog.Debian") == [
        "edit",
        "sources.list",
        "sources",
        "list",
        "and",
        "changelog.Debian",
        "changelog",
        "Debian",
    ]


def test_pieces_without_a_letter_or_of_one_letter_are_left_out():
    assert query_words("version 1.2.3 of a.b") == ["version", "1.2.3", "of", "a.b"]


def test_words_are_kept_once_in_order():
    assert query_words("apt apt.conf apt") == ["apt", "apt.conf", "conf"]


def test_or_is_an_operator_in_capitals_only():
    """A lower-case "or" is a word of a question; websearch_to_tsquery would read it as OR."""
    assert not SearchPlan(query="should I use a macro or an enumeration").strict
    assert SearchPlan(query="macro OR enumeration").strict
    assert SearchPlan(query='"exact phrase" or not').strict  # the quotes are syntax
    assert as_written('"exact phrase" or not') == '"exact phrase"   not'
    assert as_written("macro OR enumeration, Or color") == "macro OR enumeration,   color"
