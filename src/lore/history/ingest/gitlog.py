"""Read a repository's history with one streaming `git log`, not a process per commit.

`git log -z --raw --numstat -M` prints, per commit, our NUL-separated header, then one raw
entry per touched path (status, and both paths for a rename) and one numstat entry (lines
added and removed). We split the byte stream on NUL as it arrives and run a small state
machine over the tokens, so memory stays flat and parsing overlaps git's own work.

Git stores names, messages and paths as bytes, and nothing forces them to be UTF-8 (an old
Latin-1 commit, a path made on another system). The store holds text, so a token that is not
UTF-8 is decoded with its stray bytes written as `\\xNN` and the commit is marked `lossy`:
the ingest goes on, and `raw_path` turns such a path back into the bytes git knows it by.
`--topo-order` makes every prefix of the stream closed under parents, so a run killed half-way
can remember where it stopped and the next one reads only the rest.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import re
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from lore.core import git
from lore.core.errors import InvalidInput

try:
    import fcntl
except ImportError:  # not on Windows
    fcntl = None  # type: ignore[assignment]

# header: RS + sha, then parents, author name/email/time, committer name/email/time, message
# %aN/%aE and %cN/%cE: names and addresses after the repository's `.mailmap` (as `git log
# --use-mailmap` shows them), so one person under two identities is one author
_FORMAT = "%x1e%H%x00%P%x00%aN%x00%aE%x00%at%x00%cN%x00%cE%x00%ct%x00%B"
_HEADER_FIELDS = 9
_CHUNK = 1 << 16  # one read: a larger buffer is allocated (and page-faulted) for every read
_PIPE_SIZE = 1 << 20
# How long to leave the pipe alone after a read that found little in it. git writes its log a
# few hundred bytes at a time, more slowly than it is parsed; a reader that wakes for each write
# spends more CPU being woken (and on cold caches) than parsing. Only a short read while git
# runs waits, so a git faster than the reader (or a pipe that could not be widened, and fills)
# is never held up, nor is a small log that git has finished writing.
_LET_FILL = 0.02


@dataclass(slots=True)
class FileChange:
    """One path touched by a commit; `old_path` is set for renames and copies."""

    path: str
    status: str = "M"
    old_path: str | None = None
    added: int = 0
    removed: int = 0


@dataclass(slots=True)
class GitCommit:
    sha: str
    parents: list[str]
    author_name: str
    author_email: str
    authored_at: float
    committer_name: str
    committer_email: str
    committed_at: float
    message: str
    changes: list[FileChange] = field(default_factory=list)
    lossy: bool = False  # some field was not UTF-8 and holds `\\xNN` escapes instead

    @property
    def subject(self) -> str:
        return self.message.split("\n", 1)[0].strip()


# Only the `.mailmap` at the top of the work tree is read (as data: git parses it, runs nothing);
# `mailmap.file` / `mailmap.blob` in a repository's config could point git at any file or blob.
LOG_CONFIG = (("diff.renameLimit", "2000"), ("mailmap.file", ""), ("mailmap.blob", ""))
MAILMAP = ".mailmap"


def log_arguments(revs: Sequence[str], since: str | None = None, until: str | None = None) -> list[str]:
    """The arguments of the one `git log` ingest reads (after `git`)."""
    args = [
        "log",
        "--reverse",
        "--topo-order",
        "-z",
        "--raw",
        "--numstat",
        "-M",
        "--no-abbrev",
        "--no-color",
        f"--format={_FORMAT}",
    ]
    if since:
        args.append(f"--since={since}")
    if until:
        args.append(f"--until={until}")
    return [*args, *revs, "--"]


def log_command(revs: Sequence[str], since: str | None = None, until: str | None = None) -> list[str]:
    """The exact argv ingest runs, safe options included (benchmarks time it bare as the floor)."""
    return git.command(log_arguments(revs, since, until), LOG_CONFIG)


def read_log(
    repo: Path, revs: Sequence[str] = ("HEAD",), since: str | None = None, until: str | None = None
) -> Iterator[GitCommit]:
    """Yield commits oldest first, each with its touched files and line counts.

    git runs through `core.git.stream`, so a hostile repository's config cannot make it run a
    program. Its pipe is widened (`_widen`) so git goes on computing diffs while a batch is
    written, and the pipe is read on this thread: a reader thread handing chunks over a queue
    cost more CPU in thread switches than the parsing itself. For the same reason a read that
    finds the pipe nearly empty is followed by a short wait (`_LET_FILL`), so the next one
    takes many of git's small writes at once.
    """
    with tempfile.TemporaryFile() as errors:
        proc = git.stream(log_arguments(revs, since, until), repo, errors, LOG_CONFIG)
        out = proc.stdout
        # a buffered pipe (Popen's default): read1 returns what is there, not a full chunk
        assert isinstance(out, io.BufferedReader)
        _widen(out)
        ended = False

        def chunks() -> Iterator[bytes]:
            nonlocal ended
            while data := out.read1(_CHUNK):
                yield data
                if len(data) < _CHUNK // 2 and proc.poll() is None:  # git still writing, slowly
                    time.sleep(_LET_FILL)
            ended = True

        try:
            yield from parse_log_stream(chunks())
        finally:
            if not ended and proc.poll() is None:
                proc.kill()  # the caller stopped early
            out.close()
            code = proc.wait()
            errors.seek(0)
            err = errors.read().decode("utf-8", "replace").strip()
    if code not in (0, -9):
        raise InvalidInput(f"git log failed in {repo}: {err.splitlines()[-1] if err else code}")


def _widen(pipe: io.BufferedReader) -> None:
    """Let git's output pipe hold `_PIPE_SIZE` bytes (Linux lets any process ask for up to
    1 MiB; elsewhere, or when refused, it keeps its size and git waits while a batch is written,
    which costs time but no work)."""
    setsize = getattr(fcntl, "F_SETPIPE_SZ", None) if fcntl is not None else None
    if setsize is None:
        return
    with contextlib.suppress(OSError):
        fcntl.fcntl(pipe.fileno(), setsize, _PIPE_SIZE)


def parse_log_stream(chunks: Iterator[bytes]) -> Iterator[GitCommit]:
    """Turn the raw byte stream of `log_command` into commits (exposed for tests)."""
    commit: GitCommit | None = None
    by_path: dict[str, FileChange] = {}
    header: list[str] = []
    pending: list[str] = []  # paths still expected after a raw or numstat token
    pending_kind = ""
    pending_change: FileChange | None = None
    pending_counts: tuple[int, int] = (0, 0)
    rest = b""
    lossy = False
    for chunk in chunks:
        data = rest + chunk
        cut = data.rfind(b"\0")
        if cut < 0:
            rest = data
            continue
        rest = data[cut + 1 :]
        tokens, bad = _tokens(data[:cut])
        for tok in tokens:
            if bad and "\\x" in tok and _is_escaped(tok):
                lossy = True
            if header:
                header.append(tok)
                if len(header) == _HEADER_FIELDS:
                    commit = _commit_from_header(header)
                    commit.lossy = lossy
                    by_path = {}
                    header = []
                continue
            if pending_kind:
                pending.append(tok)
                if pending_kind == "raw":
                    assert pending_change is not None
                    need = 2 if pending_change.status in "RC" else 1
                    if len(pending) == need:
                        if need == 2:
                            pending_change.old_path, pending_change.path = pending
                        else:
                            pending_change.path = pending[0]
                        by_path[pending_change.path] = pending_change
                        pending, pending_kind = [], ""
                elif len(pending) == 2:  # numstat of a rename: old, new
                    _count(by_path, pending[1], pending_counts)
                    pending, pending_kind = [], ""
                continue
            if not tok:
                continue
            first = tok[0]
            if first == "\n":
                tok = tok.lstrip("\n")
                if not tok:
                    continue
                first = tok[0]
            if first == "\x1e":
                if commit is not None:
                    yield _finish(commit, by_path, lossy)
                    commit = None
                lossy = bad and "\\x" in tok and _is_escaped(tok)
                header = [tok[1:]]
                continue
            if first == ":":
                pending_change = FileChange(
                    path="", status=tok[-1] if tok[-1].isalpha() else tok.rsplit(" ", 1)[-1][:1]
                )
                if not pending_change.status.isalpha():
                    pending_change.status = "M"
                pending_kind = "raw"
                continue
            parts = tok.split("\t", 2)
            if len(parts) == 3:
                counts = (_num(parts[0]), _num(parts[1]))
                if parts[2]:
                    _count(by_path, parts[2], counts)
                else:
                    pending_counts, pending_kind = counts, "numstat"
    if rest:
        tokens, bad = _tokens(rest)
        tok = tokens[0].lstrip("\n")
        lossy = lossy or (bad and _is_escaped(tok))
        parts = tok.split("\t", 2)
        if len(parts) == 3 and parts[2]:
            _count(by_path, parts[2], (_num(parts[0]), _num(parts[1])))
    if commit is not None:
        yield _finish(commit, by_path, lossy)


_ESCAPED = re.compile(r"\\x[89a-f][0-9a-f]")


def _tokens(data: bytes) -> tuple[list[str], bool]:
    """NUL-separated tokens as text, and whether any needed escapes (the slow path is taken only
    for a chunk that is not UTF-8 throughout)."""
    try:
        return data.decode("utf-8").split("\0"), False
    except UnicodeDecodeError:
        return [part.decode("utf-8", "backslashreplace") for part in data.split(b"\0")], True


def _is_escaped(text: str) -> bool:
    return _ESCAPED.search(text) is not None


def raw_path(path: str) -> str:
    """The path as git knows it: `\\xNN` escapes made by the ingest back into the original bytes
    (as the surrogate escapes `os.fsencode` turns into those bytes for a git argument)."""
    if "\\x" not in path:
        return path
    return _ESCAPED.sub(lambda m: bytes([int(m.group(0)[2:], 16)]).decode("utf-8", "surrogateescape"), path)


def stored_path(path: str) -> str:
    """A path as the ingest stores it: bytes that are not UTF-8 written as `\\xNN`, the inverse
    of `raw_path`. A name typed in a shell, or read from git's output, carries such bytes as
    surrogate escapes (`os.fsdecode`), which no store can hold and no terminal can show."""
    if path.isascii():
        return path
    try:
        raw = path.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a lone surrogate that stands for no byte (from JSON, say)
        raw = path.encode("utf-8", "surrogatepass")
    return raw.decode("utf-8", "backslashreplace")


def _num(text: str) -> int:
    return int(text) if text.isdigit() else 0  # "-" for binary files


def _count(by_path: dict[str, FileChange], path: str, counts: tuple[int, int]) -> None:
    change = by_path.get(path)
    if change is None:
        change = by_path[path] = FileChange(path=path)
    change.added, change.removed = counts


def _commit_from_header(h: list[str]) -> GitCommit:
    return GitCommit(
        sha=h[0].strip(),
        parents=h[1].split(),
        author_name=h[2],
        author_email=h[3],
        authored_at=float(h[4] or 0),
        committer_name=h[5],
        committer_email=h[6],
        committed_at=float(h[7] or 0),
        message=h[8].rstrip("\n"),
    )


def _finish(commit: GitCommit, by_path: dict[str, FileChange], lossy: bool = False) -> GitCommit:
    commit.changes = list(by_path.values())
    commit.lossy = commit.lossy or lossy
    return commit


def git_output(repo: Path, *args: str) -> str:
    """Run a small git query in `repo` (through `core.git`); a clear error when it fails."""
    result = git.run(args, repo, timeout=120)
    if not result.ok:
        raise InvalidInput(f"git {args[0]} failed in {repo}: {result.error_line}")
    return result.text


def repo_root(path: Path) -> Path:
    """The top folder of the git repository containing `path`."""
    if not path.exists():
        raise InvalidInput(f"no such folder: {path}")
    top = git.toplevel(path)
    if top is None:
        bare = git.run(["rev-parse", "--is-bare-repository"], path if path.is_dir() else path.parent)
        if bare.ok and bare.text.strip() == "true":
            raise InvalidInput(
                f"{path} is a bare repository (no work tree); ingest a clone of it: git clone {path} FOLDER"
            )
        raise InvalidInput(f"{path} is not inside a git repository")
    return top


_GITHUB_REMOTE = re.compile(r"github\.com[:/]+([\w.-]+)/([\w.-]+?)(?:\.git)?/?$")


def github_slug(remote_url: str) -> str | None:
    """`owner/repo` when a remote URL points at GitHub."""
    match = _GITHUB_REMOTE.search(remote_url.strip())
    return f"{match.group(1)}/{match.group(2)}" if match else None


def origin_url(repo: Path) -> str:
    return git.remote_url(repo, "origin")


def first_parent_line(repo: Path, head: str) -> set[str]:
    """The shas on HEAD's first-parent line (the main line merges land on)."""
    return set(git_output(repo, "rev-list", "--first-parent", head).split())


