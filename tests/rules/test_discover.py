"""`lore discover`: conventions voted across real files of real repositories, or declared in config."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from conftest import make_repo
from lore.cli.app import app
from lore.rules import service
from lore.rules.intake.discover import discover, discover_conventions

# every test here runs on the embedded file and on PostgreSQL
pytestmark = pytest.mark.usefixtures("backend")

PY_MODULE = """from __future__ import annotations

from shop.core import helpers

LABEL = 'orders'

def {name}(order_id: int) -> str:
    if order_id:
        return 'order-{{}}'.format(order_id)
    return 'none'


def {name}_total(items: list[int]) -> int:
    total = 0
    for item in items:
        total += item
    return total
"""

PY_TEST = """from __future__ import annotations

from shop.orders import place_order


def test_{name}() -> None:
    assert place_order(1) == 'order-1'
"""


def _python_repo(root: Path, n: int = 8, extra: dict[str, str] | None = None) -> Path:
    files = {"shop/__init__.py": "", "shop/core/__init__.py": ""}
    for i in range(n):
        files[f"shop/order_module_{i}.py"] = PY_MODULE.format(name=f"place_order_{i}")
        files[f"tests/test_orders_{i}.py"] = PY_TEST.format(name=f"orders_{i}")
    files["pyproject.toml"] = (
        "[project]\nname = 'shop'\n\n[tool.black]\nline-length = 100\nskip-string-normalization = true\n"
    )
    files.update(extra or {})
    return make_repo(root, files)


def _by_kind(candidates) -> dict[str, object]:
    return {c.kind: c for c in candidates}


def test_python_conventions_are_voted_and_declared(tmp_path: Path) -> None:
    repo = _python_repo(tmp_path / "shop")
    found = _by_kind(discover_conventions(repo))
    assert found["indentation"].text == "Indent Python code with 4 spaces."
    assert found["indentation"].evidence[0]["ratio"] == "8/8 files"  # test files are too short to vote
    assert found["indentation"].evidence[0]["threshold"] == "at least 90% of at least 5 files"
    assert found["quotes"].text == "Use single quotes for Python strings."
    assert found["function_naming"].text == "Name Python functions in snake_case."
    assert found["file_naming"].text.startswith("Name Python files in snake_case")
    assert found["future_annotations"].evidence[0]["ratio"] == "16/16 files"
    assert "absolute imports (`from shop.module import name`)" in found["import_style"].text
    assert found["type_hints"].scope == ["**/*.py"]
    assert found["test_layout"].text == "Put Python tests in `tests/` in files named `test_*.py`."
    assert found["test_layout"].scope == ["tests/"]
    assert "pytest" in found["test_runner"].text
    # declared in pyproject: Black and its line length; black's quote rule is off (skip-string-normalization)
    assert found["formatter"].evidence[0] == {
        "convention": "formatter",
        "kind": "config",
        "file": "pyproject.toml",
        "setting": "[tool.black]",
        "ratio": "declared in pyproject.toml",
    }
    assert found["line_length"].text == "Keep Python lines within 100 characters (black line-length)."
    assert all(json.dumps(c.to_dict()) for c in found.values())


def test_below_the_threshold_nothing_is_proposed(tmp_path: Path) -> None:
    # 7 files of 4 spaces and 2 of 2 spaces: 78% is under 90%
    two = "def f(x: int) -> int:\n  if x:\n    return 1\n  return 2\n"
    repo = _python_repo(tmp_path / "mixed", n=3, extra={f"shop/two_{i}.py": two for i in range(2)})
    kinds = _by_kind(discover_conventions(repo))
    assert "indentation" not in kinds
    few = make_repo(tmp_path / "few", {f"m{i}.py": "def f():\n    return 'x'\n" for i in range(4)})
    assert discover_conventions(few) == []  # fewer than 5 files never make a convention


def test_javascript_config_beats_the_vote(tmp_path: Path) -> None:
    component = (
        "import {{ useState }} from 'react'\n\nexport function {name}() {{\n  const [a, setA] = useState(0)\n"
        "  if (a > 1) {{\n    return null\n  }}\n  return a\n}}\n\nconst formatTotal = (n) => `${{n}}`\n"
    )
    files = {f"src/widgets/order-card-{i}.ts": component.format(name=f"orderCard{i}") for i in range(6)}
    files.update(
        {
            ".prettierrc": json.dumps({"singleQuote": False, "semi": True, "printWidth": 90}),
            ".eslintrc.json": '{ // comments are fine\n "extends": ["eslint:recommended"], }\n',
            "package.json": json.dumps(
                {"devDependencies": {"vitest": "1", "typescript": "5"}, "scripts": {"test": "vitest run"}}
            ),
            "tsconfig.json": '{\n  // strict!\n  "compilerOptions": {"strict": true,},\n}\n',
            "src/widgets/order-card.test.ts": "import { it } from 'vitest'\nit('works', () => {})\n",
        }
    )
    repo = make_repo(tmp_path / "web", files)
    found = _by_kind(discover_conventions(repo))
    # the files use single quotes and no semicolons, but Prettier's settings are what the team chose
    assert found["quotes"].text == "Use double quotes in JavaScript/TypeScript (Prettier singleQuote)."
    assert found["semicolons"].text == "End JavaScript/TypeScript statements with semicolons."
    assert found["linter"].evidence[0]["file"] == ".eslintrc.json"
    assert "vitest" in found["test_runner"].text and "npm test" in found["test_runner"].text
    assert found["types"].scope == ["**/*.{ts,tsx}"]
    assert found["indentation"].text == "Indent TypeScript code with 2 spaces."
    assert found["file_naming"].text.startswith("Name TypeScript files in kebab-case")
    assert found["function_naming"].text == "Name TypeScript functions in camelCase."
    assert found["import_style"].text == "Use ES module `import`/`export` in TypeScript files."


def test_go_rust_editorconfig_and_precommit(tmp_path: Path) -> None:
    repo = make_repo(
        tmp_path / "svc",
        {
            "go.mod": "module example.com/svc\n",
            "main.go": "package main\n\nfunc main() {\n\tprintln(1)\n}\n",
            "Cargo.toml": "[package]\nname = 'x'\n",
            "rustfmt.toml": "max_width = 100\n",
            ".editorconfig": "root = true\n\n[*]\nend_of_line = lf\ninsert_final_newline = true\n\n"
            "[*.md]\ntrim_trailing_whitespace = false\nindent_style = space\nindent_size = 2\n",
            ".pre-commit-config.yaml": "repos:\n- repo: x\n  hooks:\n  - id: ruff\n  - id: end-of-file-fixer\n",
        },
    )
    texts = {c.title: c for c in discover_conventions(repo)}
    assert "gofmt" in texts["Go tooling"].text and texts["Go tooling"].scope == ["**/*.go"]
    assert "max_width = 100" in texts["Rust tooling"].text
    assert (
        texts["Editor settings *"].text
        == "For all files: use LF line endings, end files with a newline (.editorconfig)."
    )
    assert texts["Editor settings *"].scope == []
    assert texts["Editor settings *.md"].scope == ["**/*.md"]
    assert "ruff, end-of-file-fixer" in texts["Pre-commit hooks"].text


def test_discover_saves_pending_rules_once(tmp_path: Path) -> None:
    repo = _python_repo(tmp_path / "shop")
    project, candidates, saved = discover(repo)
    rules = service.list_rules(project)
    assert len(rules) == len(candidates) == len(saved.added)
    assert all(r.status == "pending" and r.source == "discover" for r in rules)
    indentation = next(r for r in rules if r.title == "Python indentation")
    assert indentation.scope == ("**/*.py",) and indentation.evidence[0]["share"] == 1.0
    assert indentation.triggers == ("python", "indentation", "style")
    _, _, again = discover(repo)
    assert again.added == [] and again.repeats == len(candidates)


def test_discover_command_table_and_json(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    repo = _python_repo(tmp_path / "shop")
    dry = CliRunner().invoke(app, ["discover", str(repo), "--dry-run", "--json"])
    assert dry.exit_code == 0, dry.output
    assert any(c["kind"] == "indentation" for c in json.loads(dry.output)["candidates"])
    assert service.list_projects() == [] or not service.list_rules(service.list_projects()[0])
    result = CliRunner().invoke(app, ["discover", str(repo)])
    assert result.exit_code == 0, result.output
    assert "Indent Python code with 4 spaces." in result.output and "8/8 files" in result.output
    assert "new pending rule(s)" in result.output
