"""Every live file's history matches `git log --follow` through the branching patterns: a rename
on either side of a merge while the other side edits the old name, renames on both sides, a
rename then a deletion, a path added on two branches, a file deleted and added back.

Where `git log --follow` itself loses a side (it follows one name back in date order, so edits
under the old name newer than a rename made on another branch are not followed), the expected
set is what `git log --follow` lists from each parent of the merge under the name the file has
there. Where git follows a file into another one (a path reused after its file was renamed
away), Lore keeps the two files apart (docs/history.md, "Lineage")."""

from __future__ import annotations

from pathlib import Path

import pytest

from lore.history import queries as q
from lore.history.ingest.git import ingest_git
from lore.history.ownership import authors
from lore.history.repos import Repo, resolve_repo
from support.history_repo import BOB, CAROL, HistoryRepo, lines, merge, run_git

pytestmark = pytest.mark.usefixtures("backend")  # each test on SQLite and on PostgreSQL


def _lore(repo: Repo, path: str) -> set[str]:
    story = q.file_history(repo, path)
    shas = [e["sha"] for e in story["entries"] if e["kind"] == "commit"]
    assert len(shas) == len(set(shas))
    return set(shas)


def _follow(root: Path, path: str, rev: str = "HEAD") -> set[str]:
    """What `git log --follow` lists for `path` from `rev` (merge commits aside: Lore lists a
    merge's changes under the commits that made them)."""
    return set(run_git(root, "log", "--follow", "--no-merges", "--format=%H", rev, "--", path).split())


def _live(root: Path) -> list[str]:
    return run_git(root, "ls-files").split()


def _ingest(r: HistoryRepo) -> Repo:
    ingest_git(r.root)
    return resolve_repo(str(r.root))


def _churn(repo: Repo) -> dict[str, int]:
    return {row["path"]: row["commits"] for row in q.churn(repo, n=1000) if not row["replaced"]}


def _assert_every_live_file_matches_git(r: HistoryRepo, repo: Repo) -> None:
    churn = _churn(repo)
    for path in _live(r.root):
        mine = _lore(repo, path)
        assert mine == _follow(r.root, path), path
        assert churn[path] == len(mine), path  # churn counts the same file
        assert authors(repo, path)["commits"] == len(mine), path


def _core(r: HistoryRepo, *edits: int, tag: str = "core") -> dict[str, str]:
    """pkg/core.py's text with lines `edits` changed (each edit its own line, so sides merge)."""
    text = [f"{tag} line {i}\n" for i in range(12)]
    for n in edits:
        text[n] = f"edited line {n}\n"
    return {"pkg/core.py": "".join(text)}


def _base(tmp_path: Path, name: str) -> HistoryRepo:
    r = HistoryRepo(tmp_path / name)
    r.commit("Add core", {**_core(r), "README.md": "x\n", "pkg/util.py": lines(8, "util")})
    return r


def test_a_rename_merged_in_keeps_the_edits_made_under_the_old_name(tmp_path: Path) -> None:
    """The reported case: main edits pkg/core.py while `stable` moves pkg/ to src/pkg/."""
    r = _base(tmp_path, "merged-in")
    r.git("branch", "stable")
    e5 = r.commit("Edit line 5", _core(r, 5), BOB)
    e9 = r.commit("Edit line 9", _core(r, 5, 9), CAROL)
    r.git("checkout", "-q", "stable")
    (r.root / "src").mkdir()
    r.git("mv", "pkg", "src/pkg")
    r.commit("Move pkg into src", {})
    r.git("checkout", "-q", "main")
    merge(r, "stable", "Merge stable")
    repo = _ingest(r)
    _assert_every_live_file_matches_git(r, repo)
    mine = _lore(repo, "src/pkg/core.py")
    assert {e5, e9} <= mine and len(mine) == 4
    blamed = run_git(r.root, "blame", "-L6,6", "--porcelain", "src/pkg/core.py").split()[0]
    assert blamed == e5 and blamed in mine
    names = {a["name"] for a in authors(repo, "src/pkg/core.py")["authors"]}
    assert {"Bob", "Carol"} <= names


