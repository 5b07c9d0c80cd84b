"""What a user's name for a document means, in the query service (search filters) and in the
CLI (`mirage documents … DOC`) alike: its id, its path in the project, or a base name only one
of the project's documents has."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import PurePosixPath


def resolve_document(
    documents: Sequence[tuple[str, str]], ref: str
) -> tuple[str | None, list[str]]:
    """The id of the document of `documents` ((id, path) pairs) that `ref` names, and, when
    `ref` is a base name several of them share instead, their paths (sorted)."""
    exact = next((i for i, path in documents if ref.lower() == i or ref == path), None)
    if exact is not None:
        return exact, []
    named = sorted((path, i) for i, path in documents if PurePosixPath(path).name == ref)
    if len(named) == 1:
        return named[0][1], []
    return None, [path for path, _ in named]
