from pathlib import Path

import pytest

from conftest import make_repo
from lore.core.errors import InvalidInput
from lore.rules import service
from lore.rules.projects import git_root, refusal


def test_registers_the_git_root_above_a_path(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "shop", {"src/api/orders.py": "x", "README.md": "x"})
    project, new = service.register_project(repo / "src" / "api" / "orders.py")
    assert new and project.name == "shop" and project.path == repo.resolve()
    again, new_again = service.register_project(repo / "src")
    assert again.id == project.id and not new_again


def test_same_folder_name_gets_a_short_suffix(tmp_path: Path) -> None:
    a = make_repo(tmp_path / "one" / "app", {"a.py": "x"})
    b = make_repo(tmp_path / "two" / "app", {"b.py": "x"})
    pa, _ = service.register_project(a)
    pb, _ = service.register_project(b)
    assert pa.name == "app"
    assert pb.name.startswith("app-") and len(pb.name) == len("app-") + 4


def test_non_git_folder_is_refused(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    with pytest.raises(InvalidInput, match="not inside a git repository"):
        service.register_project(plain)


@pytest.mark.parametrize("folder", ["/", "/usr", "/usr/share/doc", "/etc", "/var", "/opt", "/home"])
def test_system_folders_are_never_projects(folder: str) -> None:
    assert refusal(Path(folder)) is not None


def test_home_and_lore_home_are_refused(
    lore_home: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    fake_home = make_repo(tmp_path / "me", {"x.txt": "x"})
    monkeypatch.setenv("HOME", str(fake_home))
    with pytest.raises(InvalidInput, match="home folder"):
        service.register_project(fake_home)
    inside = make_repo(lore_home / "clone", {"y.txt": "y"})
    with pytest.raises(InvalidInput, match="Lore's own folder"):
        service.register_project(inside)


def test_map_lists_top_folders_and_one_level_under_containers(tmp_path: Path) -> None:
    repo = make_repo(
        tmp_path / "mono",
        {
            "src/api/v2/x.py": "x",
            "src/db/m.py": "x",
            "packages/ui/a.ts": "x",
            "docs/a.md": "x",
            "tests/t.py": "x",
            "node_modules/x/i.js": "x",
            ".github/workflows/ci.yml": "x",
            "top.py": "x",
        },
    )
    project, _ = service.register_project(repo)
    assert project.sections == ("docs", "packages", "packages/ui", "src", "src/api", "src/db", "tests")


def test_git_root_of_a_missing_file_walks_up(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"a.py": "x"})
    assert git_root(repo / "new" / "dir" / "file.py") == repo.resolve()
