"""vLLM 0.10.2 (issue #37): the behaviours only it has among the supported releases, each a row
of ``cgconfig/engines/vllm/compile_changes.py``, ``capture_size_changes.py``, ``attention.py``
or ``v0_engine.py`` read in its wheel. Each expected answer is the oracle's (vLLM 0.10.2's own
engine path, ``vllm_engine_oracle.py`` with ``ORACLE_VLLM_VERSION=0.10.2`` and
``vllm_0_10.patch``, the machine and model of the line), pinned here from the lines of the dev
corpus ``vllm_cases_0.10.2.jsonl`` named by their ids; the corpus tests of
``test_vllm_versions_fidelity.py`` cover the whole engine path."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))
import compare_vllm_engine as cve

from cgconfig.line.versions import choose

_GPU = {80: 40, 89: 48, 90: 80, 100: 180}


def _answer(argv: list[str], env: dict[str, str] | None = None, sm: int = 90,
            memory: int | None = None) -> dict[str, Any]:
    case = {"argv": ["vllm", "serve", *argv], "env": env or {}, "sm": sm,
            "gpu_memory_gib": memory if memory is not None else _GPU[sm], "platform": "cuda"}
    return cve.outcome(case, choose("vllm", "0.10.2", "test"))


def _summary(got: dict[str, Any]) -> tuple[Any, ...]:
    if got["refused"]:
        return ("refused",)
    sizes = got["sizes"]
    captured = {mode: {kind: len(v) for kind, v in kinds.items()}
                for mode, kinds in got["captured"].items()}
    return got["mode"], len(sizes), sizes[-1] if sizes else None, captured


#: The GPU memory (GiB) of each pinned line's machine, as recorded.
MEMORY = {86: 141, 13: 141, 18: 48, 22: 48, 55: 48, 146: 24, 21: 80, 39: 40, 164: 40, 74: 24, 25: 48,
          127: 48, 111: 80, 73: 24, 12: 80, 170: 96, 117: 40, 8: 141, 105: 24, 1: 24, 98: 96,
          41: 40, 95: 80}

FULL_DOC = json.dumps({"full_cuda_graph": True})
EMPTY_SPLIT = json.dumps({"level": 3, "splitting_ops": []})

#: (corpus id, argv, env, SM, the oracle's mode, sizes, largest size, captured graphs by kind)
PINS: list[tuple[int, list[str], dict[str, str], int, tuple[Any, ...]]] = [
    # default PIECEWISE at level PIECEWISE; GPT-OSS's 83-size list (row 3, row 9)
    (13, ["@gpt_oss", "--max-num-seqs", "1024"], {}, 90,
     ("PIECEWISE", 83, 1024, {"PIECEWISE": {"mixed": 83}})),
    # -O1 is level 1: no default graphs (rows 1, 3)
    (18, ["@gpt_oss", "-O1", "--max-num-seqs", "64"], {}, 89, ("NONE", 0, None, {})),
    # full_cuda_graph=true is FULL; FlashAttention 2 (UNIFORM_BATCH) keeps full decode (rows 2, 16)
    (22, ["@qwen3_moe", "--compilation-config", FULL_DOC, "--max-num-batched-tokens", "1024",
          "--max-model-len", "2048"], {"VLLM_ATTENTION_BACKEND": "FLASH_ATTN"}, 89,
     ("FULL_AND_PIECEWISE", 67, 512, {"FULL": {"uniform_decode": 35},
                                      "PIECEWISE": {"mixed": 67}})),
    (55, ["@llama", "--compilation-config", FULL_DOC],
     {"VLLM_ATTENTION_BACKEND": "TRITON_ATTN_VLLM_V1"}, 89, ("FULL", 67, 512,
                                                            {"FULL": {"mixed": 67}})),
    # use_cudagraph=false is NONE (row 2)
    (146, ["@qwen3_next", "--compilation-config", json.dumps({"use_cudagraph": False}),
           "--data-parallel-size", "8", "--enable-expert-parallel", "--max-num-batched-tokens",
           "8192", "--max-model-len", "32768"], {"VLLM_ALL2ALL_BACKEND": "pplx"}, 89,
     ("NONE", 0, None, {})),
    # -O=3 is -O.level=3, one more document after the JSON one, which is dropped (row 1)
    (21, ["@deepseek_v3", "-O=3", "--compilation-config", FULL_DOC, "--max-model-len", "2048"],
     {"VLLM_ATTENTION_BACKEND": "FLASH_ATTN_VLLM_V1"}, 80,
     ("PIECEWISE", 67, 512, {"PIECEWISE": {"mixed": 67}})),
    # splitting_ops=[] turns PIECEWISE into FULL (row 11), then the FA2 downgrade (row 16)
    (39, ["@qwen3_vl", "--compilation-config", EMPTY_SPLIT],
     {"VLLM_ATTENTION_BACKEND": "TRITON_ATTN_VLLM_V1"}, 80, ("FULL", 67, 512,
                                                            {"FULL": {"mixed": 67}})),
    (164, ["@llama_1b", "--compilation-config", EMPTY_SPLIT], {}, 80,
     ("FULL_DECODE_ONLY", 67, 512, {"FULL": {"uniform_decode": 35}})),
    # level is a plain int: 7 is no PIECEWISE level, so no graphs (row 1)
    (74, ["@qwen3_vl", "--compilation-config", json.dumps({"level": 7})],
     {"VLLM_ATTENTION_BACKEND": "FLASH_ATTN"}, 89, ("NONE", 0, None, {})),
    # --cuda-graph-sizes: several values as given; a hybrid model's FULL_AND_PIECEWISE (row 6)
    (25, ["@qwen3_next", "--cuda-graph-sizes", "1", "24", "512"], {}, 89,
     ("FULL_AND_PIECEWISE", 3, 512, {"FULL": {"uniform_decode": 2},
                                     "PIECEWISE": {"mixed": 3}})),
    (127, ["@qwen3_next", "-O=3"], {}, 89,
     ("FULL_AND_PIECEWISE", 67, 512, {"FULL": {"uniform_decode": 35},
                                      "PIECEWISE": {"mixed": 67}})),
    # one value N: 1, 2, 4 and every multiple of 8 up to N (row 6)
    (111, ["@llama-2", "--compilation-config", FULL_DOC, "--max-num-seqs", "256",
           "--cuda-graph-sizes", "256"], {}, 90, ("FULL", 35, 256, {"FULL": {"mixed": 35}})),
    # explicit compilation-config sizes replace the grid (GPT-OSS's 1024 list included)
    (73, ["@gpt_oss", "--compilation-config", json.dumps({"cudagraph_capture_sizes":
                                                          [4, 8, 16, 32]})], {}, 89,
     ("PIECEWISE", 4, 32, {"PIECEWISE": {"mixed": 4}})),
    # the V0 engine: a V0 backend name (rows 7, 14)
    (86, ["@llama", "--compilation-config", json.dumps({"level": 3})],
     {"VLLM_ATTENTION_BACKEND": "XFORMERS"}, 90, ("V0", 35, 256, {})),
    # a V0 line whose backend V0's attention layers refuse: a name that is no _Backend member,
    # and an FP8 cache V1's backend cannot hold sending a V1-only backend to V0
    (12, ["@llama", "--tensor-parallel-size", "4"], {"VLLM_ATTENTION_BACKEND": "TRITON_ATTN"},
     80, ("refused",)),
    (170, ["@llama", "-O=3", "--max-num-seqs", "1024", "--kv-cache-dtype", "fp8"],
     {"VLLM_ATTENTION_BACKEND": "TREE_ATTN"}, 90, ("refused",)),
    (117, ["@qwen3_moe", "--enforce-eager", "--data-parallel-size", "4",
           "--enable-expert-parallel", "--max-num-batched-tokens", "512"],
     {"VLLM_ALL2ALL_BACKEND": "deepep_low_latency", "VLLM_ATTENTION_BACKEND": "XFORMERS"}, 80,
     ("V0", 0, None, {})),
    # refusals: speculative decoding on V0; V0's token budget below max_model_len; the
    # PIECEWISE-level assertion; FlashInfer MLA (NEVER) with full graphs; mtp is no 0.10.2
    # method; async scheduling with speculative decoding
    (8, ["@deepseek_v3", "-O1", "--speculative-config", json.dumps(
        {"method": "ngram", "num_speculative_tokens": 7, "prompt_lookup_max": 4}),
         "--kv-cache-dtype", "fp8"], {"VLLM_ATTENTION_BACKEND": "FLASHINFER_MLA"}, 90,
     ("refused",)),
    (105, ["@llama_1b", "--max-num-seqs", "512", "--max-num-batched-tokens", "2048",
           "--max-model-len", "4096", "--kv-cache-dtype", "fp8"], {}, 89, ("refused",)),
    (1, ["@deepseek_v3", "-O", "2", "-O.cudagraph_mode=PIECEWISE", "--max-num-seqs", "16",
         "--max-num-batched-tokens", "2048"], {"VLLM_ATTENTION_BACKEND": "CUTLASS_MLA"}, 89,
     ("refused",)),
    (98, ["@deepseek_v3", "-O.cudagraph_mode=FULL_DECODE_ONLY", "--max-num-batched-tokens",
          "256", "--max-model-len", "2048"], {"VLLM_ATTENTION_BACKEND": "FLASHINFER_MLA"}, 90,
     ("refused",)),
    (41, ["@deepseek_v3", "--speculative-config", json.dumps(
        {"method": "mtp", "num_speculative_tokens": 7}), "--max-num-seqs", "256"], {}, 80,
     ("refused",)),
    (95, ["@llama", "--speculative-config", json.dumps(
        {"method": "ngram", "num_speculative_tokens": 4, "prompt_lookup_max": 4}),
          "--async-scheduling"], {}, 90, ("refused",)),
]


@pytest.mark.parametrize(("cid", "argv", "env", "sm", "expected"), PINS,
                         ids=[str(p[0]) for p in PINS])
def test_oracle_answers_of_0_10_2(cid: int, argv: list[str], env: dict[str, str], sm: int,
                                  expected: tuple[Any, ...]) -> None:
    assert _summary(_answer(argv, env, sm, MEMORY[cid])) == expected


def test_pins_are_the_corpus_lines_they_name() -> None:
    """Each pinned line is its corpus line (argv and environment) or that line less flags with
    no effect on it, and the pinned answer is the one recorded for the corpus line."""
    corpus = {c["id"]: c for c in cve.load(Path(__file__).parent / "vllm_cases_0.10.2.jsonl")}
    for cid, argv, env, sm, expected in PINS:
        case = corpus[cid]
        assert case["sm"] == sm and case["env"] == env and case["gpu_memory_gib"] == MEMORY[cid]
        assert set(argv) <= set(case["argv"]), cid
        assert _summary(cve.expected(case) | ({"mode": "V0"} if expected[0] == "V0" else {})
                        ) == expected or (expected == ("refused",) and case["answer"]["error"])


def test_the_v0_plan_says_why_and_what_v0_captures() -> None:
    """A line 0.10.2 runs on its V0 engine: the plan's decision names the reason
    (``EngineArgs._is_v1_supported_oracle``) and the decode graphs V0 captures; prefill runs
    eagerly and the line's cudagraph_mode is not read."""
    from cgconfig.api import request_from_argv, resolve_request

    line = ["--gpu-sm", "90", "--gpu-memory-gib", "80", "--model-arch", "LlamaForCausalLM",
            "--engine-version", "vllm==0.10.2", "VLLM_ATTENTION_BACKEND=XFORMERS", "vllm",
            "serve", "m", "-O.cudagraph_mode=FULL_AND_PIECEWISE", "--max-num-seqs", "20"]
    plan = resolve_request(request_from_argv(line, environ={})).to_dict()
    decision = next(d for d in plan["decisions"] if d["rule"] == "vllm.v0-engine")
    assert "VLLM_ATTENTION_BACKEND=XFORMERS is not a V1 attention backend" in decision["why"]
    assert "V0 engine" in decision["why"] and "decode-only" in decision["why"]
    assert plan["capture"]["decode"]["sizes"] == [1, 2, 4, 8, 16, 24]  # up to the first ≥ 20
    assert plan["capture"]["prefill"]["backend"] == "disabled"
    assert any("V0 engine" in w for w in plan["warnings"])


