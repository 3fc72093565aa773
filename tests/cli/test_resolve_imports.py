"""What a `lore review resolve` process loads: a structural guard on its start-up cost.

Each case runs the console script's `main()` in a fresh interpreter, on a real demo project in a
temporary home, then lists which heavy packages ended up in `sys.modules`. Start-up is most of
what `resolve` costs (bench/cli_startup.py), and each of these arrived once through one innocent
import: the model layer (httpx), the MCP and web stacks, numpy in `spec` mode (no vector is made),
pydantic through Typer's value checking (`lore.cli.coercion`), rich for a reply printed as plain
text (`lore.cli.common`'s consoles are made on first use).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from lore.rules.demo import ensure_demo_project

PROBE = """
import json, sys
watched = json.loads(sys.argv[2])
sys.argv = ["lore", *json.loads(sys.argv[1])]
from lore.cli.entry import main
try:
    main()
except SystemExit as exc:
    code = exc.code
else:
    code = 0
heavy = sorted(m for m in watched if m in sys.modules)
sys.stderr.write(json.dumps({"code": code, "loaded": heavy}) + "\\n")
"""
HEAVY = [
    "numpy",
    "rich",
    "pydantic",
    "httpx",
    "mcp",
    "starlette",
    "fastapi",
    "uvicorn",
    "onnxruntime",
    "torch",
]


def loaded_by(args: list[str], home: Path, cwd: Path) -> tuple[int, set[str], str]:
    """(exit code, heavy packages loaded, stdout) of `lore ARGS` in a fresh interpreter."""
    env = {**os.environ, "LORE_HOME": str(home)}
    env.pop("LORE_RULES_EMBED", None)
    done = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(args), json.dumps(HEAVY)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    report = json.loads(done.stderr.strip().splitlines()[-1])
    return report["code"], set(report["loaded"]), done.stdout


@pytest.fixture
def demo(tmp_path: Path, lore_home: Path) -> Path:
    return ensure_demo_project(tmp_path / "shop").path


RESOLVE = ["review", "resolve", "src/api/orders.py", "--task", "add pagination to the orders endpoint"]


def test_spec_resolve_loads_no_numpy_rich_pydantic_or_server(demo: Path, lore_home: Path) -> None:
    code, loaded, out = loaded_by([*RESOLVE, "--mode", "spec"], lore_home, demo)
    assert code == 0 and "Paginate list endpoints" in out
    assert loaded == set(), loaded


def test_hybrid_resolve_loads_numpy_for_the_vectors_and_nothing_else_heavy(
    demo: Path, lore_home: Path
) -> None:
    code, loaded, out = loaded_by([*RESOLVE, "--mode", "hybrid", "--json"], lore_home, demo)
    assert code == 0 and json.loads(out)["mode"] == "hybrid"
    assert loaded == {"numpy"}, loaded


def test_a_number_typed_on_the_command_line_is_still_checked_by_typer(demo: Path, lore_home: Path) -> None:
    """Only values that need no checking skip Typer's adapters: a typed bound still holds."""
    code, loaded, _ = loaded_by([*RESOLVE, "--mode", "spec", "--max-tokens", "50"], lore_home, demo)
    assert code == 2 and "pydantic" in loaded
    code, _, out = loaded_by([*RESOLVE, "--mode", "spec", "--max-tokens", "400", "--json"], lore_home, demo)
    assert code == 0 and json.loads(out)["served"]
