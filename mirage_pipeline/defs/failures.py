"""How a failed step ends: transient errors are retried with backoff, anything else — and a
transient error that outlived its retries — marks the document `error` with its real cause in
words. A cause that is the machine's, not the document's (database or embedder unreachable,
read-only or full storage, a killed worker), says that miRAGe retries by itself: the documents
sensor re-requests such documents (`defs/healing.py`). A file that vanished leaves no row."""

from __future__ import annotations

import errno
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import dagster as dg
import psycopg

from mirage_pipeline.defs.resources import DocumentsFolderResource, PostgresResource
from mirage_pipeline.documents_folder import OutsideDocumentsFolder, split_document_key
from mirage_pipeline.embedders import EmbedderUnavailable
from mirage_pipeline.parsing import ParseError, file_type_of
from mirage_pipeline.store.documents import delete_document, mark_document_error

MAX_RETRIES = 3
# 2 s, 4 s, 8 s (± jitter): long enough for an Ollama restart or a database failover.
RETRY_POLICY = dg.RetryPolicy(
    max_retries=MAX_RETRIES, delay=2, backoff=dg.Backoff.EXPONENTIAL, jitter=dg.Jitter.PLUS_MINUS
)
TRANSIENT = (EmbedderUnavailable, psycopg.OperationalError, ConnectionError, TimeoutError)
# Ends every reason the documents sensor retries by itself (healing.py looks for it).
RETRIED = "; miRAGe retries by itself once this is fixed"
FILE_GONE = "the file is gone; its document with it"

_ERRNO = re.compile(r"\[Errno (\d+)\] ([^:]*)(?::\s*'?(.*?)'?)?$")
_MACHINE_ERRNOS = {errno.EROFS, errno.ENOSPC, errno.EDQUOT, errno.EACCES, errno.EPERM,
                   errno.EMFILE, errno.ENFILE, errno.ENOMEM, errno.EIO,
                   errno.ENOTDIR}  # fmt: skip
_ERRNO_WORDS = {
    errno.ENAMETOOLONG: "file name too long for the filesystem",
    errno.EROFS: "the storage is read-only",
    errno.ENOSPC: "no space left on the storage device",
    errno.EDQUOT: "the storage quota is exceeded",
    errno.EACCES: "permission denied",
    errno.EPERM: "operation not permitted",
    errno.ENOENT: "no such file or folder",
    errno.ENOTDIR: "a file stands where a folder should be",
    errno.ENOMEM: "out of memory",
    errno.EIO: "input/output error on the storage",
}


@dataclass(frozen=True)
class Cause:
    """A failure in words, and whether it is the machine's (retried by itself) or final."""

    reason: str
    machine: bool
    step: str | None = None  # the step it happened in, when a run reports it

    @property
    def message(self) -> str:
        return self.reason + RETRIED if self.machine else self.reason


def _os_cause(code: int | None, text: str, filename: str | None) -> Cause:
    words = _ERRNO_WORDS.get(code or 0, text or "operating system error")
    where = f" ({filename})" if filename else ""
    return Cause(f"{words}{where}", code in _MACHINE_ERRNOS)


def cause_of_exception(exc: BaseException) -> Cause:
    """What went wrong, said for a person."""
    if isinstance(exc, dg.Failure):
        return Cause(exc.description or "the step failed", False)
    if isinstance(exc, ParseError | OutsideDocumentsFolder):
        return Cause(str(exc), False)
    if isinstance(exc, psycopg.OperationalError):
        return Cause(f"PostgreSQL is unreachable: {_first_line(exc)}", True)
    if isinstance(exc, EmbedderUnavailable):
        return Cause(f"the embedder is unavailable: {_first_line(exc)}", True)
    if isinstance(exc, ConnectionError | TimeoutError):
        return Cause(f"a connection failed: {_first_line(exc) or type(exc).__name__}", True)
    if isinstance(exc, MemoryError):
        return Cause("out of memory", True)
    if isinstance(exc, OSError) and exc.errno is not None:
        name = exc.filename if isinstance(exc.filename, str) else None
        return _os_cause(exc.errno, exc.strerror or "", name)
    return Cause(_first_line(exc) or type(exc).__name__, False)


