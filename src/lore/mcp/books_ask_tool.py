"""The `books_ask` MCP tool: the same cited, capped answer as `lore books ask`.

The books modules are imported when the tool is called, not when the server starts (agents
start the server at the beginning of every session and most never ask about a book).
"""

from __future__ import annotations

from typing import Annotated

from mcp_types import ToolAnnotations
from pydantic import Field

from lore.mcp.toolbox import Toolbox, call

ASKING = ToolAnnotations(
    read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)


def answer_text(
    question: str, book: str | None = None, series: str | None = None, spoilers: bool = False
) -> str:
    """The answer as text: sentences with their citations, or why there is none."""
    from lore.books.ask import ask

    answer = ask(book, series, question, spoilers=spoilers)
    return answer.text()


def register(box: Toolbox) -> None:
    """Add `books_ask` to the server."""

    @box.tool(ASKING)
    def books_ask(
        question: Annotated[str, Field(description="The reader's question (at most 500 characters).")],
        book: Annotated[str | None, Field(description="Book id or a unique part of its title.")] = None,
        series: Annotated[str | None, Field(description="A series name: ask across its books.")] = None,
        spoilers: Annotated[
            bool, Field(description="Lift the reader's position for this question only (only when they ask).")
        ] = False,
    ) -> str:
        """Answer a question about a book in the user's Lore library from the part they have read.

        Every sentence cites its chapter and an exact quote; nothing past the reader's position
        is read or sent to a model. Say "not reached yet" answers as they are."""
        return call(answer_text, question, book, series, spoilers)
