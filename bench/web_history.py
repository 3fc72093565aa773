"""The history view of `lore serve`: what the web layer costs over the history service called
directly (the view's page weight is measured with the other views' in bench/web.py).

    .venv/bin/python bench/web_history.py [--commits 2000] [--rounds 30]

The repository is synthetic (bench/history_synth.py) and ingested from git the way a user's run
would be, with the offline hash embedder. A real `lore serve` server (uvicorn on 127.0.0.1, the
token, the guard) runs in this process; the same questions go to `why` without a model directly
and as `POST /api/history/why` over HTTP, interleaved, after one warm-up round each; likewise a
file's timeline. Printed: p50 and p95 of each, and the ratio web / direct; and the bytes of the
view's first screen of data (repositories, both charts, the file list, the busiest file's
timeline).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests"))  # support.ui_server: the server as the tests run it

from history_synth import synth_repo  # noqa: E402  (bench/ is put on the path just above)


def pct(values: list[float], q: int) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


def timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return (time.perf_counter() - start) * 1000


def line(name: str, direct: list[float], web: list[float]) -> None:
    d50, w50 = statistics.median(direct), statistics.median(web)
    print(
        f"{name:<22} direct p50 {d50:7.1f} ms  p95 {pct(direct, 95):7.1f} ms | "
        f"web p50 {w50:7.1f} ms  p95 {pct(web, 95):7.1f} ms | web / direct {w50 / d50:5.2f}x"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--commits", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=30, help="questions asked each way")
    args = parser.parse_args()
    root = synth_repo(args.commits)
    os.environ["LORE_HOME"] = tempfile.mkdtemp(prefix="lore-web-history-")
    os.environ["LORE_EMBED"] = "hash"
    for key in ("LORE_MODEL", "OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
        os.environ.pop(key, None)

    import httpx

    from lore.history import queries
    from lore.history.ingest.git import ingest_git
    from lore.history.repos import resolve_repo
    from lore.history.timeline import file_timeline
    from lore.history.why.service import why
    from lore.web.guard import TOKEN_HEADER
    from support.ui_server import running_ui

    t = time.perf_counter()
    ingest_git(root)
    repo = resolve_repo(str(root))
    print(f"ingested {args.commits:,} commits in {time.perf_counter() - t:.1f}s")
    paths = [f["path"] for f in queries.churn(repo, n=10)]
    questions = [f"why does {p} change so often?" for p in paths] + paths
    asked = [questions[i % len(questions)] for i in range(args.rounds)]
    t = time.perf_counter()
    why(repo, asked[0], use_model=False)  # builds the text index once, outside the clock
    print(f"why index built in {time.perf_counter() - t:.1f}s")

    with (
        running_ui() as (port, token),
        httpx.Client(
            base_url=f"http://127.0.0.1:{port}", headers={TOKEN_HEADER: token}, timeout=60, trust_env=False
        ) as client,
    ):

        def web_why(q: str) -> None:
            reply = client.post("/api/history/why", json={"repo": repo.name, "question": q, "model": False})
            reply.raise_for_status()

        def web_timeline(p: str) -> None:
            client.get("/api/history/timeline", params={"repo": repo.name, "path": p}).raise_for_status()

        for q in questions:  # warm-up: caches of the process, the connection
            why(repo, q, use_model=False)
            web_why(q)
        direct, web = [], []
        for q in asked:
            direct.append(timed(lambda q=q: why(repo, q, use_model=False)))
            web.append(timed(lambda q=q: web_why(q)))
        line("why (no model)", direct, web)
        direct, web = [], []
        for p in [paths[i % len(paths)] for i in range(args.rounds)]:
            direct.append(timed(lambda p=p: file_timeline(repo, p)))
            web.append(timed(lambda p=p: web_timeline(p)))
        line("a file's timeline", direct, web)

        first_screen = [
            "/api/history/repos",
            f"/api/history/churn?repo={repo.name}&n=10",
            f"/api/history/hotspots?repo={repo.name}&days=90&n=10",
            f"/api/history/files?repo={repo.name}&q=&limit=12",
            f"/api/history/timeline?repo={repo.name}&path={paths[0]}",
        ]
        data = sum(len(client.get(u).content) for u in first_screen)
        print(
            f"first screen of data (repositories, charts, files, the busiest file's timeline): {data / 1024:.1f} KiB"
        )


if __name__ == "__main__":
    from report import recorded

    with recorded(baseline="the history service called directly, interleaved in the same run"):
        main()