def test_the_fa3_cap_refuses_full_graphs_above_992() -> None:
    """FlashAttention 3 (SM 9.0) with full graphs refuses ``max_capture_size`` above 992
    (row 10, ``FlashAttentionMetadataBuilder.__init__``); 0.11.2 keeps the line."""
    argv = ["@llama", "-O.cudagraph_mode=FULL", "--cuda-graph-sizes", "1024",
            "--max-num-batched-tokens", "8192"]
    assert _summary(_answer(argv, sm=90)) == ("refused",)
    assert not _answer(argv, sm=89)["refused"]  # FlashAttention 2: no cap


def test_deepep_high_throughput_is_piecewise_with_dp() -> None:
    """DeepEP high-throughput (``VLLM_ALL2ALL_BACKEND``) with DP > 1 turns full graphs into
    PIECEWISE (row 12, ``CudaPlatform.check_and_update_config``); 0.11.2 turns them off."""
    argv = ["@qwen3_moe", "-O.cudagraph_mode=FULL_AND_PIECEWISE", "--data-parallel-size", "2",
            "--enable-expert-parallel"]
    got = _answer(argv, {"VLLM_ALL2ALL_BACKEND": "deepep_high_throughput"})
    assert got["mode"] == "PIECEWISE"
    assert _answer(argv)["mode"] == "FULL_AND_PIECEWISE"


