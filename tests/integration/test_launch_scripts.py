"""Launch scripts end to end with a stand-in server that records its argv, and ``--emit env``
sourced by bash and POSIX sh: the server receives exactly the plan's flags plus the user's own."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

from cgconfig import resolve_args
from cgconfig.cli.launch_args import server_line, user_compilation_config
from cgconfig.engines.sglang.emit import sglang_args, sglang_config
from tests.bounds import HANG_S

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(shutil.which("cgconfig") is None, reason="cgconfig not on PATH")
SHELLS = [s for s in ("bash", "sh") if shutil.which(s)]


@pytest.fixture
def server(tmp_path: Path) -> tuple[str, Path]:
    """A stand-in server: writes its argv as JSON and exits 0."""
    record = tmp_path / "argv.json"
    script = tmp_path / "server.py"
    script.write_text("import json, sys\n"
                      f"open({str(record)!r}, 'w').write(json.dumps(sys.argv[1:]))\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return f"python3 {script}", record


def launch(script: str, args: list[str], **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(ROOT / "examples" / script), *args], capture_output=True,
                          text=True, cwd=ROOT, env={**os.environ, **env}, timeout=HANG_S)


def emitted(args: list[str], target: str) -> list[str]:
    out = subprocess.run(["cgconfig", "resolve", "--emit", target, "--ignore-unknown-args", *args],
                         capture_output=True, text=True, cwd=ROOT, timeout=HANG_S)
    assert out.returncode == 0, out.stderr
    return shlex.split(out.stdout)


def test_sglang_server_gets_the_users_flags_and_the_plans(server: tuple[str, Path]) -> None:
    command, record = server
    user = ["--model-path", "my model", "--tp-size", "8", "--port", "30000",
            "--served-model-name", "x y", "--trust-remote-code"]
    owned = ["--gpu-memory-gib", "141", "--model-arch", "LlamaForCausalLM",
             "--cuda-graph-max-bs-decode", "64", "--cuda-graph-bs-prefill", "4", "8", "16",
             "--enable-torch-compile", "--torch-compile-max-bs=16"]
    out = launch("launch_sglang.sh", [*user[:4], *owned, *user[4:]], SGLANG_SERVER_CMD=command)
    assert out.returncode == 0, out.stderr
    received = json.loads(record.read_text())
    plan_flags = emitted([*user, *owned], "sglang")
    assert received == [*user, *plan_flags]
    assert "--torch-compile-max-bs" in plan_flags and "--enable-torch-compile" in plan_flags
    config = json.loads(received[received.index("--cuda-graph-config") + 1])
    assert config["decode"]["bs"][-1] == 64 and config["prefill"]["bs"] == [4, 8, 16]


def test_sglang_script_refuses_an_override_and_bad_input(server: tuple[str, Path]) -> None:
    command, record = server
    overridden = ["--attention-backend", "torch_native", "--cuda-graph-backend-decode", "full"]
    out = launch("launch_sglang.sh", overridden, SGLANG_SERVER_CMD=command)
    assert out.returncode == 10 and not record.exists()
    assert "attention.torch-native-eager overrode what you set (--cuda-graph-backend-decode)" \
        in out.stderr
    out = launch("launch_sglang.sh", ["--cuda-graph-max-bs-decode", "abc"],
                 SGLANG_SERVER_CMD=command)
    assert out.returncode == 2 and not record.exists()
    out = launch("launch_sglang.sh", ["--enable-epbl"], SGLANG_SERVER_CMD=command)
    assert out.returncode == 2 and not record.exists()
    assert "did you mean '--enable-eplb'?" in out.stderr
    out = launch("launch_sglang.sh", ["--some-future-flag", "x y"], SGLANG_SERVER_CMD=command,
                 CGCONFIG_IGNORE_UNKNOWN="1")
    assert out.returncode == 0, out.stderr
    assert json.loads(record.read_text())[:2] == ["--some-future-flag", "x y"]
    record.unlink()
    out = launch("launch_sglang.sh", [], SGLANG_SERVER_CMD=command,
                 CGCONFIG_CHECK="yes")
    assert out.returncode == 2 and "CGCONFIG_CHECK=yes" in out.stderr and not record.exists()
    out = launch("launch_sglang.sh", [*overridden, "--allow", "attention.torch-native-eager"],
                 SGLANG_SERVER_CMD=command)
    assert out.returncode == 0 and "--allow" not in json.loads(record.read_text())
    record.unlink()
    out = launch("launch_sglang.sh", overridden, SGLANG_SERVER_CMD=command, CGCONFIG_CHECK="0")
    assert out.returncode == 0 and record.exists()


#: A standard DeepSeek-V3 prefill server of a disaggregated deployment (8x H200).
DEEPSEEK_V3_PREFILL = ["--model-path", "deepseek-ai/DeepSeek-V3", "--tp", "8",
                       "--disaggregation-mode", "prefill", "--trust-remote-code",
                       "--host", "0.0.0.0", "--port", "30000",
                       "--disaggregation-ib-device", "mlx5_1"]
DEEPSEEK_V3_FACTS = ["--model-arch", "DeepseekV3ForCausalLM", "--use-mla", "--gpu-memory-gib", "141"]


def test_sglang_script_starts_a_deepseek_v3_prefill_server(server: tuple[str, Path]) -> None:
    """The prefill role drops decode graphs on purpose (a policy): plain --check lets it start,
    --check=any (CGCONFIG_CHECK=any) still stops on it."""
    command, record = server
    out = launch("launch_sglang.sh", [*DEEPSEEK_V3_PREFILL, *DEEPSEEK_V3_FACTS],
                 SGLANG_SERVER_CMD=command)
    assert out.returncode == 0, out.stderr
    received = json.loads(record.read_text())
    assert received[:len(DEEPSEEK_V3_PREFILL)] == DEEPSEEK_V3_PREFILL
    config = json.loads(received[received.index("--cuda-graph-config") + 1])
    assert config["decode"]["backend"] == "disabled" and config["prefill"]["backend"] != "disabled"
    record.unlink()
    out = launch("launch_sglang.sh", [*DEEPSEEK_V3_PREFILL, *DEEPSEEK_V3_FACTS],
                 SGLANG_SERVER_CMD=command, CGCONFIG_CHECK="any")
    assert out.returncode == 10 and "role.prefill-instance-no-decode" in out.stderr
    assert not record.exists()


def test_vllm_server_gets_the_users_flags_and_the_plans(server: tuple[str, Path]) -> None:
    command, record = server
    user = ["--tensor-parallel-size", "2", "--max-num-seqs", "64", "--port", "8000"]
    owned = ["--gpu-memory-gib", "80", "--vllm-attention-backend", "FLASHINFER",
             "-cc", '{"cudagraph_mode": "FULL", "custom_ops": ["none"]}',
             "-cc.mode=3", "--max-cudagraph-capture-size", "64"]
    out = launch("launch_vllm.sh", ["org/model", *user, *owned], VLLM_SERVER_CMD=command)
    assert out.returncode == 10 and "vllm.B2" in out.stderr  # --check refuses the downgrade
    assert not record.exists()
    out = launch("launch_vllm.sh", ["org/model", *user, *owned], VLLM_SERVER_CMD=command,
                 CGCONFIG_CHECK="0")
    assert out.returncode == 0, out.stderr
    received = json.loads(record.read_text())
    assert received[: 1 + len(user)] == ["org/model", *user]
    assert received[1 + len(user)] == "--compilation-config"
    assert len(received) == 3 + len(user)
    config = json.loads(received[-1])
    planned = json.loads(emitted(["--dialect", "vllm", *user, *owned], "vllm")[1])
    assert config == {"custom_ops": ["none"], "mode": 3, **planned}
    assert config["cudagraph_mode"] == "FULL_AND_PIECEWISE"  # vLLM's B2 on FLASHINFER
    assert max(config["cudagraph_capture_sizes"]) == 64


@pytest.mark.parametrize("shell", SHELLS)
def test_emit_env_is_safe_to_source(shell: str, tmp_path: Path) -> None:
    args = ["--tp-size", "8", "--gpu-memory-gib", "141", "--model-path", "it's a \"model\" $HOME",
            "--enable-torch-compile", "--max-running-requests", "48"]
    out = subprocess.run(["cgconfig", "resolve", "--emit", "env", "--ignore-unknown-args", *args],
                         capture_output=True, text=True, cwd=ROOT, timeout=HANG_S)
    assert out.returncode == 0, out.stderr
    env_file = tmp_path / "plan.env"
    env_file.write_text(out.stdout)
    assert all(line.startswith("export CGCONFIG_") for line in out.stdout.splitlines())
    probe = (f'. "{env_file}" && printf "%s\\n" "$CGCONFIG_DECODE_SIZES" '
             '"$CGCONFIG_CUDA_GRAPH_CONFIG" "$CGCONFIG_DOWNGRADED" && '
             'eval "set -- $CGCONFIG_SGLANG_ARGS" && printf "[%s]" "$@" && echo && '
             'eval "set -- $CGCONFIG_SERVER_ARGS" && printf "[%s]" "$@"')
    done = subprocess.run([shell, "-c", probe], capture_output=True, text=True, timeout=HANG_S,
                          env={**os.environ, "HOME": "/home/x"})
    assert done.returncode == 0, done.stderr
    sizes, graph_config, downgraded, sglang, passed = done.stdout.splitlines()
    plan = resolve_args(args, ignore_unknown=True)
    assert sizes == " ".join(map(str, plan.capture_sizes("decode")))
    assert json.loads(graph_config) == sglang_config(plan)
    assert downgraded == "0"
    assert sglang == "".join(f"[{a}]" for a in sglang_args(plan))
    assert passed == ("[--tp-size][8][--model-path][it's a \"model\" $HOME]"
                      "[--max-running-requests][48]")


def test_server_argv_strips_only_what_cgconfig_owns() -> None:
    line = ["--model-path", "m", "-o", "json", "--check", "--allow", "x.y", "--check=any", "--rules",
            "a.yaml", "--deployment=d.yaml",
            "--cuda-graph-bs-decode", "1", "2", "4", "--dp", "2", "--use-mla", "--port", "1"]
    assert server_line(line) == ["--model-path", "m", "--dp", "2", "--port", "1"]
    vllm = ["m", "-cc.cudagraph_mode=FULL", "--cudagraph-capture-sizes", "1", "2", "--enforce-eager",
            "--cudagraph-support", "ALWAYS", "--compilation-config", "{}", "-tp", "2"]
    assert server_line(vllm) == ["m", "--enforce-eager", "-tp", "2"]


def test_user_compilation_config_merges_documents_then_dotted_keys() -> None:
    argv = ["-cc", '{"mode": 3, "pass_config": {"a": 1}}', "-cc.pass_config.b=true",
            "--compilation-config", '{"custom_ops": ["x"]}', "-cc.mode", "2"]
    assert user_compilation_config(argv) == {"mode": 2, "pass_config": {"a": 1, "b": True},
                                             "custom_ops": ["x"]}
