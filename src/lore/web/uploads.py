"""A book sent from the page: received to disk as it arrives, then imported in the background.

The body is parsed as it streams (python-multipart's push parser), so a file is never held in
memory and one over the limit is refused at the byte that crosses it, not after it has all
arrived. The limit is the books' own bound on a file (`books.max_uncompressed_mb`): a bigger
upload would be refused by the import anyway. The file keeps its name (the format is told
partly by it, and evaluations find books by file name) in `$LORE_HOME/uploads/`, which is the
user's copy of the book from then on, as the path `lore books add` was given would be.

The import runs in a thread and reports its stages into an `ImportJob` the page polls; a
failed import removes the file and says why in one line.
"""

from __future__ import annotations

import logging
import re
import secrets
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from python_multipart.multipart import MultipartParser, parse_options_header
from starlette.requests import Request

from lore.books import library
from lore.books.read.limits import load_limits
from lore.core.errors import InvalidInput, LoreError, NotFound
from lore.core.home import ensure_home

if TYPE_CHECKING:
    from python_multipart.multipart import MultipartCallbacks

FOLDER = "uploads"
# how far each import stage takes the bar (the vectors are most of a no-model import)
STAGES = {"reading": (0.0, 0.3), "passages": (0.3, 0.45), "names": (0.45, 0.55), "vectors": (0.55, 1.0)}


class TooLarge(InvalidInput):
    """The upload is over the limit (answered 413)."""


def upload_limit() -> int:
    return load_limits().bytes("max_uncompressed_mb")


def _safe_name(raw: str) -> str:
    """The file's own name, reduced to characters any file system takes."""
    name = re.sub(r"[^\w.\- ]+", "_", Path(raw.replace("\\", "/")).name).strip(" .")[:120]
    return name or "book"


def _create_free(folder: Path, name: str) -> tuple[Path, Any]:
    """A new file under the name, or `name-2`, `name-3`...: created exclusively, so two uploads
    of one name at once never write into the same file."""
    stem, suffix = Path(name).stem, Path(name).suffix
    n = 1
    while True:
        path = folder / (name if n == 1 else f"{stem}-{n}{suffix}")
        try:
            return path, path.open("xb")
        except FileExistsError:
            n += 1


class _FileReceiver:
    """Callbacks for the push parser: the part named `file` goes to disk, within the limit."""

    def __init__(self, folder: Path, limit: int):
        self.folder = folder
        self.path: Path | None = None
        self.limit = limit
        self.size = 0
        self.filename: str | None = None
        self._handle: Any = None
        self._field = b""
        self._value = b""
        self._headers: dict[bytes, bytes] = {}

    def callbacks(self) -> MultipartCallbacks:
        return {
            "on_part_begin": self._part_begin,
            "on_header_field": self._header_field,
            "on_header_value": self._header_value,
            "on_header_end": self._header_end,
            "on_headers_finished": self._headers_finished,
            "on_part_data": self._data,
            "on_part_end": self._part_end,
        }

    def _header_field(self, data: bytes, start: int, end: int) -> None:
        self._field += data[start:end]

    def _header_value(self, data: bytes, start: int, end: int) -> None:
        self._value += data[start:end]

    def _part_begin(self) -> None:
        self._headers = {}

    def _header_end(self) -> None:
        self._headers[self._field.lower()] = self._value
        self._field = self._value = b""

    def _headers_finished(self) -> None:
        _, options = parse_options_header(self._headers.get(b"content-disposition", b""))
        if options.get(b"name") == b"file" and self.filename is None:
            self.filename = options.get(b"filename", b"").decode("utf-8", "replace") or "book"
            self.path, self._handle = _create_free(self.folder, _safe_name(self.filename))

    def _data(self, data: bytes, start: int, end: int) -> None:
        if self._handle is None:
            return
        self.size += end - start
        if self.size > self.limit:
            raise TooLarge(_too_large())
        self._handle.write(data[start:end])

    def _part_end(self) -> None:
        if self._handle is not None:
            self._handle.close()
            self._handle = None

    def close(self) -> None:
        self._part_end()