def _migrated(line: list[str], source: str, target: str) -> Any:
    from cgconfig.migrate import migrate

    return migrate(line, f"vllm=={target}", environ={},
                   engine_version=choose("vllm", source, "--engine-version"))


def test_migrate_from_0_10_2() -> None:
    """``level`` → ``mode``, ``full_cuda_graph`` → ``cudagraph_mode`` FULL, ``--cuda-graph-sizes
    N`` → ``--max-cudagraph-capture-size N``, ``VLLM_ATTENTION_BACKEND`` → ``--attention-backend``
    (0.13.0 on, with its own name), ``VLLM_ALL2ALL_BACKEND`` → ``--all2all-backend``; a V0 backend
    cannot be kept."""
    line = ["VLLM_ATTENTION_BACKEND=TRITON_ATTN_VLLM_V1", "VLLM_ALL2ALL_BACKEND=pplx", "vllm",
            "serve", "m", "--compilation-config", json.dumps({"level": 3, "full_cuda_graph": True}),
            "--cuda-graph-sizes", "256"]
    up = _migrated(line, "0.10.2", "0.33.0")
    assert up.argv == ["vllm", "serve", "m", "--compilation-config",
                       json.dumps({"mode": 3, "cudagraph_mode": "FULL"}),
                       "--max-cudagraph-capture-size", "256", "--attention-backend",
                       "TRITON_ATTN", "--all2all-backend", "pplx"]
    kept = _migrated(line, "0.10.2", "0.11.2")  # 0.11.2 still reads the variable
    assert kept.argv[0] == "VLLM_ATTENTION_BACKEND=TRITON_ATTN"
    v0 = _migrated(["VLLM_ATTENTION_BACKEND=XFORMERS", "vllm", "serve", "m"], "0.10.2", "0.33.0")
    assert v0.argv == ["vllm", "serve", "m"] and "V0 engine" in v0.dropped[0].why


