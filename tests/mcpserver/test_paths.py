"""Which files a call is about: relative paths, folders, notes, and the one id rule."""

import re
from pathlib import Path

import pytest

from conftest import make_repo
from lore.mcp.server import build_server
from lore.rules import service
from lore.rules.store.rules import rules_store
from support.mcp_client import call

# every test here runs on the embedded file and on PostgreSQL
pytestmark = pytest.mark.usefixtures("backend")

FILES = {"src/api/orders.py": "x", "src/db/models.py": "x", "README.md": "x"}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "shop", FILES)


@pytest.fixture
def rules(repo: Path) -> dict[str, str]:
    project, _ = service.register_project(repo)
    rules_store().take_setup_pending(project.id)
    api = service.add_rule(project, "Validate request bodies", scope="src/api", title="Validation")
    glob = service.add_rule(project, "Type every handler", scope="src/api/*.py", title="Types")
    return {"api": api.id, "glob": glob.id}


def test_relative_paths_are_read_from_the_project_root_when_started_in_a_subfolder(
    repo: Path, rules: dict[str, str]
) -> None:
    server = build_server(repo / "src")
    text, error = call(server, "get_rules", {"paths": ["src/api/orders.py"], "task": "add paging"})
    assert not error
    assert "- [section] Validate request bodies" in text and "- [file] Type every handler" in text
    assert f"Relative paths were read from the project root ({repo})" in text
    again, _ = call(server, "get_rules", {"paths": ["src/db/models.py"]})
    assert "Relative paths were read" not in again  # said once per session


def test_a_relative_path_only_the_start_folder_holds_is_read_from_there(
    repo: Path, rules: dict[str, str]
) -> None:
    text, _ = call(build_server(repo / "src"), "get_rules", {"paths": ["api/orders.py"]})
    assert "- [section] Validate request bodies" in text
    assert f"the folder the server started in ({repo / 'src'})" in text


def test_relative_paths_with_a_project_name_outside_any_repository(
    tmp_path: Path, repo: Path, rules: dict[str, str]
) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    text, error = call(
        build_server(outside), "get_rules", {"paths": ["src/api/orders.py"], "project": "shop"}
    )
    assert not error and "- [section] Validate request bodies" in text
    assert f"the project root ({repo})" in text


def test_a_folder_gets_its_section_rules(repo: Path, rules: dict[str, str]) -> None:
    text, error = call(build_server(repo), "get_rules", {"path": "src/api"})
    assert not error and "- [section] Validate request bodies" in text
    text, _ = call(build_server(repo), "get_rules", {"path": str(repo / "src" / "db")})
    assert "Validate request bodies" not in text


def test_other_project_and_no_repository_notes_each_have_their_slot(
    tmp_path: Path, repo: Path, rules: dict[str, str]
) -> None:
    other = make_repo(tmp_path / "other", {"b.py": "x"})
    loose = tmp_path / "loose"
    loose.mkdir()
    server = build_server(repo)
    text, _ = call(server, "get_rules", {"paths": [str(repo / "README.md"), str(loose / "c.py")]})
    assert "not in a git repository" in text and "another project" not in text
    text, _ = call(server, "get_rules", {"paths": [str(repo / "README.md"), str(other / "b.py")]})
    assert "belong to another project" in text  # the earlier note did not use up this one
    text, _ = call(server, "get_rules", {"paths": [str(repo / "README.md"), str(other / "b.py")]})
    assert "belong to another project" not in text


def test_include_takes_prefixes_and_says_what_it_could_not_find(repo: Path, rules: dict[str, str]) -> None:
    project = service.find_project("shop")
    for n in range(12):
        service.add_rule(project, f"Keep the {chr(97 + n)} module small")
    picked = service.add_rule(project, "Log every retry with its attempt number")
    server = build_server(repo)
    text, _ = call(
        server,
        "get_rules",
        {"paths": ["README.md"], "task": "cache the orders", "include": [picked.id[:5], "ffff0000", "abc"]},
    )
    assert "Log every retry" in text
    assert "include: no rule 'ffff0000' in project 'shop'" in text
    assert "include: 'abc' is too short for a rule id" in text