def _too_large() -> str:
    return (
        f"the file is over the upload limit of {load_limits().max_uncompressed_mb:g} MB"
        " (raise books.max_uncompressed_mb in config.json)"
    )


async def receive(request: Request) -> Path:
    """Write the `file` part of a multipart request under `$LORE_HOME/uploads/`; its path."""
    kind, options = parse_options_header(request.headers.get("content-type", ""))
    boundary = options.get(b"boundary")
    if kind != b"multipart/form-data" or not boundary:
        raise InvalidInput("send the book as multipart/form-data, in a field named 'file'")
    limit = upload_limit()
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit + 64 * 1024:  # the form's own bytes aside
        raise TooLarge(_too_large())
    folder = ensure_home() / FOLDER
    folder.mkdir(exist_ok=True)
    receiver = _FileReceiver(folder, limit)
    parser = MultipartParser(boundary, receiver.callbacks())
    try:
        async for chunk in request.stream():
            parser.write(chunk)
        parser.finalize()
        receiver.close()
        if receiver.path is None or receiver.filename is None:
            raise InvalidInput("the form has no field named 'file'")
        if receiver.size == 0:
            raise InvalidInput(f"{_safe_name(receiver.filename)} is empty")
        return receiver.path
    except BaseException:  # refused, broken off or failed: no half-written file stays behind
        receiver.close()
        if receiver.path is not None:
            receiver.path.unlink(missing_ok=True)
        raise


@dataclass
class ImportJob:
    """One import the page watches: its stage, how far the bar is, then the book or the error."""

    id: str
    name: str
    state: str = "importing"  # importing, done, failed
    stage: str = "reading"
    fraction: float = 0.0
    book: dict[str, Any] | None = None
    error: str | None = None
    already_present: bool = False
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def tick(self, stage: str, done: int, total: int) -> None:
        low, high = STAGES.get(stage, (self.fraction, self.fraction))
        share = done / total if total else 1.0
        with self._lock:
            self.stage = stage
            self.fraction = max(self.fraction, low + (high - low) * share)

    def view(self) -> dict[str, Any]:
        with self._lock:
            return {
                "id": self.id,
                "name": self.name,
                "state": self.state,
                "stage": self.stage,
                "fraction": round(self.fraction, 3),
                "book": self.book,
                "error": self.error,
                "already_present": self.already_present,
            }


_JOBS: dict[str, ImportJob] = {}
_JOBS_LOCK = threading.Lock()


def start_import(path: Path) -> ImportJob:
    job = ImportJob(secrets.token_urlsafe(12), path.name)
    with _JOBS_LOCK:
        _JOBS[job.id] = job
    threading.Thread(target=_run, args=(job, path), name=f"lore-import-{job.id}", daemon=True).start()
    return job


def _run(job: ImportJob, path: Path) -> None:
    try:
        book = library.add_book(path, progress=job.tick)
    except LoreError as exc:
        path.unlink(missing_ok=True)
        with job._lock:
            job.state, job.error = "failed", str(exc)
        return
    except Exception:
        logging.getLogger("lore.web").exception("importing %s failed", path.name)
        path.unlink(missing_ok=True)
        with job._lock:
            job.state, job.error = "failed", "internal error; see the server's log"
        return
    if book.already_present:  # the same file was there already: keep one copy
        path.unlink(missing_ok=True)
    with job._lock:
        job.state, job.fraction, job.stage = "done", 1.0, "done"
        job.book, job.already_present = book.as_dict(), book.already_present


def job(job_id: str) -> ImportJob:
    with _JOBS_LOCK:
        found = _JOBS.get(job_id)
    if found is None:
        raise NotFound(f"no import {job_id!r} in this run of lore serve")
    return found
