"""`lore history walk` as a table: a few rows are drawn by rich, a long answer (hubs expanded,
no limit) is printed as plain aligned columns holding the same nodes as `--json`."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from typer.testing import CliRunner

from lore.cli.app import app
from lore.cli.history_graph import _DRAWN_ROWS
from lore.history.ingest.git import ingest_git

runner = CliRunner()
T0 = 1_700_000_000


def _busy_file_repo(root: Path, commits: int) -> None:
    """`commits` commits by `git fast-import`, each editing `core.py` and a file of its own."""
    root.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True)
    stream: list[str] = []
    for i in range(commits):
        message = f"change {i} of café ✓\n"
        stream.append("commit refs/heads/main\n")
        stream.append(f"committer Dev {i % 3} <dev{i % 3}@example.com> {T0 + i * 3600} +0000\n")
        stream.append(f"data {len(message.encode())}\n{message}")
        for path, body in (("core.py", f"core {i}\n"), (f"side/f{i:04d}.py", f"side {i}\n")):
            stream.append(f"M 100644 inline {path}\ndata {len(body.encode())}\n{body}")
        stream.append("\n")
    subprocess.run(["git", "fast-import", "--quiet"], cwd=root, input="".join(stream).encode(), check=True)


def _walk(*extra: str) -> str:
    result = runner.invoke(app, ["history", "walk", "core.py", "--depth", "2", "--max-degree", "0", *extra])
    assert result.exit_code == 0, result.output
    return result.stdout


def test_a_long_walk_is_plain_aligned_columns_with_every_node(tmp_path: Path, lore_home: Path) -> None:
    commits = _DRAWN_ROWS // 2 + 10  # each commit brings its own file: more rows than are drawn
    _busy_file_repo(tmp_path / "busy", commits)
    ingest_git(tmp_path / "busy")

    found = json.loads(_walk("-n", "0", "--json"))["results"]
    assert len(found) > _DRAWN_ROWS
    title, header, *rows = _walk("-n", "0").splitlines()
    assert title == "From file core.py (depth 2, max degree off)"
    assert header.split() == ["hops", "kind", "when", "degree", "node"]
    assert len(rows) == len(found)
    node_column = header.index("node")
    shown = [row[node_column:] for row in rows]
    expected = [
        r["key"][:10] + f" {r['label']} — {r['author']}" if r["kind"] == "commit" else r["label"] or r["key"]
        for r in found
    ]
    assert shown == expected  # same nodes, same order, each cell under its header
    for row, r in zip(rows, found, strict=True):
        assert row[: header.index("kind")].strip() == str(r["depth"])
        assert row[header.index("kind") : header.index("when")].strip() == r["kind"]
        assert row[header.index("degree") : node_column].split()[0] == str(r["degree"])

    few = _walk("-n", "5")  # a short answer stays a drawn table
    assert "│" in few and len([line for line in few.splitlines() if line.startswith("│")]) == 5
