"""vLLM 0.12.0 (issue #37): the behaviours only it has among the supported releases, each a row
of ``cgconfig/engines/vllm/releases.py`` or ``capture_size_changes.py`` read in its wheel
(``engine/arg_utils.py``, ``config/vllm.py``, ``config/compilation.py``). Each expected answer
is the oracle's (vLLM 0.12.0's and 0.13.0's own engine path, ``vllm_engine_oracle.py`` with
``ORACLE_VLLM_VERSION``, SM 90, 80 GiB, Llama-3-8B); the corpus tests of
``test_vllm_versions_fidelity.py`` cover the whole engine path."""

from __future__ import annotations

import json

import pytest

from cgconfig.api import resolve_args
from cgconfig.errors import CgConfigError

_DEFAULT_GRID = [1, 2, 4, *range(8, 256, 8), *range(256, 513, 16)]


def _line(release: str, *argv: str) -> list[str]:
    return ["--engine-version", f"vllm=={release}", "--model-arch", "LlamaForCausalLM",
            "--gpu-sm", "90", "--gpu-memory-gib", "80", "vllm", "serve", "m", *argv]


def _sizes(release: str, *argv: str) -> tuple[str, list[int]]:
    plan = resolve_args(_line(release, *argv)).to_dict()
    mode = f"{plan['capture']['decode']['backend']}/{plan['capture']['prefill']['backend']}"
    return mode, sorted(set(plan["capture"]["decode"]["sizes"])
                        | set(plan["capture"]["prefill"]["sizes"]))


def test_cuda_graph_sizes_is_the_capture_list_in_0_12_only() -> None:
    """0.12.0's ``EngineArgs.create_engine_config`` sets ``cudagraph_capture_sizes`` from the
    deprecated ``--cuda-graph-sizes`` (oracle: [8, 16]), before ``--cudagraph-capture-sizes``
    and against the compilation config's list (both refused: "mutually exclusive"); 0.13.0's
    parser does not have it (oracle: "unrecognized arguments")."""
    assert _sizes("0.12.0", "--cuda-graph-sizes", "8", "16")[1] == [8, 16]
    assert _sizes("0.12.0", "--cuda-graph-sizes", "8", "16", "--max-cudagraph-capture-size",
                  "16")[1] == [8, 16]
    with pytest.raises(CgConfigError, match=r"^--cudagraph-capture-sizes: cudagraph_capture_"
                                            r"sizes and compilation_config"):
        resolve_args(_line("0.12.0", "--cuda-graph-sizes", "8", "16",
                           "--cudagraph-capture-sizes", "4"))
    with pytest.raises(CgConfigError, match=r"^--cuda-graph-sizes: cuda_graph_sizes and "
                                            r"compilation_config\.cudagraph_capture_sizes"):
        resolve_args(_line("0.12.0", "--cuda-graph-sizes", "8", "16",
                           "-cc.cudagraph_capture_sizes=[4]"))
    for release in ("0.13.0", "0.33.0"):
        with pytest.raises(CgConfigError, match=r"was removed in vLLM 0\.13\.0.*unrecognized "
                                                r"arguments: --cuda-graph-sizes"):
            resolve_args(_line(release, "--cuda-graph-sizes", "8", "16"))


def test_full_modes_without_vllm_compile_have_no_graphs_in_0_12() -> None:
    """0.12.0's ``VllmConfig.__post_init__`` turns any mode but NONE to NONE without
    VLLM_COMPILE; 0.13.0 only a mode that needs piecewise compilation (oracle: FULL with
    ``-cc.mode=0``, FULL_DECODE_ONLY with ``-O0``: NONE in 0.12.0, kept in 0.13.0)."""
    for argv in (("-cc.cudagraph_mode=FULL", "-cc.mode=0"),
                 ("-cc.cudagraph_mode=FULL_DECODE_ONLY", "-O0")):
        assert _sizes("0.12.0", *argv) == ("disabled/disabled", [])
        assert _sizes("0.13.0", *argv)[1] == _DEFAULT_GRID


