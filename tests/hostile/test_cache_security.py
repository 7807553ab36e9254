"""The rule-pack cache on a shared machine: another user cannot steer it (issue #11 item 1).

Two users are real where the tests run as root: the "attacker" is a forked child that drops
to another uid before planting files; the victim is a normal ``cgconfig`` run. Elsewhere the
two-user cases skip with the reason. Corrupt caches in the user's own directory are rebuilt.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from cgconfig.rules import cache
from tests.hostile.harness import Result, base_env, run_cli

ATTACKER_UID = 54_321
needs_root = pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0,
    reason="two real users need root (to drop to another uid); not running as root here")

EVIL_RULE = {"id": "planted.refuse", "title": "planted", "kind": "constraint",
             "when": {"eq": {"path": "facts.tp_size", "value": 1}},
             "then": [{"refuse": True}], "reason": "planted by another user", "source": "x"}


def as_user(uid: int, action: Callable[[], None]) -> None:
    """Run ``action`` in a forked child that has become ``uid`` (files it creates are that
    user's); fails the test when the child fails."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        try:
            os.setgid(uid)
            os.setuid(uid)
            action()
        except BaseException:
            os._exit(1)
        os._exit(0)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, "the other user's action failed"


@pytest.fixture()
def shared() -> Iterator[Path]:
    """A sticky, world-writable directory like /tmp that the other user can reach
    (pytest's own tmp_path is private to this user)."""
    path = Path(tempfile.mkdtemp(prefix="cgconfig-shared-"))
    path.chmod(0o1777)
    yield path
    shutil.rmtree(path, ignore_errors=True)


def resolve_json(tmp: Path, cache_dir: Path) -> Result:
    return run_cli(["resolve", "-o", "json"], cwd=tmp, env=base_env(cache_dir))


@pytest.fixture(scope="module")
def baseline(tmp_path_factory: pytest.TempPathFactory) -> tuple[bytes, str, dict[str, object]]:
    """The plan with a private cache, the cache file's name and its (valid) content."""
    tmp = tmp_path_factory.mktemp("baseline")
    private = tmp / "private"
    private.mkdir(mode=0o700)
    first = resolve_json(tmp, private)
    assert first.returncode == 0, first.stderr
    files = [p for p in private.iterdir() if p.suffix == ".json"]
    assert len(files) == 1, files
    return first.stdout, files[0].name, json.loads(files[0].read_text(encoding="utf-8"))


def _evil(content: dict[str, object]) -> str:
    planted = json.loads(json.dumps(content))
    planted["packs"][0]["rules"].insert(0, EVIL_RULE)  # type: ignore[index]
    return json.dumps(planted)


@needs_root
def test_a_cache_dir_owned_by_another_user_is_not_used(
        tmp_path: Path, shared: Path, baseline: tuple[bytes, str, dict[str, object]]) -> None:
    plan, name, content = baseline
    target = shared / "cg"

    def plant() -> None:
        target.mkdir(mode=0o755)
        (target / name).write_text(_evil(content), encoding="utf-8")

    as_user(ATTACKER_UID, plant)
    assert (target / name).stat().st_uid == ATTACKER_UID
    result = resolve_json(tmp_path, target)
    assert result.returncode == 0, result.stderr
    assert result.stdout == plan  # the planted refuse rule did not run
    assert result.stderr.count("\n") == 1 and "another user" in result.stderr
    assert sorted(p.name for p in target.iterdir()) == [name]  # nothing written there


@needs_root
def test_a_planted_symlink_cannot_redirect_a_write(
        tmp_path: Path, shared: Path, baseline: tuple[bytes, str, dict[str, object]]) -> None:
    plan, name, _ = baseline
    precious = tmp_path / "precious"
    precious.write_text("root only\n", encoding="utf-8")
    precious.chmod(0o600)

    def plant() -> None:
        (shared / name).symlink_to(precious)

    as_user(ATTACKER_UID, plant)
    result = resolve_json(tmp_path, shared)
    assert result.returncode == 0, result.stderr
    assert result.stdout == plan
    assert "writable by other users" in result.stderr
    assert precious.read_text(encoding="utf-8") == "root only\n"
    assert [p.name for p in shared.iterdir()] == [name]


def test_a_world_writable_cache_dir_is_not_used(
        tmp_path: Path, baseline: tuple[bytes, str, dict[str, object]]) -> None:
    plan, name, content = baseline
    open_dir = tmp_path / "open"
    open_dir.mkdir()
    open_dir.chmod(0o777)
    (open_dir / name).write_text(_evil(content), encoding="utf-8")
    result = resolve_json(tmp_path, open_dir)
    assert result.returncode == 0, result.stderr
    assert result.stdout == plan
    assert len(result.stderr.splitlines()) == 1 and "writable by other users" in result.stderr


CORRUPT: dict[str, object] = {
    "packs-is-int": {"packs": 5},
    "pack-is-empty": {"packs": [{}]},
    "no-capabilities": "drop-capabilities",
    "wrong-key": "wrong-key",
    "not-json": "{{{",
    "deep-json": "[" * 5000 + "]" * 5000,
    "fifo": "<fifo>",
    "symlink-dev-zero": "<dev-zero>",
    "directory": "<dir>",
}


@pytest.mark.parametrize("kind", list(CORRUPT), ids=list(CORRUPT))
def test_an_invalid_cache_is_rebuilt_never_trusted(
        tmp_path: Path, baseline: tuple[bytes, str, dict[str, object]], kind: str) -> None:
    plan, name, content = baseline
    private = tmp_path / "private"
    private.mkdir(mode=0o700)
    path = private / name
    spec = CORRUPT[kind]
    if spec == "<fifo>":
        os.mkfifo(path)
    elif spec == "<dev-zero>":
        path.symlink_to("/dev/zero")
    elif spec == "<dir>":
        path.mkdir()
    elif spec == "drop-capabilities":
        path.write_text(json.dumps({k: v for k, v in content.items() if k != "capabilities"}))
    elif spec == "wrong-key":
        path.write_text(_evil({**content, "key": "0" * 64}))
    else:
        path.write_text(spec if isinstance(spec, str) else json.dumps(spec))
    for _ in range(2):  # the cold run rebuilds; the next one reads what it wrote
        result = resolve_json(tmp_path, private)
        assert result.returncode == 0, result.stderr
        assert result.stdout == plan
        assert result.stderr == ""
    if spec != "<dir>":
        assert path.is_file() and not path.is_symlink()
        assert json.loads(path.read_text(encoding="utf-8")) == content


def _pack_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of SGLang's ``rules/`` folder that the cache reads instead."""
    from cgconfig.line import plugins

    copy = tmp_path / "sglang" / "rules"
    shutil.copytree(plugins.rules_folder("sglang"), copy)
    real = plugins.rules_folder
    monkeypatch.setattr(plugins, "rules_folder",
                        lambda engine: copy if engine == "sglang" else real(engine))
    return copy


def test_the_key_follows_content_not_metadata(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    packs = _pack_copy(tmp_path, monkeypatch)
    before = cache.cache_key()
    target = sorted(packs.glob("[0-9]*.yaml"))[0]
    info = target.stat()
    data = bytearray(target.read_bytes())
    data[-2] = ord("x") if data[-2] != ord("x") else ord("y")  # same size
    target.write_bytes(bytes(data))
    os.utime(target, ns=(info.st_atime_ns, info.st_mtime_ns))  # same mtime
    assert cache.cache_key() != before


def test_the_key_follows_the_version(monkeypatch: pytest.MonkeyPatch) -> None:
    before = cache.cache_key()
    monkeypatch.setattr(cache, "__version__", "99.0")
    assert cache.cache_key() != before


def test_a_failed_write_leaves_no_temporary_file(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    private = tmp_path / "c"
    monkeypatch.setenv("CGCONFIG_CACHE_DIR", str(private))
    monkeypatch.delenv("CGCONFIG_NO_CACHE", raising=False)

    def refuse(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(cache.os, "replace", refuse)
    cache.write_cache({"packs": [], "capabilities": None})
    assert list(private.iterdir()) == []


def test_old_cache_files_and_stale_temporaries_are_pruned(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    private = tmp_path / "c"
    private.mkdir(mode=0o700)
    monkeypatch.setenv("CGCONFIG_CACHE_DIR", str(private))
    monkeypatch.delenv("CGCONFIG_NO_CACHE", raising=False)
    for i in range(6):
        old = private / f"packs-0.0.{i}-{i:032x}.json"
        old.write_text("{}")
        os.utime(old, (1000 + i, 1000 + i))
    stale = private / f".packs-0.0.9-{9:032x}.json.1.{'ab' * 8}.tmp"
    stale.write_text("partial")
    os.utime(stale, (1000, 1000))
    theirs = private / "packs-report-1.json"  # a name the cache never writes: never pruned
    theirs.write_text("{}")
    os.utime(theirs, (10, 10))
    cache.write_cache({"packs": [], "capabilities": None})
    names = sorted(p.name for p in private.iterdir())
    assert theirs.name in names
    names.remove(theirs.name)
    assert len(names) == cache.KEEP_FILES and stale.name not in names
    assert cache.cache_path() is not None and cache.cache_path().name in names  # type: ignore[union-attr]


def test_new_cache_dirs_and_files_are_private(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    private = tmp_path / "new" / "cg"
    monkeypatch.setenv("CGCONFIG_CACHE_DIR", str(private))
    monkeypatch.delenv("CGCONFIG_NO_CACHE", raising=False)
    cache.write_cache({"packs": [], "capabilities": None})
    assert private.stat().st_mode & 0o777 == 0o700
    (written,) = private.iterdir()
    assert written.stat().st_mode & 0o777 == 0o600
