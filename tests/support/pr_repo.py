"""A git-only history whose PRs are known from commit subjects alone, with long paths.

Nothing is read from GitHub: every PR the history knows is named by a subject, as squash merges
(`Add the renderer (#3)`) and merge commits (`Merge pull request #7 from bob/limits`) name them.
Some files sit deep enough that their paths are wider than half of a chart, which is what the
web view's charts must lay out without cutting a label.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from support.history_repo import BOB, HistoryRepo

DEEP = "src/acme_platform/interfaces/web/static/components/timeline"
PATHS = [
    f"{DEEP}/history_timeline_renderer.py",
    f"{DEEP}/chart_label_layout_engine.py",
    "src/acme_platform/domains/history/ingest/commit_subject_parser.py",
    "README.md",
]
SQUASHED = [2, 3, 5, 8]  # PRs merged as one commit each, named `(#N)` in the subject
MERGED = 9  # a PR merged with a merge commit


@dataclass
class PrRepo:
    root: Path
    prs: set[int] = field(default_factory=set)  # every PR a subject names
    paths: list[str] = field(default_factory=list)


def build_pr_repo(root: Path) -> PrRepo:
    """Commits on `main` naming PRs, and one PR merged from a branch; the first path is touched
    by every PR, so its timeline lists them all."""
    repo = HistoryRepo(root)
    repo.commit("Start", {p: f"# {p}\n" for p in PATHS})
    for n, pr in enumerate(SQUASHED):
        changed = {PATHS[0]: f"# renderer, version {n}\n", PATHS[1 + n % 2]: f"# version {n}\n"}
        repo.commit(f"Change the renderer, step {n} (#{pr})", changed)
    repo.git("checkout", "-q", "-b", "limits")
    repo.commit("Limit the rows", {PATHS[0]: "# renderer with limits\n"}, BOB)
    repo.git("checkout", "-q", "main")
    repo.commit("Note the limits", {"README.md": "# notes\n\nRows are limited.\n"})
    repo.git("merge", "-q", "--no-ff", "limits", "-m", f"Merge pull request #{MERGED} from bob/limits")
    return PrRepo(root, {*SQUASHED, MERGED}, list(PATHS))
