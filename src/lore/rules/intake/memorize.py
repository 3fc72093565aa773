"""`lore memorize`: the instruction files a repository already has, as pending rules.

Every client keeps its own file: AGENTS.md, CLAUDE.md and `.claude/rules/`, Copilot's
`.github/copilot-instructions.md` and `.github/instructions/*.instructions.md`, Cursor's
`.cursor/rules/*.mdc` and `.cursorrules`, Windsurf's `.windsurfrules` and `.windsurf/rules/`,
Cline's `.clinerules` (a file or a folder). Each becomes pending rules split at natural
boundaries, scoped by its front matter or by the folder it lives in, and reported file by file.
They wait for approval because the person importing them is not reviewing each one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from lore.core import git
from lore.core.errors import InvalidInput
from lore.core.globs import parse_patterns
from lore.rules import service
from lore.rules.export import GENERATED_KEY, is_generated, strip_generated_block
from lore.rules.intake.candidates import Candidate, Saved, save_candidates
from lore.rules.intake.frontmatter import FrontMatter, split_front_matter
from lore.rules.intake.splitting import rule_title, split_markdown
from lore.rules.models import Project

MAX_FILE_BYTES = 2_000_000
_COMMENT = re.compile(r"<!--.*?-->", re.S)
_SKIP_DIRS = {"node_modules", ".git", ".venv", "venv", "dist", "build", "target", "vendor"}
_INSTRUCTION_FOLDERS = {".cursor", ".claude", ".github", ".windsurf", ".clinerules"}
_OUTSIDE = "a link to a place outside the repository ({}); not read"


@dataclass
class FileImport:
    """One instruction file: its kind, scope, the candidates it gave and everything reported."""

    path: str  # relative to the project root
    kind: str
    scope: list[str] = field(default_factory=list)
    candidates: list[Candidate] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # front matter, unreadable parts
    notes: list[str] = field(default_factory=list)  # stripped comments, dropped code
    skipped: str = ""  # why the whole file was not imported
    left_out: int = 0  # pieces judged no rule (personas, examples, descriptions, prose)
    added: int = 0
    merged: int = 0  # pieces whose place was added to a rule another piece made or stored before
    repeats: int = 0  # pieces already known, text and place
    refused: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "kind": self.kind,
            "scope": self.scope,
            "pieces": len(self.candidates),
            "left_out": self.left_out,
            "added": self.added,
            "merged": self.merged,
            "repeats": self.repeats,
            "refused": self.refused,
            "problems": self.problems,
            "notes": self.notes,
            "skipped": self.skipped,
        }


@dataclass
class ImportReport:
    """What an import of files did (`lore memorize` and `lore train` alike), file by file.

    Both commands split files into pieces and save them the same way, so they share one report
    and one JSON shape; only the status of the rules they store differs."""

    project: Project
    files: list[FileImport]
    saved: Saved

    def to_dict(self) -> dict[str, Any]:
        """Every piece in exactly one of added, merged, repeats and refused; `rules` names the
        rules the import created."""
        return {
            "project": self.project.name,
            "files": [f.to_dict() for f in self.files],
            "pieces": len(self.saved.outcomes),
            "added": self.saved.count("new"),
            "merged": self.saved.count("merged"),
            "repeats": self.saved.count("known"),
            "refused": self.saved.count("refused"),
            "rules": [r.id for r in self.saved.added],
        }


# -- which files ----------------------------------------------------------------------------------
def kind_of(rel: str) -> tuple[str, str] | None:
    """(kind, base folder) of an instruction file path, or None when it is not one."""
    path = PurePosixPath(rel)
    parts = path.parts
    name = path.name
    folder = str(path.parent) if str(path.parent) != "." else ""

    def above(marker: tuple[str, ...]) -> str | None:
        for i in range(len(parts) - len(marker)):
            if parts[i : i + len(marker)] == marker:
                return "/".join(parts[:i])
        return None

    if name == "AGENTS.md":
        return "agents", folder
    if name in ("CLAUDE.md", "CLAUDE.local.md"):
        return "claude", folder
    if name.endswith(".md") and (base := above((".claude", "rules"))) is not None:
        return "claude-rules", base
    if name == "copilot-instructions.md" and parts[-2:-1] == (".github",):
        return "copilot", "/".join(parts[:-2])
    if name.endswith(".instructions.md") and (base := above((".github", "instructions"))) is not None:
        return "copilot-instructions", base
    if name.endswith((".mdc", ".md")) and (base := above((".cursor", "rules"))) is not None:
        return "cursor", base
    if name == ".cursorrules":
        return "cursorrules", folder
    if name == ".windsurfrules":
        return "windsurf", folder
    if name.endswith(".md") and (base := above((".windsurf", "rules"))) is not None:
        return "windsurf-rules", base
    if name == ".clinerules":
        return "cline", folder
    if name.endswith((".md", ".txt")) and (base := above((".clinerules",))) is not None:
        return "cline", base
    return None


def instruction_files(root: Path) -> list[str]:
    """Relative paths of the instruction files under `root`, git's view first, then a walk for
    dot folders git may ignore."""
    found = {p for p in git.ls_files(root) if kind_of(p)}
    files, _ = _walk(root)
    for rel in files:
        if kind_of(rel):
            found.add(rel)
    return sorted(p for p in found if (root / p).is_file())


def linked_folders_outside(root: Path) -> list[str]:
    """Instruction folders (`.cursor/rules`, `.claude`, `.clinerules`, ...) that are links to a
    place outside the repository: never read, and reported."""
    _, links = _walk(root)
    return [rel for rel in links if _holds_instructions(rel) and _outside(root, rel)]


def _holds_instructions(rel: str) -> bool:
    name = PurePosixPath(rel).name
    return name in _INSTRUCTION_FOLDERS or any(kind_of(f"{rel}/x{ext}") for ext in (".md", ".mdc"))


def _outside(root: Path, rel: str) -> bool:
    """Whether `rel` (a link, or a path through one) resolves outside the repository."""
    try:
        return not (root / rel).resolve().is_relative_to(root.resolve())
    except (OSError, RuntimeError):  # a loop of links
        return True


def _walk(root: Path, depth: int = 6) -> tuple[list[str], list[str]]:
    """Files under `root`, and linked folders (not followed: their targets are walked where they
    are, or lie outside)."""
    files: list[str] = []
    links: list[str] = []

    def visit(folder: Path, level: int) -> None:
        try:
            entries = list(folder.iterdir())
        except OSError:
            return
        for entry in entries:
            if entry.is_dir() and entry.is_symlink():
                links.append(entry.relative_to(root).as_posix())
            elif entry.is_dir():
                if entry.name not in _SKIP_DIRS and level < depth:
                    visit(entry, level + 1)
            elif entry.is_file():
                files.append(entry.relative_to(root).as_posix())

    visit(root, 0)
    return files, links


# -- reading one file --------------------------------------------------------------------------------
def read_instruction_file(
    root: Path, rel: str, kind: str | None = None, base: str | None = None
) -> FileImport:
    """Parse one file into candidates (nothing is saved)."""
    detected = kind_of(rel)
    kind = kind or (detected[0] if detected else "markdown")
    base = base if base is not None else (detected[1] if detected else "")
    result = FileImport(rel, kind)
    path = root / rel
    if _outside(root, rel):
        result.skipped = _OUTSIDE.format(_target(path))
        return result
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            result.skipped = f"larger than {MAX_FILE_BYTES // 1_000_000} MB"
            return result
        raw = path.read_bytes()
    except OSError as exc:
        result.skipped = f"unreadable ({exc.strerror or exc.__class__.__name__})"
        return result
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        text = raw.decode("utf-8", "replace")
        result.problems.append("not valid UTF-8; undecodable bytes replaced")
    text = text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    front = split_front_matter(text)
    if is_generated(text, front.values):
        result.skipped = f"written by `lore export` (marked {GENERATED_KEY}); not imported again"
        return result
    result.problems += front.problems
    if not front.closed:
        result.skipped = "front matter is never closed; fix the `---` lines and run again"
        return result
    scope = _scope(kind, base, front, result)
    if scope is None:
        return result
    result.scope = scope
    body, removed = strip_generated_block(front.body)
    if removed:
        result.notes.append("skipped the block written by `lore export`")
    body = _strip_comments(body, front.body_line, result)
    title = str(front.get("description", "name", "title") or "")
    split = split_markdown(body, first_line=front.body_line, default_title=title)
    result.notes += split.dropped
    result.left_out = len(split.left_out)
    if split.left_out:
        result.notes.append(split.left_out_note())
    for piece in split.pieces:
        result.candidates.append(
            Candidate(
                text=piece.text,
                title=rule_title(piece.title, piece.text),
                scope=list(result.scope),
                kind=kind,
                evidence=[{"file": rel, "line": piece.line, "kind": kind}],
            )
        )
    if not result.candidates and not result.skipped:
        result.notes.append("no rule text found")
    return result


def _target(path: Path) -> str:
    try:
        return str(path.resolve())
    except (OSError, RuntimeError):
        return "a loop of links"


def _strip_comments(body: str, first_line: int, result: FileImport) -> str:
    """Remove HTML comments (an agent reads them, a person does not see them) and report each."""

    def replace(match: re.Match[str]) -> str:
        line = first_line + body.count("\n", 0, match.start())
        result.notes.append(f"line {line}: HTML comment stripped ({len(match.group(0))} characters)")
        return "\n" * match.group(0).count("\n")

    body = _COMMENT.sub(replace, body)
    start = body.find("<!--")
    if start != -1:
        line = first_line + body.count("\n", 0, start)
        result.notes.append(f"line {line}: HTML comment never closed; the rest of the file is dropped")
        body = body[:start]
    return body


_SCOPE_KEYS = {
    "copilot-instructions": ("applyTo",),
    "cursor": ("globs",),
    "claude-rules": ("paths", "globs"),
    "windsurf-rules": ("paths", "globs"),
    "cline": ("paths", "globs"),
}


def _scope(kind: str, base: str, front: FrontMatter, result: FileImport) -> list[str] | None:
    """The file's scope: its front matter's patterns, else its folder (root files are global).

    None (and the file skipped) when the file names a scope none of which could be read: its
    rules would otherwise apply to every file. Each pattern that cannot be read is reported and
    left out; it never becomes a scope of its own."""
    keys = _SCOPE_KEYS.get(kind, ())
    if kind == "cursor":
        always, problem = front.flag("alwaysApply")
        if problem:
            result.problems.append(problem)
        if always:
            keys = ()
    key = next((k for k in keys if front.get(k) not in (None, "", [])), keys[0] if keys else "")
    raw = front.get(key) if key else None
    patterns = [] if front.is_unreadable(key) else parse_patterns(raw)
    good = []
    for pattern in patterns:
        problem = _malformed(pattern)
        if problem:
            result.problems.append(f"{key}: {pattern!r} {problem}; left out")
        else:
            good.append(pattern)
    if raw not in (None, "", []) and not good:
        result.skipped = (
            f"{key} could not be read, and without it the rules would apply to every file; "
            "fix the front matter and run again"
        )
        return None
    if kind == "cursor" and keys and front.present and not good and not front.get("description"):
        result.notes.append("no globs, no alwaysApply and no description: imported as global")
    if not good or any(p in ("*", "**", "**/*") for p in good):
        return [base + "/"] if base else []
    return [_under(base, p) for p in good]


def _malformed(pattern: str) -> str | None:
    """Why a glob cannot be what its author meant: an unbalanced `[`/`]` or `{`/`}`."""
    for open_, close in (("[", "]"), ("{", "}")):
        depth = 0
        for ch in pattern:
            depth += (ch == open_) - (ch == close)
            if depth < 0:
                return f"has a `{close}` without a `{open_}`"
        if depth:
            return f"has a `{open_}` that is never closed"
    return None


def _under(base: str, pattern: str) -> str:
    if not base:
        return pattern
    return f"{base}/{pattern}"


# -- the command -------------------------------------------------------------------------------------
def memorize(path: str | Path) -> ImportReport:
    """Import every instruction file of the repository holding `path` (or just `path`, a file)."""
    given = Path(path).expanduser().absolute()
    if not given.exists():
        raise InvalidInput(f"{path} does not exist")
    if given.is_file():  # the file itself may be a link: where it points is checked when read
        project, _ = service.register_project(given.parent.resolve())
        root = project.path
        rel = (given.parent.resolve() / given.name).relative_to(root).as_posix()
        files = [read_instruction_file(root, rel)]
    else:
        target = given.resolve()
        project, _ = service.register_project(target)
        root = project.path
        inside = target.relative_to(root).as_posix() if target != root else ""
        rels = [r for r in instruction_files(root) if not inside or r.startswith(inside + "/")]
        files = [read_instruction_file(root, r) for r in rels]
        files += [
            FileImport(r, "folder", skipped=_OUTSIDE.format(_target(root / r)))
            for r in linked_folders_outside(root)
            if not inside or r.startswith(inside + "/")
        ]
    candidates = [c for f in files for c in f.candidates]
    saved = save_candidates(project, candidates, status="pending", source="memorize")
    attribute(files, saved)
    return ImportReport(project, files, saved)


def attribute(files: list[FileImport], saved: Saved) -> None:
    """Count each file's pieces by what became of them; `saved` holds one outcome per piece, in
    the order of the files' candidates, so the files' columns add up to the summary's."""
    reasons = {r.index: r.reason for r in saved.refused}
    position = 0
    for f in files:
        for cand in f.candidates:
            outcome = saved.outcomes[position]
            if outcome == "new":
                f.added += 1
            elif outcome == "merged":
                f.merged += 1
            elif outcome == "known":
                f.repeats += 1
            else:
                line = cand.evidence[0].get("line") if cand.evidence else "?"
                f.refused.append(f"line {line}: {reasons.get(position, 'refused')}")
            position += 1
