"""Rust and Go tooling (`cargo fmt`/`clippy`, gofmt, golangci-lint) and pre-commit hooks."""

from __future__ import annotations

import re
from pathlib import Path

from lore.rules.intake.discover_config.base import (
    Declared,
    _read,
    _toml,
)


def rust_go_config(root: Path, files: set[str]) -> list[Declared]:
    found: list[Declared] = []
    rustfmt = next((f for f in ("rustfmt.toml", ".rustfmt.toml") if f in files), None)
    if "Cargo.toml" in files or rustfmt:
        settings = _toml(root, rustfmt) if rustfmt else {}
        detail = f" (max_width = {settings['max_width']})" if settings and "max_width" in settings else ""
        found.append(
            Declared(
                f"Format Rust with `cargo fmt`{detail}, lint with `cargo clippy`, and run "
                "`cargo test` before committing.",
                "Rust tooling",
                ["rust", "format", "lint", "test"],
                ["**/*.rs"],
                rustfmt or "Cargo.toml",
                "rustfmt" if rustfmt else "Cargo.toml",
                ("rust", "formatter"),
            )
        )
    if "go.mod" in files:
        found.append(
            Declared(
                "Format Go with gofmt (tabs for indentation) and run `go vet` and `go test ./...` "
                "before committing.",
                "Go tooling",
                ["go", "format", "gofmt", "test"],
                ["**/*.go"],
                "go.mod",
                "go module",
                ("go", "formatter"),
            )
        )
        lint = next((f for f in (".golangci.yml", ".golangci.yaml", ".golangci.toml") if f in files), None)
        if lint:
            found.append(
                Declared(
                    "Lint Go with golangci-lint and keep it clean.",
                    "Go linter",
                    ["go", "lint", "golangci"],
                    ["**/*.go"],
                    lint,
                    "golangci-lint",
                    ("go", "linter"),
                )
            )
    if ".pre-commit-config.yaml" in files:
        hooks = re.findall(r"^\s*-\s*id:\s*([\w.-]+)", _read(root, ".pre-commit-config.yaml") or "", re.M)
        if hooks:
            shown = ", ".join(hooks[:6]) + (", ..." if len(hooks) > 6 else "")
            found.append(
                Declared(
                    f"Run the pre-commit hooks ({shown}) before committing: `pre-commit run`.",
                    "Pre-commit hooks",
                    ["git", "commit", "lint", "format"],
                    [],
                    ".pre-commit-config.yaml",
                    "hooks: " + shown,
                    ("any", "pre_commit"),
                )
            )
    return found
