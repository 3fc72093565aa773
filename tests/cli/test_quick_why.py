"""`lore history why` with plain arguments runs without Typer and prints what Typer's command
prints; anything else (help, a bound crossed, an unknown option) is still Typer's.

Each case runs in a fresh interpreter on a real repository ingested into a temporary home: once
through the console script's `main()` (which takes the quick path when it can), once through the
Typer app alone, and compares exit code, stdout and stderr. Off a terminal the quick path loads
no rich either (`lore.cli.why_view`).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from lore.cli.quick import why_arguments
from lore.history.ingest.git import ingest_git
from support.history_repo import HistoryRepo, lines

PROBE = """
import json, sys
via, *args = json.loads(sys.argv[1])
sys.argv = ["lore", *args]
if via == "typer":
    from lore.cli.app import run as main
else:
    from lore.cli.entry import main
try:
    main()
except SystemExit as exc:
    code = exc.code or 0
else:
    code = 0
sys.stdout.flush()
loaded = {"code": code, "typer": "typer" in sys.modules, "rich": "rich" in sys.modules}
sys.stderr.write("\\n" + json.dumps(loaded) + "\\n")
"""


def _run(args: list[str], via: str, home: Path, cwd: Path) -> tuple[int, dict[str, bool], str, str]:
    """(exit code, whether Typer and rich loaded, stdout, stderr) of `lore ARGS` through `via`."""
    env = {**os.environ, "LORE_HOME": str(home), "COLUMNS": "200"}
    for var in ("LORE_MODEL", "OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
        env.pop(var, None)
    done = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps([via, *args])],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    *err, last = done.stderr.rstrip("\n").split("\n")
    report = json.loads(last)
    return report["code"], report, done.stdout, "\n".join(err).rstrip("\n")


@pytest.fixture
def project(tmp_path: Path, lore_home: Path) -> Path:
    r = HistoryRepo(tmp_path / "shop")
    r.commit("Add the cart", {"shop/cart.py": lines(10, "cart")})
    r.commit(
        "Round totals to cents\n\nBecause customers saw totals like 9.999 in the cart.",
        {"shop/cart.py": lines(12, "cart"), "shop/money.py": "def round_to_cents(x):\n    return x\n"},
    )
    ingest_git(r.root)
    return r.root


@pytest.mark.parametrize(
    "args",
    [
        ["why does the cart use round_to_cents?"],
        ["why are totals rounded", "--json", "--no-model"],
        ["-n", "1", "shop/cart.py"],
        ["--limit=2", "--repo", "shop", "why are totals rounded"],
        ["why are totals rounded", "--as-of", "2023-11-15"],
        ["why are totals rounded", "--repo", "nowhere"],  # the same error line and exit code
    ],
)
def test_plain_arguments_skip_typer_and_print_what_typer_prints(
    args: list[str], project: Path, lore_home: Path
) -> None:
    code, loaded, out, err = _run(["history", "why", *args], "entry", lore_home, project)
    assert not loaded["typer"]
    assert not loaded["rich"]  # off a terminal, plain lines are written without the console
    assert (code, out, err) == _typer(args, lore_home, project)
    assert out or err


def _typer(args: list[str], home: Path, cwd: Path) -> tuple[int, str, str]:
    code, _loaded, out, err = _run(["history", "why", *args], "typer", home, cwd)
    return code, out, err


@pytest.mark.parametrize(
    ("args", "code"),
    [(["--help"], 0), (["x", "-n", "0"], 2), (["x", "--limit", "51"], 2), (["x", "--nope"], 2), ([], 2)],
)
def test_anything_else_is_typers(args: list[str], code: int, project: Path, lore_home: Path) -> None:
    got, loaded, out, err = _run(["history", "why", *args], "entry", lore_home, project)
    assert loaded["typer"] and got == code
    assert ("Usage" in out) if code == 0 else ("Usage" in err)


@pytest.mark.parametrize(
    ("args", "parsed"),
    [
        (["q"], {"target": "q", "limit": 10}),
        (["-n", "3", "q", "--json"], {"target": "q", "limit": 3, "as_json": True}),
        (["--repo=a", "q", "--as-of", "2024-01-01"], {"target": "q", "repo": "a", "as_of": "2024-01-01"}),
        (["q", "r"], None),
        (["q", "--json", "--json"], None),
        (["q", "-n5"], None),
        (["q", "--no-model=1"], None),
        (["--", "q"], None),
        (["q", "--repo"], None),
    ],
)
def test_what_the_quick_path_reads(args: list[str], parsed: dict[str, object] | None) -> None:
    got = why_arguments(args)
    if parsed is None:
        assert got is None
        return
    assert got is not None
    assert {k: got[k] for k in parsed} == parsed
