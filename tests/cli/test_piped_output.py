"""Output read by a program or written to a file is not wrapped: a command Lore suggests stays
on one line, whatever the width of a terminal the other streams may be attached to."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from support.mcp_client import lore_command


def _lore(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    exe = lore_command()[:-1]  # the console script, without `mcp`
    return subprocess.run([*exe, *args], capture_output=True, text=True, env=env, timeout=300, check=False)


def test_a_suggested_command_piped_to_a_program_stays_on_one_line(lore_home: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    done = _lore("demo", env=env)
    assert done.returncode == 0, done.stderr
    home = lore_home.resolve() / "demo"
    resolve = f"LORE_HOME={home} lore review --name shop resolve src/db/models.py --task 'add a column'"
    assert len(resolve) > 80  # longer than rich's width for a stream that is not a terminal
    (line,) = [line for line in done.stdout.splitlines() if "--task 'add a column'" in line]
    assert f"`{resolve}`" in line
    assert any(f"Remove it with `rm -rf {home}`." in line for line in done.stdout.splitlines())


def test_columns_set_by_the_user_still_decide_the_width(lore_home: Path) -> None:
    env = {**os.environ, "COLUMNS": "60"}
    done = _lore("demo", env=env)
    assert done.returncode == 0, done.stderr
    ending = next(line for line in done.stdout.splitlines() if "Remove it with" in line)
    assert len(ending) <= 60  # the console's lines keep to the width asked for