def reachable_shas(repo: Path) -> set[str]:
    """Every commit reachable from a ref or HEAD (what rewritten history leaves out)."""
    return set(git_output(repo, "rev-list", "--all", "HEAD").split())


def shallow_boundary(repo: Path) -> set[str]:
    """The commits a shallow clone cut the history at (their parents are missing); empty for a
    full clone. git lists them in the `shallow` file of the repository's git folder."""
    if git_output(repo, "rev-parse", "--is-shallow-repository").strip() != "true":
        return set()
    folder = git.common_dir(repo) or git.git_dir(repo)
    if folder is None:
        return set()
    try:
        return set((folder / "shallow").read_text(encoding="ascii", errors="replace").split())
    except OSError:
        return set()


def pull_refs(repo: Path) -> dict[str, int]:
    """Commit sha -> PR number for every `refs/pull/N/head` present in the clone."""
    out = git_output(repo, "for-each-ref", "--format=%(objectname) %(refname)", "refs/pull")
    found: dict[str, int] = {}
    for line in out.splitlines():
        sha, _, ref = line.partition(" ")
        parts = ref.split("/")
        if len(parts) == 4 and parts[3] == "head" and parts[2].isdigit():
            found[sha] = int(parts[2])
    return found


def mailmap_digest(root: Path) -> str | None:
    """A digest of the work tree's `.mailmap` (None without one): when it changes, the commits
    read before still carry the identities of the old one, until `ingest --rebuild`."""
    path = root / MAILMAP
    if path.is_symlink() or not path.is_file():  # git itself does not follow an in-tree link
        return None
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]
