"""The FastAPI application of the local web UI: static page, JSON API, and the guard in front."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from fastapi import FastAPI, Request
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException

from lore.core.errors import InvalidInput, LoreError, NeedsModel, NotFound, StoreError
from lore.web.api import router
from lore.web.books_api import router as books_router
from lore.web.guard import Guard
from lore.web.history_api import router as history_router

if TYPE_CHECKING:
    from lore.web.mcp_http import Remote

STATIC = Path(__file__).parent / "static"


def _status_of(exc: LoreError) -> int:
    """A refusal is the caller's to fix (4xx); a store or model that cannot serve now is 503."""
    if isinstance(exc, NotFound):
        return 404
    if isinstance(exc, StoreError | NeedsModel):
        return 503
    return 400  # InvalidInput and any other refusal the user can act on


async def _lore_error(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, LoreError)
    return JSONResponse({"error": str(exc)}, status_code=_status_of(exc))


async def _http_error(_request: Request, exc: Exception) -> Response:
    """Unknown routes and methods answer in the same `{error}` shape as everything else."""
    assert isinstance(exc, HTTPException)
    if exc.status_code in (204, 304):
        return Response(status_code=exc.status_code, headers=exc.headers)
    return JSONResponse({"error": str(exc.detail)}, status_code=exc.status_code, headers=exc.headers)


def create_app(
    token: str, port: int | None = None, remote: Remote | None = None, public: str | None = None
) -> FastAPI:
    """The UI for one run: `token` must come with every API call; with `port`, the Host header
    must name exactly that port (otherwise any port of 127.0.0.1/localhost is accepted), or the
    host of `public` (the base URL clients use, when not plain 127.0.0.1). With `remote`, the
    app also serves the MCP connector (`/mcp` and its OAuth, `web/mcp_http.py`)."""
    if len(token) < 16:
        raise InvalidInput("the web UI token must be at least 16 characters")
    app = FastAPI(title="Lore", docs_url=None, redoc_url=None, openapi_url=None)
    app.include_router(router, prefix="/api")
    app.include_router(books_router, prefix="/api/books")
    app.include_router(history_router, prefix="/api/history")
    app.add_exception_handler(LoreError, _lore_error)
    app.add_exception_handler(HTTPException, _http_error)

    @app.get("/", include_in_schema=False)
    def index() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    @app.get("/favicon.ico", include_in_schema=False)
    def favicon() -> Response:  # browsers ask for it; there is none
        return Response(status_code=204)

    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    if remote is not None:
        from lore.web.mcp_http import attach

        attach(app, token, port, remote)
    app.add_middleware(Guard, token=token, port=port, public=public or (remote.base_url if remote else None))
    return app
