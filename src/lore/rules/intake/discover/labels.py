"""Labels of one file that every language shares: indentation, line length, how names are written."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import PurePosixPath

from lore.rules.intake.discover.files import (
    JS_FAMILY,
    SourceFile,
)


def indentation(f: SourceFile) -> str | None:
    tabs = spaces = 0
    widths: Counter[int] = Counter()
    previous = 0
    in_block_string = False
    for line in f.lines:
        if f.language == "python" and line.count('"""') % 2 == 1:
            in_block_string = not in_block_string
            continue
        if in_block_string or not line.strip():
            continue
        lead = line[: len(line) - len(line.lstrip())]
        if lead.startswith("\t"):
            tabs += 1
        elif lead:
            spaces += 1
            if line.lstrip().startswith("*"):  # a comment block's aligned stars
                continue
            delta = len(lead) - previous
            if delta in (2, 3, 4, 8):
                widths[delta] += 1
        previous = len(lead) if not lead.startswith("\t") else previous
    if tabs + spaces < 3:
        return None
    if tabs >= 0.8 * (tabs + spaces):
        return "tabs"
    if spaces < 0.8 * (tabs + spaces) or not widths:
        return None
    width, _ = widths.most_common(1)[0]
    return f"{width} spaces"


def longest_line(f: SourceFile) -> int:
    return max((len(line) for line in f.lines if "http://" not in line and "https://" not in line), default=0)


def _preference(a: int, b: int, a_label: str, b_label: str, minimum: int = 3) -> str | None:
    total = a + b
    if total < minimum:
        return None
    if a >= 0.8 * total:
        return a_label
    if b >= 0.8 * total:
        return b_label
    return "mixed"


def name_style(name: str) -> str | None:
    """snake_case, kebab-case, camelCase or PascalCase; None for one-word names that fit several."""
    name = name.strip("_")
    if not name or not re.search(r"[A-Za-z]", name):
        return None
    if "_" in name and name == name.lower():
        return "snake_case"
    if "-" in name and name == name.lower():
        return "kebab-case"
    if re.fullmatch(r"[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)+", name):
        return "camelCase"
    if re.fullmatch(r"(?:[A-Z][a-z0-9]+){2,}", name):
        return "PascalCase"
    if re.fullmatch(r"[A-Z0-9_]+", name) and "_" in name:
        return "UPPER_CASE"
    return None


def file_name_style(f: SourceFile) -> str | None:
    stem = PurePosixPath(f.rel).name.split(".")[0]
    if stem in ("index", "main", "__init__", "__main__", "setup", "conftest", "mod", "lib"):
        return None
    stem = re.sub(r"^(test_)|(_test|\.test|\.spec)$", "", stem)
    return name_style(stem)


_PY_DEF = re.compile(r"^\s*(?:async\s+)?def\s+(\w+)\s*\(", re.M)
_JS_FUNC = re.compile(
    r"(?:^|\s)function\s*\*?\s*(\w+)\s*\(|(?:const|let)\s+(\w+)\s*=\s*(?:async\s*)?"
    r"(?:\([^)]*\)|\w+)\s*=>",
    re.M,
)


def function_name_style(f: SourceFile) -> str | None:
    if f.language == "python":
        names = [n for n in _PY_DEF.findall(f.text) if not n.startswith("__")]
    elif f.language in JS_FAMILY:
        names = [a or b for a, b in _JS_FUNC.findall(f.text)]
    else:
        return None
    styles = Counter(s for n in names if (s := name_style(n)) and s != "UPPER_CASE")
    if sum(styles.values()) < 2:
        return None
    style, count = styles.most_common(1)[0]
    return style if count >= 0.8 * sum(styles.values()) else "mixed"
