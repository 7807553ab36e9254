"""A line that names no release is answered for the newest release whose parser accepts its
flags (line/release_from_flags.py, the lowest entry of version_source.PRECEDENCE), with one line
saying so; a line the newest release accepts reads no table beyond today's.

The flags are real ones, found by diffing the release tables; every expectation is computed
from the tables (``versions.SUPPORTED``), so it holds as older releases' tables are added."""

from __future__ import annotations

import pytest

from cgconfig.api import request_from_argv, resolve_args
from cgconfig.errors import InputError
from cgconfig.line import release_from_flags as line_release
from cgconfig.line import table as table_module
from cgconfig.line import version_source, versions
from cgconfig.line.table import load_table
from cgconfig.sources.command_line import split_command_line

SGLANG = ["python3", "-m", "sglang.launch_server", "--model-path", "m", "--gpu-memory-gib", "80"]
VLLM = ["vllm", "serve", "m", "--gpu-memory-gib", "80"]


@pytest.fixture(autouse=True)
def _nothing_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    """The tests' Python has no engine installed; make it so on any machine."""
    monkeypatch.setattr(version_source, "installed_version", lambda engine, read_text: None)


def having(engine: str, flag: str) -> list[str]:
    """The supported releases whose table has ``flag``, oldest first (from the tables)."""
    return [v for v in versions.SUPPORTED[engine] if load_table(engine, v).lookup(flag)]


def chosen(argv: list[str]) -> versions.EngineVersion:
    version = request_from_argv(argv).engine_version
    assert version is not None
    return version


def selected(argv: list[str]) -> versions.EngineVersion:
    """The release chosen before the line is read (its refusals come after)."""
    version = split_command_line(argv).engine_version
    assert version is not None
    return version


@pytest.mark.parametrize(("engine", "line", "flag", "value"), [
    # removed in SGLang 0.5.23 (in its 0.5.22 table, not its 0.5.23 one)
    ("sglang", [*SGLANG, "--speculative-algorithm", "EAGLE", "--speculative-draft-model-path",
                "d"], "--speculative-skip-dp-mlp-sync", []),
    # accepted by 0.5.19 and 0.5.20 only of the releases 0.5.19-0.5.23
    ("sglang", SGLANG, "--keep-mm-feature-on-device", []),
    # removed in 0.5.20: cgconfig's deprecated alias of --cuda-graph-max-bs-decode
    ("sglang", ["--tp-size", "2"], "--cuda-graph-max-bs", ["300"]),
    ("vllm", VLLM, "--calculate-kv-scales", []),              # removed in vLLM 0.28.0
    ("vllm", VLLM, "--max-num-partial-prefills", ["2"]),       # removed in vLLM 0.27.1
    ("vllm", VLLM, "--enable-mamba-fine-grained-prefix-cache", []),  # removed in vLLM 0.31.0
])
def test_a_removed_flag_answers_for_the_newest_release_that_parses_it(
        engine: str, line: list[str], flag: str, value: list[str]) -> None:
    accepted = having(engine, flag)
    assert accepted and accepted[-1] != versions.newest(engine)  # the premise, from the tables
    got = chosen([*line, flag, *value])
    assert (got.engine, got.version, got.source) == (engine, accepted[-1], line_release.SOURCE)
    plan = resolve_args([*line, flag, *value])
    assert plan.engine_version["version"] == accepted[-1]
    said = [n for n in plan.notes if n.startswith("this line parses on")]
    assert len(said) == 1 and f"answered for {accepted[-1]}" in said[0] and flag in said[0]
    assert "\n" not in said[0]


def test_the_note_names_the_releases_as_the_issue_writes_them() -> None:
    flag = "--cuda-graph-max-bs"  # in every release up to 0.5.19, the oldest listed today
    accepted = having("sglang", flag)
    assert accepted == list(versions.SUPPORTED["sglang"][:len(accepted)])
    note = chosen([flag, "300"]).note
    assert note is not None and note.startswith(
        f"this line parses on SGLang ≤ {accepted[-1]}: answered for {accepted[-1]}")


