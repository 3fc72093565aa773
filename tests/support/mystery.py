"""The test mystery as fixtures: its EPUB built in the test's folder, and the book imported.

Import them where wanted (`from support.mystery import mystery_fixture as mystery_fixture`);
kept apart from `support.books`, which the benches import and which needs nothing but stdlib.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from lore.books import library
from support.books import make_epub, mystery_book


@pytest.fixture(name="mystery_epub")
def mystery_epub_fixture(tmp_path: Path) -> Path:
    """A five-chapter EPUB 3: Clara Vane first named in chapter 3, revealed as poisoner in 5."""
    return make_epub(tmp_path / "vane.epub", mystery_book())


@pytest.fixture(name="mystery")
def mystery_fixture(mystery_epub: Path) -> library.Book:
    return library.add_book(mystery_epub)
