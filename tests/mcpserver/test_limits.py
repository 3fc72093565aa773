"""Volume caps (issue 10.8): each oversized call gets one readable refusal and stores nothing."""

import os
from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

from conftest import make_repo
from lore.mcp.inputs import MAX_FIELD_BYTES, MAX_REQUEST_BYTES
from lore.mcp.server import build_server
from lore.rules import service
from lore.rules.agent import MAX_PATHS, MAX_RULES_PER_CALL
from support.mcp_client import call, lore_command

# every test here runs on the embedded file and on PostgreSQL
pytestmark = pytest.mark.usefixtures("backend")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "shop", {"src/api/orders.py": "x", "README.md": "x"})


def refused(server, tool: str, arguments: dict) -> str:
    text, error = call(server, tool, arguments)
    assert error, text
    assert len(text.splitlines()) == 1 and len(text) < 400, text[:500]
    return text


def stored(repo: Path) -> int:
    project = service.project_for_path(repo)
    return len(service.list_rules(project)) if project else 0


def test_too_many_rules_in_one_call(repo: Path) -> None:
    server = build_server(repo)
    many = [{"text": f"Rule {n}"} for n in range(60_000)]
    assert "over 1,000,000 bytes" in refused(server, "propose_rules", {"rules": many, "paths": ["README.md"]})
    some = [f"Keep the part {chr(97 + n % 26)}{n} tidy" for n in range(MAX_RULES_PER_CALL + 1)]
    text = refused(server, "propose_rules", {"rules": some, "paths": ["README.md"]})
    assert f"at most {MAX_RULES_PER_CALL} per call" in text
    tags = [{"id": "abcd1234"}] * (MAX_RULES_PER_CALL + 1)
    assert f"at most {MAX_RULES_PER_CALL}" in refused(server, "tag_rules", {"tags": tags})
    assert stored(repo) == 0


def test_too_many_paths(repo: Path) -> None:
    server = build_server(repo)
    text = refused(server, "get_rules", {"paths": [f"src/f{n}.py" for n in range(50_000)]})
    assert "over 1,000,000 bytes" in text or f"at most {MAX_PATHS}" in text
    text = refused(server, "get_rules", {"paths": [f"src/f{n}.py" for n in range(MAX_PATHS + 1)]})
    assert f"at most {MAX_PATHS} per call" in text
    many_in_one_string = ",".join(f"f{n}.py" for n in range(MAX_PATHS + 1))
    assert f"at most {MAX_PATHS}" in refused(server, "get_rules", {"paths": many_in_one_string})


def test_an_oversized_text_field(repo: Path) -> None:
    server = build_server(repo)
    text = refused(server, "record_feedback", {"rule": "x" * (MAX_FIELD_BYTES + 1), "paths": ["README.md"]})
    assert f"at most {MAX_FIELD_BYTES:,}" in text and "rule is" in text
    text = refused(server, "get_rules", {"task": "y" * 10_000_000})
    assert "task is 10,000,000 bytes" in text and "yyyy" not in text
    assert stored(repo) == 0


@pytest.mark.parametrize(
    "bad",
    ["src/" + "a" * 256 + ".py", "é" * 128 + "/x.py", "src/\x00.py", "/" + "d/" * 2100 + "x.py"],
)
def test_paths_no_file_system_takes_are_refused_before_touching_one(repo: Path, bad: str) -> None:
    for tool, arguments in (
        ("get_rules", {"paths": [bad]}),
        ("record_feedback", {"rule": "Prefer pathlib", "paths": [bad]}),
        ("get_rules", {"path": bad}),
    ):
        text = refused(build_server(repo), tool, arguments)
        assert "Error executing tool " + tool + ": a path" in text, text
    assert stored(repo) == 0


def test_refusals_over_stdio_leave_stderr_quiet(tmp_path: Path, repo: Path, lore_home: Path) -> None:
    command = lore_command()
    params = StdioServerParameters(
        command=command[0], args=command[1:], cwd=str(repo), env={**os.environ, "LORE_HOME": str(lore_home)}
    )
    errlog = tmp_path / "stderr.txt"

    async def run() -> list[str]:
        texts = []
        with errlog.open("w") as err:
            async with Client(stdio_client(params, errlog=err), mode="legacy") as client:
                for tool, arguments in (
                    ("get_rules", {"task": "z" * 10_000_000}),
                    ("propose_rules", {"rules": [{"text": f"R{n}"} for n in range(60_000)]}),
                    ("get_rules", {"paths": ["a" * 300 + ".py"]}),
                    ("get_rules", {"max_tokens": "many"}),
                ):
                    result = await client.call_tool(tool, arguments)
                    assert result.is_error
                    texts.append(result.content[0].text)
        return texts

    texts = anyio.run(run)
    assert all(len(t.splitlines()) == 1 for t in texts), texts
    assert len(errlog.read_text().splitlines()) <= 1, errlog.read_text()[:2000]
    assert MAX_REQUEST_BYTES == 1_000_000
