"""What a `lore history ingest` process loads: a structural guard on its start-up cost.

On a small repository start-up is a large part of what an ingest costs against the `git log`
it runs (bench/history_ingest.py --real). Each package below once arrived through one innocent
import: the `history` group loading its `why` and decisions commands (the model client, httpx,
pydantic, numpy) for every subcommand, and the GitHub client for a local ingest. The ingest
writes why's indexes, but never loads the side that answers questions. The other subcommands
of the group must still be there when asked for.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from support.history_repo import HistoryRepo, lines

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
loaded = sorted(m for m in watched if m in sys.modules)
sys.stderr.write(json.dumps({"code": code, "loaded": loaded}) + "\\n")
"""
HEAVY = [
    "numpy",
    "pydantic",
    "httpx",
    "mcp",
    "starlette",
    "uvicorn",
    "onnxruntime",
    "torch",
    "lore.core.llm",
    "lore.core.github",
    "lore.history.why.service",  # asking why; the ingest writes only its indexes
    "lore.history.decisions",
]


def _loaded_by(args: list[str], home: Path) -> tuple[int, set[str], str]:
    """(exit code, watched modules loaded, stdout) of `lore ARGS` in a fresh interpreter."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(args), json.dumps(HEAVY)],
        env={**os.environ, "LORE_HOME": str(home)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    report = json.loads(done.stderr.strip().splitlines()[-1])
    return report["code"], set(report["loaded"]), done.stdout


def test_a_local_ingest_loads_no_model_client_github_or_numpy(tmp_path: Path, lore_home: Path) -> None:
    r = HistoryRepo(tmp_path / "project")
    r.commit("Add a", {"src/a.py": lines(3, "a")})
    r.commit("Grow a", {"src/a.py": lines(5, "a")})

    code, loaded, out = _loaded_by(["history", "ingest", str(r.root), "--json"], lore_home)
    assert code == 0 and json.loads(out)["commits_added"] == 2
    assert loaded == set(), loaded

    # the commands of the modules left unloaded are there when asked for
    code, loaded, out = _loaded_by(["history", "why", "src/a.py", "--no-model", "--json"], lore_home)
    assert code == 0 and json.loads(out)["evidence"], out
    assert "lore.history.why.service" in loaded
    code, _loaded, out = _loaded_by(["history", "--help"], lore_home)
    assert code == 0
    listed = {line.split()[0] for line in out.splitlines() if line.startswith("  ") and line.split()}
    assert {"ingest", "why", "extract", "decisions", "owners"} <= listed
