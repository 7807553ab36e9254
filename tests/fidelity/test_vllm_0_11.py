"""vLLM 0.11.2 (issue #37): the behaviours only it has among the supported releases, each a row
of ``cgconfig/engines/vllm/releases.py`` read in its wheel (``utils/argparse_utils.py``,
``config/vllm.py``, ``config/compilation.py``, ``v1/worker/gpu_worker.py``). Each expected
answer is the oracle's (vLLM 0.11.2's own engine path, ``vllm_engine_oracle.py`` with
``ORACLE_VLLM_VERSION=0.11.2``, SM 90, 80 GiB, Llama-3-8B or DeepSeek-V3; 20 lines asked on
2026-12-04, all answered alike); the corpus tests of ``test_vllm_versions_fidelity.py`` cover the
whole engine path."""

from __future__ import annotations

import json

import pytest

from cgconfig.api import resolve_args
from cgconfig.errors import CgConfigError

_DEFAULT_GRID = [1, 2, 4, *range(8, 256, 8), *range(256, 513, 16)]


def _plan(*argv: str, arch: str = "LlamaForCausalLM",
          release: str = "0.11.2") -> dict[str, object]:
    line = ["--engine-version", f"vllm=={release}", "--model-arch", arch, "--gpu-sm", "90",
            "--gpu-memory-gib", "80", "vllm", "serve", "m", *argv]
    return resolve_args(line).to_dict()


def _sizes(*argv: str, arch: str = "LlamaForCausalLM") -> tuple[str, list[int]]:
    capture = _plan(*argv, arch=arch)["capture"]
    assert isinstance(capture, dict)
    mode = f"{capture['decode']['backend']}/{capture['prefill']['backend']}"
    return mode, sorted(set(capture["decode"]["sizes"]) | set(capture["prefill"]["sizes"]))


@pytest.mark.parametrize(("argv", "expected"), [
    (("-O3",), ("full/breakable", _DEFAULT_GRID)),  # oracle: VLLM_COMPILE, FULL_AND_PIECEWISE
    (("-O1",), ("disabled/disabled", [])),          # STOCK_TORCH_COMPILE: NONE
    (("-O", "2"), ("disabled/disabled", [])),       # DYNAMO_TRACE_ONCE: NONE
])
def test_short_o_is_the_compilation_mode_in_0_11(argv: tuple[str, ...],
                                                  expected: tuple[str, list[int]]) -> None:
    """0.11.2's ``FlexibleArgumentParser`` rewrites ``-O<n>`` to ``-O.mode=<n>`` (``-O`` is
    ``--compilation-config``'s short spelling) and ``VllmConfig.__post_init__`` defaults
    ``cudagraph_mode`` to FULL_AND_PIECEWISE under VLLM_COMPILE only, NONE otherwise
    (releases.OPTIMIZATION_LEVELS); from 0.12.0 ``-O1`` is an optimization level (PIECEWISE)."""
    assert _sizes(*argv) == expected
    capture = _plan("-O1", release="0.12.0")["capture"]
    assert isinstance(capture, dict) and capture["decode"]["backend"] == "breakable"


def test_one_compilation_config_document_in_0_11() -> None:
    """argparse keeps the last ``--compilation-config`` / ``-O`` value, and 0.11.2's parser
    appends the dotted keys (``-O3`` is ``-O.mode=3``) as one more document after the others:
    ``-O0`` drops a FULL document (oracle: NONE), ``-O3`` a FULL_DECODE_ONLY one wherever it
    stands (oracle: FULL_AND_PIECEWISE), a later dotted spelling drops ``-O0`` (oracle, DCP on
    DeepSeek-V3: VLLM_COMPILE, PIECEWISE); a dropped document is still validated (oracle:
    KeyError 'BOGUS')."""
    doc = json.dumps({"cudagraph_mode": "FULL"})
    plan = _plan("-O0", "--compilation-config", doc)
    assert _sizes("-O0", "--compilation-config", doc) == ("disabled/disabled", [])
    notes = plan["notes"]
    assert isinstance(notes, list) and any("keeps one compilation-config document" in n
                                           for n in notes)
    fdo = json.dumps({"cudagraph_mode": "FULL_DECODE_ONLY"})
    assert _sizes("--compilation-config", fdo, "-O3") == ("full/breakable", _DEFAULT_GRID)
    assert _sizes("-O3", "--compilation-config", fdo) == ("full/breakable", _DEFAULT_GRID)
    assert _sizes("-dcp", "2", "-tp", "8", "-O0", "--compilation-config.cudagraph_mode=FULL",
                  arch="DeepseekV3ForCausalLM") == ("breakable/breakable", _DEFAULT_GRID)
    with pytest.raises(CgConfigError, match="bogus"):
        _plan("-O", json.dumps({"cudagraph_mode": "bogus"}), "-O3")
    assert _sizes("-O", json.dumps({"cudagraph_mode": "PIECEWISE"})) == \
        ("breakable/breakable", _DEFAULT_GRID)