def test_migrate_to_0_10_2_and_level_into_0_18_1() -> None:
    """Down: ``--attention-backend`` → ``VLLM_ATTENTION_BACKEND`` (a bare TRITON_ATTN is 0.10.2's
    V0 backend: TRITON_ATTN_VLLM_V1), ``mode`` → ``level``, ``--max-cudagraph-capture-size`` →
    ``--cuda-graph-sizes``; into 0.18.1 (which refuses ``level``) ``level`` becomes ``mode``."""
    down = _migrated(["vllm", "serve", "m", "--attention-backend", "TRITON_ATTN",
                      "-cc.mode=3", "--max-cudagraph-capture-size", "128"], "0.33.0", "0.10.2")
    assert down.argv == ["VLLM_ATTENTION_BACKEND=TRITON_ATTN_VLLM_V1", "vllm", "serve", "m",
                         "-O.level=3", "--cuda-graph-sizes", "128"]
    later = _migrated(["vllm", "serve", "m", "-cc.level=3"], "0.17.1", "0.18.1")
    assert later.argv == ["vllm", "serve", "m", "-cc.mode=3"]


#: Lines migrated between 0.10.2 and later releases (``vllm_migrate_0_10.json``), each asked
#: of the target release's own engine path (``vllm_engine_oracle.py --batch``,
#: ``ORACLE_VLLM_VERSION`` the target, the line's ``VAR=value`` words as the case's ``env``;
#: 10 lines on 2026-12-06): every migrated line was accepted (its ``oracle`` answer: no error).
MIGRATED: list[tuple[str, str, str, list[str]]] = [
    (r["source"], r["target"], r["line"], r["migrated"])
    for r in json.loads((Path(__file__).parent / "vllm_migrate_0_10.json").read_text())]


