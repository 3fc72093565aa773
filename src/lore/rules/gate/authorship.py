"""Which lines of a git folder's reflog record work done on this disk, and which git folders
speak for a work tree: the evidence `trust` weighs for "commits made in this clone".

Kept apart from `trust` (which turns evidence into a verdict, asks GitHub and remembers the
answer) because it is the part that reads the disk: the reflog's lines, the change times
(ctime) of the git folder's entries and of the loose objects the lines name. Its threat model
is the one `trust` states: an attacker controls every byte of a repository, including, in an
archive, the whole `.git` and the files' modification times, but not the change times files
get as they land on this disk.
"""

from __future__ import annotations

import math
import os
import stat
import time
from dataclasses import dataclass
from pathlib import Path

from lore.core import git

SLACK_SECONDS = 2  # reflog times are whole seconds; ctimes are not
MAX_ENTRIES = 4000  # entries of the git folder looked at for its arrival time
# reflog actions that write a new commit here (a fast-forward merge writes none)
LOCAL_ACTIONS = ("commit", "merge", "rebase", "cherry-pick", "revert")
NO_COMMIT_STEPS = ("(start)", "(finish)", "(abort)", "-i (start)", "-i (finish)", "-i (abort)")


def own_git_folders(root: Path) -> tuple[list[Path], str]:
    """The git folders whose reflogs speak for the work tree at `root`, or ([], why not).

    A `.git` that is a link, or a `gitdir:` file naming a git folder that does not point back
    here, borrows the history of another repository (one of yours, perhaps): that is no
    evidence about this folder. A linked worktree (`git worktree add`) points back through
    its `gitdir` file and shares the main repository's reflog too; a submodule's git folder
    names this work tree in its `core.worktree`.
    """
    dotgit = root / ".git"
    borrowed = "its .git points to the git folder of another place, so its commits say nothing"
    try:
        mode = os.lstat(dotgit).st_mode
    except OSError:
        return [], borrowed
    folder = git.git_dir(root)
    if folder is None:
        return [], borrowed
    if stat.S_ISDIR(mode):
        return ([folder], "") if folder.resolve() == dotgit.resolve() else ([], borrowed)
    if not stat.S_ISREG(mode):
        return [], borrowed
    back = folder / "gitdir"
    if back.is_file():  # a linked worktree
        if not _same(back.read_text(encoding="utf-8", errors="replace").strip(), folder, dotgit):
            return [], borrowed
        common = git.common_dir(root)
        return ([folder, common] if common is not None and common != folder else [folder]), ""
    worktree = git.run(["config", "--file", str(folder / "config"), "--get", "core.worktree"], "/")
    if worktree.ok and _same(worktree.text.strip(), folder, root):  # a submodule
        return [folder], ""
    return [], borrowed


def _same(named: str, base: Path, expected: Path) -> bool:
    """Whether a path written in a git file (relative to `base`) is `expected`."""
    if not named:
        return False
    try:
        return (base / named).resolve() == expected.resolve()
    except (OSError, RuntimeError):
        return False


@dataclass(frozen=True)
class Reflog:
    """HEAD's reflog of one git folder, with the times that bound which lines were written here.

    `arrived`: when the folder came to be on this disk (`arrived_at`); `last_write`: the
    reflog file's ctime, the last time anything wrote it here; `elsewhere`: set when some line
    is dated after `last_write`, which git on this disk cannot have written: the newest date in
    the file, up to which no line counts, now or later (the caller remembers it, because once
    that date has passed such lines would look ordinary).
    """

    folder: Path
    folder_id: str = ""  # device, inode and first reflog line: the same folder while it lives
    entries: tuple[git.ReflogEntry, ...] = ()
    arrived: float = 0.0
    last_write: float = 0.0
    elsewhere: float | None = None

    @classmethod
    def of(cls, folder: Path) -> Reflog:
        try:
            info = os.stat(folder)
            log = os.lstat(folder / "logs" / "HEAD")
        except OSError:
            return cls(folder)
        entries = tuple(git.read_reflog(folder))
        # a folder made anew at the same place may get the same inode, never the same first line;
        # that line changes only when `git gc` expires it, which also packs the objects forged
        # lines point at, and packed objects never count
        first = f"{entries[0].new}:{entries[0].at}" if entries else ""
        folder_id = f"{info.st_dev}:{info.st_ino}:{first}"
        if not entries or not stat.S_ISREG(log.st_mode):  # a link could borrow another file's times
            return cls(folder, folder_id)
        last_write = min(log.st_ctime, time.time())
        future = any(e.at > last_write + SLACK_SECONDS for e in entries)
        return cls(
            folder,
            folder_id,
            entries,
            arrived_at(folder),
            last_write,
            float(max(e.at for e in entries)) if future else None,
        )

    def made_here(self, email: str, written_elsewhere: float | None) -> list[git.ReflogEntry]:
        """Lines by `email` dated between the folder's arrival and the reflog's last write (and
        after any line known to be written elsewhere)."""
        if not email or not self.entries:
            return []
        earliest: float = math.floor(self.arrived) - SLACK_SECONDS
        if written_elsewhere is not None:
            earliest = max(earliest, written_elsewhere + 1)
        latest = self.last_write + SLACK_SECONDS
        return [e for e in self.entries if e.email.lower() == email and earliest <= e.at <= latest]

    def commits_made_here(self, email: str, written_elsewhere: float | None) -> int:
        """Lines of `made_here` that wrote a commit here.

        The commit must also sit in a loose object file written (ctime) within seconds of the
        time its line claims: git writes both in the same command, while an archive's objects
        all get the moment of unpacking, which a forged line cannot know in advance. Commits
        already packed by `git gc` no longer count.
        """
        objects = objects_of(self.folder)
        count = 0
        for entry in self.made_here(email, written_elsewhere):
            action, _, step = entry.action.partition(" ")
            if (
                action not in LOCAL_ACTIONS
                or step in NO_COMMIT_STEPS
                or "fast-forward" in entry.message.lower()
            ):
                continue
            stored = git.loose_object(objects, entry.new)
            try:
                written = os.lstat(stored).st_ctime if stored is not None else None
            except OSError:
                written = None
            if written is not None and abs(written - entry.at) <= SLACK_SECONDS + 1:
                count += 1
        return count

    def cloned_from(self, email: str, written_elsewhere: float | None) -> str | None:
        """The URL this clone was made from, when git wrote that line here (`clone: from URL`)."""
        for entry in self.made_here(email, written_elsewhere):
            if entry.action == "clone" and "clone: from " in entry.message:
                return entry.message.partition("clone: from ")[2].strip()
        return None


def objects_of(folder: Path) -> Path:
    """The objects folder of a git folder (a linked worktree's lives in the common folder)."""
    common = folder / "commondir"
    if common.is_file():
        named = common.read_text(encoding="utf-8", errors="replace").strip()
        return (folder / named).resolve() / "objects"
    return folder / "objects"


def arrived_at(folder: Path) -> float:
    """When this git folder came to be on this disk: the oldest change time (ctime) among its
    entries and those of a few folders git fills when it creates a repository. ctime cannot be
    set by an archive or a copy, so the answer is never earlier than the unpacking."""
    times = []
    seen = 0
    for place in (folder, folder / "hooks", folder / "info", folder / "refs", folder / "logs"):
        try:
            times.append(os.lstat(place).st_ctime)
            with os.scandir(place) as listing:
                for item in listing:
                    times.append(item.stat(follow_symlinks=False).st_ctime)
                    seen += 1
                    if seen >= MAX_ENTRIES:
                        return min(times)
        except OSError:
            continue
    return min(times) if times else time.time()