def test_0_11_parser_has_no_cc_and_no_optimization_level() -> None:
    """0.11.2's parser refuses ``-cc`` and ``--optimization-level`` (oracle: "unrecognized
    arguments"); 0.12.0's refuses ``-O`` followed by a document (it is no spelling there)."""
    with pytest.raises(CgConfigError, match=r"-cc: is new in vLLM 0\.12\.0"):
        _plan("-cc.cudagraph_mode=FULL")
    with pytest.raises(CgConfigError, match=r"--optimization-level is new in vLLM 0\.12\.0"):
        _plan("--optimization-level", "2")
    with pytest.raises(CgConfigError, match=r"-O.*unrecognized arguments: -O"):
        _plan("-O", json.dumps({"cudagraph_mode": "FULL"}), release="0.12.0")


def test_modes_without_vllm_compile_in_0_11() -> None:
    """0.11.2's ``VllmConfig.__post_init__`` overrides no mode without VLLM_COMPILE: FULL with
    ``mode: 0`` keeps its graphs (oracle: FULL, the default grid; 0.12.0: NONE), and its final
    check refuses PIECEWISE (oracle: "Compilation mode should be CompilationMode.VLLM_COMPILE
    when cudagraph_mode piecewise cudagraphs is used") (releases.FULL_KEPT_WITHOUT_COMPILE,
    PIECEWISE_WITHOUT_COMPILE_REFUSED)."""
    full = json.dumps({"cudagraph_mode": "FULL", "mode": 0})
    assert _sizes("--compilation-config", full) == ("full/full", _DEFAULT_GRID)
    capture = _plan("--compilation-config", full, release="0.12.0")["capture"]
    assert isinstance(capture, dict) and capture["decode"]["backend"] == "disabled"
    with pytest.raises(CgConfigError, match=r"Compilation mode should be CompilationMode\."
                                            r"VLLM_COMPILE when cudagraph_mode piecewise"):
        _plan("--compilation-config", json.dumps({"cudagraph_mode": "PIECEWISE", "mode": 0}))


