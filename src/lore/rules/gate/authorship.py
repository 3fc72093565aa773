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
# a commit written this soon after the git folder arrived could be part of the unpacking itself,
# timed by whoever served the archive: it also needs the index's word (`Reflog.index_written_here`)
NEAR_ARRIVAL_SECONDS = 600
CLOCK_SLACK = 0.01  # two times of one clock (this disk's), of files git wrote one after the other
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
    worktree: Path | None = None  # the work tree whose files this folder's index describes

    @classmethod
    def of(cls, folder: Path, worktree: Path | None = None) -> Reflog:
        """The reflog of git folder `folder`, whose index describes `worktree` (by default the
        folder above a `.git`; none for a bare repository)."""
        if worktree is None and folder.name == ".git":
            worktree = folder.parent
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
            return cls(folder, folder_id, worktree=worktree)
        last_write = min(log.st_ctime, time.time())
        future = any(e.at > last_write + SLACK_SECONDS for e in entries)
        return cls(
            folder,
            folder_id,
            entries,
            arrived_at(folder),
            last_write,
            float(max(e.at for e in entries)) if future else None,
            worktree,
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
        """Lines of `made_here` that wrote a commit on this disk, after this folder arrived.

        Each must name a commit in a loose object file that git wrote here for it (`_written_by_git`),
        in the order of the reflog. A commit written within `NEAR_ARRIVAL_SECONDS` of the
        folder's arrival counts only when the index vouches for it (`index_written_here`): an
        archive served on the fly, dated for the second it lands and unpacked at once, looks
        otherwise exactly like a repository just made here and committed in a hurry. Commits
        already packed by `git gc` no longer count.
        """
        objects = objects_of(self.folder)
        far = 0
        near: list[float] = []
        previous = 0.0
        for entry in self.made_here(email, written_elsewhere):
            action, _, step = entry.action.partition(" ")
            if (
                action not in LOCAL_ACTIONS
                or step in NO_COMMIT_STEPS
                or "fast-forward" in entry.message.lower()
            ):
                continue
            written = self._written_by_git(objects, entry)
            if written is None or written < previous - SLACK_SECONDS:  # out of git's order
                continue
            previous = max(previous, written)
            if written - self.arrived >= NEAR_ARRIVAL_SECONDS:
                far += 1
            else:
                near.append(written)
        if not near:
            return far
        since = self.index_written_here(len(self.entries[-1].new) // 2)
        # no slack: `git commit` closes the index before it writes the commit object, so on one
        # clock the index is never the later of the two; a `git status` or checkout run a few
        # milliseconds after an unpacking or a commit is, and must not vouch for it
        return far + sum(1 for written in near if since is not None and since <= written)

    def _written_by_git(self, objects: Path, entry: git.ReflogEntry) -> float | None:
        """The ctime of the loose object of `entry`'s commit, when git wrote it here for that line.

        Git writes the object and the reflog line in one command, so the object's change time
        lies within seconds of the line's time; and git never sets a file's modification time
        back, so the object's mtime lies between the folder's arrival and its own ctime. An
        archive's objects all get the moment of unpacking as their ctime, and tar and unzip
        restore the mtime the archive carries, from before it was unpacked.
        """
        stored = git.loose_object(objects, entry.new)
        if stored is None:
            return None
        try:
            info = os.lstat(stored)
        except OSError:
            return None
        if abs(info.st_ctime - entry.at) > SLACK_SECONDS + 1:
            return None
        if not self.arrived - CLOCK_SLACK <= info.st_mtime <= info.st_ctime + CLOCK_SLACK:
            return None
        return info.st_ctime

    def index_written_here(self, hash_bytes: int = 20) -> float | None:
        """When git last wrote this folder's index on this disk (its mtime), or None when the index
        was not written here: a commit near the arrival is vouched for when its object was
        written no earlier than that.

        The index's entries must carry the inode numbers and change times the work tree's files
        have on this disk (`core.git.index`), which nobody knows before the files land here, so
        an index that came in an archive fails. `git commit` writes the index before the commit
        object; a `git status`, `git add` or checkout run after the unpacking rewrites it with
        this disk's numbers, but later than every object the archive brought. The same holds
        after a commit of your own: a later `git add` or checkout leaves the commits made this
        close to the arrival without the index's word until your next commit.
        """
        if self.worktree is None:
            return None
        index = git.index_write(self.folder, self.worktree, hash_bytes)
        return index.mtime if index is not None and index.here else None

    def cloned_from(self, email: str, written_elsewhere: float | None) -> str | None:
        """The URL this clone was made from, when git wrote that line here (`clone: from URL`).

        The index must also have been written by git on this disk (a clone checks the files out
        and records them there), so an unpacked archive that nothing has run git in names no
        clone of yours."""
        hash_bytes = len(self.entries[-1].new) // 2 if self.entries else 20
        for entry in self.made_here(email, written_elsewhere):
            if entry.action == "clone" and "clone: from " in entry.message:
                if self.index_written_here(hash_bytes) is None:
                    return None
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
