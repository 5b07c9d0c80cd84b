"""A project's indexing policy for Markdown knowledge bases (`.mirage.yaml` in its folder).

Opt-in, after the "RAG Indexing Specification v0.1": only listed front-matter types are
indexed (`story-node` and files without a type are skipped), every indexed file needs a tag,
ADRs get one chunk per Context / Decision / Consequences, patterns keep Problem + Pattern
together and Steps apart. Example::

    # documents/<project>/.mirage.yaml
    indexing:
      markdown:
        preset: rag-indexing-v0.1      # or list them yourself:
        # types: [definition, principle, adr, pattern]
        # require_tags: true
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from mirage_pipeline.names import CONFIG_FILE as POLICY_FILE
from mirage_pipeline.parsing.model import ParsedDocument, ParseError

SPEC_V01_TYPES = frozenset(
    {
        "definition",
        "principle",
        "manifest",
        "adr",
        "pattern",
        "project",
        "concept-map",
        "core",
        "story-index",
    }
)
PRESETS = {"rag-indexing-v0.1": (SPEC_V01_TYPES, True)}
_ADR_APART = {"context", "decision", "consequences", "контекст", "решение", "последствия"}
_PATTERN_WITH_NEXT = {"problem", "проблема"}
_PATTERN_APART = {"steps", "шаги"}


@dataclass(frozen=True)
class MarkdownPolicy:
    types: frozenset[str] | None = None  # None: every Markdown file is indexed
    require_tags: bool = False
    typed_sections: bool = True  # the ADR and pattern section rules


def load_policy(project_dir: Path) -> MarkdownPolicy | None:
    """The policy in `project_dir/.mirage.yaml`, or None when there is none."""
    path = project_dir / POLICY_FILE
    if path.is_symlink():  # the documents folder is a boundary: links are never followed
        raise ParseError(
            f"{POLICY_FILE} of the project is a symbolic link; miRAGe does not follow links"
        )
    if not path.is_file():
        return None
    try:
        loaded = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        reason = str(exc).splitlines()[0]
        raise ParseError(f"the project's {POLICY_FILE} is not valid YAML: {reason}") from None
    return policy_from_mapping(loaded)


def policy_from_mapping(loaded: Any) -> MarkdownPolicy | None:
    if not isinstance(loaded, dict):
        raise ParseError(f"the project's {POLICY_FILE} must be a YAML mapping")
    section = (
        (loaded.get("indexing") or {}).get("markdown")
        if isinstance(loaded.get("indexing"), dict)
        else None
    )
    if section is None:
        return None
    if not isinstance(section, dict):
        raise ParseError(f"{POLICY_FILE}: indexing.markdown must be a mapping")
    types, require_tags = None, False
    if "preset" in section:
        if section["preset"] not in PRESETS:
            known = ", ".join(sorted(PRESETS))
            raise ParseError(
                f"{POLICY_FILE}: unknown preset {section['preset']!r} (known: {known})"
            )
        types, require_tags = PRESETS[section["preset"]]
    if "types" in section:
        if not isinstance(section["types"], list):
            raise ParseError(f"{POLICY_FILE}: indexing.markdown.types must be a list")
        types = frozenset(str(t) for t in section["types"])
    if "require_tags" in section:
        require_tags = bool(section["require_tags"])
    return MarkdownPolicy(
        types=types,
        require_tags=require_tags,
        typed_sections=bool(section.get("typed_sections", True)),
    )


def apply_policy(doc: ParsedDocument, policy: MarkdownPolicy | None) -> ParsedDocument:
    """Mark the document skipped (with the reason) or its sections' chunking rules."""
    if policy is None or doc.format != "markdown":
        return doc
    doc_type = doc.metadata.get("type")
    tags = doc.metadata.get("tags")
    if policy.types is not None:
        if not doc_type:
            doc.skipped = "no `type` in the front matter; the project's policy indexes typed files"
            return doc
        if str(doc_type) not in policy.types:
            doc.skipped = f"type {doc_type!r} is not indexed by the project's policy"
            return doc
    if policy.require_tags and not (isinstance(tags, list | str) and tags):
        doc.skipped = "no `tags` in the front matter; the project's policy requires at least one"
        return doc
    if policy.typed_sections:
        _mark_sections(doc, str(doc_type or ""))
    return doc


def _mark_sections(doc: ParsedDocument, doc_type: str) -> None:
    for _, section in doc.root.walk():
        name = section.title.strip().casefold()
        if doc_type == "adr" and name in _ADR_APART:
            section.chunking = "apart"
        elif doc_type == "pattern" and name in _PATTERN_WITH_NEXT:
            section.chunking = "with_next"
        elif doc_type == "pattern" and name in _PATTERN_APART:
            section.chunking = "apart"
