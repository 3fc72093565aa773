"""Only `lore/core/git/calls.py` starts git: any other module doing so bypasses its safe options."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "lore"
HELPER = SRC / "core" / "git" / "calls.py"
# functions that start a program, by module
STARTERS = {
    "subprocess": {"run", "Popen", "call", "check_call", "check_output", "getoutput", "getstatusoutput"},
    "os": {"system", "popen", "execv", "execve", "execvp", "execvpe", "execl", "execlp", "spawnv", "spawnvp"},
    "asyncio": {"create_subprocess_exec", "create_subprocess_shell"},
}


def _names_git(node: ast.AST) -> bool:
    """Whether a call's arguments hold the word git as the program (`"git"`, `"git log"`)."""
    for sub in ast.walk(node):
        if isinstance(sub, ast.Constant) and isinstance(sub.value, str):
            word = sub.value.strip().split(" ", 1)[0]
            if word == "git" or word.endswith("/git"):
                return True
    return False


def _starter_calls(tree: ast.AST) -> list[ast.Call]:
    aliases: dict[str, str] = {}  # local name -> "module.function" or "module"
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name in STARTERS:
                    aliases[a.asname or a.name] = a.name
        elif isinstance(node, ast.ImportFrom) and node.module in STARTERS:
            for a in node.names:
                if a.name in STARTERS[node.module]:
                    aliases[a.asname or a.name] = f"{node.module}.{a.name}"
    calls = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            module = aliases.get(func.value.id)
            if module in STARTERS and func.attr in STARTERS[module]:
                calls.append(node)
        elif isinstance(func, ast.Name) and "." in aliases.get(func.id, ""):
            calls.append(node)
    return calls


def offenders(root: Path = SRC) -> list[str]:
    found = []
    for path in sorted(root.rglob("*.py")):
        if path == HELPER:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        calls = _starter_calls(tree)
        lines = {call.lineno for call in calls if _names_git(call)}
        if calls:  # a module that starts programs: an argv built ahead of the call counts too
            lines |= {node.lineno for node in ast.walk(tree) if _argv_of_git(node)}
        found += [f"{path.relative_to(root)}:{line}" for line in sorted(lines)]
    return found


def _argv_of_git(node: ast.AST) -> bool:
    if not isinstance(node, (ast.List, ast.Tuple)) or not node.elts:
        return False
    first = node.elts[0]
    return isinstance(first, ast.Constant) and first.value == "git"


def test_no_module_but_core_git_starts_git() -> None:
    found = offenders()
    assert not found, "git started outside lore/core/git/calls.py (use lore.core.git):\n" + "\n".join(found)


def test_the_check_sees_the_usual_ways_of_starting_git(tmp_path: Path) -> None:
    """The checker itself catches direct calls, aliases and a shell string."""
    (tmp_path / "a.py").write_text('import subprocess\nsubprocess.run(["git", "status"])\n')
    (tmp_path / "b.py").write_text('from subprocess import Popen as P\nP(["git", "log"])\n')
    (tmp_path / "c.py").write_text('import os\nos.system("git ls-files --others")\n')
    (tmp_path / "d.py").write_text('import subprocess\ncmd = ["git", "log"]\nsubprocess.run(cmd)\n')
    (tmp_path / "e.py").write_text('import subprocess\nsubprocess.run(["gh", "auth", "status"])\n')
    (tmp_path / "f.py").write_text('WORDS = ["git", "commit"]  # data, in a module that starts nothing\n')
    assert offenders(tmp_path) == ["a.py:2", "b.py:2", "c.py:2", "d.py:2"]