def test_a_rename_on_the_main_line_keeps_the_merged_branch_edits(tmp_path: Path) -> None:
    r = _base(tmp_path, "mainline")
    r.git("checkout", "-q", "-b", "feature")
    r.commit("Edit line 5 on feature", _core(r, 5), BOB)
    r.commit("Edit line 9 on feature", _core(r, 5, 9), BOB)
    r.git("checkout", "-q", "main")
    (r.root / "src").mkdir()
    r.git("mv", "pkg", "src/pkg")
    r.commit("Move pkg into src", {})
    merge(r, "feature", "Merge feature")
    r.commit("Edit after the merge", {"src/pkg/core.py": (r.root / "src/pkg/core.py").read_text() + "end\n"})
    repo = _ingest(r)
    _assert_every_live_file_matches_git(r, repo)
    assert len(_lore(repo, "src/pkg/core.py")) == 5


def test_edits_newer_than_the_rename_are_kept_where_git_follow_loses_them(tmp_path: Path) -> None:
    """git follows one name back in date order: the main-side edits come before the rename in
    that order and are matched against the new name, so `git log --follow` misses them."""
    r = _base(tmp_path, "newer")
    r.git("checkout", "-q", "-b", "stable")
    (r.root / "src").mkdir()
    r.git("mv", "pkg", "src/pkg")
    moved = r.commit("Move pkg into src", {})
    r.git("checkout", "-q", "main")
    r.commit("Edit line 5", _core(r, 5), BOB)
    main_tip = r.commit("Edit line 9", _core(r, 5, 9), CAROL)
    merge(r, "stable", "Merge stable")
    repo = _ingest(r)
    path = "src/pkg/core.py"
    each_side = _follow(r.root, "pkg/core.py", main_tip) | _follow(r.root, path, moved)
    assert _follow(r.root, path) < each_side  # git's own --follow misses the main side
    assert _lore(repo, path) == each_side
    assert _churn(repo)[path] == len(each_side)


def test_the_same_rename_on_both_sides(tmp_path: Path) -> None:
    r = _base(tmp_path, "same-target")
    r.git("checkout", "-q", "-b", "other")
    r.commit("Edit line 2", _core(r, 2), BOB)
    r.git("mv", "pkg/core.py", "pkg/engine.py")
    r.commit("Rename core to engine on other", {}, BOB)
    r.git("checkout", "-q", "main")
    r.commit("Edit line 10", _core(r, 10))
    r.git("mv", "pkg/core.py", "pkg/engine.py")
    r.commit("Rename core to engine on main", {})
    merge(r, "other", "Merge other", {"pkg/engine.py": "".join(_core(r, 2, 10).values())})
    repo = _ingest(r)
    _assert_every_live_file_matches_git(r, repo)
    assert len(_lore(repo, "pkg/engine.py")) == 5


def test_different_renames_on_both_sides_give_the_kept_name_both_sides(tmp_path: Path) -> None:
    """main renames core.py to engine.py, `other` to motor.py; the merge keeps engine.py with
    both sides' edits. Both lines of edits made the file the merge kept."""
    r = _base(tmp_path, "two-targets")
    r.git("checkout", "-q", "-b", "other")
    r.git("mv", "pkg/core.py", "pkg/motor.py")
    r.commit("Rename core to motor", {}, BOB)
    other_tip = r.commit("Edit motor", {"pkg/motor.py": "".join(_core(r, 2).values())}, BOB)
    r.git("checkout", "-q", "main")
    r.git("mv", "pkg/core.py", "pkg/engine.py")
    r.commit("Rename core to engine", {})
    main_tip = r.commit("Edit engine", {"pkg/engine.py": "".join(_core(r, 10).values())})
    merge(
        r,
        "other",
        "Merge other",
        {"pkg/engine.py": "".join(_core(r, 2, 10).values()), "pkg/motor.py": None, "pkg/core.py": None},
    )
    assert "pkg/motor.py" not in _live(r.root)
    repo = _ingest(r)
    each_side = _follow(r.root, "pkg/engine.py", main_tip) | _follow(r.root, "pkg/motor.py", other_tip)
    assert _lore(repo, "pkg/engine.py") == each_side
    for path in ("README.md", "pkg/util.py"):
        assert _lore(repo, path) == _follow(r.root, path)