def test_describe_names_a_range_a_single_release_and_a_list() -> None:
    sg = versions.SUPPORTED["sglang"]
    assert line_release.describe("sglang", sg[:2]) == f"SGLang ≤ {sg[1]}"
    assert line_release.describe("sglang", sg[1:3]) == f"SGLang {sg[1]} to {sg[2]}"
    assert line_release.describe("sglang", sg[2:3]) == f"SGLang {sg[2]} only"
    assert line_release.describe("sglang", [sg[1], sg[3]]) == f"SGLang {sg[1]}, {sg[3]}"


def test_two_flags_narrow_to_the_releases_that_have_both() -> None:
    old, new = "--keep-mm-feature-on-device", "--enable-response-store"
    both = [v for v in having("sglang", old) if v in having("sglang", new)]
    assert both and both[-1] != versions.newest("sglang")
    assert chosen([*SGLANG, old, new]).version == both[-1]


def test_flags_no_release_has_together_are_the_newest_releases_refusal() -> None:
    # one removed after 0.5.20, one added in 0.5.21: no release parses both
    old, new = "--keep-mm-feature-on-device", "--context-bucket"
    assert not set(having("sglang", old)) & set(having("sglang", new))
    with pytest.raises(InputError, match="was removed in SGLang"):
        resolve_args([*SGLANG, old, new, "4096"])


def test_a_flag_no_release_has_is_no_evidence() -> None:
    # cgconfig's own flags and a flag older than every table leave the choice to the default
    got = chosen([*SGLANG, "--strict", "--gpu-sm", "90"])
    assert got.source == "default (newest supported)" and got.note is None


def test_every_other_source_comes_first(monkeypatch: pytest.MonkeyPatch) -> None:
    flag = "--speculative-skip-dp-mlp-sync"
    newest = versions.newest("sglang")
    with pytest.raises(InputError, match=f"was removed in SGLang {newest}"):  # it wins
        resolve_args([*SGLANG, flag, "--engine-version", newest])
    image = ["docker", "run", f"lmsysorg/sglang:v{newest}-cu129", *SGLANG, flag]
    assert selected(image).source.startswith("docker image")
    assert selected([*SGLANG, flag]).source == line_release.SOURCE
    monkeypatch.setattr(version_source, "installed_version", lambda engine, read_text: newest)
    assert selected([*SGLANG, flag]).source == "installed package sglang"


def test_a_newest_release_line_reads_no_table_beyond_todays() -> None:
    cache = table_module._load_table
    cache.cache_clear()
    chosen(["--tp-size", "8", "--cuda-graph-max-bs-decode", "256", "--attention-backend", "fa3"])
    assert cache.cache_info().currsize == 0  # cgconfig's own spellings: no table at all
    for line in ([*SGLANG, "--tp", "8", "--enable-hierarchical-cache"],
                 [*VLLM, "--max-num-seqs", "128", "-O3", "--compilation-config.mode", "3"]):
        cache.cache_clear()
        got = chosen(line)
        assert got.version == versions.newest(got.engine)
        assert cache.cache_info().currsize == 1  # the newest table, which the split reads


def test_an_installed_release_outside_the_range_says_engine_version_overrides_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(version_source, "installed_version", lambda engine, read_text: "0.4.0")
    with pytest.raises(InputError) as raised:
        resolve_args(SGLANG)
    text = str(raised.value)
    assert "installed package sglang" in text and "--engine-version sglang==VERSION" in text
    assert "overrides it" in text and "\n" not in text
    older = versions.SUPPORTED["sglang"][0]
    assert chosen([*SGLANG, "--engine-version", older]).version == older


@pytest.mark.parametrize(("tag", "version"), [
    ("v0.5.15-cu129", "v0.5.15"), ("v0.5.5.post3-cu129-amd64", "v0.5.5.post3"),
    ("v0.27.1", "v0.27.1"), ("latest", None), ("nightly-20260101", None)])
def test_an_image_tag_with_suffixes_names_its_release(tag: str, version: str | None) -> None:
    assert version_source.tag_version(tag) == version


def test_a_digest_alone_names_no_release_and_says_so() -> None:
    image = "lmsysorg/sglang@sha256:" + "ab" * 32
    got = chosen(["docker", "run", "--gpus", "all", image, *SGLANG])
    assert got.version == versions.newest("sglang")
    assert got.note is not None and "a digest names no release" in got.note
    tagged = f"lmsysorg/sglang:v{versions.oldest('sglang')}@sha256:" + "ab" * 32
    assert chosen(["docker", "run", tagged, *SGLANG]).version == versions.oldest("sglang")
