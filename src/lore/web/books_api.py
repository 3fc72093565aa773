"""JSON routes of the reader (`/api/books`): each parses its input and calls the books services.

Every read goes through the same capped service functions as `lore books` and the MCP tools, so
nothing past the reader's position leaves them here either; `spoilers` is the reader's own
choice for one request, as `--spoilers` is at the terminal. Plain `def` routes run in worker
threads (one SQLite connection each); the upload and the answer stream are `async` because they
read or write a body as it moves.
"""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse, StreamingResponse
from pydantic import BaseModel, Field

from lore.books import entities, library
from lore.books.ask.extractive import NOTE as NO_MODEL_NOTE
from lore.books.context import passage_in_context
from lore.core.errors import InvalidInput
from lore.core.llm import model_configured
from lore.web import asking, uploads

router = APIRouter()


class PositionChange(BaseModel):
    """Exactly one way of saying where the reader is."""

    chapter: int | str | None = None  # a number, 0 (not started) or "end"
    passage: int | None = None
    percent: float | None = None
    at: str | None = Field(default=None, max_length=2000)  # the words just read


class AskRequest(BaseModel):
    book: str | int
    question: str = Field(max_length=2000)
    spoilers: bool = False


def _book_view(book: library.Book) -> dict[str, Any]:
    data = book.as_dict()
    data["read"] = round(book.position.chapter / book.chapters, 3) if book.chapters else 0.0
    return data


@router.get("")
def books() -> dict[str, Any]:
    """The library, and what a model would add when there is none."""
    configured = model_configured()
    return {
        "books": [_book_view(b) for b in library.list_books()],
        "model": {"configured": configured, "note": None if configured else NO_MODEL_NOTE},
        "upload_limit": uploads.upload_limit(),
    }


@router.post("/upload", status_code=202)
async def upload(request: Request) -> JSONResponse:
    """The file, streamed to disk within the limit; the import then runs as a job to poll."""
    try:
        path = await uploads.receive(request)
    except uploads.TooLarge as exc:
        return JSONResponse({"error": str(exc)}, status_code=413)
    return JSONResponse(uploads.start_import(path).view(), status_code=202)


@router.get("/imports/{job_id}")
def import_job(job_id: str) -> dict[str, Any]:
    return uploads.job(job_id).view()


@router.get("/{book}")
def book(book: str) -> dict[str, Any]:
    """One book with its chapters (titles and sizes ahead of the reader withheld)."""
    found, chapters = library.chapters(book)
    return {**_book_view(found), "outline": chapters}


@router.post("/{book}/position")
def position(book: str, change: PositionChange) -> dict[str, Any]:
    given = [v for v in (change.chapter, change.percent, change.at) if v is not None]
    if len(given) != 1:
        raise InvalidInput("give one of chapter, percent or at (the words you just read)")
    if change.passage is not None and change.chapter is None:
        raise InvalidInput("a passage needs its chapter")
    if change.percent is not None:
        found = library.set_progress_percent(book, change.percent)
    elif change.at is not None:
        found = library.set_progress_at(book, change.at)
    else:
        assert change.chapter is not None
        found = library.set_progress(book, change.chapter, change.passage)
    return _book_view(found)


@router.post("/ask")
async def ask(request: AskRequest) -> StreamingResponse:
    """The answer as NDJSON events (`started` first, with the id that Stop sends)."""
    loop = asyncio.get_running_loop()
    run = await run_in_threadpool(asking.start, request.book, request.question, request.spoilers, loop)
    return StreamingResponse(
        run.stream(), media_type="application/x-ndjson", headers={"x-accel-buffering": "no"}
    )


@router.post("/ask/{ask_id}/stop")
def stop(ask_id: str) -> dict[str, Any]:
    """Stop an answer: no model call is made after the step it is in. Never asks again."""
    return {"ask": ask_id, "stopped": asking.stop(ask_id)}


@router.get("/{book}/passages/{passage_id}")
def passage(book: str, passage_id: int, around: int = 2, spoilers: bool = False) -> dict[str, Any]:
    return passage_in_context(book, passage_id, around=around, spoilers=spoilers).as_dict()


@router.get("/{book}/characters")
def characters(
    book: str, kind: str | None = None, limit: int = 50, source: str = "auto", every: bool = False
) -> dict[str, Any]:
    found, rows = entities.characters(
        book, kind=kind, limit=min(max(limit, 1), 500), source=source, every=every
    )
    return {"book": {"id": found.id, "title": found.title}, "characters": [r.as_dict() for r in rows]}


@router.get("/{book}/characters/{name}")
def profile(book: str, name: str) -> dict[str, Any]:
    return entities.profile(book, name)


@router.get("/{book}/graph")
def graph(book: str, limit: int = 80, source: str = "auto") -> dict[str, Any]:
    return entities.graph(book, limit=min(max(limit, 1), 400), source=source)