def test_a_rename_then_a_deletion_on_a_branch(tmp_path: Path) -> None:
    """`other` renames util.py, edits it and deletes it; main keeps editing util.py, and the
    merge keeps main's file. The rename commit belongs to the file it made (helpers.py, whose
    story it starts); git also lists it under util.py, the name it took away on that branch.
    A second file is renamed then deleted on main for good."""
    r = _base(tmp_path, "rename-delete")
    r.commit("Add notes", {"pkg/notes.py": lines(6, "notes")})
    r.git("checkout", "-q", "-b", "other")
    r.git("mv", "pkg/util.py", "pkg/helpers.py")
    renamed = r.commit("Rename util to helpers", {}, BOB)
    r.commit("Edit helpers", {"pkg/helpers.py": lines(9, "util")}, BOB)
    r.git("rm", "-q", "pkg/helpers.py")
    r.commit("Drop helpers", {}, BOB)
    r.git("checkout", "-q", "main")
    r.commit("Edit util on main", {"pkg/util.py": lines(10, "util")})
    r.git("mv", "pkg/notes.py", "pkg/memo.py")
    r.commit("Rename notes to memo", {})
    r.git("rm", "-q", "pkg/memo.py")
    r.commit("Drop memo", {})
    merge(r, "other", "Merge other", {"pkg/util.py": lines(10, "util")})
    repo = _ingest(r)
    churn = _churn(repo)
    for path in _live(r.root):
        expected = _follow(r.root, path) - ({renamed} if path == "pkg/util.py" else set())
        assert _lore(repo, path) == expected, path
        assert churn[path] == len(expected), path
    assert renamed in _follow(r.root, "pkg/util.py")
    assert _lore(repo, "pkg/helpers.py") == _follow(r.root, "pkg/helpers.py", "other")
    memo = q.file_history(repo, "pkg/memo.py")
    assert memo["fate"]["status"] == "deleted"
    assert _lore(repo, "pkg/memo.py") == _follow(r.root, "pkg/memo.py", "HEAD^1")


def test_a_path_added_on_two_branches_is_one_file(tmp_path: Path) -> None:
    r = _base(tmp_path, "add-add")
    r.git("checkout", "-q", "-b", "other")
    r.commit("Changelog on other", {"CHANGES.rst": "other\n"}, BOB)
    r.commit("More changelog on other", {"CHANGES.rst": "other\nmore\n"}, BOB)
    r.git("checkout", "-q", "main")
    r.commit("Changelog on main", {"CHANGES.rst": "main\n"})
    merge(r, "other", "Merge other", {"CHANGES.rst": "main\nother\nmore\n"})
    r.commit("Changelog after", {"CHANGES.rst": "main\nother\nmore\nafter\n"})
    repo = _ingest(r)
    _assert_every_live_file_matches_git(r, repo)
    assert len(_lore(repo, "CHANGES.rst")) == 4


def test_a_file_deleted_and_added_back(tmp_path: Path) -> None:
    """On the main line (both stretches are the path's history, as git lists them), and on a
    branch while main keeps editing it."""
    r = _base(tmp_path, "readded")
    r.commit("Edit util", {"pkg/util.py": lines(9, "util")})
    r.git("rm", "-q", "pkg/util.py")
    r.commit("Drop util", {})
    r.commit("Bring util back", {"pkg/util.py": lines(4, "util")}, BOB)
    r.commit("Edit util again", {"pkg/util.py": lines(5, "util")})
    r.git("checkout", "-q", "-b", "other")
    r.git("rm", "-q", "README.md")
    r.commit("Drop readme on other", {}, BOB)
    r.commit("Readme back on other", {"README.md": "back\n"}, BOB)
    r.git("checkout", "-q", "main")
    r.commit("Edit readme on main", {"README.md": "x\nmain\n"})
    merge(r, "other", "Merge other", {"README.md": "back\nmain\n"})
    repo = _ingest(r)
    _assert_every_live_file_matches_git(r, repo)
    assert len(_lore(repo, "pkg/util.py")) == 5


def test_a_path_reused_after_a_rename_keeps_its_two_files_apart(tmp_path: Path) -> None:
    """git --follow lists the old file's commits under the new one; Lore gives each file its
    own: the new file at the path, the old one under the name it moved to."""
    r = _base(tmp_path, "reused")
    r.commit("Edit util", {"pkg/util.py": lines(9, "util")})
    r.git("mv", "pkg/util.py", "pkg/helpers.py")
    moved = r.commit("Rename util to helpers", {})
    r.commit("New util", {"pkg/util.py": "fresh\n"}, BOB)
    r.commit("Edit new util", {"pkg/util.py": "fresh\nagain\n"}, BOB)
    repo = _ingest(r)
    old_file = _follow(r.root, "pkg/util.py", f"{moved}~1")
    assert _lore(repo, "pkg/util.py") == _follow(r.root, "pkg/util.py") - old_file - {moved}
    assert _lore(repo, "pkg/helpers.py") == _follow(r.root, "pkg/helpers.py")
