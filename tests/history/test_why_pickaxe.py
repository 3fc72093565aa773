"""The identifier arm orders commits as the pickaxe points at them: the commit whose diff names
several of the identifiers a question names wrote that code, and the commit that first added an
identifier ranks above the later commits that touched it."""

from __future__ import annotations

from pathlib import Path

import pytest

from lore.history.ingest.git import ingest_git
from lore.history.repos import resolve_repo
from lore.history.why.service import gather, units
from support.history_repo import HistoryRepo, lines

pytestmark = pytest.mark.usefixtures("backend")  # each test on SQLite and on PostgreSQL

BAR = "class Bar:\n    def draw(self):\n        return self.pos\n"


def test_the_commit_naming_every_identifier_asked_about_ranks_first(tmp_path: Path) -> None:
    r = HistoryRepo(tmp_path / "bars")
    r.commit("Add the bar", {"bars/bar.py": BAR})
    throttle = BAR + "    min_redraw_steps = 4\n    _pending_steps = 0\n"
    wrote = r.commit("Throttle the progress bar", {"bars/bar.py": throttle})
    r.commit("Add the docs", {"bars/notes.py": lines(6, "notes")})
    later = throttle.replace("_pending_steps = 0", "_pending_steps: int = 0")
    touched = r.commit("Tidy the progress bar", {"bars/bar.py": later})
    ingest_git(r.root)
    question = "Why does the progress bar hold min_redraw_steps and collect _pending_steps before it redraws?"
    ranked = units(gather(resolve_repo(str(r.root)), question).evidence)
    assert ranked[0] == f"commit:{wrote}"
    assert ranked.index(f"commit:{wrote}") < ranked.index(f"commit:{touched}")


def test_the_commit_that_added_an_identifier_ranks_above_a_later_touch(tmp_path: Path) -> None:
    r = HistoryRepo(tmp_path / "streams")
    r.commit("Add the stream", {"streams/stream.py": "def write(data):\n    return data\n"})
    guarded = "def write(data):\n    flush_guard(data)\n    return data\n"
    added = r.commit("Guard the stream", {"streams/stream.py": guarded})
    r.commit("Add the reader", {"streams/reader.py": lines(6, "reader")})
    touched = r.commit(
        "Tidy the stream guard",
        {"streams/stream.py": guarded.replace("flush_guard(data)", "flush_guard(data)  # once")},
    )
    ingest_git(r.root)
    ranked = units(gather(resolve_repo(str(r.root)), "Why does the stream call flush_guard?").evidence)
    assert ranked.index(f"commit:{added}") < ranked.index(f"commit:{touched}")


def test_a_change_inside_a_named_function_counts_as_touching_it(tmp_path: Path) -> None:
    """The commit that added a branch inside `settle_pending_rows` names the function on no line
    it wrote; the hunk's header does, so it ranks above a commit elsewhere that shares more of
    the question's words."""
    r = HistoryRepo(tmp_path / "ledger")
    body = "".join(f"    total_{i} = rows[{i}]\n" for i in range(8))
    settle = f"def settle_pending_rows(rows):\n{body}    return rows\n"
    r.commit("Add the settlement step", {"ledger/settle.py": settle})
    guarded = settle.replace(body, body + "    if not rows:\n        return []\n")
    inside = r.commit("Handle empty batches", {"ledger/settle.py": guarded})
    elsewhere = r.commit(
        "Return early on empty batches in the reader",
        {"ledger/reader.py": "def read(rows):\n    if not rows:\n        return []\n    return rows\n"},
    )
    ingest_git(r.root)
    question = "Why does settle_pending_rows return early on empty batches?"
    ranked = units(gather(resolve_repo(str(r.root)), question).evidence)
    assert ranked.index(f"commit:{inside}") < ranked.index(f"commit:{elsewhere}")
