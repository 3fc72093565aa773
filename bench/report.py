"""The one place benchmark figures are written: each bench's section of bench/README.md.

A benchmark prints its figures as it always has; at the end of a normal run it hands them to
`record`, which rewrites that bench's section of bench/README.md (and only that one) between
markers, stamped with the command, the baseline the ratios are against, the date and the machine
(CPU model, cores, Python). Figures therefore live in one generated file instead of in the README
or the docs, and every figure there says when and where it was measured.

Most benches wrap their `main()` with `recorded(...)`, which shows their output as usual and
records what they printed on stdout as the section's body:

    if __name__ == "__main__":
        with recorded(baseline="sending every eligible rule, measured in the same run"):
            main()

`--no-record` on the command line (removed before the bench reads its arguments) or
`LORE_BENCH_NO_RECORD=1` skips the write, for trial runs. A run that fails or exits with a
non-zero status records nothing.
"""

from __future__ import annotations

import contextlib
import datetime
import io
import os
import platform
import re
import shlex
import sys
from collections.abc import Iterator
from pathlib import Path

# LORE_BENCH_README writes elsewhere (the tests of this module use it).
README = Path(os.environ.get("LORE_BENCH_README") or Path(__file__).resolve().parent / "README.md")

HEADER = """# Benchmark figures

Generated: each benchmark under `bench/` rewrites its own section below at the end of a run
(`bench/report.py`); sections are kept in name order. Every ratio is against a baseline measured
in the same run on the same machine, so it carries over between machines better than the
absolute times do. Run a bench with `--no-record` (or `LORE_BENCH_NO_RECORD=1`) to leave this
file as it is.
"""

_SECTION = re.compile(
    r"<!-- bench:(?P<name>[\w.-]+) start -->\n(?P<body>.*?)<!-- bench:(?P=name) end -->\n",
    re.DOTALL,
)


def machine() -> str:
    """One line naming the machine: CPU model, cores, OS and Python."""
    cpu = platform.processor() or platform.machine()
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    cores = os.cpu_count() or 1
    return (
        f"{cpu}, {cores} core{'s' if cores != 1 else ''}, {platform.system()} "
        f"{platform.machine()}, Python {platform.python_version()}"
    )


def command_line(argv: list[str] | None = None) -> str:
    """The command that ran this bench, as one would type it from the repository's root."""
    args = list(sys.argv if argv is None else argv)
    script = Path(args[0]) if args else Path("bench")
    with contextlib.suppress(ValueError):
        script = script.resolve().relative_to(Path(__file__).resolve().parent.parent)
    return shlex.join([".venv/bin/python", str(script), *args[1:]])


def section(
    name: str,
    body: str,
    *,
    command: str,
    baseline: str,
    date: str,
    machine_line: str,
    about: str = "",
) -> str:
    """The Markdown of one bench's section, markers included."""
    lines = [f"<!-- bench:{name} start -->", f"## `bench/{name}.py`", ""]
    if about:
        lines += [about.strip(), ""]
    lines += [
        f"- command: `{command}`",
        f"- baseline: {baseline}",
        f"- date: {date}",
        f"- machine: {machine_line}",
        "",
        body.strip("\n"),
        "",
        f"<!-- bench:{name} end -->",
    ]
    return "\n".join(lines) + "\n"


def sections(text: str) -> dict[str, str]:
    """Every section of a bench/README.md text, by bench name, markers included."""
    return {m["name"]: m.group(0) for m in _SECTION.finditer(text)}


def write(name: str, markdown: str, path: Path = README) -> None:
    """Put one bench's section (as made by `section`) into the file, the others untouched."""
    found = sections(path.read_text(encoding="utf-8")) if path.exists() else {}
    found[name] = markdown
    parts = [HEADER] + [found[key] for key in sorted(found)]
    path.write_text("\n".join(parts), encoding="utf-8")


def enabled() -> bool:
    """False when this run was asked not to write bench/README.md."""
    return os.environ.get("LORE_BENCH_NO_RECORD", "") in ("", "0")


def record(
    name: str,
    body: str,
    *,
    baseline: str,
    command: str | None = None,
    about: str = "",
    path: Path = README,
) -> None:
    """Rewrite bench `name`'s section with `body` (Markdown), stamped with today and this machine."""
    if not enabled():
        return
    write(
        name,
        section(
            name,
            body,
            command=command or command_line(),
            baseline=baseline,
            date=datetime.date.today().isoformat(),
            machine_line=machine(),
            about=about,
        ),
        path,
    )


class _Tee(io.TextIOBase):
    """Writes to the real stdout and keeps a copy."""

    def __init__(self, out: io.TextIOBase) -> None:
        self.out = out
        self.copy = io.StringIO()

    def write(self, text: str) -> int:
        self.copy.write(text)
        return self.out.write(text)

    def flush(self) -> None:
        self.out.flush()

    def isatty(self) -> bool:
        return self.out.isatty()

    def fileno(self) -> int:
        return self.out.fileno()


_OUTER = "LORE_BENCH_RECORDING"
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


@contextlib.contextmanager
def recorded(*, baseline: str, name: str = "", about: str = "") -> Iterator[None]:
    """Run a bench's main inside: show its stdout as usual, then record it as the section body.

    `name` defaults to the script's file name and `about` to the first paragraph of the
    script's docstring (what it measures). Removes `--no-record` from `sys.argv` first (the
    bench's own parser never sees it). The output is recorded as one text block; nothing is
    recorded when the block raises or exits with a non-zero status, for `--help`, or in a child
    process a recording bench started.
    """
    if "--no-record" in sys.argv:
        sys.argv = [arg for arg in sys.argv if arg != "--no-record"]
        os.environ["LORE_BENCH_NO_RECORD"] = "1"
    if os.environ.get(_OUTER):
        # A child process of a recording bench (benches run themselves as children to measure
        # a fresh process): its output goes to its parent, which records the figures.
        yield
        return
    os.environ[_OUTER] = "1"
    name = name or Path(sys.argv[0]).stem
    if not about:
        doc = getattr(sys.modules.get("__main__"), "__doc__", None) or ""
        about = " ".join(doc.strip().split("\n\n")[0].split())
    command = command_line()
    wants_help = any(arg in ("-h", "--help") for arg in sys.argv[1:])
    tee = _Tee(sys.stdout)  # type: ignore[arg-type]
    real = sys.stdout
    sys.stdout = tee
    try:
        yield
    except SystemExit as stop:
        if stop.code not in (None, 0):
            raise
        _finish(name, tee, real, command, baseline, about, wants_help)
        raise
    except BaseException:
        sys.stdout = real
        raise
    _finish(name, tee, real, command, baseline, about, wants_help)


def _finish(
    name: str,
    tee: _Tee,
    real: object,
    command: str,
    baseline: str,
    about: str,
    wants_help: bool,
) -> None:
    """Restore stdout and record what the bench printed, unless there is nothing to record."""
    sys.stdout = real  # type: ignore[assignment]
    printed = _ANSI.sub("", tee.copy.getvalue()).strip("\n").rstrip()
    if wants_help or not printed or not enabled():
        return
    record(
        name,
        "```text\n" + printed.replace("```", "'''") + "\n```",
        baseline=baseline,
        command=command,
        about=about,
    )
    print(f"figures recorded in {README}", file=sys.stderr)
