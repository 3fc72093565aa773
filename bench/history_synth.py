"""A synthetic but realistic git history, written with one `git fast-import` stream.

Shapes that matter for the history graph: modules whose files change together, a changelog
edited by many commits, sweeping commits (reformat, license headers) touching hundreds of
files, dependency bumps by bots, squash-merge PR numbers in subjects, merge commits of
feature branches, and renames. Deterministic for a given size and seed; cached on disk.
"""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parent / "out"
VERSION = 2  # bump when the generator changes, so cached repositories are rebuilt
START = 1_609_459_200  # 2021-01-01
MODULES = 40
FILES_PER_MODULE = 16
PEOPLE = [(f"Dev {i:02d}", f"dev{i:02d}@example.com") for i in range(30)]
BOTS = [
    ("dependabot[bot]", "49699333+dependabot[bot]@users.noreply.github.com"),
    ("github-actions[bot]", "41898282+github-actions[bot]@users.noreply.github.com"),
]


def synth_repo(commits: int, seed: int = 7, branchy: bool = False) -> Path:
    """The path of a repository with `commits` commits on main (built on first use).

    `branchy`: a long-lived side branch takes 40% of the work in parallel with main, touching
    the same files (the changelog above all), and is merged back every 60 of its commits: the
    shape where following a file by timestamps loses its history."""
    root = OUT / f"synth-v{VERSION}-{commits}-{seed}{'-branchy' if branchy else ''}"
    if (root / ".git" / "lore-synth-done").exists():
        return root
    if root.exists():
        subprocess.run(["rm", "-rf", str(root)], check=True)
    root.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True)
    print(f"building a synthetic repository of {commits:,} commits in {root} ...", file=sys.stderr)
    proc = subprocess.Popen(["git", "fast-import", "--quiet"], cwd=root, stdin=subprocess.PIPE)
    assert proc.stdin is not None
    _Writer(proc.stdin, commits, seed, branchy).run()
    proc.stdin.close()
    if proc.wait() != 0:
        raise SystemExit("git fast-import failed")
    subprocess.run(["git", "checkout", "-q", "-f", "main"], cwd=root, check=True)
    (root / ".git" / "lore-synth-done").write_text("ok\n")
    return root


