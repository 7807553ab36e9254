"""``docker run``/``podman run`` wrappers read with the runners' own option grammars
(``cgconfig/line/container-flags.json``): which options take a value, where the image is.

Causes (#35): M12 a ``-v`` mount taken as the image (its tag as the engine release); O1 docker's
``--device /dev/kfd`` (ROCm's documented form, vLLM docs "Using Docker" / ROCm's vllm image
README) and podman's CDI ``--device nvidia.com/gpu=all`` read as cgconfig's ``--device``; O2 an
image whose entrypoint cgconfig does not know turning docker's words into cgconfig flags.
"""

from __future__ import annotations

import pytest

from cgconfig.api import request_from_argv
from cgconfig.errors import InputError
from cgconfig.line import find_entry_point, tokenize
from cgconfig.line.containers import container_run, grammars
from cgconfig.line.entry import CONTAINER_RUNNERS


def request(line: str):  # type: ignore[no-untyped-def]
    return request_from_argv(tokenize(line))


def test_the_runner_names_are_the_tables() -> None:
    assert set(grammars()) == CONTAINER_RUNNERS


def test_every_option_is_a_switch_or_takes_a_value_never_both() -> None:
    for name, runner in grammars().items():
        for command, grammar in runner.commands.items():
            assert not grammar.switches & grammar.valued, (name, command)
            assert {"--env", "-e", "--workdir"} <= grammar.valued
        assert {"--entrypoint", "--volume", "-v", "--device", "--gpus"} <= runner.commands[
            "run"].valued


@pytest.mark.parametrize(("line", "image"), [
    ("docker run --gpus all -v /data/vllm:v0.21.0 vllm/vllm-openai:v0.27.1 --model m",
     "vllm/vllm-openai:v0.27.1"),
    ("docker run -it --rm -v/data:/data -p8000:8000 -itp 1:1 --shm-size 16g img x", "img"),
    ("docker run --ipc=host --name=srv -e A=1 --env-file f.env -- img", "img"),
    ("sudo docker --context remote container run -d img", "img"),
    ("podman run --device nvidia.com/gpu=all --security-opt=label=disable -q img", "img"),
    ("nerdctl run --gpus all -v a:b img", "img"),
])
def test_the_image_is_where_the_runner_reads_it(line: str, image: str) -> None:
    run = container_run(tokenize(line))
    assert run is not None and run.image == image


def test_environment_words_are_read_by_the_grammar() -> None:
    run = container_run(tokenize("docker run -eA=1 --env B=2 -e HF_TOKEN -v x:y img"))
    assert run is not None
    assert (run.env, run.passed) == ({"A": "1", "B": "2"}, ("HF_TOKEN",))


def test_a_mount_is_not_the_image_nor_its_tag_the_release() -> None:
    """M12: the mount /data/vllm:v0.21.0 comes first; the image says 0.27.1."""
    got = request("docker run --gpus all -v /data/vllm:v0.21.0 vllm/vllm-openai:v0.27.1 "
                  "--model m")
    assert got.engine_version is not None
    assert got.engine_version.version == "0.27.1"
    assert "vllm/vllm-openai:v0.27.1" in got.engine_version.source


@pytest.mark.parametrize("line", [
    "docker run --device /dev/kfd --device /dev/dri --group-add video rocm/vllm vllm serve m",
    "podman run --device nvidia.com/gpu=all docker.io/vllm/vllm-openai:v0.27.1 --model m",
    "docker run --device=/dev/kfd --runtime nvidia -m 64g lmsysorg/sglang:latest "
    "python3 -m sglang.launch_server --model-path m",
])
def test_container_flags_are_not_cgconfigs(line: str) -> None:
    """O1: --device, --runtime, -m are the runner's; the plan's platform is not read from them."""
    got = request(line)
    assert "device" not in got.facts
    assert any(note.startswith("not read: the words before") for note in got.notes)


@pytest.mark.parametrize("line", [
    "docker run --gpus all host:5000/vllm:v1 --model m --gpu-memory-utilization 0.9",
    "docker run --gpus all myregistry/custom:latest --tp 2",
    "docker run --entrypoint vllm vllm/vllm-openai:v0.27.1 serve m",
])
def test_an_image_cgconfig_cannot_read_is_one_clear_error(line: str) -> None:
    """O2: never "unknown flag --gpus": the error names the image and what to write."""
    with pytest.raises(InputError) as caught:
        request(line)
    message = str(caught.value)
    assert message.startswith("docker run ") and "write the engine's command after the image" \
        in message
    assert "--gpus" not in message


def test_an_engine_command_after_any_image_is_read() -> None:
    got = request("docker run --gpus all myregistry/custom:latest vllm serve m -tp 2")
    assert got.facts["tp_size"] == 2


def test_an_option_the_grammar_lacks_is_refused_unless_its_value_is_attached() -> None:
    with pytest.raises(InputError, match="unknown option --frobnicate"):
        find_entry_point(tokenize("docker run --frobnicate x img python3 -m sglang.launch_server"))
    entry = find_entry_point(tokenize("docker run --frobnicate=x img python3 -m "
                                      "sglang.launch_server --model-path m"))
    assert entry is not None and entry.argv == ["--model-path", "m"]


def test_docker_exec_env_is_still_read() -> None:
    entry = find_entry_point(tokenize("docker exec -e A=1 -it box vllm serve m"))
    assert entry is not None and entry.env == {"A": "1"} and not entry.inherit


#: vLLM's ROCm install docs ("Use the pre-built image", docs.vllm.ai getting_started/installation
#: gpu, ROCm tab) run the image with this docker wrapper; the engine command follows the image.
ROCM_DOCS_LINE = ("docker run -it --network=host --group-add=video --ipc=host --cap-add=SYS_PTRACE "
                  "--security-opt seccomp=unconfined --device /dev/kfd --device /dev/dri "
                  "-v ~/.cache/huggingface:/root/.cache/huggingface rocm/vllm:latest "
                  "vllm serve meta-llama/Llama-3.1-8B-Instruct --tensor-parallel-size 2")


def test_the_rocm_docs_wrapper_is_read_as_docker_reads_it() -> None:
    run = container_run(tokenize(ROCM_DOCS_LINE))
    assert run is not None and run.image == "rocm/vllm:latest"
    got = request(ROCM_DOCS_LINE)
    assert got.facts["tp_size"] == 2 and "device" not in got.facts
