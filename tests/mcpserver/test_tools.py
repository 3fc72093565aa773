"""Every MCP tool through the real MCP client, in memory."""

import json
import re
import shutil
from pathlib import Path

import anyio
import pytest
from mcp import Client

from conftest import git, make_repo
from lore.core.config import update_settings
from lore.core.tokens import estimate_tokens
from lore.mcp.server import build_server
from lore.rules import service
from support.mcp_client import call, listing, schemas

# every test here runs on the embedded file and on PostgreSQL
pytestmark = pytest.mark.usefixtures("backend")

FILES = {"src/api/orders.py": "x = 1\n", "src/db/models.py": "y = 2\n", "README.md": "# shop\n"}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "shop", FILES)


def test_lists_every_tool_with_instructions_that_follow_approval(repo: Path) -> None:
    names, text = listing(build_server(repo))
    assert names == [
        "books_ask",
        "books_character",
        "books_list",
        "books_progress",
        "books_search",
        "discover_conventions",
        "get_rules",
        "history_decisions",
        "history_file",
        "history_why",
        "learn_from_reviews",
        "organize_rules",
        "propose_rules",
        "record_feedback",
        "search_rules",
        "tag_rules",
    ]
    assert "active at once" in text and "Approval is manual" not in text
    update_settings({"approval": "manual"})
    _, manual = listing(build_server(repo))
    assert "Never call it active" in manual and "active at once" not in manual


def instructions_received(server) -> str:
    """The instructions as a client reads them from the initialize handshake (JSON-RPC)."""

    async def run() -> str:
        async with Client(server, mode="legacy") as client:
            return client.instructions or ""

    return anyio.run(run)


@pytest.mark.parametrize("approval", ["auto", "manual"])
def test_the_instructions_name_the_history_and_books_tools_in_about_300_tokens(
    repo: Path, approval: str
) -> None:
    update_settings({"approval": approval})
    text = instructions_received(build_server(repo))
    lines = text.splitlines()
    history = [line for line in lines if "history_why" in line]
    books = [line for line in lines if "books_search" in line]
    assert len(history) == 1 and "history_file" in history[0] and "history_decisions" in history[0]
    assert len(books) == 1 and all(f"books_{t}" in books[0] for t in ("list", "ask", "character", "progress"))
    assert "get_rules" in text and "record_feedback" in text
    assert ("Approval is manual" in text) == (approval == "manual")
    assert estimate_tokens(text) <= 330  # seed 000: about 300 tokens


def test_get_rules_registers_a_new_project_and_serves_rules(repo: Path) -> None:
    server = build_server(repo)
    text, error = call(
        server, "get_rules", {"paths": "src/api/orders.py, src/db/models.py", "task": "add pagination"}
    )
    assert not error
    assert "No rules of project `shop` cover these files." in text
    assert "was just registered. Set it up" in text and "discover_conventions" in text
    project = service.find_project("shop")
    service.add_rule(project, "Validate request bodies", scope="src/api")
    text, _ = call(server, "get_rules", {"paths": ["src/api/orders.py"], "task": "add pagination"})
    assert "- [section] Validate request bodies" in text
    assert "Set it up" not in text  # once per session


def test_get_rules_without_anything_uses_the_start_folder(repo: Path) -> None:
    service.register_project(repo)
    service.add_rule(service.find_project("shop"), "Global rule")
    text, error = call(build_server(repo), "get_rules", {})
    assert not error and "- [global] Global rule" in text and "No task was given" in text


