"""Which engine version a line is answered for: every source of line.version_source.PRECEDENCE,
their order, the plan header, and the one-line refusals outside the supported range."""

from __future__ import annotations

import pytest

from cgconfig.api import request_from_argv, resolve_args
from cgconfig.cli.main import main
from cgconfig.docio import read_text_file
from cgconfig.errors import InputError
from cgconfig.line import version_source, versions

SGLANG = ["python3", "-m", "sglang.launch_server", "--model-path", "m", "--gpu-memory-gib", "80"]
OLDEST = versions.SUPPORTED["sglang"][0]
SECOND = versions.SUPPORTED["sglang"][1]
NEWEST = versions.newest("sglang")
REAL_INSTALLED = version_source.installed_version


def read_installed(engine: str) -> str | None:
    """The installed version as a line reads it (with cgconfig's one file reader)."""
    return REAL_INSTALLED(engine, read_text_file)


@pytest.fixture(autouse=True)
def _nothing_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    """The tests' Python has no engine installed; make it so on any machine."""
    monkeypatch.setattr(version_source, "installed_version", lambda engine, read_text: None)


def chosen(argv: list[str], **kwargs: object) -> versions.EngineVersion:
    version = request_from_argv(argv, **kwargs).engine_version  # type: ignore[arg-type]
    assert version is not None
    return version


def test_nothing_named_is_the_newest_said_so() -> None:
    got = chosen(SGLANG)
    assert (got.version, got.source) == (NEWEST, "default (newest supported)")
    assert resolve_args(SGLANG).engine_version["label"] == f"SGLang {NEWEST}"


@pytest.mark.parametrize("spelling", [f"sglang=={SECOND}", SECOND, f"v{SECOND}"])
def test_engine_version_flag(spelling: str) -> None:
    for argv in ([*SGLANG, "--engine-version", spelling], ["--engine-version", spelling, *SGLANG],
                 [f"--engine-version={spelling}", "--tp-size", "2"]):
        got = chosen(argv)
        assert (got.engine, got.version, got.source) == ("sglang", SECOND, "--engine-version")


def test_engine_version_flag_naming_another_engine_is_refused() -> None:
    with pytest.raises(InputError, match="names no SGLang version"):
        chosen([*SGLANG, "--engine-version", f"vllm=={versions.newest('vllm')}"])


def test_environment_variable_names_one_version_per_engine() -> None:
    env = {"CGCONFIG_ENGINE_VERSION": f"vllm=={versions.newest('vllm')},sglang=={OLDEST}"}
    assert chosen(SGLANG, environ=env).version == OLDEST
    assert chosen(["vllm", "serve", "m"], environ=env).version == versions.newest("vllm")
    assert chosen(SGLANG, environ={"CGCONFIG_ENGINE_VERSION": SECOND}).version == SECOND


def test_docker_image_tag_before_the_entry_point() -> None:
    line = ["docker", "run", "--gpus", "all", f"lmsysorg/sglang:v{SECOND}-cu129", *SGLANG]
    got = chosen(line)
    assert got.version == SECOND and got.source == f"docker image lmsysorg/sglang:v{SECOND}-cu129"
    vllm = versions.newest("vllm")
    got = chosen(["docker", "run", f"vllm/vllm-openai:v{vllm}", "vllm", "serve", "m"])
    assert (got.engine, got.version) == ("vllm", vllm)
    # `latest` names no version; a registry port is not a tag.
    assert chosen(["docker", "run", "lmsysorg/sglang:latest", *SGLANG]).version == NEWEST
    assert version_source.image_version(["localhost:5000/lmsysorg/sglang"], "sglang") is None


def test_installed_package_is_read_from_metadata(monkeypatch: pytest.MonkeyPatch,
                                                 tmp_path) -> None:
    # A dist-info folder on sys.path, as pip writes it; the engine itself is never imported.
    info = tmp_path / f"sglang-{SECOND}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: sglang\nVersion: {SECOND}\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(version_source, "installed_version", REAL_INSTALLED)
    got = chosen(SGLANG)
    assert (got.version, got.source) == (SECOND, "installed package sglang")
    assert read_installed("vllm") is None or read_installed("vllm") != SECOND
    import sys

    assert "sglang" not in sys.modules


def test_the_log_version_is_a_source() -> None:
    got = chosen(SGLANG, log_version=SECOND)
    assert (got.version, got.source) == (SECOND, version_source.LOG_SOURCE)
    # A log outside the range is passed over: verify still compares, and its note says so.
    assert chosen(SGLANG, log_version="0.4.0").version == NEWEST


def test_precedence_is_the_one_tuple(monkeypatch: pytest.MonkeyPatch) -> None:
    assert version_source.PRECEDENCE == ("--engine-version", "CGCONFIG_ENGINE_VERSION", "log",
                                         "docker image", "installed package", "line flags")
    monkeypatch.setattr(version_source, "installed_version", lambda engine, read_text: "0.5.22")
    docker = ["docker", "run", f"lmsysorg/sglang:v{OLDEST}", *SGLANG]
    env = {"CGCONFIG_ENGINE_VERSION": "0.5.21"}
    assert chosen(docker[4:]).version == "0.5.22"                        # installed
    assert chosen(docker).version == OLDEST                               # image > installed
    assert chosen(docker, log_version="0.5.20").version == "0.5.20"      # log > image
    assert chosen(docker, environ=env, log_version="0.5.20").version == "0.5.21"  # env > log
    assert chosen([*docker, "--engine-version", NEWEST], environ=env).version == NEWEST