def test_spec_rounding_without_a_valid_size_keeps_the_sizes_in_0_11() -> None:
    """0.11.2's ``adjust_cudagraph_sizes_for_spec_decode`` warns and keeps the sizes when none
    rounds under the maximum (oracle: n-gram k = 3, one sequence, maximum 2: sizes [1, 2]);
    0.12.0 refuses the line (releases.SPEC_ROUNDING_EMPTY_HANDLED)."""
    spec = json.dumps({"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 4})
    argv = ("--speculative-config", spec, "--max-num-seqs", "1",
            "--max-cudagraph-capture-size", "2")
    plan = _plan(*argv)
    assert _sizes(*argv)[1] == [1, 2]
    warnings = plan["warnings"]
    assert isinstance(warnings, list) and any("No valid cudagraph sizes" in w for w in warnings)
    with pytest.raises(CgConfigError, match="No valid cudagraph sizes after rounding"):
        _plan(*argv, release="0.12.0")


def test_attention_fusion_key_and_dcp_in_0_11() -> None:
    """0.11.2's attention fusion is ``pass_config.enable_attn_fusion`` (empty splitting ops:
    FULL; oracle: FULL), its ``fuse_attn_quant`` an ignored key (oracle: FULL_AND_PIECEWISE)
    (releases.ATTN_FUSION_KEY); DCP turns full graphs PIECEWISE as in 0.12.0 (oracle:
    DeepSeek-V3 ``-dcp 2 -tp 8``: PIECEWISE) (releases.CONTEXT_PARALLEL_PIECEWISE)."""
    fused = json.dumps({"pass_config": {"enable_attn_fusion": True, "enable_noop": True}})
    assert _sizes("--compilation-config", fused) == ("full/full", _DEFAULT_GRID)
    ignored = json.dumps({"pass_config": {"fuse_attn_quant": True}})
    assert _sizes("--compilation-config", ignored) == ("full/breakable", _DEFAULT_GRID)
    assert _sizes("-dcp", "2", "-tp", "8", arch="DeepseekV3ForCausalLM") == \
        ("breakable/breakable", _DEFAULT_GRID)


def test_v2_model_runner_variable_is_not_read_by_0_11() -> None:
    """0.11.2 has no Model Runner V2 (no ``v1/worker/gpu/``, no ``VLLM_USE_V2_MODEL_RUNNER`` in
    ``vllm/envs.py``): the V1 runner's plan, with a warning (oracle: FULL_AND_PIECEWISE, V1)
    (releases.MODEL_RUNNER_V2_EXISTS)."""
    line = ["--engine-version", "vllm==0.11.2", "--model-arch", "LlamaForCausalLM",
            "--gpu-sm", "90", "--gpu-memory-gib", "80", "VLLM_USE_V2_MODEL_RUNNER=1",
            "vllm", "serve", "m"]
    plan = resolve_args(line).to_dict()
    capture = plan["capture"]
    assert capture["decode"]["backend"] == "full" and capture["prefill"]["backend"] == "breakable"
    assert any("VLLM_USE_V2_MODEL_RUNNER is not read" in w for w in plan["warnings"])


def test_migrate_rewrites_short_o_between_0_11_and_0_12() -> None:
    """``cgconfig migrate``: 0.11.2's ``-O3`` / ``-O.KEY`` / ``-O JSON`` are ``-cc.mode=3`` /
    ``-cc.KEY`` / ``-cc JSON`` in 0.12.0 (whose ``-O3`` is an optimization level); back,
    ``-cc`` is ``-O``, and a level other than 0 is dropped (0.11.2 would read it as a
    compilation mode)."""
    from cgconfig.migrate import migrate

    up = migrate(["--engine-version", "vllm==0.11.2", "vllm", "serve", "m", "-O3",
                  "-O.cudagraph_mode=FULL", "-O", "{}"], "vllm==0.12.0")
    assert up.argv[-5:] == ["m", "-cc.mode=3", "-cc.cudagraph_mode=FULL", "-cc", "{}"]
    down = migrate(["--engine-version", "vllm==0.12.0", "vllm", "serve", "m", "-O1",
                    "-cc.cudagraph_mode=FULL"], "vllm==0.11.2")
    assert down.argv[-2:] == ["m", "-O.cudagraph_mode=FULL"]
    assert [c.before for c in down.dropped] == [["-O1"]]


def test_a_line_with_an_o_document_is_answered_for_0_11() -> None:
    """``-O JSON`` parses on 0.11.2 only (0.12.0 and later: "unrecognized arguments: -O"), so a
    line that names no release is answered for 0.11.2, with a note; ``-O3`` parses on every
    release (a mode or a level) and names none."""
    doc = json.dumps({"cudagraph_mode": "FULL"})
    plan = resolve_args(["--model-arch", "LlamaForCausalLM", "vllm", "serve", "m", "-O", doc])
    assert plan.to_dict()["engine_version"]["version"] == "0.11.2"
    plan = resolve_args(["--model-arch", "LlamaForCausalLM", "vllm", "serve", "m", "-O3"])
    assert plan.to_dict()["engine_version"]["version"] != "0.11.2"