def test_get_rules_errors_are_readable(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    text, error = call(build_server(plain), "get_rules", {"task": "x"})
    assert error and "cannot tell which project" in text
    text, error = call(build_server(plain), "get_rules", {"path": str(plain)})
    assert error and "not inside a git repository" in text


def test_auto_register_off_refuses_unknown_projects(repo: Path) -> None:
    update_settings({"auto_register": False})
    text, error = call(build_server(repo), "get_rules", {"paths": ["README.md"]})
    assert error and "auto_register is off" in text and service.list_projects() == []


def test_search_rules(repo: Path) -> None:
    project, _ = service.register_project(repo)
    rule = service.add_rule(project, "Keep queries in repositories", scope="src/db")
    text, error = call(build_server(repo), "search_rules", {"query": "database"})
    assert not error and rule.id in text
    text, error = call(build_server(repo), "search_rules", {"query": "database", "project": "shop"})
    assert rule.id in text


def test_record_feedback_activates_a_passing_rule(repo: Path) -> None:
    text, error = call(
        build_server(repo),
        "record_feedback",
        {
            "rule": "Use httpx instead of requests",
            "paths": "src/api/orders.py",
            "title": "httpx",
            "triggers": "http, client",
        },
    )
    assert not error
    match = re.search(
        r"- activated ([0-9a-f]{8}) \"httpx\" \(undo: lore review --name shop reject \1\)", text
    )
    assert match, text
    rule = service.get_rule(match.group(1))
    assert rule.status == "active" and rule.auto and rule.source == "feedback"
    assert rule.triggers == ("http", "client")


def test_propose_rules_with_json_string_and_duplicates(repo: Path) -> None:
    server = build_server(repo)
    rules = [
        {
            "text": "Name tests after their module",
            "title": "Test names",
            "triggers": ["test"],
            "scope": "tests/**/*.py",
        },
        {"text": "Write docstrings for public functions", "always": True},
    ]
    text, error = call(server, "propose_rules", {"rules": json.dumps(rules), "paths": ["README.md"]})
    assert not error and text.count("- activated") == 2
    text, _ = call(server, "propose_rules", {"rules": rules[:1], "paths": ["README.md"]})
    assert "already known as" in text
    text, _ = call(server, "propose_rules", {"rules": [{"text": "Hidden\u200b"}], "paths": ["README.md"]})
    assert "- refused: the text contains a hidden character" in text
    text, error = call(server, "propose_rules", {"rules": '[{"text": "broken', "paths": ["README.md"]})
    assert error and "looks like JSON but is not" in text and len(text.splitlines()) == 1


def test_a_plain_sentence_is_one_rule(repo: Path) -> None:
    text, error = call(
        build_server(repo), "propose_rules", {"rules": "Use httpx, not requests", "paths": ["README.md"]}
    )
    assert not error and text.count("- activated") == 1
    assert [r.text for r in service.list_rules(service.find_project("shop"))] == ["Use httpx, not requests"]


def test_saving_tools_drop_paths_of_other_projects(repo: Path, tmp_path: Path) -> None:
    other = make_repo(tmp_path / "other", {"b.py": "x"})
    text, _ = call(
        build_server(repo),
        "record_feedback",
        {"rule": "Prefer pathlib", "paths": [str(repo / "README.md"), str(other / "b.py")]},
    )
    assert "belong to another project" in text and str(other / "b.py") in text
    assert [p.name for p in service.list_projects()] == ["shop"]


def test_organize_and_tag_rules(repo: Path) -> None:
    project, _ = service.register_project(repo)
    a = service.add_rule(project, "Use four spaces")
    b = service.add_rule(project, "Log with structured fields")
    server = build_server(repo)
    text, _ = call(server, "get_rules", {"paths": ["README.md"]})
    assert "2 rule(s) covering these files have no tags yet" in text
    text, _ = call(server, "organize_rules", {"paths": ["README.md"]})
    assert a.id in text and b.id in text
    tags = [
        {"id": a.id, "title": "Four spaces", "triggers": "indent", "always": True},
        {"id": b.id, "title": "Structured logs", "triggers": ["log"], "always": False},
        {"id": "ffffffff", "title": "x"},
    ]
    text, error = call(server, "tag_rules", {"tags": tags})
    assert not error and "Tagged 2 rule(s)" in text and f"Marked always: {a.id} Four spaces" in text
    assert "skipped ffffffff" in text
    assert service.get_rule(a.id).always and service.get_rule(b.id).tagged
    text, _ = call(server, "organize_rules", {})
    assert "is tagged" in text


def test_tag_rules_refuses_rules_of_other_projects(repo: Path, tmp_path: Path) -> None:
    other, _ = service.register_project(make_repo(tmp_path / "other", {"b.py": "x"}))
    foreign = service.add_rule(other, "Theirs")
    text, _ = call(build_server(repo), "tag_rules", {"tags": [{"id": foreign.id, "always": True}]})
    assert "skipped" in text and not service.get_rule(foreign.id).always


def test_discover_and_learn_tools_answer(repo: Path) -> None:
    server = build_server(repo)
    text, error = call(server, "discover_conventions", {})
    assert not error and text
    text, error = call(server, "learn_from_reviews", {"path": str(repo)})
    assert text  # no GitHub remote here: a readable answer either way


def test_not_your_repository_note_once(tmp_path: Path) -> None:
    from rules.test_trust import other_clone

    repo = other_clone(tmp_path / "theirs")
    server = build_server(repo)
    text, _ = call(server, "get_rules", {"paths": ["a.py"]})
    assert "Lore will not learn rules in `theirs` by itself" in text and "Set it up" not in text
    text, _ = call(server, "get_rules", {"paths": ["a.py"]})
    assert "will not learn" not in text


def test_resolution_order_paths_then_path_then_name_then_start_folder(tmp_path: Path) -> None:
    one = make_repo(tmp_path / "one", {"a.py": "x"})
    two = make_repo(tmp_path / "two", {"b.py": "x"})
    three = make_repo(tmp_path / "three", {"c.py": "x"})
    for root in (one, two, three):
        project, _ = service.register_project(root)
        service.add_rule(project, f"Rule of {root.name}")
    server = build_server(three)
    args = {"paths": [str(one / "a.py")], "path": str(two), "project": "three"}
    assert "Rule of one" in call(server, "get_rules", args)[0]
    args.pop("paths")
    assert "Rule of two" in call(server, "get_rules", args)[0]
    args.pop("path")
    args["project"] = "one"
    assert "Rule of one" in call(server, "get_rules", {"project": "one", "refresh": True})[0]
    assert "Rule of three" in call(server, "get_rules", {"refresh": True})[0]


def test_mixed_projects_serve_the_first_and_name_the_rest(tmp_path: Path) -> None:
    one = make_repo(tmp_path / "one", {"a.py": "x"})
    two = make_repo(tmp_path / "two", {"b.py": "x"})
    text, _ = call(build_server(one), "get_rules", {"paths": [str(two / "b.py"), str(one / "a.py")]})
    assert "project `two`" in text and "belong to another project" in text and str(one / "a.py") in text


def test_saving_tools_take_no_project_name(repo: Path) -> None:
    found = schemas(build_server(repo))
    for tool in ("record_feedback", "propose_rules", "tag_rules"):
        assert "project" not in found[tool]["properties"], tool
    for tool in ("get_rules", "search_rules"):
        assert "project" in found[tool]["properties"], tool
    server = build_server(repo)
    for tool, args in (
        ("record_feedback", {"rule": "Prefer pathlib"}),
        ("propose_rules", {"rules": [{"text": "Prefer pathlib"}]}),
        ("tag_rules", {"tags": [{"id": "abcd1234"}]}),
    ):
        text, error = call(server, tool, {**args, "project": "shop"})
        assert error and "never take a project name" in text, tool


def test_review_note_when_feedback_was_never_read(repo: Path, tmp_path: Path, monkeypatch) -> None:
    git(repo, "remote", "add", "origin", "https://github.com/me/shop.git")
    _project, _ = service.register_project(repo)
    only_git = tmp_path / "bin"
    only_git.mkdir()
    (only_git / "git").symlink_to(shutil.which("git"))
    monkeypatch.setenv("PATH", str(only_git))  # no `gh` either: the token lookup finds nothing
    text, _ = call(build_server(repo), "get_rules", {"paths": ["README.md"]})
    assert "has not been read" not in text  # `lore learn` has no token to read reviews with
    monkeypatch.setenv("GITHUB_TOKEN", "t0ken")
    server = build_server(repo)
    text, _ = call(server, "get_rules", {"paths": ["README.md"]})
    assert "has not been read for 14 days" in text
    assert "has not been read" not in call(server, "get_rules", {"paths": ["README.md"]})[0]


def test_no_review_note_without_an_origin_learn_could_read(repo: Path, monkeypatch) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", "t0ken")
    git(repo, "remote", "add", "upstream", "https://github.com/me/shop.git")  # not `origin`
    service.register_project(repo)
    text, _ = call(build_server(repo), "get_rules", {"paths": ["README.md"]})
    assert "has not been read" not in text


def test_a_failed_attempt_counts_and_silences_the_review_note(repo: Path, monkeypatch) -> None:
    from lore.rules.intake.learn import last_review_attempt

    monkeypatch.setenv("LORE_GITHUB_API", "http://127.0.0.1:9")  # nothing listens there

    git(repo, "remote", "add", "origin", "https://github.com/me/shop.git")
    project, _ = service.register_project(repo)
    text, error = call(build_server(repo), "learn_from_reviews", {})  # nothing listens: recorded
    assert error and "looks offline" in text and "asks to wait" not in text
    assert last_review_attempt(project) is not None
    text, _ = call(build_server(repo), "get_rules", {"paths": ["README.md"]})
    assert "has not been read" not in text