def cause_of_error_info(info: object) -> Cause | None:
    """The same for an error Dagster recorded (`SerializableErrorInfo`), its deepest known
    cause first: an I/O manager's OSError is wrapped in Dagster's own errors."""
    chain = []
    while info is not None:
        chain.append(info)
        info = getattr(info, "cause", None) or getattr(info, "context", None)
    for item in reversed(chain):
        cause = _cause_of_recorded(getattr(item, "cls_name", "") or "", item.message or "")
        if cause is not None:
            return cause
    return None


def _cause_of_recorded(cls_name: str, message: str) -> Cause | None:
    text = message.strip().split(": ", 1)[-1] if ": " in message else message.strip()
    if cls_name in ("Failure", "ParseError", "OverBudget", "OutsideDocumentsFolder"):
        return Cause(text.splitlines()[0] if text else "the step failed", False)
    if cls_name == "OperationalError":
        return Cause(f"PostgreSQL is unreachable: {text.splitlines()[0]}", True)
    if cls_name == "EmbedderUnavailable":
        return Cause(f"the embedder is unavailable: {text.splitlines()[0]}", True)
    if cls_name == "ChildProcessCrashException":
        return Cause("the worker process was killed or crashed", True)
    if cls_name in ("ConnectionError", "ConnectionRefusedError", "TimeoutError"):
        return Cause(f"a connection failed: {text.splitlines()[0]}", True)
    if cls_name == "MemoryError":
        return Cause("out of memory", True)
    match = _ERRNO.search(message.strip().splitlines()[0] if message.strip() else "")
    if match:
        return _os_cause(int(match.group(1)), match.group(2), match.group(3))
    return None


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [""])[0]


def final_cause(
    context: dg.OpExecutionContext | dg.AssetExecutionContext, exc: Exception
) -> Cause | None:
    """None when the step should be retried (a failure of the machine, retries left: it logs
    so); else the cause to record, saying how many attempts a transient failure outlived."""
    attempt = context.retry_number + 1
    transient = isinstance(exc, TRANSIENT)
    if transient and attempt <= MAX_RETRIES:
        context.log.warning(f"attempt {attempt} failed ({exc}); retrying")
        return None
    cause = cause_of_exception(exc)
    if transient:
        cause = Cause(f"{cause.reason} (gave up after {attempt} attempts)", cause.machine)
    return cause


@contextmanager
def failures_recorded(
    context: dg.AssetExecutionContext,
    documents: DocumentsFolderResource,
    postgres: PostgresResource,
) -> Iterator[None]:
    """Run a step; on failure decide between a retry and a recorded `error`."""
    try:
        yield
    except Exception as exc:
        cause = final_cause(context, exc)
        if cause is None:
            raise
        key = context.partition_key
        if record_failure(documents, postgres, key, cause.message, exc) == "vanished":
            raise dg.Failure(
                description=f"{context.partition_key}: {FILE_GONE}", allow_retries=False
            ) from exc
        raise dg.Failure(
            description=f"{context.partition_key}: {cause.message}", allow_retries=False
        ) from exc


def record_failure(
    documents: DocumentsFolderResource,
    postgres: PostgresResource,
    key: str,
    message: str,
    exc: Exception,
) -> str:
    """Mark the document `error` — unless its file is gone: then its row goes (a vanished file
    never leaves a row behind). Returns "error", "vanished" or "unrecorded"."""
    project, path = split_document_key(key)
    try:
        with postgres.store_connection() as conn:
            if not file_exists(documents, key):
                delete_document(conn, project=project, path=path)
                return "vanished"
            mark_document_error(
                conn, project=project, path=path, file_type=file_type_of(path), message=message
            )
        return "error"
    except Exception as db_exc:  # the original error matters more; keep it
        exc.add_note(f"could not record the error in the index: {db_exc}")
        return "unrecorded"


def file_exists(documents: DocumentsFolderResource, key: str) -> bool:
    """Whether the document's file (or a link in its place) is still in the documents folder."""
    project, path = split_document_key(key)
    try:
        (documents.root / project / path).lstat()
    except (FileNotFoundError, NotADirectoryError):
        return False
    except OSError:
        return True  # unreadable is not gone
    return True


__all__ = [
    "FILE_GONE",
    "MAX_RETRIES",
    "RETRIED",
    "RETRY_POLICY",
    "Cause",
    "ParseError",
    "cause_of_error_info",
    "cause_of_exception",
    "failures_recorded",
    "final_cause",
    "record_failure",
]
