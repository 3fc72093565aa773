"""`core.files.write_atomic`: whole files or nothing, a unique temporary name, the mode kept."""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

import pytest

from lore.core.files import write_atomic


def test_writes_text_and_bytes_without_newline_translation(tmp_path: Path) -> None:
    target = tmp_path / "deep" / "folder" / "config.json"
    write_atomic(target, "a\r\nb\n")
    assert target.read_bytes() == b"a\r\nb\n"
    write_atomic(target, b"\x00\x01")
    assert target.read_bytes() == b"\x00\x01"
    assert sorted(p.name for p in target.parent.iterdir()) == ["config.json"]  # no temporary left


def test_keeps_the_mode_of_an_existing_file_and_uses_the_umask_for_a_new_one(tmp_path: Path) -> None:
    kept = tmp_path / "private.json"
    kept.write_text("{}")
    kept.chmod(0o600)
    write_atomic(kept, "{}\n")
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600
    old = os.umask(0o027)
    try:
        fresh = write_atomic(tmp_path / "fresh.json", "{}")
    finally:
        os.umask(old)
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o640


def test_a_link_is_replaced_never_followed(tmp_path: Path) -> None:
    elsewhere = tmp_path / "outside.txt"
    elsewhere.write_text("keep me")
    link = tmp_path / "repo" / "AGENTS.md"
    link.parent.mkdir()
    link.symlink_to(elsewhere)
    write_atomic(link, "new")
    assert not link.is_symlink() and link.read_text() == "new"
    assert elsewhere.read_text() == "keep me"


def test_concurrent_writers_never_mix_their_content(tmp_path: Path) -> None:
    """Many threads write one file at once: every read sees one writer's whole content."""
    folder = tmp_path / "files"  # a folder of its own: the fixtures put files in tmp_path
    folder.mkdir()
    target = folder / "shared.json"
    bodies = [(chr(ord("a") + i) * 50_000).encode() for i in range(8)]
    start = threading.Barrier(len(bodies))
    errors: list[BaseException] = []

    def writer(body: bytes) -> None:
        try:
            start.wait()
            for _ in range(20):
                write_atomic(target, body)
                assert target.read_bytes() in bodies
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(b,)) for b in bodies]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert target.read_bytes() in bodies
    assert [p.name for p in folder.iterdir()] == ["shared.json"]


def test_a_failed_replace_leaves_the_target_and_no_temporary(tmp_path: Path) -> None:
    """When the final step fails (here the target is a folder with files in it), what stood
    there is untouched and the temporary file is gone."""
    home = tmp_path / "files"
    target = home / "settings.json"
    target.mkdir(parents=True)
    (target / "keep").write_text("mine")
    with pytest.raises(OSError):
        write_atomic(target, "new")
    assert (target / "keep").read_text() == "mine"
    assert [p.name for p in home.iterdir()] == ["settings.json"]