def test_a_version_between_supported_ones_is_the_nearest_older_with_a_note() -> None:
    vllm = versions.newest("vllm")
    later = ".".join([*vllm.split(".")[:2], "9"])
    plan = resolve_args(["vllm", "serve", "m", "--engine-version", later])
    assert plan.engine_version["version"] == vllm
    assert any("nearest older supported" in note for note in plan.notes)


@pytest.mark.parametrize("old", ["0.5.7", "0.5.6", "0.4.0"])
def test_older_sglang_releases_are_refused_naming_the_range(old: str) -> None:
    with pytest.raises(InputError) as raised:
        resolve_args([*SGLANG, "--engine-version", old])
    message = str(raised.value)
    assert "\n" not in message and f"SGLang {OLDEST} to {NEWEST}" in message


def test_plan_header_names_the_version_and_its_source(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["resolve", *SGLANG, "--engine-version", SECOND]) == 0
    assert f"engine: SGLang {SECOND} (--engine-version)" in capsys.readouterr().out
    assert main(["resolve", *SGLANG]) == 0
    assert f"engine: SGLang {NEWEST} (newest supported; --engine-version to choose)" in \
        capsys.readouterr().out


def test_bad_version_text_is_one_line() -> None:
    for argv in ([*SGLANG, "--engine-version"], [*SGLANG, "--engine-version", "banana"],
                 [*SGLANG, "--engine-version", "mystery==1.0"],
                 [*SGLANG, "--engine-version", "0.5.20", "--engine-version", "0.5.21"]):
        with pytest.raises(InputError) as raised:
            resolve_args(argv)
        assert "\n" not in str(raised.value)


@pytest.mark.parametrize("printed", ["same", "later-patch"])
def test_verify_answers_for_the_version_the_log_prints(printed: str, tmp_path) -> None:
    from pathlib import Path

    from cgconfig.verify.check import verify
    from cgconfig.verify.read import read_log

    newest = versions.newest("vllm")
    version = newest if printed == "same" else ".".join([*newest.split(".")[:2], "7"])
    source = Path(__file__).resolve().parents[1] / "data" / "verify_logs" / "vllm_0.11.0_qwen3vl_tp4.log"
    log = tmp_path / "vllm.log"
    log.write_text(source.read_text(encoding="utf-8").replace("0.11.0", version), encoding="utf-8")
    record = read_log(str(log), interval=40)
    assert record.version == version
    verdict = verify(record, [])
    chosen = verdict.comparison.plan.engine_version
    assert (chosen["version"], chosen["source"]) == (newest, version_source.LOG_SOURCE)
    note = verdict.comparison.version_note
    assert ("the plan uses this version's rules" in note) == (printed == "same")
    assert ("nearest older supported" in note) == (printed != "same")


def test_vllm_image_runs_vllm_serve_as_its_entrypoint() -> None:
    """vLLM's docs ("Using Docker", https://docs.vllm.ai/en/stable/deployment/docker.html) run
    ``docker run ... vllm/vllm-openai:TAG --model M``: the image's entrypoint is ``vllm serve``,
    so the words after the image are vLLM's and its tag names the release."""
    line = ["docker", "run", "--runtime", "nvidia", "--gpus", "all", "-v",
            "/hf:/root/.cache/huggingface", "-p", "8000:8000", "--ipc=host",
            "vllm/vllm-openai:v0.27.1", "--model", "mistralai/Mistral-7B-v0.1",
            "--max-num-seqs", "64"]
    request = request_from_argv(line)
    assert request.dialect == "vllm"
    assert request.engine_version is not None
    assert (request.engine_version.version, request.engine_version.source) == (
        "0.27.1", "docker image vllm/vllm-openai:v0.27.1")
    assert request.facts["model_path"] == "mistralai/Mistral-7B-v0.1"


def test_an_image_name_outside_a_container_runner_is_not_an_entry_point() -> None:
    with pytest.raises(InputError):
        request_from_argv(["vllm/vllm-openai:v0.27.1", "--model", "m"])


def test_a_digest_after_the_image_tag_keeps_the_tag() -> None:
    """M2 (#35): ``IMAGE:TAG@sha256:…`` pins the image the tag named; the tag is the release."""
    digest = "sha256:" + "ab" * 32
    got = chosen(["docker", "run", f"vllm/vllm-openai:v0.27.1@{digest}", "--model", "m"])
    assert (got.engine, got.version) == ("vllm", "0.27.1")
    assert got.source == f"docker image vllm/vllm-openai:v0.27.1@{digest}"


def test_a_mount_is_not_an_image() -> None:
    """A ``-v HOST:CONTAINER`` path names no image (its ``:v0.21.0`` is no tag)."""
    assert version_source.image_version(["/data/vllm:v0.21.0"], "vllm") is None


@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
def test_installed_metadata_that_is_not_a_regular_file_is_not_read(
        monkeypatch: pytest.MonkeyPatch, tmp_path, kind: str) -> None:
    """H1 (#35): a FIFO or a link to /dev/zero as METADATA is refused before it is opened for
    reading (it would block, or never end); the folder's own name still says the version."""
    import os

    info = tmp_path / "vllm-0.27.1.dist-info"
    info.mkdir()
    if kind == "fifo":
        os.mkfifo(info / "METADATA")
    else:
        (info / "METADATA").symlink_to("/dev/zero")
    monkeypatch.syspath_prepend(str(tmp_path))
    version_source._installed.cache_clear()
    assert read_installed("vllm") == "0.27.1"
