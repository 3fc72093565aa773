"""Run Python in a child process whose network is unreachable, to prove a model needs none.

A `sitecustomize.py` on the child's PYTHONPATH makes every connection and name lookup fail; the
child's `HF_*`/`TRANSFORMERS_*` settings are dropped, so a download attempt would really be tried
(and fail) rather than be skipped by an offline switch.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REFUSE_NETWORK = """
import socket

def _refuse(*args, **kwargs):
    raise OSError("network unreachable (disabled by the test)")

socket.socket.connect = _refuse
socket.socket.connect_ex = _refuse
socket.create_connection = _refuse
socket.getaddrinfo = _refuse
"""


def run_offline(
    code: str, folder: Path, env: dict[str, str] | None = None, timeout: float = 180
) -> subprocess.CompletedProcess[str]:
    """`python -c code` with the network refused; `folder` receives the sitecustomize.py."""
    (folder / "sitecustomize.py").write_text(REFUSE_NETWORK, encoding="utf-8")
    base = env if env is not None else dict(os.environ)
    child = {k: v for k, v in base.items() if not k.startswith(("HF_", "TRANSFORMERS_"))}
    child["PYTHONPATH"] = str(folder)
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=child, timeout=timeout
    )