def test_ambiguous_prefixes_are_named_with_their_candidates(repo: Path) -> None:
    project, _ = service.register_project(repo)
    store = rules_store()
    a = store.insert_rule(project.id, {"text": "First"})
    b = store.insert_rule(project.id, {"text": "Second"})
    with store.store.transaction() as tx:  # two ids that share a prefix, as chance will do
        tx.execute("UPDATE rules SET id = ? WHERE id = ?", ("beef0001", a.id))
        tx.execute("UPDATE rules SET id = ? WHERE id = ?", ("beef0002", b.id))
    server = build_server(repo)
    text, _ = call(server, "get_rules", {"paths": ["README.md"], "include": ["beef"]})
    assert (
        "include: 'beef' matches 2 rules in project 'shop' (beef0001, beef0002); give more of the id" in text
    )
    text, _ = call(
        server, "tag_rules", {"tags": [{"id": "beef", "title": "x"}, {"id": "beef0002", "title": "Two"}]}
    )
    assert "skipped beef: 'beef' matches 2 rules (beef0001, beef0002)" in text
    assert service.get_rule("beef0002").title == "Two"
    assert re.search(r"Tagged 1 rule", text)


def test_started_outside_any_repository_relative_paths_follow_the_served_project(
    tmp_path: Path, repo: Path, rules: dict[str, str]
) -> None:
    """Some clients start the server in `/` or the home folder: a relative path means nothing
    until the session has served a project, then it is read from that project's root."""
    outside = tmp_path / "home"
    outside.mkdir()
    server = build_server(outside)
    text, error = call(server, "get_rules", {"paths": ["src/api/orders.py"]})
    assert error and "pass absolute paths" in text and "started outside any repository" in text
    text, error = call(server, "get_rules", {"paths": [str(repo / "src" / "api" / "orders.py")]})
    assert not error and "- [section] Validate request bodies" in text
    text, error = call(server, "get_rules", {"paths": ["src/api/orders.py"], "refresh": True})
    assert not error and "Rules for project `shop`" in text and "- [section] Validate request bodies" in text
    assert f"Relative paths were read from the project root ({repo})" in text
    assert "do not exist" not in text


def test_a_mixed_call_whose_first_path_is_relative_serves_the_first_paths_project(
    tmp_path: Path, repo: Path, rules: dict[str, str]
) -> None:
    other = make_repo(tmp_path / "other", {"b.py": "x"})
    text, error = call(build_server(repo), "get_rules", {"paths": ["src/api/orders.py", str(other / "b.py")]})
    assert not error and "Rules for project `shop`" in text and "- [section] Validate request bodies" in text
    assert f"1 path(s) belong to another project and were left out: {other / 'b.py'}" in text


def test_a_path_that_does_not_exist_is_said_not_to_exist(
    tmp_path: Path, repo: Path, rules: dict[str, str]
) -> None:
    server = build_server(repo)
    text, error = call(server, "get_rules", {"paths": ["src/api/new_handler.py"]})
    assert not error and "- [section] Validate request bodies" in text  # a new file gets its rules
    assert f"1 path(s) do not exist: {repo / 'src' / 'api' / 'new_handler.py'}" in text
    text, error = call(server, "get_rules", {"paths": ["lib/typo.py"]})
    assert not error and f"1 path(s) do not exist: {repo / 'lib' / 'typo.py'}" in text
    text, _ = call(server, "get_rules", {"paths": [str(tmp_path / "nowhere" / "x.py")]})
    assert f"do not exist: {tmp_path / 'nowhere' / 'x.py'}" in text and "not in a git repository" not in text


def test_a_remote_client_never_sees_the_servers_absolute_paths(
    tmp_path: Path, repo: Path, rules: dict[str, str]
) -> None:
    from lore.web.mcp_http import RemoteSession

    server = build_server(session=RemoteSession(service.find_project("shop")))
    replies = [
        call(server, "get_rules", {"paths": ["src/api/new_handler.py", "lib/typo.py"]}),
        call(server, "get_rules", {"path": "src/api", "refresh": True}),
        call(server, "get_rules", {"paths": ["../loose/c.py", "src/db/models.py"]}),
    ]
    assert "do not exist: src/api/new_handler.py, lib/typo.py" in replies[0][0]
    for text, _ in replies:
        assert str(tmp_path) not in text, text
