#!/usr/bin/env bash
# Set up a virtualenv with Lore and its dev tools, then run ruff and the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
.venv/bin/pip install -q --upgrade pip >/dev/null
.venv/bin/pip install -q -e '.[dev]'
.venv/bin/ruff check src tests bench
.venv/bin/python -m pytest "$@"
