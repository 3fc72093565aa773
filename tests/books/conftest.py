"""Fixtures for book tests: small built books, and the shared books imported once per session."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from lore.books import library
from lore.core.store.base import Store
from lore.core.store.sqlite import SqliteStore
from support.mystery import mystery_epub_fixture as mystery_epub_fixture
from support.mystery import mystery_fixture as mystery_fixture


class SharedLibrary:
    """The shared books, each imported once per test session into one store."""

    def __init__(self, root: Path, store: Store):
        self.store = store
        self.root = root
        self._books: dict[str, library.Book] = {}

    def book(self, folder: Path, name: str) -> library.Book:
        if name not in self._books:
            self._books[name] = library.add_book(folder / "books" / name, store=self.store)
        return library.get_book(self._books[name].id, store=self.store)


@pytest.fixture(scope="session")
def _shared_session(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SharedLibrary]:
    root = tmp_path_factory.mktemp("shared-library")
    yield SharedLibrary(root, SqliteStore(root / "lore.db"))


@pytest.fixture
def shared(shared_data: Path, _shared_session: SharedLibrary) -> Iterator[tuple[Path, SharedLibrary]]:
    """(shared data folder, the session's library); skips when the shared folder is absent."""
    yield shared_data, _shared_session
