"""Which files are read: folders walked with .gitignore honoured, globs, stdin, symbolic links
never followed, and the walk bounded."""

from __future__ import annotations

import io
import json
import os
import sys
from pathlib import Path

import pytest

from cgconfig.errors import InputError
from cgconfig.lint import walk
from tests.lint.conftest import Run, ids

BAD = "python3 -m sglang.launch_server --model-path m --cuda-graph-max-bs 64\n"


def test_gitignore_is_honoured(check: Run) -> None:
    files = {"keep.sh": BAD, "build/out.sh": BAD, "sub/.gitignore": "*.gen.sh\n!keep.gen.sh\n",
             "sub/a.gen.sh": BAD, "sub/keep.gen.sh": BAD, ".gitignore": "build/\n"}
    _, out, _ = check("-o", "json", ".", files=files)
    assert sorted(f["file"] for f in json.loads(out)["findings"]) == ["keep.sh",
                                                                      "sub/keep.gen.sh"]
    _, out, _ = check("-o", "json", "--no-gitignore", ".")
    assert len(json.loads(out)["findings"]) == 4


def test_exclude_and_globs(check: Run) -> None:
    files = {"a/x.sh": BAD, "a/y.sh": BAD, "b/z.sh": BAD}
    _, out, _ = check("-o", "json", "--exclude", "a/y.sh", ".", files=files)
    assert sorted(f["file"] for f in json.loads(out)["findings"]) == ["a/x.sh", "b/z.sh"]
    _, out, _ = check("-o", "json", "a/*.sh")
    assert sorted(f["file"] for f in json.loads(out)["findings"]) == ["a/x.sh", "a/y.sh"]
    code, _, err = check("c/*.sh")
    assert code == 2 and "no file matches c/*.sh" in err


def test_only_launch_files_are_read_in_folders(check: Run) -> None:
    files = {"a.py": BAD, "notes.txt": BAD, "script": "#!/bin/bash\n" + BAD, "ok.sh": BAD}
    _, out, _ = check("-o", "json", ".", files=files)
    assert sorted(f["file"] for f in json.loads(out)["findings"]) == ["ok.sh", "script"]
    # a file named on the command line is read whatever its name
    assert ids(check("-o", "json", "notes.txt")[1]) == [("CG012", 1)]


def test_symbolic_links_are_never_followed(check: Run, tmp_path: Path) -> None:
    outside = tmp_path.parent / f"{tmp_path.name}-outside"
    outside.mkdir()
    (outside / "secret.sh").write_text(BAD)
    os.symlink(outside, tmp_path / "linked")
    os.symlink(outside / "secret.sh", tmp_path / "link.sh")
    code, out, _ = check("-o", "json", ".", files={"real.sh": "echo\n"})
    assert json.loads(out)["findings"] == [] and code == 0
    code, out, _ = check("-o", "json", "link.sh")
    assert json.loads(out)["skipped"] == ["link.sh (a symbolic link: not followed)"]


def test_stdin(check: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(BAD.encode())))
    _code, out, _ = check("-o", "json", "--stdin-filename", "run.sh", "-")
    assert ids(out) == [("CG012", 1)] and json.loads(out)["findings"][0]["file"] == "run.sh"


def test_unreadable_file_is_a_note(check: Run, tmp_path: Path) -> None:
    (tmp_path / "bin.sh").write_bytes(b"\xff\xfe vllm serve")
    code, out, _ = check("-o", "json", "bin.sh")
    assert ids(out) == [("CG010", 1)] and code == 0


def test_walk_is_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    for i in range(12):
        (tmp_path / f"{i}.sh").write_text("echo\n")
    monkeypatch.setattr(walk, "MAX_FILES", 10)
    with pytest.raises(InputError, match="more than 10 files to check"):
        walk.collect(["."])
    deep = tmp_path / "d"
    for _ in range(5):
        deep = deep / "d"
    deep.mkdir(parents=True)
    monkeypatch.setattr(walk, "MAX_FILES", 1000)
    monkeypatch.setattr(walk, "MAX_DEPTH", 3)
    with pytest.raises(InputError, match="nested deeper than 3"):
        walk.collect(["d"])


def test_unreadable_files_met_by_a_walk_are_listed_not_reported(check: Run) -> None:
    files = {"odd.sh": "cat <<EOF\nnever closed\n", "ok.sh": BAD}
    _, out, _ = check("-o", "json", ".", files=files)
    data = json.loads(out)
    assert [f["id"] for f in data["findings"]] == ["CG012"]
    assert data["skipped"][0].startswith("odd.sh (not read: ")
    assert ids(check("-o", "json", "odd.sh")[1]) == [("CG010", 2)]  # the line the reader names
