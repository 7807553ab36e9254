"""The release a file's own words pin (files/pins.py): ``pip install`` in a Dockerfile's ``RUN``
or a shell script, a requirements line a here-document writes, a Dockerfile's ``FROM`` image
tag with its build suffix; the launch is answered for it, or refused in one line that says
``--engine-version`` answers for another."""

from __future__ import annotations

from pathlib import Path

import pytest

from cgconfig.errors import InputError
from cgconfig.files.launch import find_launches
from cgconfig.files.pins import pin_of
from cgconfig.files.plan import resolve_launch
from cgconfig.line import versions

SGLANG = "python3 -m sglang.launch_server --model-path Qwen/Qwen2.5-7B --port 30000"
OLDEST_VLLM = versions.oldest("vllm")
OLDEST_SGLANG = versions.oldest("sglang")


@pytest.mark.parametrize(("text", "pinned"), [
    ("sglang[all]==0.4.2.post4", ("sglang", "0.4.2.post4")),
    ("vllm==0.10.1+gptoss", ("vllm", "0.10.1+gptoss")),
    ("vllm == 0.27.1 ; python_version > '3.9'", ("vllm", "0.27.1")),
    ("sglang>=0.5.20", None), ("vllm===0.27.1", None), ("torch==2.9.0", None),
    ("sglang==latest", None)])
def test_only_an_exact_pin_of_an_engine_names_a_release(text: str,
                                                       pinned: tuple[str, str] | None) -> None:
    assert pin_of(text) == pinned


def launch_of(path: Path, text: str) -> tuple[str | None, str | None]:
    path.write_text(text)
    (launch,) = find_launches(str(path), text)
    return launch.engine_version, launch.version_origin


def test_a_dockerfile_run_pip_pin_answers_the_launch(tmp_path: Path) -> None:
    text = (f'FROM nvidia/cuda:12.4.1-devel-ubuntu22.04\n'
            f'RUN pip install "sglang[all]=={OLDEST_SGLANG}"\nCMD {SGLANG}\n')
    version, origin = launch_of(tmp_path / "Dockerfile", text)
    assert version == f"sglang=={OLDEST_SGLANG}"
    assert origin is not None and f"sglang[all]=={OLDEST_SGLANG}" in origin and ":2)" in origin
    (launch,) = find_launches(str(tmp_path / "Dockerfile"), text)
    assert resolve_launch(launch).engine_version["version"] == OLDEST_SGLANG


def test_a_pin_below_the_range_is_one_line_naming_engine_version(tmp_path: Path) -> None:
    text = 'RUN pip install "sglang[all]==0.4.2.post4"\nCMD ' + SGLANG + "\n"
    (tmp_path / "Dockerfile").write_text(text)
    (launch,) = find_launches(str(tmp_path / "Dockerfile"), text)
    with pytest.raises(InputError) as raised:
        resolve_launch(launch)
    message = str(raised.value)
    assert "SGLang 0.4.2.post4" in message and "--engine-version" in message
    assert "\n" not in message


def test_a_shell_script_pin_with_a_local_label(tmp_path: Path) -> None:
    text = f"pip install vllm=={OLDEST_VLLM}+gptoss\nvllm serve openai/gpt-oss-20b\n"
    version, _ = launch_of(tmp_path / "run.sh", text)
    assert version == f"vllm=={OLDEST_VLLM}+gptoss"
    (launch,) = find_launches(str(tmp_path / "run.sh"), text)
    assert resolve_launch(launch).engine_version["version"] == OLDEST_VLLM


def test_a_requirements_line_written_next_to_the_launch(tmp_path: Path) -> None:
    text = (f"cat > requirements.txt <<REQ\ntransformers==4.57.1\nvllm=={OLDEST_VLLM}\nREQ\n"
            f"pip install -r requirements.txt\nvllm serve m\n")
    version, origin = launch_of(tmp_path / "setup.sh", text)
    assert version == f"vllm=={OLDEST_VLLM}"
    assert origin is not None and "requirements.txt" in origin and "setup.sh:3" in origin


def test_a_dockerfile_from_tag_with_a_build_suffix(tmp_path: Path) -> None:
    text = f"FROM lmsysorg/sglang:v{OLDEST_SGLANG}-cu129-amd64 AS base\nCMD {SGLANG}\n"
    version, origin = launch_of(tmp_path / "Dockerfile", text)
    assert version == f"sglang=={OLDEST_SGLANG}"
    assert origin is not None and "Dockerfile:1" in origin


def test_a_pip_pin_replaces_the_images_engine(tmp_path: Path) -> None:
    newest = versions.newest("sglang")
    text = (f"FROM lmsysorg/sglang:v{newest}\nRUN pip install sglang=={OLDEST_SGLANG}\n"
            f"CMD {SGLANG}\n")
    assert launch_of(tmp_path / "Dockerfile", text)[0] == f"sglang=={OLDEST_SGLANG}"


def test_a_digest_names_no_release_and_the_file_says_so(tmp_path: Path) -> None:
    text = f"FROM lmsysorg/sglang@sha256:{'ab' * 32}\nCMD {SGLANG}\n"
    (tmp_path / "Dockerfile").write_text(text)
    (launch,) = find_launches(str(tmp_path / "Dockerfile"), text)
    assert launch.engine_version is None
    assert any("a digest names no release" in note for note in launch.notes)


def test_a_dockerfile_exec_form_entrypoint_and_cmd(tmp_path: Path) -> None:
    text = (f"FROM ubuntu:22.04 AS build\nRUN echo build\n"
            f"FROM lmsysorg/sglang:v{OLDEST_SGLANG}-cu129\nENV SGLANG_X=1\n"
            f'ENTRYPOINT ["python3", "-m", "sglang.launch_server"]\n'
            f'CMD ["--model-path", "Qwen/Qwen2.5-7B", \\\n     "--tp-size", "2"]\n')
    path = tmp_path / "Dockerfile"
    path.write_text(text)
    (launch,) = find_launches(str(path), text)
    assert launch.argv == ("python3", "-m", "sglang.launch_server", "--model-path",
                           "Qwen/Qwen2.5-7B", "--tp-size", "2")
    assert launch.kind == "dockerfile" and launch.engine_version == f"sglang=={OLDEST_SGLANG}"
    assert launch.version_origin is not None and "Dockerfile:3" in launch.version_origin
    assert resolve_launch(launch).engine_version["version"] == OLDEST_SGLANG


def test_a_cmd_after_an_entrypoint_is_its_arguments_and_a_later_entrypoint_resets_it(
        tmp_path: Path) -> None:
    text = ('FROM vllm/vllm-openai:v0.27.1\nCMD ["--max-num-seqs", "8"]\n'
            'ENTRYPOINT ["vllm", "serve", "m"]\n')
    path = tmp_path / "app.Dockerfile"
    path.write_text(text)
    (launch,) = find_launches(str(path), text)
    assert launch.argv == ("vllm", "serve", "m")
