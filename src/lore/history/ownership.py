"""Who wrote a file and how old its code is: the per-file views code-maat and CodeScene give.

- `owners`: each file's main developer, by lines added (code-maat's `main-dev`) and by commits
  (`main-dev-by-revs`), with the share each holds, so a file one person wrote alone stands out
  from one that many people share;
- `authors`: for one file, across its renames, every author with commits, lines and the first
  and last dates (`git shortlog` for one file, with dates);
- `age`: months since each file last changed, counted back from the last commit of the history
  (code-maat's `age`), the context a hotspot needs: busy and still changing, or busy long ago.

Authors are people as the graph knows them: the `.mailmap` applied at ingest joins one person's
identities, and a GitHub no-reply address meets the login. Every change is given to its file by
the same lineage walk as `churn` and `file`, so the numbers agree with them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from lore.core.dates import iso_utc as iso
from lore.history import queries
from lore.history.queries import Filters
from lore.history.repos import Repo
from lore.history.store.records import ChangeEvent

MONTH = 30.4375 * 86400  # an average month, in seconds


@dataclass(frozen=True)
class Window:
    """The changes a view counts: authored inside [since, until], by the authors the filters keep."""

    since: float | None = None
    until: float | None = None
    filters: Filters = field(default_factory=Filters)

    def keeps(self, ev: ChangeEvent) -> bool:
        if self.since is not None and ev.authored_at < self.since:
            return False
        if self.until is not None and ev.authored_at > self.until:
            return False
        return self.filters.keeps_author(ev)


def window(repo: Repo, since: str | None, until: str | None, filters: Filters | None) -> Window:
    """`--since/--until` (dates or ages counted back from the last commit) and the filters."""
    return Window(queries.since_time(repo, since), queries.since_time(repo, until), filters or Filters())


@dataclass
class _Author:
    name: str
    email: str
    commits: set[int] = field(default_factory=set)
    added: int = 0
    removed: int = 0
    first: float | None = None
    last: float | None = None

    def add(self, ev: ChangeEvent) -> None:
        self.commits.add(ev.commit_id)
        self.added += ev.added
        self.removed += ev.removed
        self.first = ev.authored_at if self.first is None else min(self.first, ev.authored_at)
        self.last = ev.authored_at if self.last is None else max(self.last, ev.authored_at)


def _by_author(events: Sequence[ChangeEvent]) -> list[_Author]:
    """One row per person, in the order of most commits, then most lines added, then name.

    A person is the graph's person node (mailmap and no-reply addresses already joined); the
    name shown is the one of their newest change."""
    people: dict[object, _Author] = {}
    for ev in events:  # newest first: the first name seen is the newest
        key = ev.author_id if ev.author_id is not None else ev.author_email.lower()
        row = people.get(key)
        if row is None:
            row = people[key] = _Author(ev.author_name, ev.author_email)
        row.add(ev)
    return sorted(people.values(), key=lambda a: (-len(a.commits), -a.added, a.name))


def owners(
    repo: Repo, *, paths: Sequence[str] = (), n: int | None = None, win: Window | None = None
) -> list[dict[str, Any]]:
    """Each file's main developer by lines added and by commits, with their shares (0..1).

    Files no longer in the tree are left out (nobody owns them now); `paths` are globs (or
    exact paths) over the file's current name. Sorted by lines added, busiest first."""
    win = win or Window()
    out = []
    for entry, events in queries.files_with_changes(repo):
        if entry["deleted"] or entry["replaced"] or not _path_matches(entry["path"], paths):
            continue
        kept = [ev for ev in events if win.keeps(ev)]
        if not kept:
            continue
        people = _by_author(kept)
        total_added = sum(a.added for a in people)
        total_commits = len({ev.commit_id for ev in kept})
        by_lines = max(people, key=lambda a: (a.added, len(a.commits), a.name))
        by_commits = people[0]
        out.append(
            {
                "path": entry["path"],
                "main_dev": by_lines.name,
                "main_dev_email": by_lines.email,
                "added": by_lines.added,
                "total_added": total_added,
                "ownership": round(by_lines.added / total_added, 3) if total_added else 0.0,
                "main_dev_by_commits": by_commits.name,
                "commits": len(by_commits.commits),
                "total_commits": total_commits,
                "commit_share": round(len(by_commits.commits) / total_commits, 3),
                "authors": len(people),
            }
        )
    out.sort(key=lambda r: (-r["total_added"], r["path"]))
    return out if n is None else out[:n]


def authors(repo: Repo, path: str, *, win: Window | None = None) -> dict[str, Any]:
    """Every author of one file (across its renames): commits, lines added and removed, first
    and last change, most commits first."""
    win = win or Window()
    node, events = queries.changes_of(repo, path)
    kept = [ev for ev in events if win.keeps(ev)]
    people = _by_author(kept)
    total = len({ev.commit_id for ev in kept})
    return {
        "file": node.key,
        "commits": total,
        "authors": [
            {
                "name": a.name,
                "email": a.email,
                "commits": len(a.commits),
                "share": round(len(a.commits) / total, 3) if total else 0.0,
                "added": a.added,
                "removed": a.removed,
                "first": iso(a.first),
                "last": iso(a.last),
            }
            for a in people
        ],
    }


def age(
    repo: Repo, *, paths: Sequence[str] = (), n: int | None = None, win: Window | None = None
) -> dict[str, Any]:
    """Months since each file present in the tree last changed, counted back from the history's
    last commit (so an old clone answers the same on any day), or from `until`; youngest first."""
    win = win or Window()
    end = win.until if win.until is not None else queries.history_end(repo)
    rows = []
    for entry, events in queries.files_with_changes(repo):
        if entry["deleted"] or entry["replaced"] or not _path_matches(entry["path"], paths):
            continue
        kept = [ev for ev in events if win.keeps(ev)]
        if not kept or end is None:
            continue
        last = max(ev.authored_at for ev in kept)
        rows.append(
            {
                "path": entry["path"],
                "last_changed": iso(last),
                "age_months": round(max(0.0, end - last) / MONTH, 1),
                "commits": len({ev.commit_id for ev in kept}),
            }
        )
    rows.sort(key=lambda r: (r["age_months"], r["path"]))
    return {"as_of": iso(end), "files": rows if n is None else rows[:n]}


def _path_matches(path: str, patterns: Sequence[str]) -> bool:
    """A glob (`src/**/*.py`) or a path: a file itself, or a folder holding it."""
    if not patterns:
        return True
    for pattern in patterns:
        clean = pattern.strip().rstrip("/")
        if path == clean or path.startswith(clean + "/") or Filters(paths=(pattern,)).keeps_path(path):
            return True
    return False
