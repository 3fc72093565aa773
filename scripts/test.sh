#!/usr/bin/env bash
# Set up a virtualenv with Lore and its dev tools, then run the checks and the whole test suite:
# ruff (lint and format), mypy against its shrinking baseline, pytest on two workers
# (LORE_TEST_WORKERS=0 runs it in one process; arguments go to pytest).
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
.venv/bin/pip install -q --upgrade pip >/dev/null
.venv/bin/pip install -q -e '.[dev]'
.venv/bin/python scripts/portable_pgvector.py
.venv/bin/ruff check src tests bench scripts
.venv/bin/ruff format --check src tests bench scripts
.venv/bin/python scripts/mypy_baseline.py
.venv/bin/python -m pytest -n "${LORE_TEST_WORKERS:-2}" "$@"
