"""The book face of `lore demo`: a short public-domain story, imported once, asked at a position.

"A Scandal in Bohemia" (Arthur Conan Doyle, 1891; public domain) ships as package data in its
three parts. The demo imports it into the library once (the same file twice is the same book),
and asks a question at the end of part II without touching the reader's recorded position, so
a newcomer sees a cited, spoiler-free answer with no key and no download.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources

from lore.books.ask import Answer, ask
from lore.books.library import Book, Stores, add_book, open_books
from lore.core.home import lore_home

QUESTION = "Who is Irene Adler?"
POSITION = (2, None)  # the end of part II: the photograph's hiding place is still to come


@dataclass
class DemoAnswer:
    book: Book
    position: tuple[int, int | None]
    answer: Answer


def story_text() -> str:
    """The story as plain text with its part headings, as `lore books add` reads a .txt file."""
    data = json.loads(
        resources.files(__package__).joinpath("scandal_in_bohemia.json").read_text(encoding="utf-8")
    )
    body = "\n\n".join(f"{c['title']}\n\n{c['text']}" for c in data["chapters"])
    return f"Title: {data['title']}\nAuthor: {data['author']}\n\n{body}\n"


def demo_book(store: Stores = None) -> Book:
    folder = lore_home() / "demo-books"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "a-scandal-in-bohemia.txt"
    text = story_text()
    if not path.is_file() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")
    return add_book(path, store=store)


def demo_answer(question: str = QUESTION, store: Stores = None) -> DemoAnswer:
    db = open_books(store)
    book = demo_book(db)
    answer = ask(book.id, None, question, position=POSITION, use_model=False, store=db)
    return DemoAnswer(book, POSITION, answer)
