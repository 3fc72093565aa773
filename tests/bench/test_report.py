"""bench/report.py: a bench run rewrites its own section of the figures file and nothing else.

Each test runs a real script in a child Python, as a bench is run, with `LORE_BENCH_README`
pointing at a file in tmp_path, then reads that file.
"""

from __future__ import annotations

import os
import platform
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench"

SCRIPT = '''"""A tiny bench: prints one ratio.

More text that is not the first paragraph.
"""

import subprocess
import sys

sys.path.insert(0, {bench!r})
from report import recorded


def main():
    print("args", sys.argv[1:])
    if "--spawn" in sys.argv:
        subprocess.run([sys.executable, __file__, "--child"], check=True)
    if "--fail" in sys.argv:
        sys.exit(2)
    print("| what | ratio |")
    print("| --- | ---: |")
    print("| value | " + sys.argv[-1] + " |")


if __name__ == "__main__":
    with recorded(baseline="nothing, in the same run"):
        main()
'''


def _run(tmp_path: Path, *args: str, name: str = "tiny") -> subprocess.CompletedProcess[str]:
    script = tmp_path / f"{name}.py"
    script.write_text(SCRIPT.format(bench=str(BENCH)))
    env = {k: v for k, v in os.environ.items() if not k.startswith("LORE_BENCH_")}
    env["LORE_BENCH_README"] = str(tmp_path / "README.md")
    return subprocess.run(
        [sys.executable, str(script), *args], env=env, capture_output=True, text=True, check=False
    )


def _section(text: str, name: str) -> str:
    start = text.index(f"<!-- bench:{name} start -->")
    return text[start : text.index(f"<!-- bench:{name} end -->", start)]


def test_a_run_writes_its_section_with_command_baseline_date_and_machine(tmp_path: Path) -> None:
    done = _run(tmp_path, "1.25x")
    assert done.returncode == 0, done.stderr
    assert "| value | 1.25x |" in done.stdout  # the bench's output is still shown
    section = _section((tmp_path / "README.md").read_text(), "tiny")
    assert "## `bench/tiny.py`" in section
    assert "A tiny bench: prints one ratio." in section
    assert "More text" not in section
    assert "- baseline: nothing, in the same run" in section
    assert "tiny.py 1.25x`" in section
    assert f"Python {platform.python_version()}" in section
    assert f"{os.cpu_count()} core" in section
    assert "| value | 1.25x |" in section


def test_a_second_run_replaces_only_its_own_section(tmp_path: Path) -> None:
    assert _run(tmp_path, "1.00x", name="alpha").returncode == 0
    assert _run(tmp_path, "2.00x", name="omega").returncode == 0
    first = (tmp_path / "README.md").read_text()
    assert _run(tmp_path, "3.00x", name="alpha").returncode == 0
    text = (tmp_path / "README.md").read_text()
    assert "| value | 3.00x |" in _section(text, "alpha")
    assert "1.00x |" not in text
    assert text.count("<!-- bench:alpha start -->") == 1
    assert _section(text, "omega") == _section(first, "omega")
    assert text.index("bench:alpha start") < text.index("bench:omega start")


def test_no_record_leaves_the_file_and_hides_the_flag_from_the_bench(tmp_path: Path) -> None:
    assert _run(tmp_path, "1.00x").returncode == 0
    before = (tmp_path / "README.md").read_text()
    done = _run(tmp_path, "--no-record", "9.00x")
    assert done.returncode == 0, done.stderr
    assert "args ['9.00x']" in done.stdout
    assert (tmp_path / "README.md").read_text() == before


def test_a_failed_run_records_nothing(tmp_path: Path) -> None:
    done = _run(tmp_path, "--fail", "5.00x")
    assert done.returncode == 2
    assert not (tmp_path / "README.md").exists()


def test_a_child_of_a_recording_bench_does_not_record(tmp_path: Path) -> None:
    # The child runs to the end and prints its table; the parent then fails, so any file
    # written can only be the child's.
    done = _run(tmp_path, "--spawn", "--fail", "4.00x")
    assert done.returncode == 2
    assert "| value | --child |" in done.stdout
    assert not (tmp_path / "README.md").exists()