@pytest.mark.parametrize(("source", "target", "line", "migrated"), MIGRATED)
def test_migrated_lines_the_target_accepted(source: str, target: str, line: str,
                                            migrated: list[str]) -> None:
    import shlex

    assert _migrated(shlex.split(line), source, target).argv == migrated
    recorded = json.loads((Path(__file__).parent / "vllm_migrate_0_10.json").read_text())
    answer = next(r["oracle"] for r in recorded if r["line"] == line and r["target"] == target)
    assert answer["error"] is None and answer["cudagraph_mode"] is not None


@pytest.mark.parametrize(("env", "argv", "expected"), [
    ("FLASHINFER", ["-O.cudagraph_mode=FULL"],  # UNIFORM_SINGLE_TOKEN_DECODE: FULL downgraded
     ("FULL_AND_PIECEWISE", 51, 512, {"FULL": {"uniform_decode": 51},
                                      "PIECEWISE": {"mixed": 51}})),
    ("TRITON_ATTN", [], ("FULL_AND_PIECEWISE", 51, 512, {"FULL": {"uniform_decode": 51},
                                                         "PIECEWISE": {"mixed": 51}})),
    ("FLEX_ATTENTION", ["-O.cudagraph_mode=FULL"], ("refused",)),  # NEVER with FULL
])
def test_0_11_2_reads_vllm_attention_backend(env: str, argv: list[str],
                                             expected: tuple[Any, ...]) -> None:
    """0.11.2 (and 0.12.0) have no ``--attention-backend``: ``VLLM_ATTENTION_BACKEND`` names the
    backend (``compile_changes.ATTENTION_BACKEND_FROM_ENV``). Oracle: vLLM 0.11.2's engine path,
    SM 9.0, 80 GiB, Llama-3-8B, 3 lines asked on 2026-12-06, all answered alike."""
    case = {"argv": ["vllm", "serve", "@llama", *argv], "env": {"VLLM_ATTENTION_BACKEND": env},
            "sm": 90, "gpu_memory_gib": 80, "platform": "cuda"}
    assert _summary(cve.outcome(case, choose("vllm", "0.11.2", "test"))) == expected


@pytest.mark.parametrize(("env", "argv", "sm", "message"), [
    # ids 12 and 170 of the dev corpus, as vLLM 0.10.2's selector words them
    ("TRITON_ATTN", ["--tensor-parallel-size", "4"], 80,
     "Invalid attention backend: 'TRITON_ATTN'. Valid backends are: ['FLASH_ATTN', "),
    ("TREE_ATTN", ["--kv-cache-dtype", "fp8"], 90,
     "Invalid attention backend for cuda, with use_v1: False use_mla: False"),
])
def test_v0_refuses_a_backend_its_layers_cannot_select(env: str, argv: list[str], sm: int,
                                                       message: str) -> None:
    """On the V0 engine, ``attention/selector.py _cached_get_attn_backend`` and V0's branch of
    ``CudaPlatform.get_attn_backend_cls`` refuse the backend (``v0_engine.V0_BACKENDS``); the
    refusal names why the line is on V0."""
    from cgconfig.api import request_from_argv, resolve_request
    from cgconfig.errors import InputError

    line = ["--gpu-sm", str(sm), "--gpu-memory-gib", "80", "--model-arch", "LlamaForCausalLM",
            "--engine-version", "vllm==0.10.2", f"VLLM_ATTENTION_BACKEND={env}", "vllm",
            "serve", "m", *argv]
    with pytest.raises(InputError) as caught:
        resolve_request(request_from_argv(line, environ={}))
    assert message in str(caught.value) and "runs this line on V0" in str(caught.value)
