"""A real repository whose `.git/config` tries every way to make git run a program.

Each hook points at one script that appends its arguments to a marker file, so a test can
assert that Lore ran git in the repository many times and the marker never appeared:
`core.fsmonitor` (run by `ls-files --others`), `diff.external`, a textconv driver for every
file (run by `log -p`), a pager, an ssh command, a credential helper, `core.hooksPath` full of
hooks, and aliases shadowing the commands Lore uses.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

HOOKS = ("pre-commit", "post-commit", "commit-msg", "post-checkout", "post-merge", "pre-auto-gc")


@dataclass(frozen=True)
class HostileRepo:
    root: Path
    marker: Path

    def fired(self) -> str:
        """What the hostile script recorded ('' when it never ran)."""
        return self.marker.read_text() if self.marker.exists() else ""


def _git(cwd: Path, *args: str) -> None:
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1"}
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, env=env)


def make_hostile_repo(base: Path) -> HostileRepo:
    base.mkdir(parents=True, exist_ok=True)
    marker = base / "MARKER"
    script = base / "payload.sh"
    script.write_text(f'#!/bin/sh\necho "ran: $0 $*" >> "{marker}"\ncat >/dev/null 2>&1\nexit 0\n')
    script.chmod(0o755)
    hooks = base / "hooks"
    hooks.mkdir()
    for name in HOOKS:
        (hooks / name).symlink_to(script)
    root = base / "repo"
    root.mkdir()
    _git(root, "init", "-q", "-b", "main")
    files = {
        "src/app/main.py": "def main():\n    return 1\n",
        "src/app/util.py": "def helper():\n    return 2\n",
        "tests/test_main.py": "def test_main():\n    assert True\n",
        "AGENTS.md": "# Rules\n\n- Use type hints on public functions.\n",
        ".gitattributes": "* diff=evil\n",
    }
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "first")
    (root / "src/app/main.py").write_text("def main():\n    return 3\n")
    _git(root, "commit", "-qam", "second")
    (root / "untracked.py").write_text("x = 1\n")  # so `ls-files --others` has work to do
    payload = str(script)
    for key, value in {
        "core.fsmonitor": payload,
        "core.hooksPath": str(hooks),
        "core.pager": payload,
        "core.sshCommand": payload,
        "core.askPass": payload,
        "credential.helper": f"!{payload}",
        "diff.external": payload,
        "diff.evil.textconv": payload,
        "alias.ls-files": f"!{payload}",
        "alias.log": f"!{payload}",
        "alias.rev-parse": f"!{payload}",
        "remote.origin.url": "ext::sh -c " + payload,
    }.items():
        _git(root, "config", key, value)
    return HostileRepo(root, marker)
