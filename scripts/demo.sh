#!/usr/bin/env bash
# Set up Lore and run the main job on the embedded store: a demo project with sample rules,
# then exactly what an agent would be sent for a change. The demo keeps to a home of its own
# ($LORE_HOME/demo); it ends with how to remove it.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
.venv/bin/pip install -q --upgrade pip >/dev/null
.venv/bin/pip install -q -e .
.venv/bin/lore demo "$@"
