"""Conventions a repository declares in its tool configuration.

A formatter or linter setting is a convention stated outright, so it needs no vote across files:
`pyproject.toml` ([tool.ruff], [tool.black], [tool.isort], [tool.mypy], [tool.pytest]),
`setup.cfg`/`.flake8`, Prettier and ESLint files, `package.json`, `tsconfig.json`,
`.editorconfig`, `rustfmt.toml`, `Cargo.toml`, `go.mod`, golangci-lint and pre-commit.
Each finding names the file and the setting it came from.

One module per language or tool: `python`, `javascript`, `editorconfig`, `rust_go`; what they
share (the finding, reading files) is in `base`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from lore.rules.intake.discover_config.base import Declared
from lore.rules.intake.discover_config.editorconfig import editorconfig
from lore.rules.intake.discover_config.javascript import javascript_config
from lore.rules.intake.discover_config.python import python_config
from lore.rules.intake.discover_config.rust_go import rust_go_config

__all__ = ["READERS", "Declared", "declared_conventions"]

READERS: tuple[Callable[[Path, set[str]], list[Declared]], ...] = (
    python_config,
    javascript_config,
    editorconfig,
    rust_go_config,
)


def declared_conventions(root: Path, files: set[str]) -> list[Declared]:
    """Everything the repository's config files state, in a stable order."""
    out: list[Declared] = []
    for reader in READERS:
        out.extend(reader(root, files))
    return out