def test_default_ceiling_ignores_speculative_tokens_in_0_12() -> None:
    """0.12.0's ``VllmConfig._set_cudagraph_sizes`` caps the default grid at
    ``min(max_num_seqs·2, 512)``, 0.13.0 at ``min(max_num_seqs·(1 + k)·2, 512)``: n-gram with
    k = 3 and 64 sequences, the oracle's sizes end at 128 in 0.12.0 and 512 in 0.13.0 (both
    rounded to multiples of 4 by the V1 runner)."""
    spec = json.dumps({"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 4})
    argv = ("--speculative-config", spec, "--max-num-seqs", "64")
    assert _sizes("0.12.0", *argv)[1] == list(range(4, 8, 4)) + list(range(8, 129, 8))
    assert _sizes("0.13.0", *argv)[1][-1] == 512


def test_unknown_compilation_config_keys_are_ignored_in_0_12() -> None:
    """0.12.0's ``CompilationConfig`` and ``PassConfig`` are pydantic dataclasses without
    ``extra="forbid"`` (0.13.0 adds it): an unknown key is ignored (oracle: the default plan),
    where 0.13.0 refuses it ("Unexpected keyword argument")."""
    doc = json.dumps({"pass_config": {"no_such_key": True}, "no_such_field": 1})
    assert _sizes("0.12.0", "--compilation-config", doc) == ("full/breakable", _DEFAULT_GRID)
    with pytest.raises(CgConfigError, match="no_such"):
        resolve_args(_line("0.13.0", "--compilation-config", doc))


def _modes(release: str, arch: str, *argv: str) -> tuple[str, str]:
    line = ["--engine-version", f"vllm=={release}", "--model-arch", arch, "--gpu-sm", "90",
            "--gpu-memory-gib", "80", "vllm", "serve", "m", *argv]
    capture = resolve_args(line).to_dict()["capture"]
    return capture["decode"]["backend"], capture["prefill"]["backend"]


@pytest.mark.parametrize(("arch", "argv", "in_0_12", "in_0_13"), [
    # oracle (vLLM 0.12.0 / 0.13.0 engine path, SM 90): PIECEWISE / FULL_AND_PIECEWISE
    ("DeepseekV3ForCausalLM", ("-dcp", "2", "-tp", "8"),
     ("breakable", "breakable"), ("full", "breakable")),
    # PIECEWISE / FULL_DECODE_ONLY
    ("DeepseekV3ForCausalLM", ("-dcp", "2", "-tp", "8", "-cc.cudagraph_mode=FULL_DECODE_ONLY"),
     ("breakable", "breakable"), ("full", "disabled")),
    # NONE in both (-O0: no VLLM_COMPILE, A8 first)
    ("DeepseekV3ForCausalLM", ("-dcp", "2", "-tp", "8", "-O0"),
     ("disabled", "disabled"), ("disabled", "disabled")),
    # a GQA model with tp above its 8 KV heads (16 GPUs): PIECEWISE / FULL_AND_PIECEWISE
    ("LlamaForCausalLM", ("-dcp", "2", "-tp", "16"),
     ("breakable", "breakable"), ("full", "breakable")),
])
def test_decode_context_parallel_turns_full_graphs_piecewise_in_0_12_only(
        arch: str, argv: tuple[str, ...], in_0_12: tuple[str, str],
        in_0_13: tuple[str, str]) -> None:
    """0.12.0's ``VllmConfig.__post_init__``: "Decode context parallel (DCP) is enabled, which
    is incompatible with full CUDA graphs. Overriding cudagraph_mode to PIECEWISE."; 0.13.0 has
    no such check (releases.CONTEXT_PARALLEL_PIECEWISE)."""
    assert _modes("0.12.0", arch, *argv) == in_0_12
    assert _modes("0.13.0", arch, *argv) == in_0_13


def test_prefill_context_parallel_is_refused_in_0_12_only() -> None:
    """0.12.0's ``ParallelConfig`` refuses ``-pcp 2`` (oracle: "Prefill context parallelism is
    not fully supported"); 0.13.0 answers FULL_AND_PIECEWISE."""
    with pytest.raises(CgConfigError, match=r"^--prefill-context-parallel-size: Prefill "
                                            r"context parallelism is not fully supported"):
        _modes("0.12.0", "LlamaForCausalLM", "-pcp", "2", "-tp", "2")
    assert _modes("0.13.0", "LlamaForCausalLM", "-pcp", "2", "-tp", "2") == ("full", "breakable")


def test_decode_context_parallel_on_a_gqa_model_warns_of_the_unchecked_kv_head_rules() -> None:
    """vLLM's ``ModelConfig.verify_with_parallel_config`` asserts on a GQA model's KV heads with
    DCP (oracle 0.12.0: ``-dcp 2 -tp 2`` on Llama-3-8B is refused); cgconfig does not model
    those asserts and says so."""
    line = ["--engine-version", "vllm==0.12.0", "--model-arch", "LlamaForCausalLM",
            "vllm", "serve", "m", "-dcp", "2", "-tp", "2"]
    warnings = resolve_args(line).to_dict()["warnings"]
    assert any("verify_with_parallel_config" in w and "may refuse" in w for w in warnings)


@pytest.mark.parametrize(("argv", "mode", "sizes"), [
    # oracle (vLLM 0.12.0 engine path, SM 90, 80 GiB, Llama-3-8B): cudagraph_mode, sizes
    (("-O.cudagraph_mode=PIECEWISE",), "breakable/breakable", _DEFAULT_GRID),  # PIECEWISE
    (("-O.cudagraph_mode", "PIECEWISE"), "breakable/breakable", _DEFAULT_GRID),
    (("-O.mode=0",), "disabled/disabled", []),  # NONE (compilation mode NONE)
    (("-O.cudagraph_capture_sizes=[1,2,4]",), "full/breakable", [1, 2, 4]),  # FULL_AND_PIECEWISE
    (("-O.level=3",), "full/breakable", _DEFAULT_GRID),  # FULL_AND_PIECEWISE
    (("-O", "2", "-O.cudagraph_mode=FULL"), "full/full", _DEFAULT_GRID),  # FULL at level 2
    (("-O.cudagraph_mode=PIECEWISE", "--enforce-eager"), "disabled/disabled", []),
    (("-O.cudagraph_capture_sizes=[1,2,4]", "--enforce-eager"), "disabled/disabled", []),
    (("-O", "2", "-O.cudagraph_mode=FULL", "--enforce-eager"), "disabled/disabled", []),
    (("-O.max_cudagraph_capture_size=64",), "full/breakable", [1, 2, 4, *range(8, 65, 8)]),
    (("-O2", "-O.cudagraph_capture_sizes=[8,16]"), "full/breakable", [8, 16]),
    (("-O.cudagraph_mode=FULL_DECODE_ONLY", "-cc.cudagraph_capture_sizes=[2,4]"),
     "full/disabled", [2, 4]),  # FULL_DECODE_ONLY
])
def test_dotted_o_is_a_compilation_config_key_in_0_12_only(
        argv: tuple[str, ...], mode: str, sizes: list[int]) -> None:
    """0.12.0's ``FlexibleArgumentParser.parse_args`` (``utils/argparse_utils.py``) reads
    ``-O<n>`` as the optimization level but rewrites ``-O.KEY`` to ``-cc.KEY``
    (compile_changes.DOTTED_O_IS_COMPILATION_CONFIG); from 0.13.0 ``-O.KEY=V`` is
    ``--optimization-level .KEY=V`` (oracle 0.13.0 and 0.33.0, the same 12 lines: all refused,
    ``VllmConfig`` "Input should be 0, 1, 2 or 3", the spaced form "unrecognized arguments")."""
    assert _sizes("0.12.0", *argv) == (mode, sizes)
    spaced = argv[:2] == ("-O.cudagraph_mode", "PIECEWISE")
    for release in ("0.13.0", "0.33.0"):
        with pytest.raises(CgConfigError, match=r"unrecognized arguments: PIECEWISE" if spaced
                           else r"^--optimization-level: optimization level must be one of "
                                r"0, 1, 2, 3, got '\.[a-z_]+="):
            resolve_args(_line(release, *argv))


@pytest.mark.parametrize(("argv", "mode"), [
    # oracle (vLLM 0.12.0, 0.13.0 and 0.14.1 engine path, SM 90, 80 GiB, Llama-3-8B)
    (("--compilation-config.level=0",), "disabled/disabled"),  # NONE
    (("--compilation-config", '{"level": 0}'), "disabled/disabled"),  # NONE
    (("-cc.level=0",), "disabled/disabled"),  # NONE
    (("--compilation-config.level=1",), "disabled/disabled"),  # NONE (STOCK_TORCH_COMPILE)
    (("--compilation-config.level=2",), "disabled/disabled"),  # NONE (DYNAMO_TRACE_ONCE)
    (("--compilation-config.level=3", "--compilation-config.cudagraph_mode=PIECEWISE"),
     "breakable/breakable"),  # PIECEWISE
    (("--compilation-config.level=0", "--compilation-config.mode=3"),
     "full/breakable"),  # FULL_AND_PIECEWISE: mode wins
    (("-O0", "-cc.level=3"), "disabled/disabled"),  # NONE (level 0's cudagraph_mode)
    (("--compilation-config.level=0", "--enforce-eager"), "disabled/disabled"),  # NONE
])
def test_compilation_config_level_is_the_mode_until_0_18(argv: tuple[str, ...],
                                                         mode: str) -> None:
    """``CompilationConfig.__post_init__`` (``config/compilation.py``, 0.11.2 … 0.17.1) sets
    ``mode = level`` when ``mode`` is unset (compile_changes.COMPILATION_LEVEL_KEY); 0.18.1 has
    no such field and 0.33.0 refuses the key (oracle: "validation error"). 0.11.2 (oracle, the
    same lines with ``-O.`` for ``-cc.``): ``-O.level=0`` is NONE."""
    for release in ("0.12.0", "0.13.0", "0.14.1"):
        assert _sizes(release, *argv) == (mode, [] if mode == "disabled/disabled"
                                          else _DEFAULT_GRID)
    assert _sizes("0.11.2", "-O.level=0") == ("disabled/disabled", [])
    assert _sizes("0.11.2", "-O.level=3", "-O.cudagraph_mode=FULL") == ("full/full",
                                                                        _DEFAULT_GRID)
    for release in ("0.18.1", "0.33.0"):
        with pytest.raises(CgConfigError, match=r"unknown compilation-config key 'level'"):
            resolve_args(_line(release, *argv))


def test_migrate_rewrites_dotted_o_from_0_12() -> None:
    """``cgconfig migrate``: 0.12.0's ``-O.KEY`` is ``-cc.KEY`` from 0.13.0 (which would read it
    as the optimization level '.KEY' and refuse it); ``-O <n>`` is the level in both, kept."""
    from cgconfig.migrate import migrate

    for target in ("vllm==0.13.0", "vllm==0.33.0"):
        moved = migrate(["--engine-version", "vllm==0.12.0", "vllm", "serve", "m",
                         "-O.cudagraph_mode=PIECEWISE", "-O", "2", "-O.cudagraph_capture_sizes",
                         "[1,2,4]"], target)
        assert moved.argv[-6:] == ["m", "-cc.cudagraph_mode=PIECEWISE", "-O", "2",
                                   "-cc.cudagraph_capture_sizes", "[1,2,4]"]
        assert not moved.dropped