class _Writer:
    def __init__(self, out, commits: int, seed: int, branchy: bool = False):
        self.out = out
        self.branchy = branchy
        self.side_mark: int | None = None
        self.side_count = 0
        self.total = commits
        self.rng = random.Random(seed)
        self.mark = 0
        self.time = START
        self.pr = 100
        self.files: dict[str, list[str]] = {}
        for m in range(MODULES):
            for f in range(FILES_PER_MODULE):
                path = f"src/mod{m:02d}/file{f:02d}.py"
                self.files[path] = [f"# {path} line {i}" for i in range(30)]
        self.files["CHANGELOG.md"] = ["# Changelog"]
        self.files["requirements.txt"] = ["requests==2.0.0", "click==8.0.0"]
        self.main_mark: int | None = None
        self.count = 0
        # module popularity: a few modules are busy, most are quiet
        self.weights = [1.0 / (i + 1) ** 0.8 for i in range(MODULES)]

    def w(self, text: str) -> None:
        self.out.write(text.encode())

    def data(self, body: str) -> None:
        raw = body.encode()
        self.out.write(f"data {len(raw)}\n".encode() + raw + b"\n")

    def run(self) -> None:
        self.commit("main", "Initial import", PEOPLE[0], list(self.files), parent=None)
        while self.count < self.total:
            n = self.count
            if n % 997 == 0:
                self.sweep()
            elif n % 41 == 0 and self.count + 2 <= self.total:
                self.feature_branch()
            elif self.rng.random() < 0.03:
                self.bump()
            elif n % 487 == 0:
                self.rename()
            elif self.branchy and self.rng.random() < 0.4:
                self.side_change()
            else:
                self.change()

    def side_change(self) -> None:
        """A commit on the long-lived side branch; every 60th merges it back into main."""
        module = self.rng.choices(range(MODULES), self.weights)[0]
        picked = sorted({*self._module_files(module)[:2], "CHANGELOG.md"})
        parent = self.side_mark if self.side_mark is not None else self.main_mark
        self.side_mark = self.commit(
            "refs/heads/side",
            f"Side work on mod{module:02d}",
            self.rng.choice(PEOPLE),
            picked,
            parent=parent,
            update_main=False,
        )
        self.side_count += 1
        if self.side_count % 60 == 0 and self.count < self.total:
            self.pr += 1
            self.commit(
                "main", f"Merge pull request #{self.pr} from dev/side", PEOPLE[1], [], merge=self.side_mark
            )
            self.side_mark = None

    # ------------------------------------------------------------ kinds of commits

    def change(self) -> None:
        module = self.rng.choices(range(MODULES), self.weights)[0]
        paths = self._module_files(module)
        k = self.rng.choice([1, 1, 2, 2, 3, 4])
        picked = set(self.rng.sample(paths, min(k, len(paths))))
        if paths[0] in picked or self.rng.random() < 0.5:  # the module's pair moves together
            picked.update(paths[:2])
        if self.rng.random() < 0.2:
            picked.add("CHANGELOG.md")
        main_file = sorted(p for p in picked if p.startswith("src/"))[0]
        subject = f"Improve {Path(main_file).stem} in mod{module:02d}"
        if self.rng.random() < 0.5:
            self.pr += 1
            subject += f" (#{self.pr})"
        self.commit("main", subject, self.rng.choice(PEOPLE), sorted(picked))

    def sweep(self) -> None:
        paths = [p for p in self.files if p.startswith("src/")]
        picked = self.rng.sample(paths, min(300, len(paths)))
        self.commit("main", "Reformat the code base", self.rng.choice(PEOPLE), sorted(picked))

    def bump(self) -> None:
        self.commit("main", f"Bump requests to 2.{self.count}.0", BOTS[0], ["requirements.txt"])

    def rename(self) -> None:
        module = self.rng.randrange(MODULES)
        paths = self._module_files(module)
        old = self.rng.choice(paths[2:])
        new = old.replace(".py", f"_v{self.count}.py")
        self.files[new] = self.files.pop(old)
        self.pr += 1
        self.commit(
            "main", f"Rename {Path(old).name} (#{self.pr})", self.rng.choice(PEOPLE), [], renames=[(old, new)]
        )

    def feature_branch(self) -> None:
        module = self.rng.choices(range(MODULES), self.weights)[0]
        paths = self._module_files(module)
        who = self.rng.choice(PEOPLE)
        branch_mark = self.commit(
            "refs/heads/feature",
            f"Work on mod{module:02d}",
            who,
            paths[:3],
            parent=self.main_mark,
            update_main=False,
        )
        self.pr += 1
        self.commit(
            "main", f"Merge pull request #{self.pr} from dev/feature-{self.pr}", who, [], merge=branch_mark
        )

    def _module_files(self, module: int) -> list[str]:
        prefix = f"src/mod{module:02d}/"
        return sorted(p for p in self.files if p.startswith(prefix))

    # ------------------------------------------------------------ the stream

    def commit(
        self,
        ref: str,
        subject: str,
        who: tuple[str, str],
        paths: list[str],
        parent: int | str | None = "main",
        update_main: bool = True,
        merge: int | None = None,
        renames: list[tuple[str, str]] = (),
    ) -> int:
        self.mark += 1
        self.count += 1
        self.time += self.rng.randint(600, 9000)
        mark = self.mark
        ref_name = ref if ref.startswith("refs/") else f"refs/heads/{ref}"
        self.w(f"commit {ref_name}\nmark :{mark}\n")
        self.w(f"author {who[0]} <{who[1]}> {self.time} +0000\n")
        self.w(f"committer {who[0]} <{who[1]}> {self.time} +0000\n")
        self.data(subject + "\n")
        base = self.main_mark if parent == "main" else parent
        if base is not None:
            self.w(f"from :{base}\n")
        if merge is not None:
            self.w(f"merge :{merge}\n")
        for old, new in renames:
            self.w(f'R "{old}" "{new}"\n')
        for path in paths:
            lines = self.files[path]
            if self.count > 1:
                self._edit(path, lines)
            self.w(f"M 100644 inline {path}\n")
            self.data("\n".join(lines) + "\n")
        self.w("\n")
        if update_main:
            self.main_mark = mark
        return mark

    def _edit(self, path: str, lines: list[str]) -> None:
        if path == "CHANGELOG.md":
            lines.insert(1, f"- change {self.count}")
            del lines[200:]
            return
        for _ in range(self.rng.randint(1, 4)):
            i = self.rng.randrange(len(lines))
            lines[i] = f"# {path} edited in {self.count} at {i}"
        if self.rng.random() < 0.4:
            lines.append(f"# added in {self.count}")
        if len(lines) > 60:
            del lines[self.rng.randrange(len(lines))]


if __name__ == "__main__":
    size = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
    print(synth_repo(size))
