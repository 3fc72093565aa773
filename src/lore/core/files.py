"""Writing a file so that readers see either the old content or the new one, never half of it.

Settings, trust overrides, exported rule files and agent clients' config files are all read by
other processes (an editor, an agent, another `lore`) while Lore may be writing them. The new
content goes to a temporary file with a name no other writer can pick, in the same folder (so the
rename stays on one file system), is flushed to disk, and then replaces the target in one
`os.replace`. A fixed temporary name would let two writers interleave into one file.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from pathlib import Path

_ATTEMPTS = 16


def write_atomic(
    path: str | os.PathLike[str], data: str | bytes, *, encoding: str = "utf-8", private: bool = False
) -> Path:
    """Replace `path` with `data` in one step and return the path.

    Text is encoded as given, without newline translation, so a file's line endings stay what
    the caller wrote. An existing file keeps its permission bits; a new one gets the usual ones
    (0666 less the umask). `private` makes the file readable and writable by its owner alone
    (0600) from the moment it exists, whatever was there before: for a secret such as an API
    key, no other account may read even the temporary file. A symbolic link at `path` is
    replaced by the file, never followed: following it would let a link planted in a repository
    redirect the write elsewhere. The parent folder is created when missing."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    payload = data.encode(encoding) if isinstance(data, str) else data
    mode = 0o600 if private else _mode_of(target)
    tmp, fd = _create_unique(target, 0o600 if private else 0o666)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(tmp, mode)  # by path: os.fchmod does not exist on Windows
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    _sync_folder(target.parent)
    return target


def _mode_of(target: Path) -> int | None:
    """The permission bits to keep: those of an existing regular file, else None."""
    try:
        info = target.lstat()
    except FileNotFoundError:
        return None
    if not stat.S_ISREG(info.st_mode):
        return None
    return stat.S_IMODE(info.st_mode)


def _create_unique(target: Path, mode: int = 0o666) -> tuple[Path, int]:
    """A new temporary file next to `target`, opened exclusively (O_EXCL), so no two writers share
    it; created with `mode` (0666 by default, so that the process umask decides a new file's
    mode as usual)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    for _ in range(_ATTEMPTS):
        tmp = target.with_name(f".{target.name}.{secrets.token_hex(6)}.tmp")
        try:
            return tmp, os.open(tmp, flags, mode)
        except FileExistsError:
            continue
    raise FileExistsError(f"could not create a temporary file next to {target}")


def _sync_folder(folder: Path) -> None:
    """Flush the rename itself to disk where the platform allows opening a folder."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
